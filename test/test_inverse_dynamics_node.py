# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The installed inverse_dynamics_node over real ROS: services, the feedforward stream, errors.

One node process per test module (start-up costs a few seconds), each test in
the same unique namespace; efforts are compared with the core to 1e-12.
"""

import os

from builtin_interfaces.msg import Duration
import numpy as np
import pytest
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_dynamics import RobotModel
from ros_dynamics.msg import LinkWrench
from ros_dynamics.srv import ForwardDynamics, InverseDynamics, TrajectoryDynamics
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URDF = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
ROBOT = RobotModel.from_urdf_file(URDF)
JOINTS = list(ROBOT.joint_names)
OUTPUT_ORDER = JOINTS[::-1]   # the stream's `joints` parameter: reversed on purpose
SERVICE = 'inverse_dynamics/inverse_dynamics'


@pytest.fixture(scope='module')
def ros():
    namespace = unique_namespace()
    parameters = {'urdf_path': URDF, 'joints': OUTPUT_ORDER, 'state_timeout': 0.5,
                  'kp': [100.0], 'kd': [20.0]}
    with NodeProcess('inverse_dynamics_node', namespace, parameters) as node:
        with RosClient(namespace) as client:
            client.process = node
            yield client
        assert node.alive(), node.output()


def state(q, qd=None, names=None):
    message = JointState()
    message.name = list(names or JOINTS)
    message.position = [float(v) for v in q]
    if qd is not None:
        message.velocity = [float(v) for v in qd]
    return message


def test_inverse_dynamics_service_equals_the_core(ros):
    rng = np.random.default_rng(1)
    q, qd, qdd = (rng.uniform(-1, 1, ROBOT.dof) for _ in range(3))
    order = np.random.default_rng(2).permutation(ROBOT.dof)   # joints in any order
    request = InverseDynamics.Request()
    request.state = state(q[order], qd[order], [JOINTS[k] for k in order])
    request.accelerations = qdd[order].tolist()
    request.want_gravity_torques = request.want_bias_torques = True
    request.want_mass_matrix = request.want_coriolis_matrix = True
    wrench = LinkWrench(link='panda_hand_tcp')
    wrench.wrench.force.z, wrench.wrench.torque.x = 7.0, 0.3
    request.external_wrenches = [wrench]
    response = ros.call(InverseDynamics, SERVICE, request)
    assert response.success, response.message
    assert list(response.joint_names) == JOINTS
    # no actuators YAML, friction_compensation false: neither term is in the answer
    assert not response.friction_included and not response.armature_included
    expected = ROBOT.inverse_dynamics(q, qd, qdd, {'panda_hand_tcp': [0, 0, 7.0, 0.3, 0, 0]})
    assert np.allclose(response.effort, expected, rtol=0, atol=1e-12)
    assert np.allclose(response.gravity_torques, ROBOT.gravity_torques(q), atol=1e-12)
    assert np.allclose(response.bias_torques, ROBOT.bias_torques(q, qd), atol=1e-12)
    dims = response.mass_matrix.layout.dim
    assert (dims[0].size, dims[1].size) == (ROBOT.dof, ROBOT.dof)
    mass = np.array(response.mass_matrix.data).reshape(ROBOT.dof, ROBOT.dof)
    assert np.allclose(mass, ROBOT.mass_matrix(q), atol=1e-12)
    coriolis = np.array(response.coriolis_matrix.data).reshape(ROBOT.dof, ROBOT.dof)
    assert np.allclose(coriolis, ROBOT.coriolis_matrix(q, qd), atol=1e-12)
    request.gravity_only = True
    response = ros.call(InverseDynamics, SERVICE, request)
    assert np.allclose(response.effort, ROBOT.gravity_torques(q), atol=1e-12)


def test_forward_and_trajectory_dynamics(ros):
    rng = np.random.default_rng(3)
    q, qd, tau = (rng.uniform(-1, 1, ROBOT.dof) for _ in range(3))
    request = ForwardDynamics.Request()
    request.state = state(q, qd)
    request.state.effort = tau.tolist()
    response = ros.call(ForwardDynamics, 'inverse_dynamics/forward_dynamics', request)
    assert response.success, response.message
    assert np.allclose(response.accelerations, ROBOT.forward_dynamics(q, qd, tau), atol=1e-12)
    assert not response.friction_included and not response.armature_included

    times = np.linspace(0.0, 1.0, 21)
    qs = np.sin(times)[:, None] * np.linspace(0.2, 0.8, ROBOT.dof)
    qds = np.cos(times)[:, None] * np.linspace(0.2, 0.8, ROBOT.dof) * 5.0
    trajectory = JointTrajectory(joint_names=JOINTS)
    for t, p, v in zip(times, qs, qds):
        trajectory.points.append(JointTrajectoryPoint(
            positions=p.tolist(), velocities=v.tolist(),
            time_from_start=Duration(sec=int(t), nanosec=int(round((t % 1) * 1e9)))))
    request = TrajectoryDynamics.Request(trajectory=trajectory)
    response = ros.call(TrajectoryDynamics, 'inverse_dynamics/trajectory_dynamics', request)
    assert response.success, response.message
    efforts = np.array(response.efforts.data).reshape(len(times), ROBOT.dof)
    assert np.allclose(efforts, ROBOT.inverse_dynamics(qs, qds, np.zeros_like(qs)), atol=1e-12)
    assert not response.friction_included and not response.armature_included
    assert [r.joint for r in response.report] == JOINTS
    assert response.violations   # 5 rad/s exceeds the Panda's 2.175 / 2.61 rad/s limits
    assert all(v.kind == 'velocity' and abs(v.value) > v.limit for v in response.violations)


@pytest.mark.parametrize('mutate, fragment', [
    (lambda r: r.state.name.__setitem__(0, 'ghost'), "unknown joint 'ghost'"),
    (lambda r: r.state.position.pop(), '6 values for 7 joint names'),
    (lambda r: r.state.position.__setitem__(2, float('nan')), 'is nan'),
    (lambda r: setattr(r, 'accelerations', [float('inf')] * 7), 'accelerations'),
    (lambda r: r.external_wrenches.append(LinkWrench(link='nowhere')), "link 'nowhere'"),
])
def test_bad_requests_are_answered_and_the_node_keeps_serving(ros, mutate, fragment):
    request = InverseDynamics.Request(state=state(np.zeros(ROBOT.dof)))
    request.state.name, request.state.position = list(request.state.name), \
        list(request.state.position)
    mutate(request)
    response = ros.call(InverseDynamics, SERVICE, request)
    assert not response.success and fragment in response.message, response.message
    good = ros.call(InverseDynamics, SERVICE,
                    InverseDynamics.Request(state=state(np.zeros(ROBOT.dof))))
    assert good.success


class Stream:
    """Publish joint states and collect the commands the node answers with."""

    def __init__(self, ros):
        qos = QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE)
        self.ros = ros
        self.states = ros.node.create_publisher(JointState, 'joint_states', qos)
        self.references = ros.node.create_publisher(JointTrajectoryPoint, 'reference', qos)
        self.received = []
        ros.node.create_subscription(Float64MultiArray, 'commands',
                                     lambda m: self.received.append(np.array(m.data)), qos)
        wait_for(lambda: self.states.get_subscription_count() > 0, what='the node subscribing')
        wait_for(lambda: ros.node.count_publishers('commands') > 0, what='commands publisher')

    def send(self, q, qd=None, names=None, stamp=None):
        message = state(q, qd, names)
        message.header.stamp = stamp or self.ros.node.get_clock().now().to_msg()
        count = len(self.received)
        self.states.publish(message)
        return count

    def answer(self, count, timeout=10.0):
        """
        Return the last command after the ``count`` first, skipping all-zero ones.

        A pause longer than ``state_timeout`` (0.5 s here) between two states of a test
        makes the node's stale policy send zero effort once (on_stale: zero); that
        release is not the answer (test_stale_policy covers it).
        """
        def answered() -> list:
            return [c for c in self.received[count:] if np.any(c != 0.0)]
        wait_for(lambda: bool(answered()), timeout, 'a command')
        return answered()[-1]

    def exchange(self, q, qd=None, names=None, attempts=20):
        """Send until a command comes back (discovery may still be settling); return it."""
        for _ in range(attempts):
            try:
                return self.answer(self.send(q, qd, names), timeout=0.5)
            except AssertionError:
                continue
        raise AssertionError('no command for a fresh joint state')

    def answers(self, q, qd, expected) -> bool:
        """Send a state; True if a command equal to ``expected`` comes back within 0.5 s."""
        try:
            command = self.answer(self.send(q, qd), timeout=0.5)
        except AssertionError:   # e.g. the reference has not reached the node yet
            return False
        return np.allclose(command, expected, atol=1e-9)


def set_parameters(ros, **values):
    from rcl_interfaces.srv import SetParameters
    request = SetParameters.Request(parameters=[
        Parameter(k, value=v).to_parameter_msg() for k, v in values.items()])
    return ros.call(SetParameters, 'inverse_dynamics/set_parameters', request).results


def test_gravity_compensation_stream(ros):
    stream = Stream(ros)
    q = np.array([0.2, -0.4, 0.1, -2.0, 0.3, 1.6, 0.5])
    command = stream.exchange(q)
    expected = ROBOT.gravity_torques(q)
    assert np.allclose(command, expected[[JOINTS.index(j) for j in OUTPUT_ORDER]], atol=1e-12)
    # a partial message (two joints) is merged with what the node already has
    q2 = q.copy()
    q2[[1, 3]] = [-0.6, -1.5]
    command = stream.answer(stream.send(q2[[1, 3]], names=[JOINTS[1], JOINTS[3]]))
    assert np.allclose(command, ROBOT.gravity_torques(q2)[::-1], atol=1e-12)
    # unknown joints in the message are ignored
    message_names = JOINTS + ['some_gripper_joint']
    command = stream.answer(stream.send(np.append(q, 0.3), names=message_names))
    assert np.allclose(command, expected[::-1], atol=1e-12)


def test_stale_state_is_silent(ros):
    stream = Stream(ros)
    q = np.zeros(ROBOT.dof)
    q[3] = -1.5
    stream.exchange(q)
    old = ros.node.get_clock().now().to_msg()
    old.sec -= 5   # stamped 5 s ago: older than state_timeout (0.5 s)
    stale_q = q + 0.4
    count = stream.send(stale_q, stamp=old)
    fresh_q = q + 0.01
    stream.answer(stream.send(fresh_q))   # a fresh message after it is answered...
    stale_command = ROBOT.gravity_torques(stale_q)[::-1]
    later = stream.received[count:]
    assert any(np.allclose(c, ROBOT.gravity_torques(fresh_q)[::-1]) for c in later)
    assert not any(np.allclose(c, stale_command) for c in later)   # ...the stale one not


def test_gravity_compensation_damping(ros):
    """The gain kd (20 1/s in this fixture) adds -M(q) kd qd to g(q), measured qd."""
    stream = Stream(ros)
    q = np.array([0.1, -0.5, 0.2, -1.8, 0.1, 1.4, 0.3])
    qd = np.linspace(0.3, -0.3, ROBOT.dof)
    order = [JOINTS.index(j) for j in OUTPUT_ORDER]
    expected = ROBOT.gravity_torques(q) - ROBOT.mass_matrix(q) @ (20.0 * qd)
    assert np.abs(expected - ROBOT.gravity_torques(q)).max() > 1.0
    wait_for(lambda: stream.answers(q, qd, expected[order]), what='the damped command')
    wait_for(lambda: stream.answers(q, np.zeros(ROBOT.dof), ROBOT.gravity_torques(q)[order]),
             what='g(q) at rest')


def test_computed_torque_with_reference_and_clamping(ros):
    stream = Stream(ros)
    assert all(r.successful for r in set_parameters(ros, mode='computed_torque'))
    # the node subscribes to reference only in the modes that follow one
    wait_for(lambda: stream.references.get_subscription_count() > 0, what='reference sub')
    try:
        q = np.array([0.0, -0.3, 0.0, -2.0, 0.0, 1.6, 0.2])
        qd = np.linspace(-0.2, 0.2, ROBOT.dof)
        q_ref, qd_ref = q + 0.05, np.zeros(ROBOT.dof)
        qdd_ref = np.linspace(0.5, -0.5, ROBOT.dof)
        order = [JOINTS.index(j) for j in OUTPUT_ORDER]
        stream.references.publish(JointTrajectoryPoint(
            positions=q_ref[order].tolist(), velocities=qd_ref[order].tolist(),
            accelerations=qdd_ref[order].tolist()))
        expected = ROBOT.mass_matrix(q) @ (qdd_ref + 20.0 * (qd_ref - qd) + 100.0 * (q_ref - q)) \
            + ROBOT.bias_torques(q, qd)
        expected = np.clip(expected, -ROBOT.effort_limit, ROBOT.effort_limit)

        wait_for(lambda: stream.answers(q, qd, expected[order]),
                 what='the computed-torque command for the reference')
        # a reference far away: the joints whose command exceeds the URDF limit are clamped
        stream.references.publish(JointTrajectoryPoint(positions=(q + 3.0)[order].tolist()))
        raw = ROBOT.mass_matrix(q) @ (20.0 * -qd + 100.0 * 3.0) + ROBOT.bias_torques(q, qd)
        clamped = np.clip(raw, -ROBOT.effort_limit, ROBOT.effort_limit)
        assert np.sum(raw != clamped) >= 3

        wait_for(lambda: stream.answers(q, qd, clamped[order]), what='clamped efforts')
    finally:
        set_parameters(ros, mode='gravity_compensation')


def test_bad_parameters_are_rejected(ros):
    results = set_parameters(ros, mode='levitate')
    assert not results[0].successful and 'levitate' in results[0].reason
    results = set_parameters(ros, kp=[-1.0])
    assert not results[0].successful and 'kp' in results[0].reason
    results = set_parameters(ros, kd=[1.0, 2.0])
    assert not results[0].successful and 'kd' in results[0].reason


def test_robot_description_topic_reloads_and_a_bad_one_keeps_the_model():
    """Models from the topic: a malformed description is refused, the previous model serves."""
    namespace = unique_namespace()
    arm_2r = os.path.join(ROOT, 'urdf', 'planar_2r.urdf')
    qos = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)
    rng = np.random.default_rng(5)
    with NodeProcess('inverse_dynamics_node', namespace) as node, RosClient(namespace) as ros:
        request = InverseDynamics.Request()
        request.state = state(rng.uniform(-1, 1, ROBOT.dof), rng.uniform(-1, 1, ROBOT.dof))
        answer = ros.call(InverseDynamics, SERVICE, request)
        assert not answer.success and 'no robot model loaded yet' in answer.message

        publisher = ros.node.create_publisher(String, 'robot_description', qos)
        with open(URDF, encoding='utf-8') as stream:
            publisher.publish(String(data=stream.read()))

        def answered():
            return ros.call(InverseDynamics, SERVICE, request).success
        wait_for(answered, what='the Panda from the robot_description topic')
        expected = ROBOT.inverse_dynamics(np.array(request.state.position),
                                          np.array(request.state.velocity), np.zeros(ROBOT.dof))

        # malformed: refused with the reason in the log, the Panda keeps answering
        publisher.publish(String(data='<robot name="broken"><link name="a"></robot>'))
        wait_for(lambda: 'cannot load the robot model' in node.output(),
                 what='the refusal in the log')
        assert 'keeping the previous model' in node.output()
        answer = ros.call(InverseDynamics, SERVICE, request)
        assert answer.success, answer.message
        assert np.allclose(answer.effort, expected, rtol=0, atol=1e-12)

        # a good new description replaces the model (other joints, other efforts)
        with open(arm_2r, encoding='utf-8') as stream:
            publisher.publish(String(data=stream.read()))
        two_r = RobotModel.from_urdf_file(arm_2r)
        request_2r = InverseDynamics.Request()
        request_2r.state = state([0.3, -0.7], [0.5, 0.2], names=['shoulder', 'elbow'])

        def reloaded():
            return ros.call(InverseDynamics, SERVICE, request_2r).success
        wait_for(reloaded, what='the 2R arm from the robot_description topic')
        answer = ros.call(InverseDynamics, SERVICE, request_2r)
        assert list(answer.joint_names) == ['shoulder', 'elbow']
        assert np.allclose(answer.effort, two_r.inverse_dynamics(
            np.array([0.3, -0.7]), np.array([0.5, 0.2]), np.zeros(2)), rtol=0, atol=1e-12)
        answer = ros.call(InverseDynamics, SERVICE, request)        # Panda joints: refused
        assert not answer.success and 'panda_joint1' in answer.message
        assert node.alive(), node.output()
