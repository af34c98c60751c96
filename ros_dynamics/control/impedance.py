# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Control laws built on the model: computed torque and Cartesian impedance.

The controller nodes only translate messages to these calls, so the same
laws run offline (with ``ros_dynamics.simulation.simulator``) and in ROS.

* Computed torque (joint space, Craig ch. 10): tau = M(q) (qdd_ref +
  Kd (qd_ref - qd) + Kp (q_ref - q)) + C(q, qd) qd + g(q), evaluated as one
  RNEA call with the commanded acceleration.
* Cartesian impedance on operational-space dynamics (Khatib 1987):
  tau = J^T (Lambda (Kp e + Kd (xd_ref - xd)) + mu + p) + N^T tau_null, with
  e the pose error (position difference and the rotation vector of
  R_ref R^T) and tau_null = g(q) - D qd + K_posture (q_rest - q): with the
  gravity torques in tau_null, J^T p + N^T g = g, so gravity is compensated in
  the null space too and the arm holds a redundant posture.
"""

from typing import Optional, Sequence

import numpy as np

from ros_dynamics.model.robot import RobotModel
from ros_dynamics.runtime.batches import as_array, finite_array


def wrap_angles(delta: np.ndarray, continuous: np.ndarray) -> np.ndarray:
    """Return joint errors with continuous joints wrapped into (-pi, pi]."""
    wrapped = np.where(continuous, np.pi - np.mod(np.pi - delta, 2.0 * np.pi), delta)
    return wrapped


def computed_torque(robot: RobotModel, q, qd, q_ref, qd_ref, qdd_ref, kp, kd) -> np.ndarray:
    """
    Return the computed-torque command (N m), shape (dof,) or (N, dof).

    kp (1/s^2) and kd (1/s) are per-joint gains (dof,) or scalars. Position
    errors of continuous joints are wrapped.
    """
    names = ('q', 'qd', 'q_ref', 'qd_ref', 'qdd_ref', 'kp', 'kd')
    q, qd, q_ref, qd_ref, qdd_ref, kp, kd = (
        finite_array(value, name)
        for value, name in zip((q, qd, q_ref, qd_ref, qdd_ref, kp, kd), names))
    try:
        error = wrap_angles(q_ref - q, robot.continuous)
        command = qdd_ref + kd * (qd_ref - qd) + kp * error
    except ValueError as problem:   # shapes that do not broadcast
        raise ValueError(f'q, qd, q_ref, qd_ref, qdd_ref, kp, kd: shapes do not match '
                         f'({problem})') from None
    return robot.inverse_dynamics(q, qd, command)


def rotation_error(target: np.ndarray, current: np.ndarray) -> np.ndarray:
    """
    Return the rotation vector (axis * angle, rad, world axes) of target @ current^T.

    The log map of SO(3), exact for every angle in [0, pi] (no Euler angles).
    """
    delta = target @ current.T
    cos_angle = np.clip((np.trace(delta) - 1.0) / 2.0, -1.0, 1.0)
    angle = float(np.arccos(cos_angle))
    skew = np.array([delta[2, 1] - delta[1, 2], delta[0, 2] - delta[2, 0],
                     delta[1, 0] - delta[0, 1]])
    if angle < 1e-6:
        return 0.5 * skew
    if np.pi - angle < 1e-6:   # axis from the symmetric part near pi
        k = int(np.argmax(np.diag(delta)))
        axis = (delta[:, k] + np.eye(3)[k]) / np.sqrt(2.0 * (1.0 + delta[k, k]))
        return angle * axis / np.linalg.norm(axis)
    return angle / (2.0 * np.sin(angle)) * skew


class CartesianImpedance:
    """
    Cartesian impedance controller of one link on operational-space dynamics.

    Gains per task axis (x, y, z, rx, ry, rz), in the root frame's axes at
    the link origin, are acceleration-level: ``kp`` (1/s^2) and ``kd`` (1/s)
    act on unit task inertia and Lambda scales them to forces, so every axis
    behaves as a mass-spring-damper of natural frequency sqrt(kp) (critically
    damped for kd = 2 sqrt(kp)). The null-space torque compensates gravity,
    damps joint motion (``null_damping``, N m s/rad) and pulls toward ``rest``
    (``posture_stiffness``, N m/rad). ``axes`` selects the controlled task
    rows (e.g. (0, 2) for an arm moving in the x-z plane).
    """

    def __init__(self, robot: RobotModel, link: str, kp: Sequence[float],
                 kd: Sequence[float], axes: Optional[Sequence[int]] = None,
                 null_damping: float = 1.0, posture_stiffness: float = 0.0,
                 rest: Optional[Sequence[float]] = None) -> None:
        """Check and store the gains."""
        robot.link_pose(np.zeros(robot.dof), link)   # raises for an unknown link
        self.robot, self.link = robot, link
        self.axes = tuple(range(6)) if axes is None else tuple(axes)
        self.kp = self._gains(kp, 'kp')
        self.kd = self._gains(kd, 'kd')
        if null_damping < 0.0 or posture_stiffness < 0.0:
            raise ValueError('null_damping and posture_stiffness must be >= 0')
        self.null_damping, self.posture_stiffness = float(null_damping), float(posture_stiffness)
        self.rest = (np.zeros(robot.dof) if rest is None
                     else finite_array(rest, 'rest', (robot.dof,)).copy())

    def _gains(self, values: Sequence[float], name: str) -> np.ndarray:
        gains = as_array(values, name)
        if gains.shape != (6,) or not np.all(np.isfinite(gains)) or np.any(gains < 0.0):
            raise ValueError(f'{name}: expected 6 finite non-negative gains (x, y, z, rx, ry, rz),'
                             f' got {values!r}')
        return gains[list(self.axes)]

    def pose_error(self, pose: np.ndarray, target: np.ndarray) -> np.ndarray:
        """Return the 6-vector [target position - position; rotation error], world axes."""
        return np.concatenate([target[:3, 3] - pose[:3, 3],
                               rotation_error(target[:3, :3], pose[:3, :3])])

    def torque(self, q, qd, target: np.ndarray,
               target_twist: Optional[Sequence[float]] = None,
               target_acceleration: Optional[Sequence[float]] = None) -> tuple:
        """
        Return (tau, operational space, error) for a 4x4 target pose and optional twist.

        The twist and the optional acceleration feedforward are [linear;
        angular], world axes: accel = a_ref + kp e + kd (xd_ref - xd).
        """
        axes = list(self.axes)
        target = finite_array(target, 'target', (4, 4))
        space = self.robot.operational_space(q, qd, self.link, axes=self.axes)
        error = self.pose_error(space.pose, target)[axes]
        velocity = space.J @ np.asarray(qd, dtype=float)
        desired = np.zeros(len(axes)) if target_twist is None else \
            finite_array(target_twist, 'target_twist', (6,))[axes]
        accel = self.kp * error + self.kd * (desired - velocity)
        if target_acceleration is not None:   # feedforward of the reference's acceleration
            accel = accel + finite_array(target_acceleration, 'target_acceleration', (6,))[axes]
        force = space.Lambda @ accel + space.mu + space.p
        posture = wrap_angles(self.rest - np.asarray(q, dtype=float), self.robot.continuous)
        tau_null = (self.robot.gravity_torques(q) - self.null_damping * np.asarray(qd)
                    + self.posture_stiffness * posture)
        return space.joint_torque(force, tau_null), space, error
