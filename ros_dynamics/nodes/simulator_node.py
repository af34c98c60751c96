# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Forward-dynamics simulator node: a simulated arm that behaves like hardware under ros2_control.

The physics (``ros_dynamics.simulation.simulator.Simulator``: articulated-body forward
dynamics, RK4 or semi-implicit Euler, effort saturation, damping, smoothed
Coulomb friction, stiff damped limit stops) runs in a thread of its own at a
fixed step ``dt``, paced by absolute wall-clock deadlines when
``real_time_factor`` > 0 (no drift), or as fast as possible when it is 0.

Topics (all remappable; ``~/`` names are under the node's name, e.g.
``/simulator/commands`` like a ros2_control controller's ``/<controller>/commands``):

* in ``~/commands`` (``std_msgs/Float64MultiArray``): efforts ordered by the
  ``joints`` parameter, what a ros2_control effort controller receives;
* in ``~/joint_commands`` (``sensor_msgs/JointState``): efforts by joint name;
* in ``~/external_wrench`` (``geometry_msgs/WrenchStamped``): a wrench acting on
  the link named by ``header.frame_id``, at the link origin, in the root
  (world) frame's axes (the project's wrench convention); it stays applied
  until replaced (a zero wrench removes it) or the simulator is reset;
* out ``joint_states`` (``sensor_msgs/JointState``) at ``publish_rate`` Hz of
  sim time (of wall time when running faster than real time), stamped with sim
  time (effort = applied effort), or with the node clock (the wall clock, as
  a real arm's driver stamps them) when ``sim_time_stamps`` is false;
* out ``/clock`` (``rosgraph_msgs/Clock``) when ``publish_clock``: every
  ``clock_period`` of sim time up to real time (default 1 ms: every step at
  the default ``dt``), every ``clock_period`` of wall time when faster (see
  "Cost" below; 0: after every step);
* out ``/diagnostics``: model, health, achieved real-time factor, step times
  (``step_*``: the mean step of each compiled block).

Floating and planar bases (``root_joint``: ``floating`` or ``planar``): the base
flies free, or stands on a ground plane with ``ground_contacts`` (nodes/ground_contact.py:
the plane, the feet, ``initial_base_pose``, a wrench per foot on ``~/contacts/<link>``),
``joint_states`` and the commands carry the
actuated joints only, the base goes out as ``nav_msgs/Odometry`` on
``odometry_topic`` (default ``odom``, frame ``odom_frame``) with every
``joint_states``, and ``~/set_state`` takes its ``base_pose`` and ``base_twist``
(with ``set_base``)
(nodes/odometry.py; docs/simulator_floating_base.md for the odom -> base tf).

Model source as the other nodes (``robot_description`` parameter, ``urdf_path``,
the transient-local ``robot_description`` topic); a new description on the
topic restarts the simulation from the initial state of the new model. The
initial state is ``initial_positions.<joint>`` (rad or m; default 0 clamped
into the joint limits) with zero velocity.

Services: ``~/reset`` (``std_srvs/Trigger``), ``~/pause`` (``std_srvs/SetBool``),
``~/step`` (``ros_dynamics/srv/SimStep``, only while paused),
``~/set_state`` (``ros_dynamics/srv/SetJointState``), ``~/set_payload``
(``ros_dynamics/srv/SetPayload``; also the ``payload`` topic,
nodes/payloads.py): the simulated plant carries it from the next step. Its
own ``actuators`` parameter (an actuators YAML: armature, friction) makes the
simulated plant differ from a controller's model, e.g. to test robustness.

Closed chains: ``loops`` names a loop-closure YAML (a path or
``package://ros_dynamics/config/delta_loops.yaml``; see ros_dynamics.simulation.closed_chain)
for the URDF's tree. The simulator then integrates the constrained dynamics with
Baumgarte stabilisation (``baumgarte_alpha``, ``baumgarte_beta``, 1/s), applies
commands to the actuated joints only (passive joints have no motor), projects
the initial state and ``~/set_state`` onto the closures (actuated joints as
given, passive ones solved for), publishes the constraint forces lambda on
``~/constraint_forces`` (``std_msgs/Float64MultiArray``, N and N m, with the
joint states) and the closure error on ``/diagnostics``, and pauses with the
reason when the mechanism reaches a singular configuration.

Lockstep (``lockstep: true``): the node publishes ``/clock`` and ``joint_states``
at every ``control_period`` of sim time (0: every step) and advances that period
only when ``lockstep_answers`` effort commands (on ``~/commands`` or
``~/joint_commands``, from one controller or several) have arrived after the
state went out. Sim time then stays exact and a closed loop with deterministic
controllers gives the same trajectory run after run, at the speed of the
slowest participant (paced to ``real_time_factor`` when it is > 0). No answer
within ``lockstep_timeout`` s of wall time pauses the simulation with the reason
on ``/diagnostics`` (``~/pause false`` resumes); it never advances on a stale
command. This is how PX4's and Gazebo's software-in-the-loop setups stay
reproducible. Each state is published once (also while paused: no periodic
republishing), so every command answers exactly one state: a controller must
answer every joint state it receives, and ``lockstep_answers`` must be the
number of controllers. An unanswered state is published again when a new
publisher appears on the command topics (a controller started late), once at
half of ``lockstep_timeout`` while no period has advanced since the start or
the resume (the first copy is lost when a controller's subscription has not
matched the simulator yet), and on resuming after a pause.

Cost, pacing and the schedule (ros_dynamics.simulation.runner, tested without ROS): the
physics thread advances in blocks of steps, each one compiled call, up to the next
``joint_states`` or ``/clock`` publish that is due (on the sim-time grid when paced at real
time or slower, about one publish period of wall time when faster) or to where the command
timeout drops the effort; commands, wrenches and service calls take effect at the next block
boundary. ``/clock`` goes out every ``clock_period``, not after every step (rclpy's and
rclcpp's time sources read only the newest of a burst); ``clock_period: 0`` restores a
message after every step.

Health: a non-finite state, or total energy growing by more than
``energy_tolerance`` (see ros_dynamics.simulation.simulator; 0: the integrator's
default) while no effort or wrench is applied, pauses the simulation (the
state stays at the last good step), is
logged and reported on ``/diagnostics``; the node keeps answering services.
"""

import math
import struct
import sys
import threading
import time
from typing import Callable, Optional

from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
import numpy as np
import rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.serialization import serialize_message
from ros_dynamics.nodes.common import doubles, main_for, ModelSource, Timing
from ros_dynamics.nodes.joint_vectors import JointVectorMap
from ros_dynamics.nodes.odometry import SimulatedBase
from ros_dynamics.nodes.payloads import PayloadInterface
from ros_dynamics.nodes.simulator_parameters import SimulatorParameters
from ros_dynamics.nodes.urdf_source import resolve_package_url
from ros_dynamics.simulation.closed_chain import ClosedChain
from ros_dynamics.simulation.runner import Outputs, SimRunner
from ros_dynamics.simulation.simulator import Simulator
from ros_dynamics.srv import SetJointState, SimStep
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import SetBool, Trigger


def clock_serializer() -> Callable[[int, int], bytes]:
    """
    Return a function (sec, nanosec) -> a serialised rosgraph_msgs/Clock.

    /clock goes out every step, and rclpy publishes bytes in half the time it
    takes to convert a message object. The CDR layout (4-byte encapsulation
    header, int32 sec, uint32 nanosec) is checked against rclpy's own
    serialisation; rclpy serialises every message if it ever differs.
    """
    sample = Clock(clock=Time(sec=1767225600, nanosec=999999999))
    expected = serialize_message(sample)
    header = expected[:4]
    pack = struct.Struct('<iI' if header[:2] == b'\x00\x01' else '>iI').pack  # CDR_LE/CDR_BE

    def serialize(sec: int, nanosec: int) -> bytes:
        return header + pack(sec, nanosec)

    if serialize(1767225600, 999999999) == expected:
        return serialize
    return lambda sec, nanosec: serialize_message(Clock(clock=Time(sec=sec, nanosec=nanosec)))


class SimulatorNode(SimulatorParameters, Node):
    """Integrate a URDF arm's forward dynamics and serve it like robot hardware."""

    def __init__(self) -> None:
        """Declare parameters, load the model, create the interfaces, start the physics."""
        super().__init__('simulator')
        self._vectors: Optional[JointVectorMap] = None
        self._base: Optional[SimulatedBase] = None
        self._command_index: Optional[list] = None
        self._q0 = np.zeros(0)
        self._step_timing = Timing(5000)
        self._config_error = ''
        self._model_error = ''
        self._read_parameters()
        # the schedule (pacing, blocks, command timeout, lockstep) runs without ROS
        self._runner = SimRunner(self._schedule, Outputs(
            publish_state=self._publish_state, publish_clock=self._publish_clock_message,
            participants=self._command_publishers, log=self._log, fault=self._diagnose,
            step_time=self._step_timing.add), paused=self._start_paused)
        self._lock = self._runner.lock           # guards the simulator and the inputs

        self._joint_state_pub = self.create_publisher(JointState, 'joint_states', 10)
        self._constraint_pub = (self.create_publisher(Float64MultiArray, '~/constraint_forces',
                                                      10) if self._loops else None)
        self._clock_pub = (self.create_publisher(Clock, '/clock', 10) if self._publish_clock
                           else None)   # no /clock topic when it is not published
        self._clock_bytes = clock_serializer()
        self._published_state: Optional[JointState] = None
        self._diagnostics_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        fast = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
        self._command_topics = [subscription.topic_name for subscription in (
            self.create_subscription(Float64MultiArray, '~/commands', self._on_commands, fast),
            self.create_subscription(JointState, '~/joint_commands', self._on_joint_commands,
                                     fast))]
        self.create_subscription(WrenchStamped, '~/external_wrench', self._on_wrench, fast)
        self.create_service(Trigger, '~/reset', self._on_reset)
        self.create_service(SetBool, '~/pause', self._on_pause)
        self.create_service(SimStep, '~/step', self._on_step)
        self.create_service(SetJointState, '~/set_state', self._on_set_state)

        self._odometry_pub, self._odometry = None, Odometry()   # created for a floating base
        self._models = ModelSource(self, on_change=self._on_model, strict=True, bases=True)
        self._payloads = PayloadInterface(self, self._models, on_change=self._on_payload)
        self._diagnostics_timer = self.create_timer(self._diagnostics_period, self._diagnose)
        if self._report_period > 0:
            self._report_timer = self.create_timer(self._report_period, self._report_pose)
        self._rtf_window = (time.monotonic(), self._sim_time())
        self._thread = threading.Thread(target=self._run, name='physics', daemon=True)
        self._thread.start()

    # ----------------------------------------------------------------- model
    def _on_model(self, model) -> None:
        """Build a fresh simulator for a (re)loaded model, starting from the initial state."""
        model.gravity = self._gravity
        base = SimulatedBase(model)   # a floating or planar base is not on joint_states
        vectors = JointVectorMap(base.actuated)
        q0 = base.initial_configuration(self._initial_positions(model, vectors, base))
        joints = self._joints or list(base.actuated)
        try:
            command_index = base.v_index[vectors.indices(joints, 'parameter joints')]
            config_error = ''
        except ValueError as error:
            command_index, config_error = None, str(error)
            self.get_logger().error(f'{error}: commands on the commands topic are ignored')
        if base.kind and self._odometry_pub is None:
            self._odometry_pub = self.create_publisher(Odometry, self._odometry_topic, 10)
        try:
            closures = (ClosedChain.from_yaml(model, resolve_package_url(self._loops))
                        if self._loops else None)
            simulator = Simulator(model, dt=self._dt, integrator=self._integrator or None,
                                  q0=self._ground.initial_base(q0, base.kind),
                                  ground=self._ground.ground(),
                                  damping=self._use_damping, friction=self._use_friction,
                                  limits=self._use_limits,
                                  friction_velocity=self._friction_velocity,
                                  energy_tolerance=self._energy_tolerance or None,
                                  closures=closures, baumgarte=self._baumgarte)
        except Exception as error:  # noqa: B902 - a new model must never end the node
            kept = ('keeping the previous simulation' if self._sim is not None
                    else 'nothing to simulate')
            self._model_error = f'cannot simulate {model.name!r}: {error}'
            self.get_logger().error(f'{self._model_error} ({kept})')
            return
        self._model_error = ''
        q0 = simulator.q.copy()         # a closed chain's start is projected onto its closures
        with self._lock:
            self._vectors, self._q0 = vectors, q0
            self._command_index, self._config_error = command_index, config_error
            self._joint_names, self._base = list(base.actuated), base
            self._runner.load(simulator)

    def _on_payload(self) -> None:
        """Measure the energy reference again: a payload changes the plant's energy at once."""
        with self._lock:
            if self._sim is not None:   # the same state set again: its energy measured anew
                self._sim.set_state()

    # ----------------------------------------------------------------- inputs
    def _on_commands(self, message: Float64MultiArray) -> None:
        with self._lock:
            if self._sim is None or self._command_index is None:
                return
            if len(message.data) != len(self._command_index):
                self.get_logger().warning(
                    f'commands: {len(message.data)} values for {len(self._command_index)} '
                    'joints (parameter joints); ignored', throttle_duration_sec=5.0)
                return
            effort = np.zeros(self._sim.robot.dof)
            effort[self._command_index] = message.data
            self._runner.accept_effort(effort)

    def _on_joint_commands(self, message: JointState) -> None:
        with self._lock:
            if self._sim is None:
                return
            if len(message.effort) != len(message.name):
                self.get_logger().warning(
                    f'joint_commands: {len(message.effort)} efforts for {len(message.name)} '
                    'names; ignored', throttle_duration_sec=5.0)
                return
            effort = self._runner.current_effort()
            for name, value in zip(message.name, message.effort):
                k = self._vectors.index.get(name)
                if k is None:
                    self.get_logger().warning(f'joint_commands: unknown joint {name!r}; ignored',
                                              throttle_duration_sec=5.0)
                    continue
                effort[self._base.v_index[k]] = value
            self._runner.accept_effort(effort)

    def _on_wrench(self, message: WrenchStamped) -> None:
        link = message.header.frame_id.lstrip('/')
        force, torque = message.wrench.force, message.wrench.torque
        wrench = np.array([force.x, force.y, force.z, torque.x, torque.y, torque.z])
        with self._lock:
            if self._sim is None:
                return
            if link not in self._sim.robot.link_names:
                self.get_logger().warning(
                    f'external_wrench: frame_id {link!r} is not a link of the robot; ignored',
                    throttle_duration_sec=5.0)
                return
            if not np.all(np.isfinite(wrench)):
                self.get_logger().warning(f'external_wrench on {link!r} is not finite; ignored',
                                          throttle_duration_sec=5.0)
                return
            self._runner.set_wrench(link, wrench)

    # ----------------------------------------------------------------- physics
    @property
    def _sim(self) -> Optional[Simulator]:
        return self._runner.sim

    def _sim_time(self) -> float:
        sim = self._sim
        return sim.t if sim is not None else 0.0

    def _log(self, level: str, text: str) -> None:
        logger = self.get_logger()   # one call site per severity: rclpy refuses a change
        if level == 'info':
            logger.info(text)
        elif level == 'warning':
            logger.warning(text)
        else:
            logger.error(text)

    def _run(self) -> None:
        """Physics loop (SimRunner.loop): step, publish, pace to absolute deadlines."""
        try:
            self._runner.loop()
        except Exception as error:  # noqa: B902 - the thread dies only at shutdown
            if rclpy.ok(context=self.context) and not self._runner.stopping:
                self.get_logger().fatal(f'physics thread failed: {error!r}')
                raise

    def _command_publishers(self) -> int:
        """
        Return the controllers' endpoints a new question waits for (lockstep).

        The publishers of the command topics plus the subscriptions of the
        state (joint_states, and a base's odometry): a controller creates its
        command publisher before it can answer, and subscribes to its state
        when its model is loaded, so the state goes out again once it did.
        """
        states = [self._joint_state_pub] + ([self._odometry_pub] if self._odometry_pub else [])
        return (sum(self.count_publishers(topic) for topic in self._command_topics)
                + sum(publisher.get_subscription_count() for publisher in states))

    def _publish_clock_message(self) -> None:
        self._clock_pub.publish(self._clock_bytes(*self._sec_nanosec()))

    def _sec_nanosec(self) -> tuple:
        sim_time = self._sim.t
        seconds = math.floor(sim_time)
        return int(seconds), min(int(round((sim_time - seconds) * 1e9)), 999999999)

    def _stamp(self) -> Time:
        if not self._sim_time_stamps:   # a real driver's stamps: the node clock
            return self.get_clock().now().to_msg()
        sec, nanosec = self._sec_nanosec()
        return Time(sec=sec, nanosec=nanosec)

    def _state_message(self) -> JointState:
        sim = self._sim
        message = JointState()
        message.header.stamp = self._stamp()
        message.name = self._joint_names
        base = self._base
        message.position = base.positions(sim.q).tolist()
        message.velocity = base.joints(sim.qd).tolist()
        message.effort = base.joints(sim.effort if not self._runner.holding
                                     else np.zeros(sim.robot.dof)).tolist()
        return message

    def _publish_state(self) -> None:
        # one message reused: publish() serialises it at once; float64[] fields take
        # array.array('d') without the per-element checks a list gets
        sim = self._sim
        message = self._published_state
        if message is None or message.name != self._joint_names:
            message = self._published_state = JointState()
            message.name = self._joint_names
        message.header.stamp = self._stamp()
        base = self._base
        message.position = doubles(base.positions(sim.q))
        message.velocity = doubles(base.joints(sim.qd))
        message.effort = doubles(base.joints(sim.effort if not self._runner.holding
                                             else np.zeros(sim.robot.dof)))
        self._joint_state_pub.publish(message)
        if base.kind:   # the base's odometry, stamped as the joint states
            odometry = base.odometry(sim.q, sim.qd, self._odom_frame, self._odometry)
            odometry.header.stamp = message.header.stamp
            self._odometry_pub.publish(odometry)
        self._ground.publish(sim, message.header.stamp)   # each contact's wrench, if a ground
        if self._constraint_pub is not None and sim.closures is not None:
            forces = Float64MultiArray()
            forces.data = doubles(sim.constraint_forces())
            self._constraint_pub.publish(forces)

    # ----------------------------------------------------------------- services
    def _require_sim(self) -> Simulator:
        if self._sim is None:
            raise RuntimeError(self._model_error or
                               f'no robot model loaded yet: {self._models.error}')
        return self._sim

    def _on_reset(self, request: Trigger.Request, response: Trigger.Response):
        with self._lock:
            try:
                sim = self._require_sim()
            except RuntimeError as error:
                response.success, response.message = False, str(error)
                return response
            sim.set_state(self._q0, np.zeros(sim.robot.dof))
            self._runner.clear_inputs()
            fault = self._runner.state_set()
            response.success = True
            response.message = (f'reset to the initial state at t = {sim.t:.6f} s'
                                + (f' (cleared: {fault})' if fault else '')
                                + ('; still paused' if self._runner.paused else ''))
        self._runner.wake()
        return response

    def _on_pause(self, request: SetBool.Request, response: SetBool.Response):
        with self._lock:
            if not request.data and self._sim is not None and not (
                    np.all(np.isfinite(self._sim.q)) and np.all(np.isfinite(self._sim.qd))):
                response.success = False
                response.message = 'the state is not finite: call ~/reset or ~/set_state first'
                return response
            self._runner.set_paused(request.data)
            response.success = True
            response.message = (f'paused at t = {self._sim_time():.6f} s' if self._runner.paused
                                else f'running from t = {self._sim_time():.6f} s')
        return response

    def _on_step(self, request: SimStep.Request, response: SimStep.Response):
        with self._lock:
            try:
                self._require_sim()
                done = self._runner.step(request.steps)
                response.success = done == request.steps
                response.message = (f'{done} steps' if response.success else
                                    f'stopped after {done} of {request.steps} steps: '
                                    f'{self._runner.fault}')
                # a divergence during the steps must not leave the step service usable blindly
            except (ValueError, RuntimeError) as error:
                response.success, response.message = False, str(error)
            if self._sim is not None:
                response.sim_time = self._sim.t
                response.state = self._state_message()
        return response

    def _on_set_state(self, request: SetJointState.Request,
                      response: SetJointState.Response):
        with self._lock:
            try:
                sim = self._require_sim()
                indices = self._vectors.indices(request.name, 'name')
                q, qd, base = sim.q.copy(), sim.qd.copy(), self._base
                base.set_state(q, qd, indices, request.position, request.velocity,
                               request.set_base, request.base_pose, request.base_twist)
                positions = base.positions(q)
                outside = [f'{name} = {positions[k]:.6g} not in [{base.lower[k]:.6g}, '
                           f'{base.upper[k]:.6g}]'
                           for k, name in enumerate(base.actuated)
                           if self._use_limits and not base.lower[k] <= positions[k]
                           <= base.upper[k]]
                if outside:
                    raise ValueError('position outside the joint limits: ' + ', '.join(outside))
                sim.set_state(q, qd)
                fault = self._runner.state_set()
                response.success = True
                response.message = 'state set' + (f' (cleared: {fault})' if fault else '')
            except (ValueError, RuntimeError) as error:
                response.success, response.message = False, str(error)
            if self._sim is not None:
                response.state = self._state_message()
        self._runner.wake()
        return response

    # ----------------------------------------------------------------- diagnostics
    def _diagnose(self) -> None:
        now = time.monotonic()
        with self._lock:
            sim_time = self._sim_time()
            wall0, sim0 = self._rtf_window
            self._rtf_window = (now, sim_time)
            achieved = (sim_time - sim0) / (now - wall0) if now > wall0 else 0.0
            status = DiagnosticStatus(name=f'{self.get_fully_qualified_name()}: simulator',
                                      hardware_id=self._sim.robot.name if self._sim else '')
            if self._sim is None:
                status.level, status.message = DiagnosticStatus.ERROR, (
                    self._model_error or (f'no model: {self._models.error}'
                                          if hasattr(self, '_models') else 'no model'))
            elif self._runner.fault:
                status.level = DiagnosticStatus.ERROR
                status.message = f'paused: {self._runner.fault}'
            elif self._config_error:
                status.level, status.message = DiagnosticStatus.WARN, self._config_error
            elif self._runner.paused:
                status.level, status.message = DiagnosticStatus.OK, 'paused'
            elif self._runner.timed_out:
                status.level, status.message = DiagnosticStatus.WARN, 'command timeout'
            else:
                status.level, status.message = DiagnosticStatus.OK, 'running'
            values = {'sim_time_s': f'{sim_time:.6f}', 'steps': str(self._runner.steps),
                      'paused': str(self._runner.paused), 'fault': self._runner.fault,
                      'dt_s': repr(self._dt),
                      'integrator': self._sim.integrator if self._sim else self._integrator,
                      'real_time_factor_target': repr(self._rtf),
                      'real_time_factor_achieved': f'{achieved:.3f}'}
            if self._sim is not None:
                values['energy_J'] = f'{self._sim.energy():.9g}'
                if self._sim.closures is not None:
                    values['constraint_residual'] = f'{self._sim.constraint_residual():.3g}'
                    values['loops'] = self._loops
            if self._model_error and self._sim is not None:
                values['model_error'] = self._model_error   # the previous model kept
            values.update({f'step_{key}': value
                           for key, value in self._step_timing.summary().items()})
        status.values = [KeyValue(key=key, value=value) for key, value in values.items()]
        array = DiagnosticArray(status=[status])
        array.header.stamp = self.get_clock().now().to_msg()
        self._diagnostics_pub.publish(array)

    def _report_pose(self) -> None:
        """Log how far the joints are from the initial pose (the gravity-compensation check)."""
        with self._lock:
            if self._sim is None:
                return
            error = np.abs(self._base.positions(self._sim.q) - self._base.positions(self._q0))
            worst = int(np.argmax(error))
            status = ('paused: ' + self._runner.fault if self._runner.fault else
                      'paused' if self._runner.paused else
                      'holding until the first command' if self._runner.holding else 'running')
            rms = np.sqrt(np.mean(error ** 2))
            self.get_logger().info(
                f'sim t = {self._sim.t:8.3f} s, pose error vs initial: max '
                f'{error[worst] * 1e3:.3g} mrad ({self._joint_names[worst]}), rms {rms * 1e3:.3g} '
                f'mrad; applied effort norm {np.linalg.norm(self._sim.effort):.3f} N m; {status}')

    def destroy_node(self) -> None:
        """Stop the physics thread before the node goes away."""
        runner = getattr(self, '_runner', None)   # None: stopped while being built
        if runner is not None:
            runner.stop()
        thread = getattr(self, '_thread', None)   # None: stopped while being built
        if thread is not None and thread.is_alive() and threading.current_thread() is not thread:
            thread.join(timeout=5.0)
        super().destroy_node()


def main(args=None) -> int:
    """Run the simulator node until SIGINT or SIGTERM; 1 for an invalid parameter."""
    # a short GIL switch interval: the executor's callbacks are not starved by the physics
    sys.setswitchinterval(0.0005)
    return main_for(SimulatorNode)(args)
