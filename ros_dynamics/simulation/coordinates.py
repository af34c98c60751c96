# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The simulator's coordinates: q (nq,) on the configuration manifold, qd and tau (nv,).

Limit stops, damping and friction act per velocity coordinate (nv); a limit
stop reads the position of its one-dof joint, which sits at another index
of q once a floating, planar or ball joint precedes it (docs/conventions.md:
Pinocchio's layout). ``LimitCoordinates`` holds that map and the limits per
velocity coordinate (the stops' torques and energy are the compiled
step's law: joint_torques.add_stop_torques and spring_energy);
``validated_positions`` checks and normalises a q given by a user (a
quaternion or planar (cos, sin) is scaled to unit length, a zero one
refused).
"""

import numpy as np
from ros_dynamics.model.robot import RobotModel
from ros_dynamics.runtime.batches import as_array


class LimitCoordinates:
    """The position limits per velocity coordinate of a model, and where their q lives."""

    def __init__(self, robot: RobotModel) -> None:
        """
        Map each velocity coordinate to its one-dof joint's position coordinate.

        ``qindex`` (nv,): that index of q, -1 for the coordinates of a
        multi-dof joint (no limits); ``lower``, ``upper`` (nv,) in rad or m,
        -inf and +inf where there is none.
        """
        self.nq, self.nv = robot.nq, robot.nv
        self.qindex = np.full(robot.nv, -1)
        for joint in robot.joint_names:
            q_part, v_part = robot.q_slice(joint), robot.v_slice(joint)
            if v_part.stop - v_part.start == 1:
                self.qindex[v_part.start] = q_part.start
        self.one_dof = self.qindex >= 0
        self.positions_of = self.qindex[self.one_dof]
        self.lower, self.upper = np.full(robot.nv, -np.inf), np.full(robot.nv, np.inf)
        for bound, values in ((self.lower, robot.lower), (self.upper, robot.upper)):
            bound[self.one_dof] = values[self.positions_of]
            bound[np.isnan(bound)] = -np.inf if bound is self.lower else np.inf

    def clamped_neutral(self, robot: RobotModel) -> np.ndarray:
        """Return the neutral configuration (nq,) with the one-dof joints clamped into limits."""
        q = robot.neutral_configuration()
        q[self.positions_of] = np.clip(q[self.positions_of], self.lower[self.one_dof],
                                       self.upper[self.one_dof])
        return q


def per_velocity_coordinate(robot: RobotModel):
    """
    Return f(values) mapping per-joint values (joints, ...) to per-velocity-coordinate (nv, ...).

    The actuator terms (``robot.actuators``: viscous, Coulomb, offset, sigmoid)
    have one row per independent joint; a joint of several coordinates
    (floating, planar, ball: zero terms, the URDF's are ignored there) repeats
    its row on each. A copy either way.
    """
    sizes = [robot.v_slice(joint).stop - robot.v_slice(joint).start
             for joint in robot.joint_names]
    return lambda values: np.repeat(np.asarray(values, dtype=float), sizes, axis=0)


def validated_positions(robot: RobotModel, value, name: str) -> np.ndarray:
    """
    Return ``value`` as a finite q (nq,), its quaternions and planar (cos, sin) normalised.

    ValueError names ``name``, nq and the layout of q for a model with
    floating, planar or ball joints, or a zero quaternion.
    """
    array = as_array(value, name)
    if array.shape != (robot.nq,) or not np.all(np.isfinite(array)):
        layout = '' if robot.nq == robot.nv else (
            f' (nq = {robot.nq}: quaternions (x, y, z, w), planar (x, y, cos, sin); '
            'docs/conventions.md)')
        raise ValueError(f'{name}: expected {robot.nq} finite positions of joints '
                         f'{list(robot.joint_names)}{layout}, got {value!r}')
    if robot.nq == robot.nv:
        return array.copy()
    try:
        return robot.normalize(array)
    except ValueError as error:
        raise ValueError(f'{name}: {error}') from None
