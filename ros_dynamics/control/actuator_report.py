# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Actuator sizing from a trajectory: efforts at every point and a report per joint.

Inverse dynamics is what actuator sizing needs (Ghosal's NPTEL notes): the
torque each motor must give along a planned motion. For a trajectory
(times, q, qd, qdd) the efforts come from one batched RNEA call; the report
gives, per joint, the peak and RMS effort, the peak speed and the peak
mechanical power |tau qd|, and lists every point where the URDF effort or
velocity limit is exceeded.
"""

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from ros_dynamics.model.robot import RobotModel


@dataclass(frozen=True)
class JointReport:
    """Sizing figures of one joint over a trajectory (N m or N, rad/s or m/s, W)."""

    joint: str
    peak_effort: float
    rms_effort: float
    peak_velocity: float
    peak_power: float
    effort_limit: float
    velocity_limit: float


@dataclass(frozen=True)
class LimitViolation:
    """One point where a joint exceeds a URDF limit; ``kind`` is 'effort' or 'velocity'."""

    joint: str
    index: int
    time: float
    kind: str
    value: float
    limit: float


def rms_over_time(values: np.ndarray, times: np.ndarray) -> np.ndarray:
    """Return the time-weighted RMS of each column (trapezoid rule); plain RMS for one instant."""
    if values.shape[0] < 2 or times[-1] <= times[0]:
        return np.sqrt(np.mean(values ** 2, axis=0))
    return np.sqrt(np.trapezoid(values ** 2, times, axis=0) / (times[-1] - times[0]))


def trajectory_efforts(robot: RobotModel, times, q, qd, qdd, friction: bool = False,
                       inverse_dynamics: Optional[Callable] = None) -> tuple:
    """
    Return (efforts (N, dof), [JointReport], [LimitViolation]) for a sampled trajectory.

    ``times`` (N,) in s must be finite and non-decreasing; q, qd, qdd are
    (N, dof) in ``robot.joint_names`` order. friction: add the model's joint
    friction at qd (``robot.inverse_dynamics(..., friction=True)``), so that
    the efforts, the report and the effort-limit check are the torque the
    actuators must deliver, not the rigid-body torque alone.
    ``inverse_dynamics(q, qd, qdd)`` computes the rigid-body efforts (default
    ``robot.inverse_dynamics``; e.g. ``scale_out.trajectory_torques`` bound
    to a scheduler); the friction is added to what it returns.
    """
    times = np.asarray(times, dtype=float)
    q, qd, qdd = (np.atleast_2d(np.asarray(x, dtype=float)) for x in (q, qd, qdd))
    if times.ndim != 1 or times.shape[0] != q.shape[0]:
        raise ValueError(f'times: expected {q.shape[0]} values, one per point, '
                         f'got shape {times.shape}')
    if not np.all(np.isfinite(times)) or np.any(np.diff(times) < 0.0):
        raise ValueError('times: must be finite and non-decreasing')
    if inverse_dynamics is None:
        efforts = robot.inverse_dynamics(q, qd, qdd, friction=friction)
    else:
        efforts = inverse_dynamics(q, qd, qdd)
        if friction:
            efforts = efforts + robot.friction_torques(qd)
    power = np.abs(efforts * qd)
    rms = rms_over_time(efforts, times)
    reports = [JointReport(name, float(np.max(np.abs(efforts[:, k]))), float(rms[k]),
                           float(np.max(np.abs(qd[:, k]))), float(np.max(power[:, k])),
                           float(robot.effort_limit[k]), float(robot.velocity_limit[k]))
               for k, name in enumerate(robot.joint_names)]
    violations = []
    for kind, values, limits in (('effort', efforts, robot.effort_limit),
                                 ('velocity', qd, robot.velocity_limit)):
        for index, k in zip(*np.nonzero(np.abs(values) > limits)):
            violations.append(LimitViolation(robot.joint_names[k], int(index), float(times[index]),
                                             kind, float(values[index, k]), float(limits[k])))
    violations.sort(key=lambda v: (v.index, v.joint, v.kind))
    return efforts, reports, violations
