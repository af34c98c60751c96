# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The simulator node's schedule without ROS: pacing, blocks of steps, the command timeout, lockstep.

``SimRunner`` drives a ``Simulator`` (simulation.py) the way ``simulator_node`` serves it,
through an injected clock (``WallClock``: ``time.monotonic``) and callbacks (``Outputs``:
publish the state, publish ``/clock``, count the participants of lockstep, log, report a
fault). It imports no rclpy, so its timing is tested with a fake clock
(test/test_sim_runner.py); the node (nodes/simulator_node.py) turns messages into its calls.

Pacing: with ``real_time_factor`` > 0, each block's end is held to the absolute deadline
anchor_wall + (t - anchor_sim) / real_time_factor (no drift; re-anchored when more than
MAX_LAG s behind, so a stall is not raced back); 0 runs as fast as possible.

Blocks: the physics advances in blocks of steps, each one compiled call
(``Simulator.step(n)``, the same kernel and numerics as ``n`` single steps), up to the next
thing that is due: a ``joint_states`` or ``/clock`` publish on the sim-time grid
(``publish_rate``, ``clock_period``) when paced at real time or slower; when faster
(``real_time_factor`` 0 or > 1), about one publish period of wall time (the shorter of
``1 / publish_rate`` and ``clock_period``, from the last blocks' step time, at most
MAX_BLOCK_STEPS steps). A block also ends where the command timeout drops the effort, so the
applied efforts, and hence the trajectory, are those of a step-by-step loop given the same
commands at the same steps. Commands, wrenches and service calls take effect at the next
block boundary: when paced, the step one step at a time would apply them at for a command
that answers the last published state (the blocks end where the states go out); otherwise at
most one block later.

/clock goes out every ``clock_period``, not after every step: ``rclpy``'s and ``rclcpp``'s time
sources subscribe to it with depth 1 (best effort, keep last), so of a burst only the newest
message is read, and rcl drops a sim-time timer's missed periods (Gazebo's ROS 2 clock plugin
makes the same trade with its ``publish_rate``). ``clock_period`` 0: after every step.

Command timeout: the applied effort drops to zero once no command came for
``command_timeout`` s of sim time (0: never), at the step a step-by-step loop would drop it.

Lockstep (the software-in-the-loop scheme of PX4 and Gazebo): the state goes out (``/clock``
first) once per ``control_period`` of sim time, as the question; the simulation advances that
period only when ``lockstep_answers`` commands have arrived after it, so sim time stays exact
and a closed loop of deterministic controllers is reproducible. Each state is asked once (a
second copy would draw a second answer, taken for the next period's); it is asked again only
when a new participant appeared (a controller started late), or once after half of
``lockstep_timeout`` s of wall time while no period has advanced since the model was loaded
(a reset too) or the simulation resumed: discovery matches the two ends of a topic apart, so
the first question can go out once the simulator has matched a controller's subscription and
be dropped by that reader, which has not matched the simulator yet. No answer within
``lockstep_timeout`` of the last asking pauses the simulation with the reason.
"""

from dataclasses import dataclass
import threading
import time
from typing import Callable, Optional

import numpy as np
from ros_dynamics.simulation.schedule import Schedule
from ros_dynamics.simulation.simulator import SimulationDiverged, Simulator

PAUSED_PUBLISH_PERIOD = 0.1   # s of wall time between joint_states while paused
MAX_BLOCK_STEPS = 250         # steps per compiled block at most (faster than real time)
MAX_LAG = 0.5                 # s behind the deadline after which the pacing re-anchors
LOCKSTEP_POLL = 0.05          # s of wall time between checks while waiting for the answers
YIELD_STEPS = 20              # as fast as possible: let other threads run every this many steps


def next_time(due: float, period: float, now: float) -> float:
    """Return the next due time of a periodic publish (s): a period on, or from ``now`` if late."""
    due += period
    return due if due > now else now + period


class WallClock:
    """The clock the node runs on: ``time.monotonic`` seconds, sleeping and waiting for real."""

    def now(self) -> float:
        """Return monotonic wall time (s)."""
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        """Sleep ``seconds`` s of wall time (0: yield the GIL)."""
        time.sleep(seconds)

    def wait(self, event: threading.Event, seconds: float) -> bool:
        """Wait up to ``seconds`` s for ``event``; return whether it is set."""
        return event.wait(seconds)


@dataclass
class Outputs:
    """
    What the runner calls (under its lock).

    ``publish_state()`` the state (``runner.sim``; zero effort while ``runner.holding``);
    ``publish_clock()`` /clock at ``runner.sim.t``; ``participants()`` the number of
    controllers' endpoints (lockstep asks again when it grows); ``log(level, text)`` with level
    'info', 'warning' or 'error'; ``fault()`` after a pause for a fault (the node's
    diagnostics); ``step_time(seconds)`` the mean wall time of a step of each block.
    """

    publish_state: Callable[[], None]
    publish_clock: Callable[[], None] = lambda: None
    participants: Callable[[], int] = lambda: 0
    log: Callable[[str, str], None] = lambda level, text: None
    fault: Callable[[], None] = lambda: None
    step_time: Callable[[float], None] = lambda seconds: None


class SimRunner:
    """
    Step a Simulator in blocks, paced, with the command timeout and lockstep (see the module).

    Every attribute and method but ``loop`` and ``stop`` is used under ``lock`` (an RLock the
    caller holds around its own changes too): ``sim`` (None until ``load``), ``paused``,
    ``fault`` (the reason of a pause for a fault, '' if none), ``holding`` (the joints held
    until the first command), ``steps`` (taken), ``version`` (counts every change of the
    state), ``answers`` (lockstep: commands since the question).
    """

    def __init__(self, schedule: Schedule, outputs: Outputs, clock: Optional[WallClock] = None,
                 paused: bool = False) -> None:
        """Run ``schedule`` with ``outputs`` on ``clock`` (a ``WallClock`` if None)."""
        self.schedule = schedule
        self.outputs = outputs
        self.clock = clock if clock is not None else WallClock()
        self.lock = threading.RLock()
        self.sim: Optional[Simulator] = None
        self.paused = paused
        self.fault = ''
        self.holding = False
        self.steps = 0
        self.version = 0
        self.answers = 0
        # lockstep: (version, wall time, participants, asked again)
        self.question: Optional[tuple] = None
        self._advanced = False   # lockstep: a period advanced since the load or the resume
        self.wrenches: dict = {}
        self._effort = np.zeros(0)
        self._effort_applied = False
        self._last_command_time: Optional[float] = None
        self._timeout_logged = False
        self._wake = threading.Event()           # something changed: the loop looks again
        self._stop = threading.Event()
        self._answered = threading.Event()       # lockstep: every expected command arrived
        rate = 1.0 / schedule.publish_rate
        self._publish_every = max(1, int(round(rate / schedule.dt)))
        self._clock_every = max(1, int(round(schedule.clock_period / schedule.dt)))
        self._block_wall = min([rate] + ([schedule.clock_period] if schedule.publish_clock
                                         else []))
        self._step_wall = schedule.dt            # wall s per step, over the last blocks
        self._next_wall_publish = 0.0
        self._next_wall_clock = 0.0

    # ----------------------------------------------------------------- inputs
    def load(self, sim: Simulator) -> None:
        """Simulate ``sim`` from its state, with no input and no fault."""
        with self.lock:
            self.sim = sim
            self.clear_inputs()
            self.fault = ''
            self.version += 1
            self._advanced = False
        self.wake()

    def clear_inputs(self) -> None:
        """Drop every command and wrench."""
        dof = self.sim.robot.dof if self.sim is not None else 0
        self._effort = np.zeros(dof)
        self._effort_applied = False
        self.wrenches = {}
        self._last_command_time = None
        self._timeout_logged = False
        self.holding = self.schedule.hold_until_command
        if self.sim is not None:
            self.sim.set_effort(self._effort)
            self.sim.set_wrenches(None)

    def accept_effort(self, effort: np.ndarray) -> None:
        """Take an effort command (nv,): applied from the next block; one answer in lockstep."""
        self.answers += 1
        if self.answers >= self.schedule.lockstep_answers:
            self._answered.set()
        self._effort = effort
        self._effort_applied = False
        self._last_command_time = self.sim.t
        if self._timeout_logged:
            self.outputs.log('info', 'commands resumed')
        self._timeout_logged = False
        if self.holding:
            self.holding = False
            self.outputs.log('info', 'first command received: joints released')

    def current_effort(self) -> np.ndarray:
        """Return a copy of the commanded effort (nv,), zero once it timed out."""
        return self._effort.copy() if self.command_fresh() else np.zeros(self.sim.robot.dof)

    def set_wrench(self, link: str, wrench: np.ndarray) -> None:
        """Apply ``wrench`` (6,) on ``link`` until replaced; a zero one removes it."""
        if np.any(wrench != 0.0):
            self.wrenches[link] = wrench
        else:
            self.wrenches.pop(link, None)
        self.sim.set_wrenches(self.wrenches)

    def command_fresh(self) -> bool:
        """Return whether a command came within ``command_timeout`` s of sim time."""
        if self._last_command_time is None:
            return False
        return (self.schedule.command_timeout == 0
                or self.sim.t - self._last_command_time <= self.schedule.command_timeout)

    @property
    def timed_out(self) -> bool:
        """Whether the commands stopped for longer than ``command_timeout``."""
        return self._last_command_time is not None and not self.command_fresh()

    def _update_effort(self) -> None:
        """Hand the simulator the current command, or zero once the commands timed out."""
        if self.command_fresh():
            if not self._effort_applied:
                self.sim.set_effort(self._effort)
                self._effort_applied = True
            return
        if self._last_command_time is not None and not self._timeout_logged:
            self._timeout_logged = True
            self.sim.set_effort(np.zeros(self.sim.robot.dof))
            self._effort_applied = False
            self.outputs.log('warning', f'no command for {self.schedule.command_timeout} s of '
                             'sim time: applied effort dropped to zero')

    # ----------------------------------------------------------------- steps
    def advance(self, count: int = 1) -> bool:
        """
        Take ``count`` steps, as ``count`` single steps would; False on a failure.

        The steps run as compiled blocks (``Simulator.step(n)``), split only where the
        applied effort changes: where the command times out. On a failure the steps before it
        count, the simulation pauses with the reason, and the state stays at the last good step.
        """
        sim = self.sim
        dt = sim.dt
        done = 0
        start = self.clock.now()
        while done < count:
            block = count - done
            if self.holding:
                for _ in range(block):
                    sim.t += dt    # brakes on: time runs, the joints stay where they are
            else:
                self._update_effort()
                block = self.fresh_steps(block)
                before = sim.t
                try:
                    sim.step(block)
                except SimulationDiverged as error:
                    taken = int(round((sim.t - before) / dt))   # the good steps before it
                    self._count_steps(done + taken, start)
                    self.pause_for(f'simulation diverged: {error}')
                    return False
            done += block
        self._count_steps(count, start)
        return True

    def _count_steps(self, count: int, start: float) -> None:
        if count > 0:
            per_step = (self.clock.now() - start) / count
            self.outputs.step_time(per_step)
            self._step_wall += 0.25 * (per_step - self._step_wall)
        self.steps += count
        self.version += count

    def fresh_steps(self, limit: int) -> int:
        """
        Return how many of the next ``limit`` steps the applied command stays fresh (>= 1).

        ``command_fresh`` before each step, with the times the steps will reach (sim time adds
        ``dt`` per step, in the same floating point as the compiled step), so a block ends
        exactly where one step at a time would drop the effort. Called when the effort for the
        next step is already set.
        """
        last, timeout = self._last_command_time, self.schedule.command_timeout
        if last is None or timeout == 0 or not self._effort_applied:
            return limit     # no command, never times out, or already timed out
        t, dt = self.sim.t, self.sim.dt
        if (t - last) + (limit + 1) * dt <= timeout:
            return limit     # fresh throughout, by a whole step of margin for the rounding
        count = 1            # the next step: fresh (its effort was just applied)
        t += dt
        while count < limit and t - last <= timeout:
            count += 1
            t += dt
        return count

    def block_steps(self, limit: Optional[int] = None) -> int:
        """
        Return how many steps the next block takes (the module's "Blocks"), at most ``limit``.

        Paced at real time or slower: up to the next joint_states or /clock publish on the
        sim-time grid. Faster: about the publish period of wall time at the measured (or
        paced) time per step, 1 to MAX_BLOCK_STEPS.
        """
        schedule = self.schedule
        if schedule.wall_rate:
            rtf = schedule.real_time_factor
            per_step = self._step_wall if rtf == 0.0 else max(self._step_wall,
                                                              schedule.dt / rtf)
            steps = (min(MAX_BLOCK_STEPS, max(1, int(self._block_wall / per_step)))
                     if per_step > 0 else MAX_BLOCK_STEPS)
        else:
            steps = self._publish_every - self.steps % self._publish_every
            if schedule.publish_clock:
                steps = min(steps, self._clock_every - self.steps % self._clock_every)
        return steps if limit is None else min(steps, limit)

    def pause_for(self, reason: str) -> None:
        """Pause for a fault: log the reason, report it."""
        self.paused = True
        self.fault = reason
        self.outputs.log('error', f'{reason}; simulation paused (call ~/reset or ~/set_state, '
                         'then ~/pause false)')
        self.outputs.fault()

    def publish_due(self, clock: bool = False) -> None:
        """
        Publish what is due after a block; ``clock``: /clock in any case.

        Up to real time, on the sim-time grid the blocks end on: /clock every
        ``clock_period``, joint_states every ``1 / publish_rate``. Faster, each at most once
        per its period of wall time, as a listener sees them.
        """
        schedule = self.schedule
        if schedule.wall_rate:
            now = self.clock.now()
            if schedule.publish_clock and (clock or now >= self._next_wall_clock):
                self._next_wall_clock = next_time(self._next_wall_clock, schedule.clock_period,
                                                  now)
                self.outputs.publish_clock()
            if now >= self._next_wall_publish:
                self._next_wall_publish = next_time(self._next_wall_publish,
                                                    1.0 / schedule.publish_rate, now)
                self.outputs.publish_state()
            return
        if schedule.publish_clock and (clock or self.steps % self._clock_every == 0):
            self.outputs.publish_clock()
        if self.steps % self._publish_every == 0:
            self.outputs.publish_state()

    # ----------------------------------------------------------------- services
    def set_paused(self, paused: bool) -> None:
        """Pause, or resume (clearing the fault)."""
        self.paused = bool(paused)
        if not self.paused:
            self.fault = ''
            self._advanced = False
        self.wake()

    def step(self, count: int) -> int:
        """
        Take ``count`` steps while paused (``~/step``); return how many were taken.

        RuntimeError when running or paused by a fault, ValueError for ``count`` < 1. The
        last state's /clock goes out in any case (in lockstep: the state is the question).
        """
        if not self.paused:
            raise RuntimeError('~/step works only while paused (call ~/pause true)')
        if self.fault:
            raise RuntimeError(f'paused by a fault: {self.fault} (call ~/reset or '
                               '~/set_state first)')
        if count < 1:
            raise ValueError(f'steps must be >= 1, got {count}')
        first = self.steps
        if self.schedule.lockstep:
            self.advance(count)
        else:
            while self.steps - first < count:
                if not self.advance(self.block_steps(count - (self.steps - first))):
                    break
                self.publish_due(clock=self.steps - first == count)
        done = self.steps - first
        if self.schedule.lockstep and done:
            self.ask()
        return done

    def state_set(self) -> str:
        """After a service set the state: clear the fault, publish the state; return the fault."""
        fault, self.fault = self.fault, ''
        self.version += 1
        if self.schedule.lockstep:
            self.ask()
        else:
            self.outputs.publish_state()
        return fault

    # ----------------------------------------------------------------- the loop
    def wake(self) -> None:
        """Have the loop look again (an input or a service changed something)."""
        self._wake.set()

    def stop(self) -> None:
        """End ``loop``."""
        self._stop.set()
        self._wake.set()

    @property
    def stopping(self) -> bool:
        """Whether ``stop`` was called."""
        return self._stop.is_set()

    def loop(self) -> None:
        """Step, publish and pace until ``stop`` (the physics thread)."""
        anchor = None          # (wall time, sim time) the deadlines count from
        last_paused_publish = 0.0
        next_yield = 0
        rtf = self.schedule.real_time_factor
        while not self._stop.is_set():
            if self.schedule.lockstep:
                running, ok, sim_time = self.lockstep_period()
            else:
                running, ok, sim_time = self.run_block()
            if not running:
                anchor = None
                last_paused_publish = self._idle(last_paused_publish)
                continue
            if not ok:
                continue
            if rtf > 0:
                anchor = self.pace(anchor, sim_time)
            elif self.steps >= next_yield:
                next_yield = self.steps + YIELD_STEPS
                self.clock.sleep(0)            # let the executor threads take the GIL

    def run_block(self) -> tuple:
        """Take one block and publish what is due; return (running, ok, sim time)."""
        with self.lock:     # one acquisition per block: check, step, publish
            if self.sim is None or self.paused:
                return False, False, 0.0
            ok = self.advance(self.block_steps())
            if ok:
                self.publish_due()
            return True, ok, self.sim.t

    def pace(self, anchor: Optional[tuple], sim_time: float) -> tuple:
        """Sleep until sim time ``sim_time``'s deadline from ``anchor``; return the anchor."""
        now = self.clock.now()
        if anchor is None:
            anchor = (now, sim_time)
        deadline = anchor[0] + (sim_time - anchor[1]) / self.schedule.real_time_factor
        if deadline > now:
            self.clock.sleep(deadline - now)
        elif now - deadline > MAX_LAG:
            anchor = (now, sim_time)   # far behind: do not race to catch up
        return anchor

    def _idle(self, last_paused_publish: float) -> float:
        """Paused or no model: ask again if due (lockstep), else the state now and then."""
        now = self.clock.now()
        if self.schedule.lockstep:
            with self.lock:    # each state is one question: asked again only if due
                if self.sim is not None and self.question_due(now):
                    self.ask()
        elif self.sim is not None and now - last_paused_publish > PAUSED_PUBLISH_PERIOD:
            last_paused_publish = now
            with self.lock:
                self.outputs.publish_state()
        self.clock.wait(self._wake, PAUSED_PUBLISH_PERIOD)
        self._wake.clear()
        return last_paused_publish

    def lockstep_period(self) -> tuple:
        """
        Ask the question of one control period, wait for the answers, advance the period.

        Returns (running, ok, sim time). No answer within ``lockstep_timeout`` s of wall time
        pauses the simulation with the reason (a controller that died or never subscribed).
        """
        schedule = self.schedule
        with self.lock:
            if self.sim is None or self.paused:
                return False, False, 0.0
            if self.question_due(self.clock.now()):
                self.ask()
            version, sim_time = self.version, self.sim.t
        while not self.clock.wait(self._answered, LOCKSTEP_POLL):
            if self._stop.is_set() or self.paused:
                return False, False, sim_time
            with self.lock:
                if self.version != version:
                    return False, False, sim_time       # reset or replaced while waiting
                now = self.clock.now()
                if self.question_due(now, expire=False):
                    self.ask()                          # a controller started meanwhile
                elif self.first_question_lost(now):
                    self.outputs.log('info', f'lockstep: no command yet for the first state (t = '
                                     f'{sim_time:.6f} s) after {now - self.question[1]:.3g} s of '
                                     'wall time: asked again')
                    self.ask(again=True)
                elif now >= self.question[1] + schedule.lockstep_timeout:
                    self.question = None                # expired: asked again on resume
                    self.pause_for(
                        f'lockstep: {self.answers} of {schedule.lockstep_answers} commands for '
                        f'the state at t = {sim_time:.6f} s within {schedule.lockstep_timeout} '
                        's of wall time (is every controller running and subscribed to '
                        'joint_states?)')
                    return False, False, sim_time
        with self.lock:
            if self.sim is None or self.paused or self.version != version:
                return False, False, sim_time   # paused, reset or replaced while waiting
            ok = self.advance(schedule.period_steps)   # the commands cannot change meanwhile
            self._advanced = True
            return True, ok, self.sim.t

    def ask(self, again: bool = False) -> None:
        """
        Lockstep: publish the current state (/clock first) as the question to answer.

        Each state is published once, so that every command that arrives after it answers
        it: a second copy would draw a second answer, taken for the next period's (the loop
        would then run one period behind, and differently from run to run). ``again``: the
        first question of a run asked once more (``first_question_lost``).
        """
        self.answers = 0
        self._answered.clear()
        if self.schedule.publish_clock:
            self.outputs.publish_clock()
        self.outputs.publish_state()
        self.question = (self.version, self.clock.now(), self.outputs.participants(), again)

    def first_question_lost(self, now: float) -> bool:
        """
        Lockstep: whether to ask the first question of a run again (at half the timeout).

        No period advanced since the load (or reset) or the resume, the question was asked
        once and is unanswered after half of ``lockstep_timeout``: it may have been dropped by
        a controller's reader that had not matched the simulator yet.
        """
        question = self.question
        return (not self._advanced and not question[3]
                and self.answers == 0
                and now >= question[1] + 0.5 * self.schedule.lockstep_timeout)

    def question_due(self, now: float, expire: bool = True) -> bool:
        """Lockstep: whether the state must be asked (again): new, a new participant, expired."""
        question = self.question
        if question is None or question[0] != self.version:
            return True
        if self.answers >= self.schedule.lockstep_answers:
            return False
        return (self.outputs.participants() > question[2]
                or (expire and now >= question[1] + self.schedule.lockstep_timeout))
