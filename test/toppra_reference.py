# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The reference for time-optimal parameterization: toppra 0.6 with Pinocchio's RNEA.

Test and benchmark only. toppra (Pham and Pham, IEEE T-RO 2018) with its
joint velocity constraint and its joint torque constraint fed by
``pinocchio.rnea`` (interpolation discretization), on toppra's own not-a-knot
``SplineInterpolator`` over the same waypoints and path parameter as ours,
seidel solver, constant-acceleration parametrizer (the same time law as ours).
"""

import logging
from typing import NamedTuple, Optional

import numpy as np
import pinocchio as pin
import toppra
import toppra.algorithm
import toppra.constraint

logging.getLogger('toppra').setLevel(logging.ERROR)


class ToppraResult(NamedTuple):
    """toppra's duration (s; None when it fails), its trajectory and its path."""

    duration: Optional[float]
    trajectory: object
    path: object


def toppra_time(urdf: str, waypoints: np.ndarray, path_parameter: np.ndarray,
                velocity: np.ndarray, effort: np.ndarray, grid_points: Optional[int] = 1000,
                acceleration: Optional[np.ndarray] = None) -> ToppraResult:
    """
    Time the spline through waypoints with toppra + Pinocchio RNEA; limits (dof,).

    grid_points None: toppra's own grid (its ``gridpoints=None`` default).
    """
    model = pin.buildModelFromUrdf(urdf)
    data = model.createData()

    def inverse_dynamics(q, qd, qdd):
        return pin.rnea(model, data, q, qd, qdd)

    path = toppra.SplineInterpolator(path_parameter, waypoints)
    constraints = [
        toppra.constraint.JointVelocityConstraint(np.stack((-velocity, velocity), axis=1)),
        toppra.constraint.JointTorqueConstraint(
            inverse_dynamics, np.stack((-effort, effort), axis=1), np.zeros(len(effort)),
            discretization_scheme=toppra.constraint.DiscretizationType.Interpolation)]
    if acceleration is not None:
        constraints.append(toppra.constraint.JointAccelerationConstraint(
            np.stack((-acceleration, acceleration), axis=1),
            discretization_scheme=toppra.constraint.DiscretizationType.Interpolation))
    grid = (None if grid_points is None
            else np.linspace(path_parameter[0], path_parameter[-1], grid_points))
    algorithm = toppra.algorithm.TOPPRA(constraints, path, gridpoints=grid,
                                        solver_wrapper='seidel',
                                        parametrizer='ParametrizeConstAccel')
    trajectory = algorithm.compute_trajectory(0.0, 0.0)
    if trajectory is None:
        return ToppraResult(None, None, path)
    return ToppraResult(float(trajectory.duration), trajectory, path)


def worst_ratios(robot, trajectory, velocity: np.ndarray, effort: np.ndarray,
                 rate: float = 1000.0, per_interval: int = 10) -> dict:
    """Return toppra's worst |value| / limit at dense samples, with our inverse dynamics."""
    count = max(int(np.ceil(trajectory.duration * rate)), per_interval * 1000)
    t = np.linspace(0.0, trajectory.duration, count + 1)
    q, qd, qdd = trajectory(t), trajectory(t, 1), trajectory(t, 2)
    tau = robot.inverse_dynamics(q, qd, qdd)
    return {'velocity': float(np.max(np.abs(qd) / velocity)),
            'effort': float(np.max(np.abs(tau) / effort))}
