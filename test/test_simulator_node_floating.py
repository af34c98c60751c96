# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The simulator node with a floating base, end to end: set_state's base fields, the odometry.

solo12 with ``root_joint: floating`` in the installed executable, paused and advanced with
``~/step``; its odometry (nav_msgs/Odometry: pose in odom, twist in the base frame) and
joint_states (actuated joints only) against the ROS-free core (ros_dynamics.simulation.simulator)
run from the same state with the same settings.
"""

from geometry_msgs.msg import Point, Pose, Quaternion, Twist, Vector3
from nav_msgs.msg import Odometry
import numpy as np
import pytest
from robot_data import example_urdf
from ros_dynamics import RobotModel
from ros_dynamics.simulation.simulator import Simulator
from ros_dynamics.srv import SetJointState, SimStep
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from sensor_msgs.msg import JointState

pytestmark = pytest.mark.ros

SOLO = example_urdf('solo_description/robots/solo12.urdf')


@pytest.fixture
def solo_sim():
    ns = unique_namespace()
    process = NodeProcess('simulator_node', ns,
                          {'urdf_path': SOLO, 'root_joint': 'floating', 'start_paused': True,
                           'publish_clock': False, 'odometry_topic': 'base_odometry'},
                          remappings={'/diagnostics': f'{ns}/diagnostics'})
    process.start()
    client = RosClient(ns)
    odometry, states = [], []
    client.node.create_subscription(Odometry, 'base_odometry', odometry.append, 100)
    client.node.create_subscription(JointState, 'joint_states', states.append, 100)
    try:
        yield client, odometry, states
    finally:
        client.close()
        code = process.stop()
        assert 'Traceback' not in process.output(), process.output()
        assert code == 0, process.output()


def test_odometry_agrees_with_the_core(solo_sim):
    client, odometry, states = solo_sim
    robot = RobotModel.from_urdf_file(SOLO, root_joint='floating')
    actuated = list(robot.joint_names[1:])
    rotation = np.array([0.1, -0.2, 0.3, 0.9])
    rotation /= np.linalg.norm(rotation)
    twist = np.array([0.3, -0.2, 0.5, 1.0, -0.5, 0.8])
    joints = {'FL_KFE': -0.8, 'HR_HFE': 0.4}
    request = SetJointState.Request(
        name=list(joints), position=list(joints.values()), velocity=[1.5, -1.0], set_base=True,
        base_pose=Pose(position=Point(x=0.5, y=-1.0, z=2.0),
                       orientation=Quaternion(x=rotation[0], y=rotation[1], z=rotation[2],
                                              w=rotation[3])),
        base_twist=Twist(linear=Vector3(x=twist[0], y=twist[1], z=twist[2]),
                         angular=Vector3(x=twist[3], y=twist[4], z=twist[5])))
    answer = client.call(SetJointState, 'simulator/set_state', request)
    assert answer.success, answer.message
    assert list(answer.state.name) == actuated   # the base is not a joint state
    q, qd = robot.neutral_configuration(), np.zeros(robot.nv)
    q[:7] = np.r_[0.5, -1.0, 2.0, rotation]
    qd[:6] = twist
    for (name, value), rate in zip(joints.items(), [1.5, -1.0]):
        q[robot.q_slice(name)], qd[robot.v_slice(name)] = value, rate
    core = Simulator(robot, dt=1e-3, q0=q, qd0=qd)   # the node's defaults: damping, friction
    step = client.call(SimStep, 'simulator/step', SimStep.Request(steps=200),
                       once=True)
    assert step.success, step.message
    core.step(200)

    message = odometry_at(odometry, step.sim_time)
    assert message.header.frame_id == 'odom' and message.child_frame_id == 'base_link'
    pose, velocity = message.pose.pose, message.twist.twist
    ours = np.array([pose.position.x, pose.position.y, pose.position.z, pose.orientation.x,
                     pose.orientation.y, pose.orientation.z, pose.orientation.w])
    np.testing.assert_allclose(ours, core.q[:7], atol=1e-12)
    np.testing.assert_allclose([velocity.linear.x, velocity.linear.y, velocity.linear.z,
                                velocity.angular.x, velocity.angular.y, velocity.angular.z],
                               core.qd[:6], atol=1e-12)
    np.testing.assert_allclose(step.state.position, core.q[7:], atol=1e-12)
    np.testing.assert_allclose(step.state.velocity, core.qd[6:], atol=1e-12)
    assert np.linalg.norm(ours[:3] - [0.5, -1.0, 2.0]) > 0.05   # it flew (0.2 s)
    wait_for(lambda: len(states) > 0, what='joint_states')
    assert list(states[-1].name) == actuated
    # a joint set without set_base: the base keeps its state
    answer = client.call(SetJointState, 'simulator/set_state',
                         SetJointState.Request(name=['FL_HAA'], position=[0.1]))
    assert answer.success, answer.message
    q = core.q.copy()
    q[robot.q_slice('FL_HAA')] = 0.1
    core.set_state(q)
    step = client.call(SimStep, 'simulator/step', SimStep.Request(steps=10), once=True)
    core.step(10)
    pose = odometry_at(odometry, step.sim_time).pose.pose
    np.testing.assert_allclose([pose.position.x, pose.position.y, pose.position.z],
                               core.q[:3], atol=1e-12)


def odometry_at(messages: list, sim_time: float) -> Odometry:
    """Wait for the odometry stamped ``sim_time`` (s) among ``messages``; return it."""
    def last():
        mine = [m for m in messages if abs(m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec
                                           - sim_time) < 1e-9]
        return mine[-1] if mine else None
    wait_for(lambda: last() is not None, what=f'the odometry stamped {sim_time} s')
    return last()


def test_a_bad_base_pose_is_refused_by_name(solo_sim):
    client, _, _ = solo_sim
    request = SetJointState.Request(set_base=True, base_pose=Pose(
        orientation=Quaternion(x=0.0, y=0.0, z=0.0, w=2.0)))
    answer = client.call(SetJointState, 'simulator/set_state', request)
    assert not answer.success and 'base_pose.orientation' in answer.message
    request = SetJointState.Request(set_base=True,
                                    base_twist=Twist(linear=Vector3(x=float('nan'))))
    answer = client.call(SetJointState, 'simulator/set_state', request)
    assert not answer.success and 'base_twist' in answer.message


@pytest.mark.parametrize('root', ['floating', 'planar'])
def test_odometry_and_set_state_are_inverse(root):
    """The node's conversions without a node: odometry of q, then set_state from it, is q."""
    from ros_dynamics import URDFWarning
    from ros_dynamics.nodes.odometry import SimulatedBase
    import warnings
    with warnings.catch_warnings():   # TIAGo's antennas: inertia 1e-8 off PSD
        warnings.simplefilter('ignore', URDFWarning)
        robot = RobotModel.from_urdf_file(
            SOLO if root == 'floating' else example_urdf('tiago_description/robots/tiago.urdf'),
            root_joint=root)
    base = SimulatedBase(robot)
    assert base.kind == root and 'root_joint' not in base.actuated
    rng = np.random.default_rng(3)
    q = robot.integrate(robot.neutral_configuration(), rng.uniform(-2.0, 2.0, robot.nv))
    qd = rng.uniform(-1.0, 1.0, robot.nv)
    message = base.odometry(q, qd, 'odom')
    assert message.child_frame_id == robot.body_names[0]
    if root == 'planar':   # (x, y, cos, sin) as a yaw about z: q = (0, 0, sin yaw/2, cos yaw/2)
        yaw = np.arctan2(q[3], q[2])
        o = message.pose.pose.orientation
        expected = [0.0, 0.0, np.sin(yaw / 2), np.cos(yaw / 2)]
        np.testing.assert_allclose([o.x, o.y, o.z, o.w], expected, atol=1e-15)
        assert message.twist.twist.angular.z == qd[2] and message.twist.twist.linear.y == qd[1]
    q2, qd2 = robot.neutral_configuration(), np.zeros(robot.nv)
    base.set_state(q2, qd2, [], [], [], True, message.pose.pose, message.twist.twist)
    np.testing.assert_allclose(q2[:base.nq_base], q[:base.nq_base], atol=1e-15)
    np.testing.assert_allclose(qd2[:base.nv_base], qd[:base.nv_base], atol=0)
    q3 = q2.copy()
    base.set_state(q3, qd2, [], [], [], False, Pose(), Twist())   # set_base false: kept
    np.testing.assert_array_equal(q3, q2)
