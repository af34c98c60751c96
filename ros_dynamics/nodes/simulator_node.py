# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Forward-dynamics simulator node: a simulated arm that behaves like hardware under ros2_control.

The physics (``ros_dynamics.simulation.Simulator``: articulated-body forward
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
``package://ros_dynamics/config/delta_loops.yaml``; see ros_dynamics.closed_chain)
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
publisher appears on the command topics (a controller started late) or after
``lockstep_timeout``.

Cost: the physics thread advances in blocks of steps, each one compiled
call (``Simulator.step(n)``, the same kernel and numerics as ``n`` single
steps), up to the next thing that is due: a ``joint_states`` or ``/clock``
publish on the sim-time grid (``publish_rate``, ``clock_period``) when paced
at real time or slower; when faster (``real_time_factor`` 0 or > 1), about
one publish period of wall time (the shorter of ``1 / publish_rate`` and
``clock_period``, measured from the last blocks' step time, at most
MAX_BLOCK_STEPS steps). A block also ends where the command timeout drops
the effort, so the applied efforts, and hence the trajectory, are those of
a step-by-step loop given the same commands at the same steps. Commands,
wrenches and service calls take effect at the next block boundary. When
paced, that is the step one step at a time would apply them at for a
command that answers the last published state before the next deadline
(the blocks end where the states go out); any other input lands at most
one block later: the shorter of ``1 / publish_rate`` and, with
``publish_clock``, ``clock_period`` of sim time (one step with the defaults,
so paced runs step as before). Faster than real time, at most one block
later: about the shorter of those periods of wall time, at most
MAX_BLOCK_STEPS steps of sim time (one step at a time, a command lands at
a sim time set by the scheduler, not by the sender, anyway).

/clock is not published after every step, unlike a simulator that ticks
the clock every physics step: ``rclpy``'s and
``rclcpp``'s time sources subscribe to ``/clock`` with depth 1 (best effort,
keep last), so of a burst only the newest message is ever read, and a
sim-time timer whose period was skipped fires once at the next clock message
(rcl drops missed periods). Faster than real time, a subscriber cannot run a
sim-time timer every period anyway (that needs ``lockstep``); paced, the
default 1 ms lets timers up to 1 kHz fire every period. Gazebo's ROS 2
clock plugin makes the same trade with its clock ``publish_rate`` (10 Hz by
default). ``clock_period: 0`` restores a message after every step.

Health: a non-finite state, or total energy growing by more than
``energy_tolerance`` (see ros_dynamics.simulation; 0: the integrator's
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
from ros_dynamics.closed_chain import ClosedChain
from ros_dynamics.nodes.common import doubles, main_for, ModelSource, Timing
from ros_dynamics.nodes.ground_contact import SimulatedGround
from ros_dynamics.nodes.joint_vectors import JointVectorMap
from ros_dynamics.nodes.odometry import SimulatedBase
from ros_dynamics.nodes.parameters import declare, NON_NEGATIVE, ParameterError
from ros_dynamics.nodes.payloads import PayloadInterface
from ros_dynamics.nodes.urdf_source import resolve_package_url
from ros_dynamics.simulation import SimulationDiverged, Simulator
from ros_dynamics.srv import SetJointState, SimStep
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import SetBool, Trigger

INTEGRATORS = ('rk4', 'semi_implicit_euler')
PAUSED_PUBLISH_PERIOD = 0.1   # s of wall time between joint_states while paused
MAX_BLOCK_STEPS = 250         # steps per compiled block at most (faster than real time)


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


def next_time(due: float, period: float, now: float) -> float:
    """Return the next due time of a periodic publish (s): a period on, or from ``now`` if late."""
    due += period
    return due if due > now else now + period


class SimulatorNode(Node):
    """Integrate a URDF arm's forward dynamics and serve it like robot hardware."""

    def __init__(self) -> None:
        """Declare parameters, load the model, create the interfaces, start the physics."""
        super().__init__('simulator')
        self._lock = threading.RLock()           # guards the simulator and the inputs
        self._wake = threading.Event()           # physics thread: something changed
        self._stop = threading.Event()
        self._sim: Optional[Simulator] = None
        self._vectors: Optional[JointVectorMap] = None
        self._base: Optional[SimulatedBase] = None
        self._command_index: Optional[list] = None
        self._effort = np.zeros(0)
        self._wrenches: dict = {}
        self._q0 = np.zeros(0)
        self._paused = False
        self._fault = ''
        self._holding = False
        self._last_command_time: Optional[float] = None
        self._timeout_logged = False
        self._effort_applied = False
        self._steps = 0
        self._step_timing = Timing(5000)
        self._answers = 0                        # lockstep: commands since the question
        self._answered = threading.Event()       # lockstep: every expected command arrived
        self._version = 0                        # lockstep: counts every change of the state
        self._question: Optional[tuple] = None   # lockstep: (version, wall time, publishers)
        self._config_error = ''
        self._model_error = ''
        self._read_parameters()
        self._paused = self._start_paused

        self._joint_state_pub = self.create_publisher(JointState, 'joint_states', 10)
        self._constraint_pub = (self.create_publisher(Float64MultiArray, '~/constraint_forces',
                                                      10) if self._loops else None)
        self._clock_pub = (self.create_publisher(Clock, '/clock', 10) if self._publish_clock
                           else None)   # no /clock topic when it is not published
        self._clock_bytes = clock_serializer()
        self._published_state: Optional[JointState] = None
        self._next_wall_publish = 0.0
        self._next_wall_clock = 0.0
        self._step_wall = self._dt       # wall s per step, measured over the last blocks
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

    # ----------------------------------------------------------------- parameters
    def _read_parameters(self) -> None:
        def fixed(name, default, description, value_range=None, constraints='',
                  flexible=False):
            # read once: the physics thread and the model are built from them
            return declare(self, name, default, description, read_only=True,
                           value_range=value_range, constraints=constraints,
                           flexible=flexible)
        self._dt = fixed('dt', 0.001, 'fixed integration step (s, > 0)', NON_NEGATIVE, '> 0')
        self._integrator = fixed('integrator', '', "integrator; '' = rk4, or "
                                 'semi_implicit_euler with ground_contacts',
                                 constraints="'' or one of " + ', '.join(INTEGRATORS))
        self._rtf = fixed('real_time_factor', 1.0,
                          'sim seconds per wall second; 0 = as fast as possible', NON_NEGATIVE)
        self._publish_clock = fixed('publish_clock', True,
                                    'publish rosgraph_msgs/Clock on /clock (see clock_period)')
        self._clock_period = fixed('clock_period', 0.001,
                                   '/clock period (s of sim time up to real time, of wall time '
                                   'when faster); 0 = after every step', NON_NEGATIVE)
        self._sim_time_stamps = fixed(
            'sim_time_stamps', True,
            'stamp joint_states with simulated time (for nodes following /clock with '
            'use_sim_time); false: with this node clock (the wall clock unless use_sim_time), '
            "as a real arm's driver does")
        self._publish_rate = fixed('publish_rate', 500.0,
                                   'joint_states rate (Hz of sim time up to real time, of wall '
                                   'time when faster)', NON_NEGATIVE, '> 0')
        self._command_timeout = fixed('command_timeout', 0.5,
                                      'applied effort drops to zero when no command came for '
                                      'this long (s of sim time); 0 = never', NON_NEGATIVE)
        self._joints = list(fixed('joints', [''],
                                  'joint order of the Float64MultiArray on ~/commands; [""] = '
                                  'the model joint order', flexible=True))
        self._gravity = list(fixed('gravity', [0.0, 0.0, -9.81],
                                   'gravity acceleration in the root frame (m/s^2, 3 values)',
                                   flexible=True))
        self._use_damping = fixed('damping', True, 'apply the URDF <dynamics damping>')
        self._use_friction = fixed('friction', True,
                                   'apply the URDF <dynamics friction> as smoothed Coulomb '
                                   'friction')
        self._use_limits = fixed('position_limits', True,
                                 'apply the position limits as stiff damped stops')
        self._hold_until_command = fixed('hold_until_command', False,
                                         'hold the joints at the initial state until the first '
                                         'effort command')
        self._start_paused = fixed('start_paused', False,
                                   'start paused (~/pause false or ~/step to advance)')
        self._friction_velocity = fixed('friction_velocity', 1e-3,
                                        'velocity below which Coulomb friction is smoothed '
                                        '(rad/s or m/s, > 0)', NON_NEGATIVE, '> 0')
        self._energy_tolerance = fixed('energy_tolerance', 0.0,
                                       'relative energy growth tolerated with no input before '
                                       'the simulation counts as diverged; 0 = the integrator '
                                       'default', NON_NEGATIVE)
        self._diagnostics_period = fixed('diagnostics_period', 1.0,
                                         'period of /diagnostics (s, > 0)', NON_NEGATIVE, '> 0')
        self._report_period = fixed('pose_report_period', 0.0,
                                    'log the pose error every this many s; 0 = off',
                                    NON_NEGATIVE)
        self._odometry_topic = fixed('odometry_topic', 'odom', 'nav_msgs/Odometry of a floating '
                                     'or planar base (root_joint), with joint_states')
        self._odom_frame = fixed('odom_frame', 'odom', 'header.frame_id of the odometry')
        self._ground = SimulatedGround(self, fixed)   # ground_* (nodes/ground_contact.py)
        self._loops = str(fixed('loops', '',
                                'loop-closure YAML (path or package:// URL) for a closed '
                                'chain; empty = a tree'))
        self._baumgarte = (fixed('baumgarte_alpha', 10.0,
                                 'Baumgarte stabilisation of the closures, alpha (1/s)',
                                 NON_NEGATIVE),
                           fixed('baumgarte_beta', 10.0,
                                 'Baumgarte stabilisation of the closures, beta (1/s)',
                                 NON_NEGATIVE))
        self._lockstep = fixed('lockstep', False,
                               'advance only when lockstep_answers commands arrived after each '
                               'published state (deterministic closed loops)')
        self._control_period = fixed('control_period', 0.0,
                                     'lockstep: sim time between published states (s, a '
                                     'multiple of dt); 0 = every step', NON_NEGATIVE)
        self._lockstep_answers = fixed('lockstep_answers', 1,
                                       'lockstep: effort commands expected per period (one per '
                                       'controller)', value_range=(1, 1000))
        self._lockstep_timeout = fixed('lockstep_timeout', 1.0,
                                       'lockstep: wall seconds to wait for the commands before '
                                       'pausing with the reason', NON_NEGATIVE, '> 0')
        self._joints = [name for name in self._joints if name]
        problems = []
        if not (math.isfinite(self._dt) and self._dt > 0):
            problems.append(f'dt must be > 0 s, got {self._dt}')
        if self._integrator not in INTEGRATORS + ('',):
            problems.append(f'integrator must be one of {", ".join(INTEGRATORS)}, '
                            f'got {self._integrator!r}')
        if not (math.isfinite(self._rtf) and self._rtf >= 0):
            problems.append(f'real_time_factor must be >= 0 (0 = as fast as possible), '
                            f'got {self._rtf}')
        if not (math.isfinite(self._publish_rate) and self._publish_rate > 0):
            problems.append(f'publish_rate must be > 0 Hz, got {self._publish_rate}')
        if not (math.isfinite(self._clock_period) and self._clock_period >= 0):
            problems.append(f'clock_period must be >= 0 s (0 = every step), '
                            f'got {self._clock_period}')
        if not (self._command_timeout >= 0):
            problems.append(f'command_timeout must be >= 0 s (0 = never), '
                            f'got {self._command_timeout}')
        if len(self._gravity) != 3 or not all(math.isfinite(g) for g in self._gravity):
            problems.append(f'gravity must be 3 finite numbers (m/s^2), got {self._gravity}')
        if not (self._energy_tolerance >= 0):
            problems.append(f'energy_tolerance must be >= 0 (0: the integrator default), '
                            f'got {self._energy_tolerance}')
        if not (self._friction_velocity > 0):
            problems.append(f'friction_velocity must be > 0 rad/s, got {self._friction_velocity}')
        if not (self._diagnostics_period > 0):
            problems.append(f'diagnostics_period must be > 0 s, got {self._diagnostics_period}')
        if not (self._report_period >= 0):
            problems.append(f'pose_report_period must be >= 0 s, got {self._report_period}')
        if not all(math.isfinite(g) and g >= 0 for g in self._baumgarte):
            problems.append(f'baumgarte_alpha and baumgarte_beta must be >= 0 (1/s), got '
                            f'{self._baumgarte}')
        period_steps = (self._control_period / self._dt if self._dt > 0 and
                        self._control_period > 0 else 1.0)
        if not (math.isfinite(period_steps) and round(period_steps) >= 1
                and abs(period_steps - round(period_steps)) < 1e-9 * period_steps):
            problems.append(f'control_period must be 0 (every step) or a multiple of dt '
                            f'({self._dt} s), got {self._control_period}')
        if self._lockstep_answers < 1:
            problems.append(f'lockstep_answers must be >= 1, got {self._lockstep_answers}')
        if not (math.isfinite(self._lockstep_timeout) and self._lockstep_timeout > 0):
            problems.append(f'lockstep_timeout must be > 0 s, got {self._lockstep_timeout}')
        if problems:
            raise ParameterError('parameter ' + '; parameter '.join(problems),
                                 self.get_logger().name)
        self._publish_every = max(1, int(round(1.0 / (self._publish_rate * self._dt))))
        self._clock_every = max(1, int(round(self._clock_period / self._dt)))
        # faster than real time, joint_states and /clock go out per wall time: a block lasts
        # about the shorter of their periods (wall s)
        self._wall_rate = self._rtf == 0.0 or self._rtf > 1.0
        periods = [1.0 / self._publish_rate] + ([self._clock_period] if self._publish_clock
                                                else [])
        self._block_wall = min(periods)
        self._period_steps = int(round(period_steps))

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
            self._sim, self._vectors, self._q0 = simulator, vectors, q0
            self._command_index, self._config_error = command_index, config_error
            self._joint_names, self._base = list(base.actuated), base
            self._clear_inputs()
            self._fault = ''
            self._version += 1
        self._wake.set()

    def _on_payload(self) -> None:
        """Measure the energy reference again: a payload changes the plant's energy at once."""
        with self._lock:
            if self._sim is not None:
                self._sim._new_state()

    def _initial_positions(self, model, vectors: JointVectorMap, base) -> np.ndarray:
        """Return the actuated joints' ``initial_positions.<joint>``, default 0 in the limits."""
        lower, upper = base.lower, base.upper
        q0 = np.clip(np.zeros(len(base.actuated)), lower, upper)
        overrides = getattr(self, '_parameter_overrides', {})
        for name in overrides:
            if name.startswith('initial_positions.') and name[18:] not in vectors.index:
                self.get_logger().warning(f'parameter {name}: {name[18:]!r} is not a joint of '
                                          f'{model.name!r}; ignored')
        for k, joint in enumerate(base.actuated):
            parameter = f'initial_positions.{joint}'
            if not self.has_parameter(parameter):
                declare(self, parameter, float(q0[k]),
                        f'initial position of {joint} (rad or m), clamped into its limits',
                        read_only=True)
            value = float(self.get_parameter(parameter).value)
            if not math.isfinite(value):
                raise ValueError(f'parameter {parameter} must be finite, got {value}')
            if not (lower[k] <= value <= upper[k]):
                self.get_logger().warning(
                    f'parameter {parameter} = {value} is outside the joint limits '
                    f'[{lower[k]}, {upper[k]}]; clamped')
            q0[k] = min(max(value, lower[k]), upper[k])
        return q0

    def _clear_inputs(self) -> None:
        """Drop every command and wrench (under the lock)."""
        dof = self._sim.robot.dof if self._sim is not None else 0
        self._effort = np.zeros(dof)
        self._effort_applied = False
        self._wrenches = {}
        self._last_command_time = None
        self._timeout_logged = False
        self._holding = self._hold_until_command
        if self._sim is not None:
            self._sim.set_effort(self._effort)
            self._sim.set_wrenches(None)

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
            self._accept_effort(effort)

    def _on_joint_commands(self, message: JointState) -> None:
        with self._lock:
            if self._sim is None:
                return
            if len(message.effort) != len(message.name):
                self.get_logger().warning(
                    f'joint_commands: {len(message.effort)} efforts for {len(message.name)} '
                    'names; ignored', throttle_duration_sec=5.0)
                return
            effort = (self._effort.copy() if self._command_fresh()
                      else np.zeros(self._sim.robot.dof))
            for name, value in zip(message.name, message.effort):
                k = self._vectors.index.get(name)
                if k is None:
                    self.get_logger().warning(f'joint_commands: unknown joint {name!r}; ignored',
                                              throttle_duration_sec=5.0)
                    continue
                effort[self._base.v_index[k]] = value
            self._accept_effort(effort)

    def _accept_effort(self, effort: np.ndarray) -> None:
        self._answers += 1
        if self._answers >= self._lockstep_answers:
            self._answered.set()
        self._effort = effort
        self._effort_applied = False
        self._last_command_time = self._sim.t
        if self._timeout_logged:
            self.get_logger().info('commands resumed')
        self._timeout_logged = False
        if self._holding:
            self._holding = False
            self.get_logger().info('first command received: joints released')

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
            if np.any(wrench != 0.0):
                self._wrenches[link] = wrench
            else:
                self._wrenches.pop(link, None)
            self._sim.set_wrenches(self._wrenches)

    def _command_fresh(self) -> bool:
        if self._last_command_time is None:
            return False
        return (self._command_timeout == 0
                or self._sim.t - self._last_command_time <= self._command_timeout)

    def _update_effort(self) -> None:
        """Hand the simulator the current command, or zero once the commands timed out."""
        if self._command_fresh():
            if not self._effort_applied:
                self._sim.set_effort(self._effort)
                self._effort_applied = True
            return
        if self._last_command_time is not None and not self._timeout_logged:
            self._timeout_logged = True
            self._sim.set_effort(np.zeros(self._sim.robot.dof))
            self._effort_applied = False
            self.get_logger().warning(
                f'no command for {self._command_timeout} s of sim time: applied effort '
                'dropped to zero')

    # ----------------------------------------------------------------- physics
    def _sim_time(self) -> float:
        sim = self._sim
        return sim.t if sim is not None else 0.0

    def _advance(self, count: int = 1) -> bool:
        """
        Take ``count`` steps under the lock, as ``count`` single steps would; False on a failure.

        The steps run as compiled blocks (``Simulator.step(n)``), split only
        where the applied effort changes: where the command times out. No
        callback runs meanwhile (they wait for the lock), so the inputs are
        those a step-by-step loop would have applied. On a failure the steps
        before it count, the simulation pauses with the reason, and the state
        stays at the last good step.
        """
        sim = self._sim
        dt = sim.dt
        done = 0
        start = time.perf_counter()
        while done < count:
            block = count - done
            if self._holding:
                for _ in range(block):
                    sim.t += dt    # brakes on: time runs, the joints stay where they are
            else:
                self._update_effort()
                block = self._fresh_steps(block)
                before = sim.t
                try:
                    sim.step(block)
                except SimulationDiverged as error:
                    taken = int(round((sim.t - before) / dt))   # the good steps before it
                    self._count_steps(done + taken, start)
                    self._pause_for(f'simulation diverged: {error}')
                    return False
            done += block
        self._count_steps(count, start)
        return True

    def _count_steps(self, count: int, start: float) -> None:
        """Count ``count`` steps taken since ``start`` (perf_counter s): time per step, version."""
        if count > 0:
            elapsed = time.perf_counter() - start
            self._step_timing.add(elapsed / count)   # the mean step of the block
            self._step_wall += 0.25 * (elapsed / count - self._step_wall)
        self._steps += count
        self._version += count

    def _fresh_steps(self, limit: int) -> int:
        """
        Return how many of the next ``limit`` steps the applied command stays fresh (>= 1).

        The test of ``_command_fresh`` before each step, with the times the
        steps will reach (sim time adds ``dt`` per step, in the same floating
        point as the compiled step), so a block ends exactly where one step at a
        time would drop the effort. Called when the effort for the next step is
        already set.
        """
        last, timeout = self._last_command_time, self._command_timeout
        if last is None or timeout == 0 or not self._effort_applied:
            return limit     # no command, never times out, or already timed out
        sim = self._sim
        t, dt = sim.t, sim.dt
        if (t - last) + (limit + 1) * dt <= timeout:
            return limit     # fresh throughout, by a whole step of margin for the rounding
        count = 1            # the next step: fresh (its effort was just applied)
        t += dt
        while count < limit and t - last <= timeout:
            count += 1
            t += dt
        return count

    def _block_steps(self, limit: Optional[int] = None) -> int:
        """
        Return how many steps the next block takes (see the module's "Cost").

        Paced at real time or slower: up to the next joint_states or /clock
        publish on the sim-time grid. Faster: about the publish period of wall
        time at the measured (or paced) time per step, 1 to MAX_BLOCK_STEPS.
        """
        if self._wall_rate:
            per_step = self._step_wall if self._rtf == 0.0 else max(self._step_wall,
                                                                    self._dt / self._rtf)
            steps = min(MAX_BLOCK_STEPS, max(1, int(self._block_wall / per_step)))
        else:
            steps = self._publish_every - self._steps % self._publish_every
            if self._publish_clock:
                steps = min(steps, self._clock_every - self._steps % self._clock_every)
        return steps if limit is None else min(steps, limit)

    def _pause_for(self, reason: str) -> None:
        self._paused = True
        self._fault = reason
        self.get_logger().error(f'{reason}; simulation paused (call ~/reset or ~/set_state, '
                                'then ~/pause false)')
        self._diagnose()

    def _run(self) -> None:
        """Physics loop: step, publish, pace to absolute deadlines."""
        try:
            self._loop()
        except Exception as error:  # noqa: B902 - the thread dies only at shutdown
            if rclpy.ok(context=self.context) and not self._stop.is_set():
                self.get_logger().fatal(f'physics thread failed: {error!r}')
                raise

    def _loop(self) -> None:
        anchor = None          # (wall time, sim time) the deadlines count from
        last_paused_publish = 0.0
        next_yield = 0
        while not self._stop.is_set():
            if self._lockstep:
                running, ok, sim_time = self._lockstep_period()
            else:
                with self._lock:     # one acquisition per block: check, step, publish
                    running = self._sim is not None and not self._paused
                    if running:
                        ok = self._advance(self._block_steps())
                        if ok:
                            self._publish_due()
                        sim_time = self._sim.t
            if not running:
                anchor = None
                now = time.monotonic()
                if self._lockstep:
                    with self._lock:    # each state is one question: asked again only if due
                        if self._sim is not None and self._question_due(now):
                            self._pose()
                elif self._sim is not None and now - last_paused_publish > PAUSED_PUBLISH_PERIOD:
                    last_paused_publish = now
                    with self._lock:
                        self._publish_state()
                self._wake.wait(PAUSED_PUBLISH_PERIOD)
                self._wake.clear()
                continue
            if not ok:
                continue
            if self._rtf > 0:
                now = time.monotonic()
                if anchor is None:
                    anchor = (now, sim_time)
                deadline = anchor[0] + (sim_time - anchor[1]) / self._rtf
                if deadline > now:
                    time.sleep(deadline - now)
                elif now - deadline > 0.5:
                    anchor = (now, sim_time)   # far behind: do not race to catch up
            elif self._steps >= next_yield:
                next_yield = self._steps + 20
                time.sleep(0)                  # let the executor threads take the GIL

    def _lockstep_period(self) -> tuple:
        """
        Ask the question of one control period, wait for the answers, advance the period.

        Returns (running, ok, sim time). The state goes out (``/clock`` first)
        once per period of sim time; the simulation advances only when
        ``lockstep_answers`` commands have arrived after it, so sim time stays
        exact and the closed loop deterministic whatever the CPU load. No
        answer within ``lockstep_timeout`` s of wall time pauses the simulation
        with the reason (a controller that died or never subscribed).
        """
        with self._lock:
            if self._sim is None or self._paused:
                return False, False, 0.0
            if self._question_due(time.monotonic()):
                self._pose()
            version, sim_time = self._version, self._sim.t
        while not self._answered.wait(0.05):
            if self._stop.is_set() or self._paused:
                return False, False, sim_time
            with self._lock:
                if self._version != version:
                    return False, False, sim_time       # reset or replaced while waiting
                if self._question_due(time.monotonic(), expire=False):
                    self._pose()                        # a controller started meanwhile
                elif time.monotonic() >= self._question[1] + self._lockstep_timeout:
                    self._question = None               # expired: asked again on resume
                    self._pause_for(
                        f'lockstep: {self._answers} of {self._lockstep_answers} commands for '
                        f'the state at t = {sim_time:.6f} s within {self._lockstep_timeout} s '
                        'of wall time (is every controller running and subscribed to '
                        'joint_states?)')
                    return False, False, sim_time
        with self._lock:
            if self._sim is None or self._paused or self._version != version:
                return False, False, sim_time   # paused, reset or replaced while waiting
            ok = self._advance(self._period_steps)   # the commands cannot change meanwhile
            return True, ok, self._sim.t

    def _pose(self) -> None:
        """
        Lockstep: publish the current state as the question the controllers answer (locked).

        Each state is published once, so that every command that arrives after
        it answers it: a second copy of a state would draw a second answer,
        which would arrive during the next period and be taken for its answer
        (the loop would then run one period behind, and differently from run
        to run). A state is asked again only when it went unanswered: a new
        publisher appeared on the command topics (a controller that started
        after the question), or ``lockstep_timeout`` s passed (an answer later
        than that is not taken as one).
        """
        self._answers = 0
        self._answered.clear()
        if self._publish_clock:
            self._clock_pub.publish(self._clock_bytes(*self._sec_nanosec()))
        self._publish_state()
        self._question = (self._version, time.monotonic(), self._command_publishers())

    def _question_due(self, now: float, expire: bool = True) -> bool:
        """Lockstep: whether the current state must be (re)published as the question."""
        question = self._question
        if question is None or question[0] != self._version:
            return True
        if self._answers >= self._lockstep_answers:
            return False
        return (self._command_publishers() > question[2]
                or (expire and now >= question[1] + self._lockstep_timeout))

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

    def _publish_changed(self) -> None:
        """Publish a state a service changed (in lockstep, as the question for it)."""
        if self._lockstep:
            self._pose()
        else:
            self._publish_state()

    def _publish_due(self, clock: bool = False) -> None:
        """
        Publish what is due after a block (locked); ``clock``: /clock in any case.

        Up to real time, on the sim-time grid the blocks end on: /clock every
        ``clock_period``, joint_states every ``1 / publish_rate``. Faster,
        each at most once per its period of wall time, as a listener sees them
        (500 Hz of sim time would be thousands per wall second).
        """
        if self._wall_rate:
            now = time.monotonic()
            if self._publish_clock and (clock or now >= self._next_wall_clock):
                self._next_wall_clock = next_time(self._next_wall_clock, self._clock_period,
                                                  now)
                self._clock_pub.publish(self._clock_bytes(*self._sec_nanosec()))
            if now >= self._next_wall_publish:
                self._next_wall_publish = next_time(self._next_wall_publish,
                                                    1.0 / self._publish_rate, now)
                self._publish_state()
            return
        if self._publish_clock and (clock or self._steps % self._clock_every == 0):
            self._clock_pub.publish(self._clock_bytes(*self._sec_nanosec()))
        if self._steps % self._publish_every == 0:
            self._publish_state()

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
        message.effort = base.joints(sim.effort if not self._holding
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
        message.effort = doubles(base.joints(sim.effort if not self._holding
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
            self._clear_inputs()
            fault, self._fault = self._fault, ''
            response.success = True
            response.message = (f'reset to the initial state at t = {sim.t:.6f} s'
                                + (f' (cleared: {fault})' if fault else '')
                                + ('; still paused' if self._paused else ''))
            self._version += 1
            self._publish_changed()
        self._wake.set()
        return response

    def _on_pause(self, request: SetBool.Request, response: SetBool.Response):
        with self._lock:
            if not request.data and self._sim is not None and not (
                    np.all(np.isfinite(self._sim.q)) and np.all(np.isfinite(self._sim.qd))):
                response.success = False
                response.message = 'the state is not finite: call ~/reset or ~/set_state first'
                return response
            self._paused = bool(request.data)
            if not self._paused:
                self._fault = ''
            response.success = True
            response.message = (f'paused at t = {self._sim_time():.6f} s' if self._paused
                                else f'running from t = {self._sim_time():.6f} s')
        self._wake.set()
        return response

    def _on_step(self, request: SimStep.Request, response: SimStep.Response):
        with self._lock:
            try:
                self._require_sim()
                if not self._paused:
                    raise RuntimeError('~/step works only while paused (call ~/pause true)')
                if self._fault:
                    raise RuntimeError(f'paused by a fault: {self._fault} (call ~/reset or '
                                       '~/set_state first)')
                if request.steps < 1:
                    raise ValueError(f'steps must be >= 1, got {request.steps}')
                first = self._steps
                if self._lockstep:
                    self._advance(request.steps)
                else:   # blocks up to what is due; the last state's /clock goes out in any case
                    while self._steps - first < request.steps:
                        if not self._advance(self._block_steps(request.steps
                                                               - (self._steps - first))):
                            break
                        self._publish_due(clock=self._steps - first == request.steps)
                done = self._steps - first
                if self._lockstep and done:
                    self._pose()    # in lockstep, the state reached is the one question
                response.success = done == request.steps
                response.message = (f'{done} steps' if response.success else
                                    f'stopped after {done} of {request.steps} steps: '
                                    f'{self._fault}')
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
                fault, self._fault = self._fault, ''
                response.success = True
                response.message = 'state set' + (f' (cleared: {fault})' if fault else '')
                self._version += 1
                self._publish_changed()
            except (ValueError, RuntimeError) as error:
                response.success, response.message = False, str(error)
            if self._sim is not None:
                response.state = self._state_message()
        self._wake.set()
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
            elif self._fault:
                status.level, status.message = DiagnosticStatus.ERROR, f'paused: {self._fault}'
            elif self._config_error:
                status.level, status.message = DiagnosticStatus.WARN, self._config_error
            elif self._paused:
                status.level, status.message = DiagnosticStatus.OK, 'paused'
            elif self._last_command_time is not None and not self._command_fresh():
                status.level, status.message = DiagnosticStatus.WARN, 'command timeout'
            else:
                status.level, status.message = DiagnosticStatus.OK, 'running'
            values = {'sim_time_s': f'{sim_time:.6f}', 'steps': str(self._steps),
                      'paused': str(self._paused), 'fault': self._fault,
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
            status = ('paused: ' + self._fault if self._fault else
                      'paused' if self._paused else
                      'holding until the first command' if self._holding else 'running')
            rms = np.sqrt(np.mean(error ** 2))
            self.get_logger().info(
                f'sim t = {self._sim.t:8.3f} s, pose error vs initial: max '
                f'{error[worst] * 1e3:.3g} mrad ({self._joint_names[worst]}), rms {rms * 1e3:.3g} '
                f'mrad; applied effort norm {np.linalg.norm(self._sim.effort):.3f} N m; {status}')

    def destroy_node(self) -> None:
        """Stop the physics thread before the node goes away."""
        self._stop.set()
        self._wake.set()
        thread = getattr(self, '_thread', None)   # None: stopped while being built
        if thread is not None and thread.is_alive() and threading.current_thread() is not thread:
            thread.join(timeout=5.0)
        super().destroy_node()


def main(args=None) -> int:
    """Run the simulator node until SIGINT or SIGTERM; 1 for an invalid parameter."""
    # a short GIL switch interval: the executor's callbacks are not starved by the physics
    sys.setswitchinterval(0.0005)
    return main_for(SimulatorNode)(args)
