# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Cartesian impedance controller: an example controller on operational-space dynamics.

Subscribes ``joint_states`` (merged by name) and ``target_pose``
(``geometry_msgs/PoseStamped`` in the root frame; ``header.frame_id`` empty or
the root link), optionally ``target_twist`` (``geometry_msgs/TwistStamped``,
world axes), and on every joint state publishes on ``commands``
(``std_msgs/Float64MultiArray`` ordered by ``joints``, like the
inverse-dynamics feedforward) the torque of
``ros_dynamics.control.impedance.CartesianImpedance``:

    tau = J^T (Lambda (kp e + kd (xd_ref - xd)) + mu + p) + N^T (g - D qd + K (q_rest - q)),

e the position error and the SO(3) rotation error (log map, not Euler
angles). Until a target arrives it holds the pose of the first complete
joint state.

``target_trajectory`` (``trajectory_msgs/MultiDOFJointTrajectory``, transient
local: a late-joining controller still gets it) gives the whole reference at
once: the first transform and velocity of each point, at ``header.stamp`` +
``time_from_start`` on the node's clock (sim time under ``use_sim_time``). The
target of each joint state is that trajectory at the state's own stamp
(``ros_dynamics.control.trajectories.PoseTrajectory``: cubic Hermite positions, Slerp
orientations), so the command depends on the state message alone: with the
simulator's lockstep mode the closed loop is deterministic. It replaces
``target_pose``/``target_twist`` until a new ``target_pose`` arrives.

Gains are per task axis (x, y, z, rx, ry, rz); ``axes`` selects the
controlled rows (e.g. [0, 2] for an arm in the x-z plane). Stale state (a
joint not updated for ``state_timeout`` s) publishes nothing, and once no
fresh state came for ``state_timeout`` after commands were sent the
``on_stale`` policy applies (nodes/stale.py: zero by default, ramp, hold or
silent over ``stale_duration`` s). ``joint_states``
is subscribed with the sensor-data QoS (best effort), which matches best-effort
and reliable publishers alike. A managed (lifecycle) node as inverse_dynamics_node
(nodes/managed.py: ``autostart``, configure, activate, deactivate applies ``on_stale``).
"""

import math
from typing import Optional

from geometry_msgs.msg import PoseStamped, TwistStamped
import numpy as np
from rcl_interfaces.msg import SetParametersResult
from rclpy.lifecycle import LifecycleNode
from rclpy.qos import qos_profile_sensor_data, QoSProfile, ReliabilityPolicy
from ros_dynamics.control.impedance import CartesianImpedance
from ros_dynamics.control.trajectories import PoseTrajectory
from ros_dynamics.nodes.common import DESCRIPTION_QOS, main_for, ModelSource
from ros_dynamics.nodes.joint_vectors import JointStateBuffer, JointVectorMap
from ros_dynamics.nodes.managed import ManagedStream
from ros_dynamics.nodes.parameters import checked, declare, NON_NEGATIVE, ParameterError
from ros_dynamics.nodes.stale import DESCRIPTION as STALE_DESCRIPTION
from ros_dynamics.nodes.stale import DURATION_DESCRIPTION, ON_STALE, StalePolicy
from scipy.spatial.transform import Rotation
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import MultiDOFJointTrajectory


class CartesianImpedanceController(ManagedStream, LifecycleNode):
    """Track a target pose with task-space impedance and a null-space posture (managed)."""

    def __init__(self) -> None:
        """Declare and check the parameters; configure and activate if ``autostart``."""
        super().__init__('cartesian_impedance_controller')
        self._link = declare(self, 'link', '', 'the task link (any URDF link)')
        self._joints = [j for j in declare(
            self, 'joints', [''], 'output order of the commands, every model joint once; [""] '
            '= the model joint order', flexible=True) if j]
        self._kp = list(declare(self, 'kp', [400.0] * 6,
                                'task stiffness per axis x, y, z, rx, ry, rz, or one for all '
                                '(1/s^2: it multiplies Lambda)', value_range=NON_NEGATIVE,
                                flexible=True))
        self._kd = list(declare(self, 'kd', [40.0] * 6,
                                'task damping per axis x, y, z, rx, ry, rz, or one for all '
                                '(1/s)',
                                value_range=NON_NEGATIVE, flexible=True))
        self._axes = [int(a) for a in declare(
            self, 'axes', [0, 1, 2, 3, 4, 5], 'controlled task rows (0-5: x, y, z, rx, ry, rz)',
            value_range=(0, 5), flexible=True)]
        self._null_damping = declare(self, 'null_damping', 1.0,
                                     'null-space joint damping D (N m s/rad)',
                                     value_range=NON_NEGATIVE)
        self._posture = declare(self, 'posture_stiffness', 0.0,
                                'null-space stiffness K towards rest (N m/rad)',
                                value_range=NON_NEGATIVE)
        self._rest = list(declare(self, 'rest', [0.0],
                                  'null-space rest positions ordered by joints (rad or m); [0.0] '
                                  '= all zero', flexible=True))
        self._clamp = declare(self, 'clamp_effort', True,
                              'clamp the commands to the URDF effort limits')
        self._timeout = declare(self, 'state_timeout', 0.1,
                                'publish nothing when a joint was not updated for this long '
                                '(s, > 0)', value_range=NON_NEGATIVE, constraints='> 0')
        self._on_stale = declare(self, 'on_stale', 'zero', STALE_DESCRIPTION,
                                 constraints='one of ' + ', '.join(ON_STALE))
        self._stale_duration = declare(self, 'stale_duration', 0.5, DURATION_DESCRIPTION,
                                       value_range=NON_NEGATIVE)
        if self._on_stale not in ON_STALE:
            raise ParameterError(f'parameter on_stale: {self._on_stale!r} is not one of '
                                 f'{", ".join(ON_STALE)}', self.get_logger().name)
        self._controller: Optional[CartesianImpedance] = None
        self._state: Optional[JointStateBuffer] = None
        self._output: list = []
        self._target: Optional[np.ndarray] = None
        self._twist: Optional[np.ndarray] = None
        self._trajectory: Optional[PoseTrajectory] = None
        self._error = ''
        self._starting = True   # a controller that cannot be built now is a start-up error
        if not self._timeout > 0.0:
            raise ParameterError(f'parameter state_timeout: got {self._timeout}; expected a '
                                 'number > 0 (s)', self.get_logger().name)
        self.add_on_set_parameters_callback(self._on_parameters)
        self.start_managed()   # nodes/managed.py: configure_stream, then the stream on activate

    def configure_stream(self) -> None:
        """Load and check the model; create the topics and the stale policy."""
        qos = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
        self._commands = self.create_publisher(Float64MultiArray, 'commands', qos)
        self.create_subscription(PoseStamped, 'target_pose', self._on_target, qos)
        self.create_subscription(TwistStamped, 'target_twist', self._on_twist, qos)
        # sensor data (best effort): matches a driver publishing best effort, and reliable ones
        self.create_subscription(JointState, 'joint_states', self._on_state,
                                 qos_profile_sensor_data)
        self.create_subscription(MultiDOFJointTrajectory, 'target_trajectory',
                                 self._on_trajectory, DESCRIPTION_QOS)
        self._models = ModelSource(self, on_change=self._on_model, strict=True)
        self._starting = False
        if self._error:
            raise ParameterError(f'parameter {self._error}', self.get_logger().name)
        self._stale_policy = StalePolicy(
            self, self._send_stale, lambda: self.get_clock().now().nanoseconds * 1e-9,
            lambda: self._timeout, self._on_stale, self._stale_duration)

    def release_stream(self, reason: str) -> None:
        """Apply the stale policy to the last command (deactivate, shutdown, error)."""
        self._stale_policy.release(reason)

    def destroy_node(self) -> None:
        """Stop the stale policy's watchdog, then destroy the node."""
        policy = getattr(self, '_stale_policy', None)
        if policy is not None:
            policy.stop()
        super().destroy_node()

    def _send_stale(self, efforts: np.ndarray) -> None:
        """Publish a command of the stale policy: zeros, a ramp or a hold."""
        self._commands.publish(Float64MultiArray(data=efforts.tolist()))

    def _build(self, model, values: dict) -> tuple:
        """Return (controller, output indices, buffer) for a model and parameters, or raise."""
        if not values['link']:
            raise ValueError('link: the task link parameter is empty')
        vectors = JointVectorMap(model.joint_names)
        joints = values['joints'] or list(model.joint_names)
        output = vectors.indices(joints, 'joints')
        if set(joints) != set(model.joint_names):
            raise ValueError('joints: must list every model joint once')
        rest = np.zeros(model.dof)
        if len(values['rest']) == len(joints):
            rest[output] = values['rest']
        elif values['rest'] not in ([0.0], []):
            raise ValueError(f'rest: expected {len(joints)} positions ordered by joints')
        kp, kd = ([float(g) for g in values[name]] * (6 if len(values[name]) == 1 else 1)
                  for name in ('kp', 'kd'))   # one value for all six axes
        controller = CartesianImpedance(
            model, values['link'], kp, kd, axes=values['axes'],
            null_damping=values['null_damping'], posture_stiffness=values['posture'],
            rest=rest)
        return controller, output, JointStateBuffer(vectors)

    def _values(self, **changes) -> dict:
        values = {'link': self._link, 'joints': self._joints, 'kp': self._kp, 'kd': self._kd,
                  'axes': self._axes, 'null_damping': self._null_damping,
                  'posture': self._posture, 'rest': self._rest}
        values.update(changes)
        return values

    def _on_model(self, model) -> None:
        try:
            self._controller, self._output, self._state = self._build(model, self._values())
            self._error = ''
        except Exception as error:  # noqa: B902 - a new model must never end the node
            self._controller, self._error = None, str(error)
            if not self._starting:   # at start-up the node stops with this reason
                self.get_logger().error(f'controller disabled: {error}')

    def _on_parameters(self, parameters) -> SetParametersResult:
        names = {'link': 'link', 'joints': 'joints', 'kp': 'kp', 'kd': 'kd', 'axes': 'axes',
                 'null_damping': 'null_damping', 'posture_stiffness': 'posture',
                 'rest': 'rest'}
        try:   # values as declared: [] and one scalar for all, integers for doubles
            values = {p.name: checked(self, p.name, p.value) for p in parameters}
        except ParameterError as error:
            return SetParametersResult(successful=False, reason=str(error))
        if not values.get('state_timeout', self._timeout) > 0.0:
            return SetParametersResult(successful=False, reason='state_timeout must be > 0 s')
        if values.get('on_stale', self._on_stale) not in ON_STALE:
            return SetParametersResult(successful=False, reason=f'on_stale: one of '
                                       f'{", ".join(ON_STALE)}')
        changes = {names[name]: value for name, value in values.items() if name in names}
        if 'joints' in changes:
            changes['joints'] = [j for j in changes['joints'] if j]
        if 'axes' in changes:
            changes['axes'] = [int(a) for a in changes['axes']]
        model = self._models.model if hasattr(self, '_models') else None
        if model is not None and changes:
            try:
                built = self._build(model, self._values(**changes))
            except ValueError as error:
                return SetParametersResult(successful=False, reason=str(error))
            self._controller, self._output, self._state = built
        for key, value in changes.items():
            setattr(self, {'posture': '_posture'}.get(key, f'_{key}'), value)
        self._timeout = float(values.get('state_timeout', self._timeout))
        self._clamp = bool(values.get('clamp_effort', self._clamp))
        self._on_stale = values.get('on_stale', self._on_stale)
        self._stale_duration = float(values.get('stale_duration', self._stale_duration))
        policy = getattr(self, '_stale_policy', None)
        if policy is not None:
            policy.policy, policy.duration = self._on_stale, self._stale_duration
        return SetParametersResult(successful=True)

    def _on_target(self, message: PoseStamped) -> None:
        model = self._models.model
        frame = message.header.frame_id
        if model is not None and frame not in ('', model.root_link):
            self.get_logger().warning(f'target_pose frame {frame!r} is not the root link '
                                      f'{model.root_link!r}; ignored', throttle_duration_sec=5.0)
            return
        p, o = message.pose.position, message.pose.orientation
        quaternion = np.array([o.x, o.y, o.z, o.w])
        if not (np.all(np.isfinite([p.x, p.y, p.z])) and np.linalg.norm(quaternion) > 0.5):
            self.get_logger().warning('target_pose: not finite or not a rotation; ignored',
                                      throttle_duration_sec=5.0)
            return
        target = np.eye(4)
        target[:3, :3] = Rotation.from_quat(quaternion).as_matrix()
        target[:3, 3] = [p.x, p.y, p.z]
        self._target = target
        self._trajectory = None

    def _on_trajectory(self, message: MultiDOFJointTrajectory) -> None:
        start = message.header.stamp.sec + message.header.stamp.nanosec * 1e-9
        try:
            if not message.points or any(not p.transforms for p in message.points):
                raise ValueError('every point needs a transform')
            times = [start + p.time_from_start.sec + p.time_from_start.nanosec * 1e-9
                     for p in message.points]
            transforms = [p.transforms[0] for p in message.points]
            positions = [[t.translation.x, t.translation.y, t.translation.z]
                         for t in transforms]
            quaternions = np.array([[t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w]
                                    for t in transforms])
            if not np.all(np.isfinite(quaternions)) or np.any(
                    np.linalg.norm(quaternions, axis=1) < 0.5):
                raise ValueError('a rotation is not finite or not a unit quaternion')
            linear = None
            if all(p.velocities for p in message.points):
                linear = [[v.linear.x, v.linear.y, v.linear.z]
                          for v in (p.velocities[0] for p in message.points)]
            trajectory = PoseTrajectory(times, positions, Rotation.from_quat(quaternions),
                                        linear)
        except ValueError as error:
            self.get_logger().warning(f'target_trajectory ignored: {error}')
            return
        self._trajectory = trajectory

    def _on_twist(self, message: TwistStamped) -> None:
        v, w = message.twist.linear, message.twist.angular
        twist = np.array([v.x, v.y, v.z, w.x, w.y, w.z])
        self._twist = twist if np.all(np.isfinite(twist)) else None

    def _on_state(self, message) -> None:
        if not self.stream_active:   # a managed node streams while active only
            return
        controller, state = self._controller, self._state
        if controller is None or state is None:
            return
        now = self.get_clock().now().nanoseconds * 1e-9
        state.merge(message.name, message.position, message.velocity, now)
        if not state.fresh(now, self._timeout):
            return
        target, twist = self._target, self._twist
        if self._trajectory is not None:   # the reference at the state's own time
            stamp = message.header.stamp
            target, twist = self._trajectory(stamp.sec + stamp.nanosec * 1e-9)
        elif target is None:   # hold where the arm is until told otherwise
            target = self._target = controller.robot.link_pose(state.q, controller.link)
        try:
            tau, _, _ = controller.torque(state.q, state.qd, target, twist)
        except ValueError as error:
            self.get_logger().error(f'no command: {error}', throttle_duration_sec=5.0)
            return
        if self._clamp:
            limit = controller.robot.effort_limit
            tau = np.clip(tau, -limit, limit)
        if not all(math.isfinite(v) for v in tau):
            return
        efforts = tau[self._output]
        with self._stale_policy.lock:   # a command and its time, as one for the watchdog
            self._commands.publish(Float64MultiArray(data=efforts.tolist()))
            self._stale_policy.sent(efforts, now)


main = main_for(CartesianImpedanceController)
