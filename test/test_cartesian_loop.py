# Copyright 2026 The ros_dynamics Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
The seeds' circle through ROS: simulator_node + cartesian_impedance_controller.

The test publishes the moving target (pose and twist, from the simulator's
joint-state stamps, i.e. sim time) for the 2R arm of urdf/planar_2r.urdf and
measures the tool's tracking error over one revolution (10 s of sim time,
run at half real time so that the controller keeps up on a loaded 2-core
machine): RMS under 5 mm, the issue's bound.
"""

from geometry_msgs.msg import PoseStamped, TwistStamped
from lockstep_circle import CENTER, PERIOD, RADIUS, start_configuration, URDF
import numpy as np
from rclpy.qos import QoSProfile, ReliabilityPolicy
from ros_dynamics import RobotModel
from ros_dynamics.trajectories import circle
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray


def test_two_r_tracks_the_circle_through_ros():
    robot = RobotModel.from_urdf_file(URDF)
    q0 = start_configuration()
    ns = unique_namespace()
    private = {'/clock': f'{ns}/clock', '/diagnostics': f'{ns}/diagnostics'}
    simulator = NodeProcess('simulator_node', ns, {
        'urdf_path': URDF, 'real_time_factor': 0.5, 'hold_until_command': True,
        'initial_positions.shoulder': float(q0[0]), 'initial_positions.elbow': float(q0[1])},
        remappings=private, name='simulator')
    controller = NodeProcess('cartesian_impedance_controller', ns, {
        'urdf_path': URDF, 'link': 'tool', 'axes': [0, 2], 'null_damping': 0.0,
        'kp': [400.0] * 6, 'kd': [40.0] * 6, 'state_timeout': 0.5},
        remappings={**private, 'commands': f'{ns}/simulator/commands'})
    client = RosClient(ns, threads=1)
    qos = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
    poses = client.node.create_publisher(PoseStamped, 'target_pose', qos)
    twists = client.node.create_publisher(TwistStamped, 'target_twist', qos)
    samples = []
    start = []    # sim time at which the target starts moving
    commands = []

    def on_state(message: JointState) -> None:
        t = message.header.stamp.sec + message.header.stamp.nanosec * 1e-9
        if not start:
            ready = (len(commands) >= 50 and poses.get_subscription_count() > 0
                     and twists.get_subscription_count() > 0)
            if not ready:   # the controller holds the arm and hears the targets
                return
            start.append(t)
        elapsed = t - start[0]
        target, twist, _ = circle(elapsed + 0.002, CENTER, RADIUS, PERIOD)   # one step ahead
        pose = PoseStamped()
        pose.pose.position.x, pose.pose.position.y, pose.pose.position.z = target[:3, 3]
        pose.pose.orientation.w = 1.0
        velocity = TwistStamped()
        velocity.twist.linear.x, velocity.twist.linear.z = twist[0], twist[2]
        poses.publish(pose)
        twists.publish(velocity)
        actual = robot.link_pose(np.array(message.position), 'tool')[:3, 3]
        expected = circle(elapsed, CENTER, RADIUS, PERIOD)[0][:3, 3]
        samples.append((elapsed, np.linalg.norm(actual - expected)))
    client.node.create_subscription(JointState, 'joint_states', on_state, qos)
    client.node.create_subscription(Float64MultiArray, 'simulator/commands',
                                    lambda m: commands.append(m), qos)
    try:
        with controller, simulator:
            wait_for(lambda: samples and samples[-1][0] >= PERIOD, PERIOD * 4 + 30,
                     'one revolution of sim time')
            assert simulator.alive() and controller.alive()
    finally:
        client.close()
    errors = np.array([e for t, e in samples if t <= PERIOD])
    assert errors.size > 1000
    rms = float(np.sqrt(np.mean(errors ** 2)))
    print(f'2R circle through ROS: RMS {rms * 1e3:.3f} mm, max {errors.max() * 1e3:.3f} mm')
    assert rms < 5e-3, f'RMS tracking error {rms * 1e3:.2f} mm'
