# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The simulator node's ground: contact points, the plane, and one wrench topic per contact.

Parameters (read once, like the simulator's others):

* ``ground_contacts`` (string array): the links that touch the ground, at their
  origin (a URDF foot link, e.g. solo12's ``FL_FOOT``); ``[]`` (default): no
  ground, the base flies free;
* ``ground_radius`` (m, >= 0; one value for all or one per contact): a sphere
  of that radius around each contact point touches the plane;
* ``ground_height`` (m), ``ground_normal`` (3 values, world axes, normalised),
  ``ground_friction`` (Coulomb's mu, > 0): the plane
  {x : normal . x = height};
* ``initial_base_pose`` (x, y, z, qx, qy, qz, qw; or x, y, z): where a floating
  base starts (default the odom origin: a legged robot's feet would start
  below the ground).

The contact model is the core's (``ros_dynamics.contacts.ground``:
velocity-level time stepping with the exact Coulomb cone, semi-implicit
Euler; docs/contacts.md gives its bounds). After every ``joint_states`` the
node publishes on ``~/contacts/<link>`` a ``geometry_msgs/WrenchStamped`` per
contact, what a foot's force-torque sensor would report: the force the ground
applies to the link (N) and its moment (N m) about the link's origin, both in
the link frame (``header.frame_id`` the link, stamped as the joint states);
zero while the contact is open.
"""

import math
from typing import Callable, List, Optional

from geometry_msgs.msg import WrenchStamped
import numpy as np
from ros_dynamics.contacts.ground import ContactPoint, Ground
from ros_dynamics.nodes.parameters import NON_NEGATIVE, ParameterError


class SimulatedGround:
    """The ground parameters of the simulator node and the wrench publishers they ask for."""

    def __init__(self, node, fixed: Callable) -> None:
        """Declare the parameters with ``fixed`` (the node's read-only declare)."""
        self._node = node
        self.links: List[str] = [link for link in fixed(
            'ground_contacts', [''],
            'links touching the ground plane at their origin (e.g. feet); [] = no ground',
            flexible=True) if link]
        self._radius = list(fixed('ground_radius', [0.0],
                                  'sphere radius around each contact point (m), one value or '
                                  'one per ground_contacts', NON_NEGATIVE, flexible=True))
        self._height = fixed('ground_height', 0.0, 'height of the ground plane along its '
                             'normal (m, world frame)', (-math.inf, math.inf), 'finite')
        self._normal = list(fixed('ground_normal', [0.0, 0.0, 1.0],
                                  'normal of the ground plane (world axes, 3 values)',
                                  flexible=True))
        self._friction = fixed('ground_friction', 0.8, 'Coulomb friction coefficient mu of '
                               'the ground (> 0)', NON_NEGATIVE, '> 0')
        self.base_pose = list(fixed('initial_base_pose', [0.0],
                                    'a floating base starts here: x y z (m) [qx qy qz qw]; '
                                    '[0.0] = the odom origin', flexible=True))
        problem = self._check()
        if problem:
            raise ParameterError(f'parameter {problem}', node.get_logger().name)
        self._publishers = {}
        self._messages = {}

    def _check(self) -> str:
        if self.links and len(self._radius) not in (1, len(self.links)):
            return (f'ground_radius: one value or one per ground_contacts '
                    f'({len(self.links)}), got {len(self._radius)}')
        if len(self._normal) != 3 or not all(math.isfinite(v) for v in self._normal) \
                or not any(self._normal):
            return f'ground_normal: 3 finite values, not all zero, got {self._normal}'
        if self._friction <= 0.0:
            return f'ground_friction: must be > 0, got {self._friction}'
        if len(self.base_pose) not in (1, 3, 7) or (len(self.base_pose) == 1
                                                    and self.base_pose[0] != 0.0):
            return (f'initial_base_pose: x y z or x y z qx qy qz qw, got {self.base_pose}')
        if len(self.base_pose) == 7 and not np.linalg.norm(self.base_pose[3:]) > 0.0:
            return f'initial_base_pose: the quaternion is zero: {self.base_pose}'
        return ''

    def ground(self) -> Optional[Ground]:
        """Return the core's Ground of these parameters, or None without contacts."""
        if not self.links:
            return None
        radius = self._radius * len(self.links) if len(self._radius) == 1 else self._radius
        return Ground([ContactPoint(link, radius=r) for link, r in zip(self.links, radius)],
                      height=self._height, normal=self._normal, friction=self._friction)

    def initial_base(self, q0: np.ndarray, kind: str) -> np.ndarray:
        """Return q0 (nq,) with a floating base at ``initial_base_pose`` (unchanged else)."""
        if kind != 'floating' or len(self.base_pose) == 1:
            return q0
        q0 = q0.copy()
        q0[:3] = self.base_pose[:3]
        if len(self.base_pose) == 7:
            quaternion = np.array(self.base_pose[3:])
            q0[3:7] = quaternion / np.linalg.norm(quaternion)
        return q0

    def publish(self, simulator, stamp) -> None:
        """Publish each contact's wrench (link frame, about its origin) after a state."""
        if simulator.ground is None:
            return
        forces = simulator.contact_forces        # (k, 3) N, world axes, at the contact point
        normal = simulator.ground.normal
        robot, q = simulator.robot, simulator.q
        for k, point in enumerate(simulator.ground.points):
            link = point.frame
            publisher = self._publishers.get(link)
            if publisher is None:
                publisher = self._publishers[link] = self._node.create_publisher(
                    WrenchStamped, f'~/contacts/{link}', 10)
                message = self._messages[link] = WrenchStamped()
                message.header.frame_id = link
            message = self._messages[link]
            pose = robot.link_pose(q, link)
            rotation = pose[:3, :3]
            arm = rotation @ np.asarray(point.position) - point.radius * normal   # world axes
            force = rotation.T @ forces[k]
            moment = rotation.T @ np.cross(arm, forces[k])
            message.header.stamp = stamp
            wrench = message.wrench
            wrench.force.x, wrench.force.y, wrench.force.z = (float(v) for v in force)
            wrench.torque.x, wrench.torque.y, wrench.torque.z = (float(v) for v in moment)
            publisher.publish(message)
