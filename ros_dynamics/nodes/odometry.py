# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The simulator node's floating or planar base: odometry out, base pose and twist in.

A model loaded with ``root_joint`` ``floating`` or ``planar`` (nodes/base_state.py:
the base is the first joint, Pinocchio's coordinates, docs/conventions.md) is
simulated with its base free (free flight, or on the ground: nodes/ground_contact.py). The
node publishes ``joint_states`` for the actuated joints only and the base as
``nav_msgs/Odometry`` (REP 105; nav_msgs/Odometry's own comments):
``header.frame_id`` the odom frame (the simulation's world frame: a simulated
base does not drift, so odom and map coincide), ``child_frame_id`` the base
link, ``pose`` the base frame's pose in odom, ``twist`` in the base frame
(child_frame_id) - a free-flyer's q = (x, y, z, qx, qy, qz, qw) and v unchanged,
a planar base's (x, y, cos yaw, sin yaw) as a yaw about z and (vx, vy, wz).
The covariances are zero: the simulated state is exact. ``~/set_state`` with
``set_base`` true takes the base's ``base_pose`` (in odom) and ``base_twist``
(base frame) with the conventions of the services (base_state.BaseJoint).

tf2_msgs has no wheel for this environment, so the node publishes no ``/tf``;
docs/simulator_floating_base.md shows how a user's odom -> base transform
comes from the odometry.
"""

import math
from typing import Optional, Sequence

from geometry_msgs.msg import Pose, Twist
from nav_msgs.msg import Odometry
import numpy as np
from ros_dynamics.model.robot import RobotModel
from ros_dynamics.nodes.base_state import BaseJoint, FLOATING


class SimulatedBase(BaseJoint):
    """A model's base (or none) as the simulator node publishes and sets it."""

    def __init__(self, model: RobotModel) -> None:
        """Find the base (BaseJoint: ValueError for ball joints) and the base link's name."""
        super().__init__(model)
        self.link = model.body_names[0] if self.kind else ''   # the first joint moves body 0
        self.lower = model.lower[self.q_index]
        self.upper = model.upper[self.q_index]

    def positions(self, q: np.ndarray) -> np.ndarray:
        """Return the actuated joints' coordinates in the configuration q (nq,): rad or m."""
        return q if not self.kind else q[self.q_index]

    def initial_configuration(self, positions: np.ndarray) -> np.ndarray:
        """Return q (nq,): the neutral base (the odom origin, unrotated) and ``positions``."""
        if not self.kind:
            return positions
        q = self.model.neutral_configuration()
        q[self.q_index] = positions
        return q

    def odometry(self, q: np.ndarray, qd: np.ndarray, frame_id: str,
                 message: Optional[Odometry] = None) -> Odometry:
        """Return (or fill) the Odometry of the base at (q (nq,), qd (nv,)); header.stamp unset."""
        message = Odometry() if message is None else message
        message.header.frame_id, message.child_frame_id = frame_id, self.link
        position, orientation = message.pose.pose.position, message.pose.pose.orientation
        linear, angular = message.twist.twist.linear, message.twist.twist.angular
        base, twist = q[:self.nq_base], qd[:self.nv_base]
        if self.kind == FLOATING:
            position.x, position.y, position.z = base[:3].tolist()
            orientation.x, orientation.y, orientation.z, orientation.w = base[3:].tolist()
            linear.x, linear.y, linear.z = twist[:3].tolist()
            angular.x, angular.y, angular.z = twist[3:].tolist()
        else:   # planar: a yaw about z, (vx, vy) in the moving frame
            half = 0.5 * math.atan2(base[3], base[2])
            position.x, position.y, position.z = float(base[0]), float(base[1]), 0.0
            orientation.x, orientation.y = 0.0, 0.0
            orientation.z, orientation.w = math.sin(half), math.cos(half)
            linear.x, linear.y, linear.z = float(twist[0]), float(twist[1]), 0.0
            angular.x, angular.y, angular.z = 0.0, 0.0, float(twist[2])
        return message

    def set_state(self, q: np.ndarray, qd: np.ndarray, indices: Sequence[int],
                  positions: Sequence[float], velocities: Sequence[float],
                  set_base: bool, pose: Pose, twist: Twist) -> None:
        """
        Write a ~/set_state request into q (nq,) and qd (nv,) in place.

        ``indices``: the named joints' indices in ``actuated``; ``positions``
        and ``velocities``: theirs, or empty (kept). With ``set_base`` the base
        takes ``pose`` and ``twist`` (ignored for a fixed base). ValueError
        names the field.
        """
        for field, values, target, index in (('position', positions, q, self.q_index),
                                             ('velocity', velocities, qd, self.v_index)):
            if len(values) == 0:
                continue
            if len(values) != len(indices):
                raise ValueError(f'{field}: {len(values)} values for {len(indices)} names')
            for k, value in zip(indices, values):
                if not math.isfinite(value):
                    raise ValueError(f'{field}: joint {self.actuated[k]!r} is {value} '
                                     '(must be finite)')
                target[index[k]] = value
        if self.kind and set_base:
            q[:self.nq_base] = self.base_configuration(pose, 'base_pose')
            qd[:self.nv_base] = self.base_velocity(twist, 'base_twist')
