# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Inverse-dynamics node: dynamics services and a feedforward torque stream.

Services (``ros_dynamics/srv``):

* ``~/inverse_dynamics``: a JointState (+ accelerations, wrenches) to efforts,
  and on request g(q), C qd + g, M(q) and C(q, qd);
* ``~/forward_dynamics``: a JointState with efforts (+ wrenches) to accelerations;
* ``~/trajectory_dynamics``: a JointTrajectory to efforts at every point (one
  batched RNEA call) and an actuator report per joint with the points that
  exceed the URDF effort or velocity limits;
* ``~/time_optimal_trajectory`` (``TimeOptimalTrajectory``,
  nodes/time_optimal_service.py): the fastest timing of a path under the
  velocity, acceleration and effort limits, as a JointTrajectory;
* ``~/estimate_payload`` (``EstimatePayload``, nodes/payload_estimation.py):
  estimate the load on a link from the efforts (measured joint torques) of
  the joint states this node receives, over the last ``window`` s it keeps
  (parameter ``payload_estimation_window``, default 10 s) or the ``duration``
  s after the call; mass and centre of mass from states held still, the
  inertia too from a motion; ``apply`` attaches it as ``~/set_payload`` does.
  The stream goes on while it collects and fits.

A floating or planar base (``root_joint``; the stream's base state from
``odometry_topic``): nodes/base_state.py, nodes/base_stream.py. Contacts (a
legged robot on its feet): ``~/contact_inverse_dynamics``
(``ContactInverseDynamics``, nodes/contact_service.py) and the stream's
``contacts`` parameters and ``~/contacts`` topic (nodes/contact_stream.py).

Feedforward stream: on every ``joint_states`` message (partial messages are
merged by name, unknown joints ignored) publish on ``commands``
(``std_msgs/Float64MultiArray`` ordered by the ``joints`` parameter, what a
ros2_control ForwardCommandController with ``interface_name: effort``
expects) the torque of the ``mode``:

* ``gravity_compensation``: tau = g(q) - M(q) Kd qd (``kd`` 0 by default: g(q));
* ``inverse_dynamics``: tau = RNEA(q_ref, qd_ref, qdd_ref);
* ``computed_torque``: tau = M(q) (qdd_ref + Kd (qd_ref - qd) + Kp (q_ref - q)) + C qd + g,

with the reference from ``reference`` (``trajectory_msgs/JointTrajectoryPoint``
ordered by ``joints``) or ``reference_trajectory`` (``JointTrajectory``, its
first point, joints by name), subscribed only in those two modes (and with
``friction_compensation: reference``); nodes/feedforward.py has the law, and why
``kd`` brings a disturbed arm to rest. With ``friction_compensation`` ``reference``
(``measured``) the joint friction of the model (``actuators`` parameter:
the actuators YAML; RobotModel.friction_torques) at the reference (measured)
velocity is added in every mode; the services include it at the request's
velocity (``~/inverse_dynamics`` adds it to the effort, ``~/forward_dynamics``
takes it off the given efforts, ``~/trajectory_dynamics`` adds it at each
point's velocities, for ``measured`` too: a planned trajectory has no
measured velocity) and say so in ``friction_included`` and ``message``;
``armature_included`` says whether the model's armature entered the result.
Payloads: ``~/set_payload`` and the
``~/payload`` topic (nodes/payloads.py). Efforts are clamped to the effort limits
unless ``clamp_effort`` is false. Nothing is published while the state is
stale: a joint not updated for ``state_timeout`` s, or a message stamped
older than that (node clock, so ``use_sim_time`` works).

A managed (lifecycle) node (nodes/managed.py): configure loads and checks
the model and creates the services and topics, activate starts the stream,
deactivate (and shutdown, errors) stops it and applies ``on_stale`` to the
last command; ``autostart`` (default true) does configure and activate at
start-up.

The stream is lean: ``joint_states`` arrive as serialised bytes (a raw
subscription) of which only the stamp, names, positions and velocities are
decoded (``nodes/cdr.py``, names parsed only when they change), and the
command goes out as bytes written into one reused buffer; a layout check
against rclpy's serialiser at start-up selects this path, else the node
falls back to message objects (the log says which). Bytes that are not a
JointState are counted (``skipped_malformed``), warned about and dropped.
Its QoS is sensor data with depth 1 (best effort, keep last 1, volatile):
only the newest state matters for a feedforward torque, so an old state is
dropped, never queued behind a newer one. A best-effort subscription
matches reliable and best-effort publishers alike; the ``commands``
publisher stays reliable (depth 10) so that every subscriber matches it.
"""

import math
import threading
import time
from typing import Optional

from diagnostic_msgs.msg import DiagnosticArray
import numpy as np
from rclpy.lifecycle import LifecycleNode
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from ros_dynamics.nodes import cdr, contact_service, gravity_stream, time_optimal_service
from ros_dynamics.nodes.base_state import BaseJoint
from ros_dynamics.nodes.base_stream import BaseOdometry
from ros_dynamics.nodes.common import (diagnostics_message, guarded, main_for, ModelSource,
                                       NodeTime, OVERFLOW, Timing)
from ros_dynamics.nodes.contact_stream import ContactStream
from ros_dynamics.nodes.dynamics_services import forward_dynamics, inverse_dynamics
from ros_dynamics.nodes.feedforward import check_values, Feedforward
from ros_dynamics.nodes.inverse_dynamics_parameters import InverseDynamicsParameters
from ros_dynamics.nodes.joint_vectors import JointVectorMap
from ros_dynamics.nodes.managed import ManagedStream
from ros_dynamics.nodes.parameters import ParameterError
from ros_dynamics.nodes.payload_estimation import PayloadEstimation
from ros_dynamics.nodes.payloads import PayloadInterface
from ros_dynamics.nodes.stale import StalePolicy
from ros_dynamics.nodes.trajectory_service import trajectory_dynamics
from ros_dynamics.srv import (ContactInverseDynamics, ForwardDynamics, InverseDynamics,
                              TrajectoryDynamics)
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

# joint_states: sensor data, newest only (a feedforward torque of an old state is worthless)
STREAM_QOS = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                        reliability=ReliabilityPolicy.BEST_EFFORT,
                        durability=DurabilityPolicy.VOLATILE)


class InverseDynamicsNode(InverseDynamicsParameters, ManagedStream, LifecycleNode):
    """Serve inverse/forward/trajectory dynamics and stream feedforward torques (managed)."""

    def __init__(self) -> None:
        """Declare and check the parameters; configure and activate if ``autostart``."""
        super().__init__('inverse_dynamics')
        self._declare_parameters()   # nodes/inverse_dynamics_parameters.py
        self._lock = threading.Lock()
        self._feedforward: Optional[Feedforward] = None
        self._vectors: Optional[tuple] = None
        self._stream_error = ''
        self._timing = Timing(10000)
        self._service_timing = Timing()
        self._published = 0
        self._skipped_stale = 0
        self._skipped_overflow = 0
        self._skipped_malformed = 0
        self._window = {'received': 0, 'stale': 0, 'offset': 0.0}   # since the last diagnostics
        self._time = NodeTime(self)
        problem = check_values(self._values())
        if problem:
            raise ParameterError(f'parameter {problem}', self.get_logger().name)
        self._effort_states = None   # effort_commands, once publish_joint_state
        self._references = False     # reference and reference_trajectory subscribed
        self.add_on_set_parameters_callback(self._on_parameters)
        self._contacts = ContactStream(   # after _on_parameters: its check runs first
            self, lambda: self._models.model if hasattr(self, '_models') else None)
        self.start_managed()   # nodes/managed.py: configure_stream, then the stream on activate

    def configure_stream(self) -> None:
        """Load and check the model; create the services, topics, timers and stale policy."""
        self._starting = True   # a stream that cannot be configured now is a start-up error
        self._commands = self.create_publisher(Float64MultiArray, 'commands', 10)
        self._diagnostics = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self._create_stream_subscription()
        self._update_interfaces()
        self.create_service(InverseDynamics, '~/inverse_dynamics', self._inverse_dynamics)
        self.create_service(ForwardDynamics, '~/forward_dynamics', self._forward_dynamics)
        self.create_service(TrajectoryDynamics, '~/trajectory_dynamics',
                            self._trajectory_dynamics)
        self.create_service(ContactInverseDynamics, '~/contact_inverse_dynamics',
                            self._contact_inverse_dynamics)
        self._odometry = BaseOdometry(self, self._time.nanoseconds)   # nodes/base_stream.py
        self._odometry.on_state = self._on_base_state
        self._waiting = None   # (node ns, joint state) that came before its base's odometry
        self._models = ModelSource(self, on_change=self._on_model, strict=True, bases=True)
        self._starting = False
        if self._stream_error:
            raise ParameterError(f'parameter {self._stream_error}', self.get_logger().name)
        self._payloads = PayloadInterface(self, self._models)
        self._estimation = PayloadEstimation(self, self._models, self._payloads)
        self._time_optimal = time_optimal_service.TimeOptimalService(   # its own thread
            self, self._models, lambda: self._friction != 'false')
        self.create_timer(self._period, self._publish_diagnostics)
        # the watchdog (nodes/stale.py): no fresh joint state for state_timeout s of the node
        # clock (simulated time under use_sim_time: a paused simulation is not a stale one)
        self._stale_policy = StalePolicy(self, self._send_stale,
                                         lambda: self._time.nanoseconds() * 1e-9,
                                         lambda: self._timeout, self._on_stale,
                                         self._stale_duration)

    def release_stream(self, reason: str) -> None:
        """Apply the stale policy to the last command (deactivate, shutdown, error)."""
        self._stale_policy.release(reason)

    def _update_interfaces(self) -> None:
        """
        Create the topics the parameters enable, once: none exists while unused.

        ``reference`` and ``reference_trajectory`` for the modes that follow a
        reference (or friction at the reference velocity); ``effort_commands``
        with ``publish_joint_state``. Disabled later, they stay (unused).
        """
        if self._publish_joint_state and self._effort_states is None:
            self._effort_states = self.create_publisher(JointState, 'effort_commands', 10)
        follows = self._mode != 'gravity_compensation' or self._friction == 'reference'
        if follows and not self._references:
            self._references = True
            fast = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
            self.create_subscription(JointTrajectoryPoint, 'reference', self._on_point, fast)
            self.create_subscription(JointTrajectory, 'reference_trajectory',
                                     self._on_trajectory, fast)

    def destroy_node(self) -> None:
        """Stop the watchdog and ~/estimate_payload's threads, then destroy the node."""
        policy = getattr(self, '_stale_policy', None)
        if policy is not None:
            policy.stop()
        estimation = getattr(self, '_estimation', None)
        if estimation is not None:
            estimation.close()
        time_optimal = getattr(self, '_time_optimal', None)
        if time_optimal is not None:
            time_optimal.close()
        super().destroy_node()

    # ------------------------------------------------------------------ configuration
    def _configure(self, model, joints, kp, kd) -> None:
        try:
            feedforward = Feedforward(self._odometry.actuated(model), joints, kp, kd,
                                      self._unlisted)
            self._contacts.configure(model, self._include_gravity)
        except Exception as error:  # noqa: B902 - a new model must never end the node
            self._stream_error = str(error)
            if not self._starting:   # at start-up the node stops with this reason
                self.get_logger().error(f'feedforward stream disabled: {error}')
            feedforward = None
        else:
            self._stream_error = ''
            gravity_stream.prepare()
        with self._lock:
            self._feedforward = feedforward

    def _on_model(self, model) -> None:
        self._vectors = self._model_and_vectors(model)
        self._configure(model, self._joints, self._kp, self._kd)

    def _model_and_vectors(self, model=None) -> tuple:
        """Return the model, its actuated joints' name map and its base (once per model)."""
        model = self._models.require() if model is None else model
        cached = self._vectors
        if cached is None or cached[0] is not model:
            base = BaseJoint(model)
            cached = (model, JointVectorMap(base.actuated), base)
        return cached

    # ------------------------------------------------------------------ feedforward stream
    def _on_point(self, point: JointTrajectoryPoint) -> None:
        feedforward = self._feedforward
        if feedforward is None:
            return
        try:
            feedforward.set_point(point)
        except ValueError as error:
            self.get_logger().warning(str(error), throttle_duration_sec=5.0)

    def _on_trajectory(self, trajectory: JointTrajectory) -> None:
        feedforward = self._feedforward
        if feedforward is None:
            return
        try:
            feedforward.set_trajectory(trajectory)
        except ValueError as error:
            self.get_logger().warning(str(error), throttle_duration_sec=5.0)

    def _create_stream_subscription(self) -> None:
        """Subscribe to joint_states as bytes when the codecs check out, else as messages."""
        self._command_writer: Optional[cdr.Float64ArrayWriter] = None
        if cdr.layout_ok():
            self._state_view: Optional[cdr.JointStateView] = cdr.JointStateView()
            self.create_subscription(JointState, 'joint_states', self._on_joint_state_bytes,
                                     STREAM_QOS, raw=True)
            self.get_logger().info('joint_states stream: serialised bytes in and out '
                                   "(the CDR layout matches rclpy's serialiser)")
        else:
            self._state_view = None
            self.create_subscription(JointState, 'joint_states', self._on_joint_state_message,
                                     STREAM_QOS)
            self.get_logger().warning(
                'joint_states stream: message objects (slower): the CDR layout check against '
                "rclpy's serialiser failed")

    def _on_joint_state_bytes(self, data: bytes) -> None:
        """
        Answer a serialised JointState (raw subscription); drop and count malformed bytes.

        The usual message of an armed compiled stream is answered in one
        compiled call (nodes/gravity_stream.py); every other goes the Python
        way: little-endian XCDR1 (what rmw implementations send on this
        project's machines) is read in place, any other encapsulation (a
        big-endian peer) goes through rclpy's deserialiser, which refuses
        what it cannot read.
        """
        if not self.stream_active:   # a managed node streams while active only
            return
        start = time.perf_counter()
        now = self._time.nanoseconds()
        feedforward = self._feedforward
        compiled = None if feedforward is None else feedforward.compiled
        if compiled is not None and not self._estimation.collecting and \
                not self._contacts.enabled:
            status = compiled.answer(data, now)
            if status == gravity_stream.PUBLISH:
                self._window['received'] += 1
                with self._stale_policy.lock:   # a command and its time, as one
                    self._commands.publish(compiled.message())
                    self._stale_policy.sent(None, now * 1e-9, len(feedforward.joints))
                self._published += 1
                self._timing.add(time.perf_counter() - start)
                return
            if status == gravity_stream.STALE:
                self._window['received'] += 1
                self._stale()
                return
        try:
            stamp_ns, names, position, velocity, effort = self._state_view.decode(data)
        except ValueError as error:
            message, problem = None, str(error)
            if data[:2] != cdr.LITTLE_ENDIAN_CDR:
                try:
                    message = cdr.joint_state_from_bytes(data)
                except Exception as other:  # noqa: B902 - no bytes may end the node
                    problem = f'rclpy cannot deserialise it either ({other})'
            if message is not None:
                self._on_joint_state_message(message)
                return
            self._skipped_malformed += 1
            self.get_logger().warning(f'dropped {len(data)} bytes on joint_states that are not '
                                      f'a JointState (skipped_malformed '
                                      f'{self._skipped_malformed}): {problem}',
                                      throttle_duration_sec=5.0)
            return
        self._on_joint_state(stamp_ns, names, position, velocity, effort, now)
        if feedforward is not None and feedforward is self._feedforward:
            self._arm(feedforward, names, now * 1e-9)

    def _arm(self, feedforward: Feedforward, names: tuple, seconds: float) -> None:
        """
        Arm the compiled stream on the names just decoded, when it applies.

        It applies in gravity_compensation without damping, friction or
        effort_commands, for names that came twice in a row through the
        Python path, every name a model joint (none ignored, none twice); at
        most once a second, so that partial states from publishers taking
        turns cost one re-arm a second, not one a message.
        """
        previous, feedforward.last_names = feedforward.last_names, names
        compiled = feedforward.compiled
        if (names != previous or (compiled is not None and compiled.names == names)
                or seconds - feedforward.armed_at < 1.0 or not gravity_stream.enabled()
                or not gravity_stream.ready() or self._mode != 'gravity_compensation'
                or feedforward.damped or self._friction != 'false'
                or self._publish_joint_state or self._on_stale in ('ramp', 'hold')
                or self._contacts.enabled):
            return
        order = feedforward.state.order(names)
        model = self._models.model
        if order[1] is None or model is not feedforward.model:
            return
        feedforward.armed_at = seconds
        feedforward.compiled = gravity_stream.CompiledGravityStream(
            feedforward, names, self._state_view.names_bytes, order, self._timeout,
            self._clamp, self._estimation.samples(model))

    def _on_base_state(self) -> None:
        """Answer the joint state that waited for this odometry (within state_timeout)."""
        waiting, self._waiting = self._waiting, None
        if waiting is None or not self.stream_active:
            return
        parked, state = waiting
        now = self._time.nanoseconds()
        if (now - parked) * 1e-9 > self._timeout:
            self._stale()
            return
        self._on_joint_state(*state, now=now)

    def _on_joint_state_message(self, message: JointState) -> None:
        """Take a JointState message object (the fallback when the byte layout differs)."""
        if not self.stream_active:
            return
        stamp = message.header.stamp
        self._on_joint_state(stamp.sec * 1_000_000_000 + stamp.nanosec, message.name,
                             message.position, message.velocity, message.effort)

    def _on_joint_state(self, stamp_ns: int, names, position, velocity, effort,
                        now: Optional[int] = None) -> None:
        """
        Answer one joint state with a command: every decoded state comes through here.

        stamp_ns: the header stamp (int ns, 0 = unstamped); names: the joint
        names (sequence of str); position (rad or m), velocity (rad/s or m/s):
        float sequences, velocity of len(names) or empty; partial states are
        merged by name into the stream's buffer; effort (N m or N, len(names)
        or empty): the measured torques, kept for ~/estimate_payload; now:
        the node clock (int ns) when the message came (None: read it here).
        """
        start = time.perf_counter()
        feedforward = self._feedforward
        if feedforward is None:
            return
        if now is None:
            now = self._time.nanoseconds()
        seconds = now * 1e-9
        stamp = stamp_ns * 1e-9
        window = self._window
        window['received'] += 1
        if stamp < 0.0 or (stamp > 0.0 and seconds - stamp > self._timeout):   # 0: unstamped
            window['offset'] = seconds - stamp
            self._stale()
            return
        if not (feedforward.state.merge(names, position, velocity, seconds)
                or feedforward.state.fresh(seconds, self._timeout)):
            self._stale()   # a required joint not recently received
            return
        if self._waiting is not None:   # a state that waited for its base, now superseded
            self._waiting = None
            self._stale()
        if feedforward.base is not None and not feedforward.base.fresh(seconds, self._timeout):
            # the joints are fresh but not the base's odometry (published with them: it may
            # come second): answered when it comes (_on_base_state), within state_timeout
            self._waiting = (now, (stamp_ns, names, position, velocity, effort))
            return
        self._estimation.add(seconds, feedforward.state.q, feedforward.state.qd, effort, names)
        tau = self._torque(feedforward)
        if tau is None:
            return
        if not math.isfinite(np.add.reduce(tau)):   # finite inputs whose torque overflowed
            self._skipped_overflow += 1
            self.get_logger().warning(f'no command: {OVERFLOW}', throttle_duration_sec=5.0)
            return
        if self._clamp:   # in place: tau is this call's own array
            lowest, highest = feedforward.effort_bounds
            np.minimum(tau, highest, out=tau)
            np.maximum(tau, lowest, out=tau)
        with self._stale_policy.lock:   # a command and its time, as one for the watchdog
            efforts = tau.take(feedforward.output_index)
            self._send(efforts, feedforward.joints, now)
            self._stale_policy.sent(efforts, seconds)
        self._published += 1
        self._timing.add(time.perf_counter() - start)

    def _send(self, efforts: np.ndarray, joints: list, now: int) -> None:
        """
        Publish ``efforts`` (N m or N, (len(joints),)) on commands (and effort_commands).

        now: the node clock's time (int ns), the stamp of effort_commands.
        """
        if self._state_view is not None:   # bytes written into the reused message
            writer = self._command_writer
            if writer is None or writer.values.shape != efforts.shape:
                writer = self._command_writer = cdr.Float64ArrayWriter(efforts.shape[0])
            writer.values[:] = efforts
            self._commands.publish(writer.message())
        else:
            self._commands.publish(Float64MultiArray(data=efforts.tolist()))
        if self._publish_joint_state and self._effort_states is not None:
            state = JointState()
            state.header.stamp.sec, state.header.stamp.nanosec = divmod(now, 1_000_000_000)
            state.name = joints
            state.effort = efforts.tolist()
            self._effort_states.publish(state)

    def _stale(self) -> None:
        """
        Count a stale joint state: no command.

        One late message in a backlog is no reason to release the arm; the
        watchdog (``StalePolicy``, nodes/stale.py) does that when no fresh state
        came for ``state_timeout``.
        """
        self._skipped_stale += 1
        self._window['stale'] += 1

    def _send_stale(self, efforts: np.ndarray) -> None:
        """Publish a command of the stale policy (under its lock): zeros, a ramp, a hold."""
        feedforward = self._feedforward
        if feedforward is not None and efforts.shape[0] == len(feedforward.joints):
            self._send(efforts, feedforward.joints, self._time.nanoseconds())

    def _torque(self, feedforward: Feedforward) -> Optional[np.ndarray]:
        """Return the torque of the mode (nodes/feedforward.py); None without a reference."""
        if self._mode != 'gravity_compensation' and feedforward.reference is None:
            self.get_logger().warning(f'mode {self._mode}: no reference received yet',
                                      throttle_duration_sec=5.0)
            return None
        contacts = self._contacts if self._contacts.enabled else None   # nodes/contact_stream.py
        return feedforward.torque(self._mode, self._friction, self._include_gravity, contacts)

    # ------------------------------------------------------------------ services
    @guarded
    def _inverse_dynamics(self, request, response):
        start = time.perf_counter()
        inverse_dynamics(*self._model_and_vectors(), request, response,
                         self._friction != 'false')   # nodes/dynamics_services.py
        self._service_timing.add(time.perf_counter() - start)
        return response

    @guarded
    def _forward_dynamics(self, request, response):
        return forward_dynamics(*self._model_and_vectors(), request, response,
                                self._friction != 'false')

    @guarded
    def _contact_inverse_dynamics(self, request, response):
        return contact_service.contact_inverse_dynamics(
            *self._model_and_vectors(), request, response, self._contacts.world_frame,
            self.get_clock().now().to_msg())

    @guarded
    def _trajectory_dynamics(self, request, response):
        # friction at the points' velocities for reference and measured alike: a planned
        # trajectory has no measured velocity
        return trajectory_dynamics(*self._model_and_vectors(), request, response,
                                   self._friction != 'false')

    # ------------------------------------------------------------------ diagnostics
    def _publish_diagnostics(self) -> None:
        window, self._window = self._window, {'received': 0, 'stale': 0, 'offset': 0.0}
        values = {'mode': self._mode, 'published': self._published,
                  'skipped_stale': self._skipped_stale,
                  'skipped_overflow': self._skipped_overflow,
                  'skipped_malformed': self._skipped_malformed,
                  'stream_input': 'bytes' if self._state_view is not None else 'messages',
                  'stream_path': ('compiled' if self._feedforward is not None
                                  and self._feedforward.compiled is not None else 'python'),
                  'window_received': window['received'], 'window_stale': window['stale']}
        values.update({f'stream_{k}': v for k, v in self._timing.summary().items()})
        values.update({f'service_{k}': v for k, v in self._service_timing.summary().items()})
        values.update(self._contacts.summary())
        warning = self._stream_error or self._stale_warning(window)
        self._diagnostics.publish(diagnostics_message(self, self._models, 'dynamics', values,
                                                      warning))

    def _stale_warning(self, window: dict) -> str:
        """Say why, when every joint state since the last diagnostics was stale."""
        if window['received'] == 0 or window['stale'] < window['received']:
            return ''
        head = f'all {window["received"]} joint states since the last diagnostics were stale'
        if window['offset']:
            return (f'{head}: stamped {window["offset"]:.6g} s before this node\'s clock '
                    f'(state_timeout {self._timeout} s): clock mismatch? use_sim_time differs '
                    'between publisher and this node')
        feedforward = self._feedforward
        missing = feedforward.state.missing() if feedforward is not None else []
        if missing:
            return (f'{head}: joints never received: {", ".join(missing)} (see joints and '
                    'unlisted_joints)')
        base = feedforward.base if feedforward is not None else None   # nodes/base_stream.py
        if base is not None and not base.fresh(self._time.nanoseconds() * 1e-9, self._timeout):
            return f'{head}: {base.why_stale()}'
        return f'{head}: a required joint is not updated within state_timeout {self._timeout} s'


main = main_for(InverseDynamicsNode)
