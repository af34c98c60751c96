# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The feedforward stream of a floating or planar base: the base state from ``nav_msgs/Odometry``.

With a base (``root_joint`` ``floating`` or ``planar``, nodes/base_state.py)
the stream's joint vectors stay the actuated joints' (``joints``,
``joint_states``, ``reference``, ``commands``) and the base state comes from
the ``nav_msgs/Odometry`` topic named by the parameter ``odometry_topic``
(default ``odom``, REP 105's name):
``pose.pose`` is the base frame's pose in the odometry frame (the model's
world), ``twist.twist`` the base twist in ``child_frame_id``, the base frame
(REP 105), as robot_localization and the diff-drive controllers publish
them. The covariances are not used.

``ActuatedModel`` is the model the stream's code sees: the actuated joints'
rows and columns of the robot's dynamics at the latest base state,

* ``gravity_torques(q)``: the actuated rows of g(q_base, q), the base pose
  (its tilt) included;
* ``inverse_dynamics(q, qd, qdd)``: the actuated rows of
  RNEA(q, v, a) with the odometry's base pose and twist and a zero base
  acceleration (an odometry message carries no acceleration), which is
  also what ``computed_torque`` sends;
* ``mass_matrix(q)``: the actuated block of M(q).

The base rows (the wrench the base needs) are not sent: for a base carried
by the ground (a mobile manipulator) the wheels and the ground give them.
A legged robot's base is carried by its feet, through contact forces that
these rows do not distribute: the ``contacts`` parameters do that
(nodes/contact_stream.py).

The base state obeys the stream's staleness rules: a command is sent only
when the latest odometry was received within ``state_timeout`` s and is
stamped no older than that by the node clock (0 = unstamped is accepted);
an odometry message that does not convert (NaN, Inf, a quaternion that is
not unit: ``base_state.unit_quaternion``) is dropped with a warning, so the
state goes stale rather than wrong.
"""

from typing import Callable, Optional

from nav_msgs.msg import Odometry
import numpy as np
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from ros_dynamics.nodes.base_state import BaseJoint
from ros_dynamics.nodes.parameters import declare

ODOMETRY_QOS = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                          reliability=ReliabilityPolicy.BEST_EFFORT,
                          durability=DurabilityPolicy.VOLATILE)


class BaseOdometry:
    """A node's ``odometry_topic`` parameter, its subscription and the latest base state."""

    def __init__(self, node: Node, now) -> None:
        """
        Declare ``odometry_topic`` and subscribe to it when set.

        now: a callable returning the node clock in int ns (``NodeTime.nanoseconds``).
        """
        self._node = node
        self._now = now
        self.topic = declare(
            node, 'odometry_topic', 'odom',
            'nav_msgs/Odometry topic of the base state when the model has a floating or '
            'planar base (root_joint): pose in the odometry frame, twist in the base frame '
            '(subscribed only then)', read_only=True, constraints='a topic name')
        self.base: Optional[BaseJoint] = None
        self.state: Optional[tuple] = None   # (q_base, v_base, stamp s, received s)
        self.dropped = 0
        self._subscribed = False
        self.on_state: Optional[Callable[[], None]] = None   # called after each new state

    def actuated(self, model):
        """
        Return the model the stream uses: ``model`` itself without a base, else its ActuatedModel.

        Raises ValueError, naming ``odometry_topic``, for a base without an
        odometry topic; subscribes on the first base model.
        """
        base = BaseJoint(model)
        if not base.kind:
            return model
        if not self.topic:
            raise ValueError(f'odometry_topic: the model has a {base.kind} base ({base.name}): '
                             'name the nav_msgs/Odometry topic of its state')
        if self.base is None or self.base.kind != base.kind:
            self.state = None   # a state of another kind of base does not apply
        self.base = base
        if not self._subscribed:
            self._node.create_subscription(Odometry, self.topic, self._on_odometry,
                                           ODOMETRY_QOS)
            self._subscribed = True
        return ActuatedModel(model, base, self)

    def _on_odometry(self, message) -> None:
        base = self.base
        if base is None:
            return
        try:
            q_base = base.base_configuration(message.pose.pose, 'odometry pose.pose')
            v_base = base.base_velocity(message.twist.twist, 'odometry twist.twist')
        except ValueError as error:
            self.dropped += 1
            self._node.get_logger().warning(f'dropped an odometry message on {self.topic} '
                                            f'({self.dropped} so far): {error}',
                                            throttle_duration_sec=5.0)
            return
        stamp = message.header.stamp
        self.state = (q_base, v_base, stamp.sec + stamp.nanosec * 1e-9, self._now() * 1e-9)
        if self.on_state is not None:
            self.on_state()

    def fresh(self, now: float, timeout: float) -> bool:
        """Return True if the latest base state came within ``timeout`` s of ``now`` (node s)."""
        state = self.state
        if state is None:
            return False
        stamp, received = state[2], state[3]
        return now - received <= timeout and (stamp == 0.0 or now - stamp <= timeout)

    def why_stale(self) -> str:
        """Return why the base state is stale, for the diagnostics ('' if it never was)."""
        if self.state is None:
            return f'no odometry received on {self.topic} (odometry_topic)'
        return f'the odometry on {self.topic} is older than state_timeout'


class ActuatedModel:
    """The stream's view of a model with a base: actuated joints, the base from odometry."""

    def __init__(self, model, base: BaseJoint, odometry: BaseOdometry) -> None:
        """Index ``model``'s actuated joints (``base.actuated``) and keep ``odometry``."""
        self.model, self.base, self.odometry = model, base, odometry
        self.joint_names = base.actuated
        self.dof = len(base.actuated)
        q, v = base.q_index, base.v_index
        self.lower, self.upper = model.lower[q], model.upper[q]
        self.continuous = model.continuous[q]
        self.effort_limit, self.velocity_limit = model.effort_limit[v], model.velocity_limit[v]

    def fresh(self, now: float, timeout: float) -> bool:
        """Return True when the base state is recent enough, as ``BaseOdometry`` decides."""
        return self.odometry.fresh(now, timeout)

    def _state(self) -> tuple:
        state = self.odometry.state
        if state is None:   # the stream checks freshness first: no state, no command
            raise RuntimeError('no base state yet')
        return state[0], state[1]

    def _q(self, q: np.ndarray) -> np.ndarray:
        base = self.base
        return base.join(self._state()[0], q, base.q_index, self.model.nq)

    def full_state(self, q, qd) -> tuple:
        """
        Return (q (nq,), v (nv,)) of the whole model: the odometry's base state, then the joints.

        q, qd (dof,): the actuated joints' positions and velocities (rad or m, rad/s or m/s).
        """
        base, model = self.base, self.model
        q_base, v_base = self._state()
        return (base.join(q_base, q, base.q_index, model.nq),
                base.join(v_base, qd, base.v_index, model.nv))

    def gravity_torques(self, q) -> np.ndarray:
        """Return the actuated rows of g(q) (N m) at the base pose of the odometry."""
        return self.base.joints(self.model.gravity_torques(self._q(q)))

    def inverse_dynamics(self, q, qd, qdd) -> np.ndarray:
        """Return the actuated rows of RNEA at the odometry's base pose and twist, base a = 0."""
        base, model = self.base, self.model
        q_base, v_base = self._state()
        v = base.join(v_base, qd, base.v_index, model.nv)
        a = base.join(np.zeros(base.nv_base), qdd, base.v_index, model.nv)
        return base.joints(model.inverse_dynamics(base.join(q_base, q, base.q_index, model.nq),
                                                  v, a))

    def mass_matrix(self, q) -> np.ndarray:
        """Return the actuated joints' block of M(q) (kg m^2, kg m, kg)."""
        index = self.base.v_index
        return self.model.mass_matrix(self._q(q))[np.ix_(index, index)]

    def friction_torques(self, qd) -> np.ndarray:
        """Return the actuated joints' friction (N m) at their velocities qd."""
        return self.base.joints(self.model.friction_torques(self.base.generalized(qd)))
