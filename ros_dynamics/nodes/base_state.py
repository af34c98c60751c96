# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
A floating or planar base in the messages of the services: base state to q and v, rows to a wrench.

A model loaded with ``root_joint`` ``floating`` or ``planar`` (or a URDF whose
first joint is one) has nq != nv: the base's coordinates come first in q, v
and tau, then one coordinate per actuated joint, in ``joint_names`` order.
The messages keep the actuated joints in their joint vectors (JointState,
JointTrajectory) and carry the base in geometry_msgs fields. The
conventions are Pinocchio's (docs/conventions.md):

* free-flyer (``floating``): q_base = (x, y, z, qx, qy, qz, qw), the base
  frame's pose in the world (``geometry_msgs/Pose``: position in m,
  orientation as a unit quaternion); v_base = (vx, vy, vz, wx, wy, wz),
  the base twist in the base frame (``geometry_msgs/Twist``: m/s, rad/s);
  the base acceleration (``geometry_msgs/Accel``, m/s^2, rad/s^2) is the
  time derivative of v_base, Featherstone's spatial acceleration in the
  base frame (not the classical acceleration of the base origin: the two
  differ by w x v, Featherstone, Rigid Body Dynamics Algorithms, 2008,
  sec. 2.11); the base rows of tau are the wrench (``geometry_msgs/Wrench``,
  N and N m) acting on the base, at its origin, in the base frame;
* ``planar``: q_base = (x, y, cos yaw, sin yaw) with x, y and yaw read from
  the pose (the yaw of its quaternion; z, roll and pitch are not part of a
  planar base and are ignored), v_base = (vx, vy, wz) in the moving frame
  read from the twist's linear.x, linear.y and angular.z, the same for the
  acceleration; the base rows are force.x, force.y and torque.z.

The pose is the base joint's: that of the base frame in the joint's frame,
which for ``root_joint`` is the world (a base joint written in a URDF with
an ``<origin>`` measures from there; a planar joint's plane is its frame's
xy plane, as the core models it, docs/conventions.md).

A quaternion whose norm is within ``QUATERNION_TOLERANCE`` of 1 is
normalised; any other (a zero quaternion, a rotation vector by mistake) is
refused with ``ValueError`` naming the field, as are NaN and Inf: a
service answers ``success: false``, never a result from a wrong rotation.
A fixed-base model has no base: every conversion returns the joint
vector unchanged and the base fields are ignored.
"""

import math
from typing import Sequence

from geometry_msgs.msg import Accel, Pose, Wrench
import numpy as np

QUATERNION_TOLERANCE = 1e-6   # | |q| - 1 | up to which a quaternion is normalised
FLOATING, PLANAR = 'floating', 'planar'


def _finite(values: Sequence[float], field: str) -> np.ndarray:
    array = np.array(values, dtype=float)
    if not np.all(np.isfinite(array)):
        raise ValueError(f'{field}: contains NaN or Inf ({list(array)})')
    return array


def unit_quaternion(orientation, field: str) -> np.ndarray:
    """
    Return (qx, qy, qz, qw) of a geometry_msgs/Quaternion scaled to norm 1.

    Raises ValueError naming ``field`` for NaN, Inf, or a norm further than
    ``QUATERNION_TOLERANCE`` from 1.
    """
    quaternion = _finite((orientation.x, orientation.y, orientation.z, orientation.w), field)
    norm = float(np.linalg.norm(quaternion))
    if abs(norm - 1.0) > QUATERNION_TOLERANCE:
        raise ValueError(f'{field}: a quaternion of norm {norm:.9g} is not a rotation (unit '
                         f'norm within {QUATERNION_TOLERANCE:g} is normalised; give (x, y, z, w) '
                         'with x^2 + y^2 + z^2 + w^2 = 1)')
    return quaternion / norm


def base_kind(model) -> str:
    """
    Return the kind of ``model``'s base: '' (fixed), 'floating' or 'planar'.

    The base is the first joint when it has several coordinates; it is a
    free-flyer when it has 7 positions, planar when its 4 positions are
    (x, y, cos, sin) (a neutral cos of 1, where a ball joint's 4 are a
    quaternion with a neutral qx of 0). Raises ValueError for a ball joint
    or a base that is not the first joint: the joint vectors of the messages
    hold one coordinate per joint.
    """
    if model.nq == model.nv:
        return ''
    names = model.joint_names
    sizes = [(model.q_slice(n), model.v_slice(n)) for n in names]
    many = [n for n, (q, v) in zip(names, sizes) if q.stop - q.start != 1 or v.stop - v.start != 1]
    first_q, first_v = sizes[0]
    kind = ''
    if first_q.stop - first_q.start == 7 and first_v.stop - first_v.start == 6:
        kind = FLOATING
    elif (first_q.stop - first_q.start, first_v.stop - first_v.start) == (4, 3) \
            and model.neutral_configuration()[first_q.start + 2] == 1.0:
        kind = PLANAR
    others = many[1:] if kind else many
    if others:
        raise ValueError(f'joints {", ".join(map(repr, others))} have several coordinates (ball '
                         'joints, or a floating or planar joint that is not the first): the '
                         'nodes serve one coordinate per joint and a floating or planar base')
    return kind


class BaseJoint:
    """The base of a model (or none) and the index maps of its actuated joints."""

    def __init__(self, model) -> None:
        """Find ``model``'s base (``base_kind``: raises ValueError for other joints)."""
        self.model = model
        self.kind = base_kind(model)
        names = model.joint_names
        self.name = names[0] if self.kind else ''
        self.actuated = tuple(names[1:] if self.kind else names)
        self.nq_base = model.q_slice(self.name).stop if self.kind else 0
        self.nv_base = model.v_slice(self.name).stop if self.kind else 0
        self.q_index = np.array([model.q_slice(n).start for n in self.actuated], dtype=np.intp)
        self.v_index = np.array([model.v_slice(n).start for n in self.actuated], dtype=np.intp)

    # ------------------------------------------------------------------ messages to states
    def base_configuration(self, pose: Pose, field: str = 'base_pose') -> np.ndarray:
        """Return q_base (nq_base,) of a geometry_msgs/Pose (see the module's conventions)."""
        position = _finite((pose.position.x, pose.position.y, pose.position.z),
                           f'{field}.position')
        x, y, z, w = unit_quaternion(pose.orientation, f'{field}.orientation')
        if self.kind == FLOATING:
            return np.concatenate((position, (x, y, z, w)))
        if self.kind == PLANAR:
            yaw = math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
            return np.array([position[0], position[1], math.cos(yaw), math.sin(yaw)])
        return np.zeros(0)

    def base_velocity(self, twist, field: str) -> np.ndarray:
        """Return v_base (nv_base,) of a Twist or an Accel (base frame; planar: vx, vy, wz)."""
        values = _finite((twist.linear.x, twist.linear.y, twist.linear.z,
                          twist.angular.x, twist.angular.y, twist.angular.z), field)
        if self.kind == FLOATING:
            return values
        if self.kind == PLANAR:
            return values[[0, 1, 5]]
        return np.zeros(0)

    def configuration(self, joints: np.ndarray, pose: Pose,
                      field: str = 'base_pose') -> np.ndarray:
        """Return q (nq,) from the actuated joints' positions (``actuated`` order) and a pose."""
        if not self.kind:
            return joints
        return self.join(self.base_configuration(pose, field), joints, self.q_index, self.model.nq)

    def velocity(self, joints: np.ndarray, twist, field: str) -> np.ndarray:
        """Return v (nv,) (or an acceleration) from the actuated joints' and a Twist or Accel."""
        if not self.kind:
            return joints
        return self.join(self.base_velocity(twist, field), joints, self.v_index, self.model.nv)

    @staticmethod
    def join(base: np.ndarray, joints: np.ndarray, index: np.ndarray, size: int) -> np.ndarray:
        """Return a vector (size,) or batch (N, size): the base first, ``joints`` at ``index``."""
        joints = np.asarray(joints, dtype=float)
        out = np.empty(joints.shape[:-1] + (size,))
        out[..., :base.shape[-1]] = base
        out[..., index] = joints
        return out

    def generalized(self, joints: np.ndarray) -> np.ndarray:
        """Return a force vector (nv,) with the actuated joints' values and zero base rows."""
        return self.join(np.zeros(self.nv_base), joints, self.v_index, self.model.nv)

    def base_states(self, count: int, poses: Sequence, twists: Sequence,
                    accelerations: Sequence) -> tuple:
        """
        Return q_base (count, nq_base), v_base and a_base (count, nv_base) of per-point messages.

        Each sequence holds one message per point, or none: the neutral pose
        (at the world origin, unrotated) and zero twist and acceleration.
        """
        out = []
        for field, values, convert, size in (
                ('base_poses', poses, self.base_configuration, self.nq_base),
                ('base_twists', twists, self.base_velocity, self.nv_base),
                ('base_accelerations', accelerations, self.base_velocity, self.nv_base)):
            if len(values) not in (0, count):
                raise ValueError(f'{field}: {len(values)} values for {count} points (give one '
                                 'per point, or none)')
            rows = [convert(value, f'{field}[{k}]') for k, value in enumerate(values)]
            if not rows:
                rows = [self.model.neutral_configuration()[:size] if field == 'base_poses'
                        else np.zeros(size)] * count
            out.append(np.array(rows, dtype=float).reshape(count, size))
        return tuple(out)

    # ------------------------------------------------------------------ states to messages
    def joints(self, values: np.ndarray) -> np.ndarray:
        """Return the actuated joints' rows of a vector (nv,) or batch (N, nv)."""
        return values if not self.kind else np.asarray(values)[..., self.v_index]

    def wrench(self, values: np.ndarray) -> Wrench:
        """Return the base rows of a force vector (nv,) as a Wrench (zero without a base)."""
        rows = self._rows(values)
        wrench = Wrench()
        (wrench.force.x, wrench.force.y, wrench.force.z,
         wrench.torque.x, wrench.torque.y, wrench.torque.z) = rows
        return wrench

    def accel(self, values: np.ndarray) -> Accel:
        """Return the base rows of an acceleration (nv,) as an Accel (zero without a base)."""
        rows = self._rows(values)
        accel = Accel()
        (accel.linear.x, accel.linear.y, accel.linear.z,
         accel.angular.x, accel.angular.y, accel.angular.z) = rows
        return accel

    def _rows(self, values: np.ndarray) -> list:
        """Return the base rows of ``values`` as six floats (planar: x, y and the z torque)."""
        rows = [0.0] * 6
        if self.kind == FLOATING:
            rows = [float(v) for v in values[:6]]
        elif self.kind == PLANAR:
            rows[0], rows[1], rows[5] = (float(v) for v in values[:3])
        return rows
