# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Floating and planar bases through the running nodes, against the core called directly.

solo12 with a free-flyer (``root_joint: floating``) and TIAGo with a planar
base (``root_joint: planar``): ``~/inverse_dynamics``, ``~/forward_dynamics``,
``~/trajectory_dynamics`` and ``~/operational_space`` answer what
``RobotModel`` answers for q = (base, actuated joints), the base's rows in
``base_wrench`` (``base_acceleration`` for forward dynamics); quaternions a
little off unit are normalised, others refused naming the field; and the
feedforward stream takes the base state from a ``nav_msgs/Odometry``
publisher and goes quiet when it is stale.
"""

import math
import warnings

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import Accel, Pose, Twist, Wrench
from nav_msgs.msg import Odometry
import numpy as np
import pytest
from rclpy.qos import QoSProfile, ReliabilityPolicy
from robot_data import example_urdf
from ros_dynamics import RobotModel
from ros_dynamics.srv import (ForwardDynamics, InverseDynamics, OperationalSpace,
                              TrajectoryDynamics)
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

pytestmark = pytest.mark.ros

SOLO = example_urdf('solo_description/robots/solo12.urdf')
TIAGO = example_urdf('tiago_description/robots/tiago.urdf')
ROBOTS = {'solo': (SOLO, 'floating', 'FL_FOOT'), 'tiago': (TIAGO, 'planar', 'arm_tool_link')}
QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
TOLERANCE = 1e-12   # the node runs the same kernels: only the message round trip differs


def load(name: str) -> RobotModel:
    path, root, _ = ROBOTS[name]
    with warnings.catch_warnings():   # TIAGo's antenna inertias (URDFWarning)
        warnings.simplefilter('ignore')
        return RobotModel.from_urdf_file(path, root_joint=root)


class Twin:
    """A robot's model in this process and the state convention of the messages."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.robot = load(name)
        self.kind = ROBOTS[name][1]
        self.base = self.robot.joint_names[0]
        self.actuated = list(self.robot.joint_names[1:])
        self.q_index = [self.robot.q_slice(j).start for j in self.actuated]
        self.v_index = [self.robot.v_slice(j).start for j in self.actuated]
        self.nv_base = self.robot.v_slice(self.base).stop

    def random(self, rng: np.random.Generator) -> dict:
        """Return a random state: actuated q, qd, qdd, a base pose, twist and acceleration."""
        robot, n = self.robot, len(self.actuated)
        lower = np.maximum(robot.lower[self.q_index], -2.0)
        upper = np.minimum(robot.upper[self.q_index], 2.0)
        rotation = rng.normal(size=4)
        if self.kind == 'planar':   # a yaw
            rotation[:2] = 0.0
        return {'q': rng.uniform(lower, upper), 'qd': rng.normal(size=n),
                'qdd': rng.normal(size=n), 'effort': rng.normal(size=n),
                'position': rng.normal(size=3), 'rotation': rotation / np.linalg.norm(rotation),
                'twist': rng.normal(size=6), 'accel': rng.normal(size=6)}

    def q(self, state: dict) -> np.ndarray:
        out = np.empty(self.robot.nq)
        x, y, z, w = state['rotation']
        if self.kind == 'floating':
            out[:7] = np.concatenate((state['position'], state['rotation']))
        else:
            yaw = math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
            out[:4] = state['position'][0], state['position'][1], math.cos(yaw), math.sin(yaw)
        out[self.q_index] = state['q']
        return out

    def v(self, joints: np.ndarray, base: np.ndarray) -> np.ndarray:
        out = np.empty(self.robot.nv)
        out[:self.nv_base] = base if self.kind == 'floating' else base[[0, 1, 5]]
        out[self.v_index] = joints
        return out

    def wrench_rows(self, tau: np.ndarray) -> list:
        """Return the six numbers of the Wrench (Accel) the base rows of ``tau`` become."""
        if self.kind == 'floating':
            return list(tau[:6])
        return [tau[0], tau[1], 0.0, 0.0, 0.0, tau[2]]


def pose(state: dict) -> Pose:
    message = Pose()
    message.position.x, message.position.y, message.position.z = map(float, state['position'])
    (message.orientation.x, message.orientation.y, message.orientation.z,
     message.orientation.w) = map(float, state['rotation'])
    return message


def six(message_type, values):
    message = message_type()
    (message.linear.x, message.linear.y, message.linear.z,
     message.angular.x, message.angular.y, message.angular.z) = map(float, values)
    return message


def numbers(message) -> list:
    if isinstance(message, Wrench):
        return [message.force.x, message.force.y, message.force.z,
                message.torque.x, message.torque.y, message.torque.z]
    return [message.linear.x, message.linear.y, message.linear.z,
            message.angular.x, message.angular.y, message.angular.z]


def close(ours, reference) -> bool:
    ours, reference = np.asarray(ours, dtype=float), np.asarray(reference, dtype=float)
    scale = max(1.0, float(np.max(np.abs(reference)))) if reference.size else 1.0
    return ours.shape == reference.shape and float(np.max(np.abs(ours - reference),
                                                          initial=0.0)) <= TOLERANCE * scale


@pytest.fixture(scope='module', params=['solo', 'tiago'])
def dynamics(request):
    """Start an inverse_dynamics node of the robot, its odometry on ``odom`` (the default)."""
    twin = Twin(request.param)
    namespace = unique_namespace()
    parameters = {'urdf_path': ROBOTS[request.param][0], 'root_joint': twin.kind,
                  'state_timeout': 0.3, 'joints': twin.actuated[:4], 'diagnostics_period': 0.2}
    with NodeProcess('inverse_dynamics_node', namespace, parameters) as node, \
            RosClient(namespace) as ros:
        yield twin, ros
        assert node.alive(), node.output()


def inverse_request(twin: Twin, state: dict) -> InverseDynamics.Request:
    request = InverseDynamics.Request(want_gravity_torques=True, want_bias_torques=True,
                                      want_mass_matrix=True, want_coriolis_matrix=True)
    request.state = JointState(name=twin.actuated, position=list(state['q']),
                               velocity=list(state['qd']))
    request.accelerations = list(state['qdd'])
    request.base_pose = pose(state)
    request.base_twist = six(Twist, state['twist'])
    request.base_acceleration = six(Accel, state['accel'])
    return request


def test_inverse_dynamics_gives_the_base_rows_as_base_wrench(dynamics):
    twin, ros = dynamics
    robot = twin.robot
    rng = np.random.default_rng(29)
    for _ in range(3):
        state = twin.random(rng)
        answer = ros.call(InverseDynamics, 'inverse_dynamics/inverse_dynamics',
                          inverse_request(twin, state))
        assert answer.success, answer.message
        q = twin.q(state)
        v, a = twin.v(state['qd'], state['twist']), twin.v(state['qdd'], state['accel'])
        tau = robot.inverse_dynamics(q, v, a)
        assert list(answer.joint_names) == twin.actuated
        assert close(answer.effort, tau[twin.v_index])
        assert close(numbers(answer.base_wrench), twin.wrench_rows(tau))
        assert answer.base_dof == twin.nv_base
        assert close(answer.gravity_torques, robot.gravity_torques(q)[twin.v_index])
        assert close(answer.bias_torques, robot.bias_torques(q, v)[twin.v_index])
        mass = np.array(answer.mass_matrix.data).reshape(robot.nv, robot.nv)
        assert close(mass, robot.mass_matrix(q))
        coriolis = np.array(answer.coriolis_matrix.data).reshape(robot.nv, robot.nv)
        assert close(coriolis, robot.coriolis_matrix(q, v))
        assert close(coriolis @ v, robot.bias_torques(q, v) - robot.gravity_torques(q))
        assert abs(np.linalg.norm(tau[:twin.nv_base])) > 1e-3   # the base rows are not trivial


def test_a_quaternion_near_unit_is_normalised_and_others_refused(dynamics):
    twin, ros = dynamics
    state = twin.random(np.random.default_rng(7))
    reference = ros.call(InverseDynamics, 'inverse_dynamics/inverse_dynamics',
                         inverse_request(twin, state))
    assert reference.success, reference.message
    near = dict(state, rotation=state['rotation'] * (1.0 + 5e-7))
    answer = ros.call(InverseDynamics, 'inverse_dynamics/inverse_dynamics',
                      inverse_request(twin, near))
    assert answer.success, answer.message
    assert np.allclose(answer.effort, reference.effort, rtol=1e-9, atol=1e-9)
    for rotation, twist in ((state['rotation'] * 1.01, state['twist']),
                            (np.zeros(4), state['twist']),
                            (state['rotation'], np.full(6, np.nan))):
        request = inverse_request(twin, dict(state, rotation=rotation, twist=twist))
        answer = ros.call(InverseDynamics, 'inverse_dynamics/inverse_dynamics', request)
        assert not answer.success
        field = 'base_twist' if np.isnan(twist).any() else 'base_pose.orientation'
        assert field in answer.message, answer.message


def test_forward_dynamics_gives_the_base_acceleration(dynamics):
    twin, ros = dynamics
    robot = twin.robot
    state = twin.random(np.random.default_rng(3))
    request = ForwardDynamics.Request()
    request.state = JointState(name=twin.actuated, position=list(state['q']),
                               velocity=list(state['qd']), effort=list(state['effort']))
    request.base_pose, request.base_twist = pose(state), six(Twist, state['twist'])
    answer = ros.call(ForwardDynamics, 'inverse_dynamics/forward_dynamics', request)
    assert answer.success, answer.message
    q, v = twin.q(state), twin.v(state['qd'], state['twist'])
    tau = np.zeros(robot.nv)
    tau[twin.v_index] = state['effort']   # the base is not actuated
    a = robot.forward_dynamics(q, v, tau)
    assert close(answer.accelerations, a[twin.v_index])
    assert close(numbers(answer.base_acceleration), twin.wrench_rows(a))
    # and back: the inverse dynamics of that acceleration needs no force on the base
    back = robot.inverse_dynamics(q, v, a)
    assert np.allclose(back[:twin.nv_base], 0.0, atol=1e-8)


def test_trajectory_dynamics_with_a_base_per_point(dynamics):
    twin, ros = dynamics
    robot = twin.robot
    rng = np.random.default_rng(11)
    states = [twin.random(rng) for _ in range(4)]
    request = TrajectoryDynamics.Request()
    request.trajectory = JointTrajectory(joint_names=twin.actuated)
    for k, state in enumerate(states):
        point = JointTrajectoryPoint(positions=list(state['q']), velocities=list(state['qd']),
                                     accelerations=list(state['qdd']))
        point.time_from_start.nanosec = 100_000_000 * k
        request.trajectory.points.append(point)
    request.base_poses = [pose(s) for s in states]
    request.base_twists = [six(Twist, s['twist']) for s in states]
    request.base_accelerations = [six(Accel, s['accel']) for s in states]
    answer = ros.call(TrajectoryDynamics, 'inverse_dynamics/trajectory_dynamics', request)
    assert answer.success, answer.message
    tau = robot.inverse_dynamics(np.array([twin.q(s) for s in states]),
                                 np.array([twin.v(s['qd'], s['twist']) for s in states]),
                                 np.array([twin.v(s['qdd'], s['accel']) for s in states]))
    efforts = np.array(answer.efforts.data).reshape(len(states), len(twin.actuated))
    assert list(answer.joint_names) == twin.actuated
    assert close(efforts, tau[:, twin.v_index])
    assert len(answer.report) == len(twin.actuated)
    assert answer.report[0].joint == twin.actuated[0]
    assert close(answer.report[0].peak_effort, np.max(np.abs(tau[:, twin.v_index[0]])))
    assert close([numbers(w) for w in answer.base_wrenches], [twin.wrench_rows(t) for t in tau])
    request.base_twists = request.base_twists[:2]
    answer = ros.call(TrajectoryDynamics, 'inverse_dynamics/trajectory_dynamics', request)
    assert not answer.success and 'base_twists' in answer.message, answer.message


@pytest.fixture(scope='module')
def operational():
    """Start an operational_space node of TIAGo with its planar base."""
    namespace = unique_namespace()
    parameters = {'urdf_path': TIAGO, 'root_joint': 'planar'}
    with NodeProcess('operational_space_node', namespace, parameters) as node, \
            RosClient(namespace) as ros:
        yield Twin('tiago'), ros
        assert node.alive(), node.output()


def test_operational_space_with_a_planar_base(operational):
    twin, ros = operational
    robot, link = twin.robot, ROBOTS['tiago'][2]
    state = twin.random(np.random.default_rng(5))
    request = OperationalSpace.Request(link=link, has_wrench=True)
    request.state = JointState(name=twin.actuated, position=list(state['q']),
                               velocity=list(state['qd']))
    request.base_pose, request.base_twist = pose(state), six(Twist, state['twist'])
    request.wrench.force.x, request.wrench.force.z, request.wrench.torque.y = 3.0, -20.0, 1.5
    request.null_space_joint_names = twin.actuated[1:3]
    request.null_space_torque = [0.7, -0.4]
    answer = ros.call(OperationalSpace, 'operational_space/operational_space', request)
    assert answer.success, answer.message
    q, v = twin.q(state), twin.v(state['qd'], state['twist'])
    space = robot.operational_space(q, v, link)
    assert answer.base_dof == 3 and list(answer.joint_names) == twin.actuated
    assert close(np.array(answer.jacobian.data).reshape(6, robot.nv), space.J)
    assert close(answer.mu, space.mu) and close(answer.p, space.p)
    tau0 = np.zeros(robot.nv)
    tau0[twin.v_index[1:3]] = 0.7, -0.4
    effort = space.joint_torque(np.array([3.0, 0.0, -20.0, 0.0, 1.5, 0.0]), tau0)
    assert close(answer.effort, effort[twin.v_index])
    assert close(numbers(answer.base_wrench), twin.wrench_rows(effort))


class Stream:
    """Publish joint states and odometry, collect the node's commands."""

    def __init__(self, ros) -> None:
        self.ros = ros
        self.states = ros.node.create_publisher(JointState, 'joint_states', QOS)
        self.odometry = ros.node.create_publisher(Odometry, 'odom', QOS)
        self.commands, self.diagnostics = [], []
        ros.node.create_subscription(Float64MultiArray, 'commands',
                                     lambda m: self.commands.append(np.array(m.data)), QOS)
        ros.node.create_subscription(DiagnosticArray, '/diagnostics',
                                     lambda m: self.diagnostics.extend(m.status), QOS)
        wait_for(lambda: self.states.get_subscription_count() > 0, 60.0, 'joint_states')
        wait_for(lambda: self.odometry.get_subscription_count() > 0, 60.0, 'odom')

    def stamp(self, message, age: float = 0.0) -> None:
        now = self.ros.node.get_clock().now().nanoseconds * 1e-9 - age
        message.header.stamp.sec, message.header.stamp.nanosec = int(now), int(now % 1 * 1e9)

    def odometry_of(self, state: dict, age: float = 0.0) -> None:
        message = Odometry()
        self.stamp(message, age)
        message.pose.pose, message.twist.twist = pose(state), six(Twist, state['twist'])
        self.odometry.publish(message)

    def exchange(self, twin: Twin, state: dict, expected, attempts: int = 40) -> bool:
        """Send odometry and joint states until a command equal to ``expected`` comes back."""
        for _ in range(attempts):
            count = len(self.commands)
            self.odometry_of(state)
            message = JointState(name=twin.actuated, position=list(state['q']),
                                 velocity=list(state['qd']))
            self.stamp(message)
            self.states.publish(message)
            try:
                wait_for(lambda: len(self.commands) > count, 0.5, 'a command')
            except AssertionError:
                continue
            if close(self.commands[-1], expected):
                return True
        raise AssertionError(f'no command equal to {expected}; last {self.commands[-1:]}')


def test_the_stream_takes_the_base_from_odometry(dynamics):
    """Gravity compensation of the first four actuated joints at a tilted (turned) base."""
    twin, ros = dynamics
    robot = twin.robot
    stream = Stream(ros)
    state = twin.random(np.random.default_rng(13))
    expected = robot.gravity_torques(twin.q(state))[twin.v_index[:4]]
    if twin.kind == 'floating':   # a free-flyer's tilt changes the legs' gravity torques
        level = dict(state, rotation=np.array([0.0, 0.0, 0.0, 1.0]))
        assert not close(expected, robot.gravity_torques(twin.q(level))[twin.v_index[:4]])
    stream.exchange(twin, state, expected)
    # odometry older than state_timeout (0.3 s): no command from the joint states
    stream.odometry_of(state, age=1.0)
    wait_for(lambda: stream.ros.node.count_publishers('odom') > 0, 5.0)
    joints = JointState(name=twin.actuated, position=list(state['q']))
    sent = []
    for _ in range(20):
        stream.stamp(joints)
        count = len(stream.commands)
        stream.states.publish(joints)
        try:
            wait_for(lambda: len(stream.commands) > count, 0.05)
        except AssertionError:
            pass
        sent += stream.commands[count:]
    assert all(np.all(c == 0.0) for c in sent[2:]), sent   # the stale policy's zeros at most
    namespace = stream.ros.node.get_namespace()

    def warns() -> bool:   # joint states keep coming, every one stale for the odometry
        stream.stamp(joints)
        stream.states.publish(joints)
        return any(s.name.startswith(namespace) and s.level == DiagnosticStatus.WARN
                   and 'odometry on odom' in s.message for s in stream.diagnostics[-5:])
    wait_for(warns, 10.0, 'a WARN naming the stale odometry')
    stream.exchange(twin, state, expected)   # fresh odometry again: the stream resumes


BALL = """<robot name="ball">
  <link name="base"/>
  <link name="arm"><inertial><mass value="2.0"/>
    <inertia ixx="0.3" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.1"/></inertial></link>
  <joint name="shoulder" type="spherical"><parent link="base"/><child link="arm"/></joint>
</robot>
"""


def test_the_conversions_without_a_node():
    """A planar base's yaw is scipy's; a ball joint, which no joint vector holds, is refused."""
    from ros_dynamics.nodes.base_state import base_kind, BaseJoint
    from scipy.spatial.transform import Rotation
    for root in (None, 'floating', 'planar'):
        with pytest.raises(ValueError, match="'shoulder' have several coordinates"):
            base_kind(RobotModel.from_urdf_string(BALL, root_joint=root))
    assert base_kind(load('solo')) == 'floating' and base_kind(load('tiago')) == 'planar'
    written = RobotModel.from_urdf_string(BALL.replace('spherical', 'floating'))
    assert BaseJoint(written).name == 'shoulder' and BaseJoint(written).kind == 'floating'
    planar = BaseJoint(load('tiago'))
    rng = np.random.default_rng(1)
    for _ in range(20):
        rotation = rng.normal(size=4)
        rotation /= np.linalg.norm(rotation)
        state = {'position': rng.normal(size=3), 'rotation': rotation}
        q_base = planar.base_configuration(pose(state))
        yaw = Rotation.from_quat(rotation).as_euler('ZYX')[0]
        assert np.allclose(q_base, [*state['position'][:2], np.cos(yaw), np.sin(yaw)],
                           atol=1e-12)
    assert planar.nq_base == 4 and planar.nv_base == 3
    assert BaseJoint(load('solo')).actuated == tuple(load('solo').joint_names[1:])


def test_payload_estimation_and_timing_say_they_serve_fixed_bases_only(dynamics):
    from ros_dynamics.srv import EstimatePayload, TimeOptimalTrajectory
    twin, ros = dynamics
    request = EstimatePayload.Request(link=twin.robot.link_names[-1], window=1.0)
    answer = ros.call(EstimatePayload, 'inverse_dynamics/estimate_payload', request,
                      once=True)
    assert not answer.success and 'fixed-base robots only' in answer.message, answer.message
    request = TimeOptimalTrajectory.Request()
    request.path = JointTrajectory(joint_names=twin.actuated[:1], points=[
        JointTrajectoryPoint(positions=[0.0]), JointTrajectoryPoint(positions=[0.3])])
    answer = ros.call(TimeOptimalTrajectory, 'inverse_dynamics/time_optimal_trajectory',
                      request)
    assert not answer.success and 'fixed-base robots only' in answer.message, answer.message


def test_the_stream_uses_the_odometry_twist_in_inverse_dynamics_mode(dynamics):
    """RNEA of the reference at the odometry's base twist (base frame), no base acceleration."""
    from rcl_interfaces.srv import SetParameters
    from rclpy.parameter import Parameter
    twin, ros = dynamics
    robot, listed = twin.robot, twin.actuated[:4]
    stream = Stream(ros)
    references = ros.node.create_publisher(JointTrajectoryPoint, 'reference', QOS)

    def set_mode(mode: str) -> None:
        request = SetParameters.Request(parameters=[
            Parameter('mode', value=mode).to_parameter_msg()])
        (result,) = ros.call(SetParameters, 'inverse_dynamics/set_parameters', request).results
        assert result.successful, result.reason
    set_mode('inverse_dynamics')
    try:
        wait_for(lambda: references.get_subscription_count() > 0, 30.0, 'reference')
        rng = np.random.default_rng(17)
        state = twin.random(rng)
        q_ref, qd_ref, qdd_ref = (rng.normal(size=4) * 0.5 for _ in range(3))
        references.publish(JointTrajectoryPoint(positions=list(q_ref), velocities=list(qd_ref),
                                                accelerations=list(qdd_ref)))
        q = twin.q(state)
        v, a = np.zeros(robot.nv), np.zeros(robot.nv)
        listed_v = [twin.v_index[twin.actuated.index(j)] for j in listed]
        q[[twin.q_index[twin.actuated.index(j)] for j in listed]] = q_ref
        v[:twin.nv_base] = twin.v(np.zeros(len(twin.actuated)), state['twist'])[:twin.nv_base]
        v[listed_v], a[listed_v] = qd_ref, qdd_ref
        expected = robot.inverse_dynamics(q, v, a)[listed_v]
        without_twist = robot.inverse_dynamics(q, np.where(np.arange(robot.nv) < twin.nv_base,
                                                           0.0, v), a)[listed_v]
        assert not close(expected, without_twist)   # the twist matters to these joints
        stream.exchange(twin, state, expected)
    finally:
        set_mode('gravity_compensation')
