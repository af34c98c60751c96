# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The Cartesian impedance controller's topic targets through ROS, in closed loop with simulator_node.

The 2R arm of urdf/planar_2r.urdf starts at the first point of Ghosal's
circle; the test publishes a target pose 3 cm away on ``target_pose`` and
zero twist: the tool must come to rest on it. Then a constant target twist
v: at rest the controller's force kp (x_target - x) + kd (v_target - v) is
zero, so the tool settles at x_target + (kd / kp) v_target, a closed form.
The simulator runs in lockstep (each state waits for the controller's answer)
as fast as the two processes allow, so a loaded machine slows the run
without changing it. (The moving circle through ROS, given to the controller
as a trajectory, is test_lockstep.py's.)
"""

from geometry_msgs.msg import PoseStamped, TwistStamped
from lockstep_circle import ask_start, CENTER, RADIUS, start_configuration, URDF
import numpy as np
from rclpy.qos import QoSProfile, ReliabilityPolicy
from ros_dynamics import RobotModel
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import SetBool

KP, KD = 400.0, 40.0


def test_two_r_settles_on_topic_targets_through_ros():
    robot = RobotModel.from_urdf_file(URDF)
    q0 = start_configuration()
    ns = unique_namespace()
    private = {'/clock': f'{ns}/clock', '/diagnostics': f'{ns}/diagnostics'}
    simulator = NodeProcess('simulator_node', ns, {
        'urdf_path': URDF, 'real_time_factor': 0.0, 'lockstep': True, 'start_paused': True,
        'lockstep_timeout': 30.0,
        'initial_positions.shoulder': float(q0[0]), 'initial_positions.elbow': float(q0[1])},
        remappings=private, name='simulator')
    controller = NodeProcess('cartesian_impedance_controller', ns, {
        'urdf_path': URDF, 'link': 'tool', 'axes': [0, 2], 'null_damping': 0.0,
        'kp': [KP] * 6, 'kd': [KD] * 6, 'state_timeout': 30.0},
        remappings={**private, 'commands': f'{ns}/simulator/commands'})
    client = RosClient(ns, threads=1)
    qos = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
    poses = client.node.create_publisher(PoseStamped, 'target_pose', qos)
    twists = client.node.create_publisher(TwistStamped, 'target_twist', qos)
    states, commands = [], []
    client.node.create_subscription(JointState, 'joint_states', states.append, qos)
    client.node.create_subscription(Float64MultiArray, 'simulator/commands', commands.append,
                                    qos)
    start = np.array([CENTER[0] + RADIUS, 0.0, CENTER[2]])
    target = start + np.array([-0.02, 0.0, 0.02])
    velocity = np.array([0.01, 0.0, -0.005])

    def publish(twist: np.ndarray) -> None:
        pose = PoseStamped()
        pose.pose.position.x, pose.pose.position.y, pose.pose.position.z = target.tolist()
        pose.pose.orientation.w = 1.0
        moving = TwistStamped()
        moving.twist.linear.x, moving.twist.linear.y, moving.twist.linear.z = twist.tolist()
        poses.publish(pose)
        twists.publish(moving)

    def tool_at(seconds: float) -> tuple:
        wait_for(lambda: states and stamp(states[-1]) >= seconds, 120.0, f'sim time {seconds} s')
        message = states[-1]
        return (robot.link_pose(np.array(message.position), 'tool')[:3, 3],
                np.abs(np.array(message.velocity)).max())
    try:
        with controller, simulator:
            wait_for(lambda: poses.get_subscription_count() > 0
                     and twists.get_subscription_count() > 0, 60.0, 'the controller')
            ask_start(client, states, commands, q0)
            assert np.linalg.norm(robot.link_pose(q0, 'tool')[:3, 3] - start) < 1e-12
            publish(np.zeros(3))
            assert client.call(SetBool, 'simulator/pause', SetBool.Request(data=False)).success
            at_rest, speed = tool_at(3.0)
            publish(velocity)
            offset, offset_speed = tool_at(6.0)
            assert simulator.alive() and controller.alive()
    finally:
        client.close()
    print(f'2R through ROS: rests {np.linalg.norm(at_rest - target) * 1e6:.2f} um from the '
          f'target pose (joint speed {speed:.2e} rad/s); with the twist, '
          f'{np.linalg.norm(offset - target - KD / KP * velocity) * 1e6:.2f} um from '
          f'x_target + (kd/kp) v_target')
    assert np.linalg.norm(at_rest - target) < 1e-5 and speed < 1e-3
    assert np.linalg.norm(offset - target - KD / KP * velocity) < 1e-5 and offset_speed < 1e-3


def stamp(message: JointState) -> float:
    """Return a message's header stamp in seconds."""
    return message.header.stamp.sec + message.header.stamp.nanosec * 1e-9
