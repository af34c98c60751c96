# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The simulator node's timing parameters, checked: what ``SimRunner`` (runner.py) runs on.

``Schedule`` holds them under the node's parameter names; ``ScheduleError`` names every one
out of range.
"""

from dataclasses import dataclass
import math


@dataclass(frozen=True)
class Schedule:
    """
    The simulator node's timing parameters, under their parameter names.

    ``dt`` (s) the step; ``real_time_factor`` sim s per wall s (0: as fast as possible);
    ``publish_rate`` joint_states (Hz); ``publish_clock`` and ``clock_period`` (s, 0: every
    step) /clock; ``command_timeout`` (s of sim time, 0: never); ``hold_until_command``;
    ``lockstep`` with ``control_period`` (s, a multiple of dt, 0: every step),
    ``lockstep_answers`` and ``lockstep_timeout`` (s of wall time). Raises ``ScheduleError``
    (a ValueError) naming every parameter out of range.
    """

    dt: float = 0.001
    real_time_factor: float = 1.0
    publish_rate: float = 500.0
    publish_clock: bool = True
    clock_period: float = 0.001
    command_timeout: float = 0.5
    hold_until_command: bool = False
    lockstep: bool = False
    control_period: float = 0.0
    lockstep_answers: int = 1
    lockstep_timeout: float = 1.0

    def __post_init__(self) -> None:
        """Check the ranges (ScheduleError with every problem)."""
        problems = self.problems()
        if problems:
            raise ScheduleError(problems)

    def problems(self) -> list:
        """Return what is out of range, each naming its parameter."""
        problems = []
        dt, rtf, rate = self.dt, self.real_time_factor, self.publish_rate
        if not (math.isfinite(dt) and dt > 0):
            problems.append(f'dt must be > 0 s, got {dt}')
        if not (math.isfinite(rtf) and rtf >= 0):
            problems.append(f'real_time_factor must be >= 0 (0 = as fast as possible), got {rtf}')
        if not (math.isfinite(rate) and rate > 0):
            problems.append(f'publish_rate must be > 0 Hz, got {rate}')
        if not (math.isfinite(self.clock_period) and self.clock_period >= 0):
            problems.append(f'clock_period must be >= 0 s (0 = every step), '
                            f'got {self.clock_period}')
        if not (self.command_timeout >= 0):
            problems.append(f'command_timeout must be >= 0 s (0 = never), '
                            f'got {self.command_timeout}')
        steps = self.control_period / dt if dt > 0 and self.control_period > 0 else 1.0
        if not (math.isfinite(steps) and round(steps) >= 1
                and abs(steps - round(steps)) < 1e-9 * steps):
            problems.append(f'control_period must be 0 (every step) or a multiple of dt '
                            f'({dt} s), got {self.control_period}')
        if self.lockstep_answers < 1:
            problems.append(f'lockstep_answers must be >= 1, got {self.lockstep_answers}')
        if not (math.isfinite(self.lockstep_timeout) and self.lockstep_timeout > 0):
            problems.append(f'lockstep_timeout must be > 0 s, got {self.lockstep_timeout}')
        return problems

    @property
    def period_steps(self) -> int:
        """Lockstep: steps per control period (>= 1)."""
        return int(round(self.control_period / self.dt)) if self.control_period > 0 else 1

    @property
    def wall_rate(self) -> bool:
        """Whether publishes go by wall time (faster than real time: factor 0 or > 1)."""
        return self.real_time_factor == 0.0 or self.real_time_factor > 1.0


class ScheduleError(ValueError):
    """Schedule parameters out of range; ``problems`` lists them, each naming its parameter."""

    def __init__(self, problems: list) -> None:
        """Keep the list; the message joins it."""
        super().__init__('; '.join(problems))
        self.problems = list(problems)
