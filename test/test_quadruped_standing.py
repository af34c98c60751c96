# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
A quadruped standing on the ground through ROS, in lockstep, for 60 s of sim time.

config/quadruped_standing.yaml (what ``bringup --config`` starts) on solo12 of
example-robot-data: ``simulator_node`` simulates it with its four feet on the
ground (nodes/ground_contact.py, contacts/ground.py), ``inverse_dynamics_node``'s
stream holds it with the contact-consistent inverse dynamics of every state
plus joint damping (nodes/contact_stream.py), and the simulator advances each
2 ms only once the stream answered (lockstep). After the landing (1 s) the base
height may drift by less than 1 cm, and at every sampled state the four feet's
forces (``~/contacts/<foot>``, link frame, rotated here into the world with the
model's foot poses) must sum to the robot's weight within 1 %.
"""

import os
import time

from bringup_helpers import declaration_commands, ROOT
from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
import numpy as np
import pytest
from rclpy.qos import QoSProfile, ReliabilityPolicy
from robot_data import example_urdf
from ros_dynamics import RobotModel
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from sensor_msgs.msg import JointState

pytestmark = pytest.mark.ros

SOLO = example_urdf('solo_description/robots/solo12.urdf')
FEET = ('FL_FOOT', 'FR_FOOT', 'HL_FOOT', 'HR_FOOT')
DECLARATION = os.path.join(ROOT, 'config', 'quadruped_standing.yaml')
# reliable and deep: a test process starved of CPU takes the samples late, none is dropped
RECORD = QoSProfile(depth=5000, reliability=ReliabilityPolicy.RELIABLE)


def stamp_of(message) -> int:
    return message.header.stamp.sec * 1_000_000_000 + message.header.stamp.nanosec


def test_solo12_stands_for_60_s_of_sim_time_through_ros():
    robot = RobotModel.from_urdf_file(SOLO, root_joint='floating')
    namespace = unique_namespace()
    commands = declaration_commands(DECLARATION, {'robot': SOLO, 'namespace': namespace,
                                                  'real_time_factor': '0.0'})
    processes = {name: NodeProcess(executable, namespace)
                 for name, (executable, _) in commands.items()}
    for name, process in processes.items():
        process.args = commands[name][1]
    bases, joints, wrenches = {}, {}, {foot: {} for foot in FEET}
    with processes['simulator'] as simulator, processes['inverse_dynamics'] as stream, \
            RosClient(namespace) as ros:
        node = ros.node
        node.create_subscription(
            Odometry, 'odom', lambda m: bases.__setitem__(stamp_of(m), (
                np.array([m.pose.pose.position.x, m.pose.pose.position.y,
                          m.pose.pose.position.z, m.pose.pose.orientation.x,
                          m.pose.pose.orientation.y, m.pose.pose.orientation.z,
                          m.pose.pose.orientation.w]))), RECORD)
        node.create_subscription(
            JointState, 'joint_states',
            lambda m: joints.__setitem__(stamp_of(m), (list(m.name), np.array(m.position))),
            RECORD)
        for foot in FEET:
            node.create_subscription(
                WrenchStamped, f'simulator/contacts/{foot}',
                lambda m, foot=foot: wrenches[foot].__setitem__(stamp_of(m), (
                    m.header.frame_id, np.array([m.wrench.force.x, m.wrench.force.y,
                                                 m.wrench.force.z]))),
                RECORD)
        start = time.monotonic()
        # (a lockstep pause ends the wait: it would not resume by itself); the newest stamp
        # is the last key (one writer, reliable: in order), not a max over 30000 each poll
        wait_for(lambda: next(reversed(bases), 0) >= 60_000_000_000
                 or 'simulation paused' in simulator.output(), 600.0,
                 '60 s of sim time (odometry stamps)',
                 lambda: f'reached {max(bases, default=0) * 1e-9} s\n{simulator.output()}'
                         f'{stream.output()}')
        wall = time.monotonic() - start
        assert simulator.alive() and stream.alive(), simulator.output() + stream.output()
    assert 'simulation paused' not in simulator.output(), simulator.output()
    heights = np.array([q[2] for t, q in sorted(bases.items()) if t >= 1_000_000_000])
    assert heights.size > 100
    drift = heights.max() - heights.min()
    assert drift < 0.01, drift
    weight = robot.mass_matrix(robot.neutral_configuration())[0, 0] * np.linalg.norm(
        robot.gravity)
    sampled = [t for t in bases if t >= 1_000_000_000 and t in joints
               and all(t in wrenches[foot] for foot in FEET)]
    assert len(sampled) > 100, len(sampled)
    errors = []
    for t in sampled:
        names, positions = joints[t]
        q = np.concatenate([bases[t], positions[[names.index(j) for j in
                                                 robot.joint_names[1:]]]])
        total = np.zeros(3)
        for foot in FEET:
            frame, force = wrenches[foot][t]
            assert frame == foot
            total += robot.link_pose(q, foot)[:3, :3] @ force   # link frame -> world axes
        errors.append(abs(total[2] - weight) / weight)
        assert np.abs(total[:2]).max() < 0.01 * weight, total
    assert max(errors) < 0.01, max(errors)
    print(f'solo12 standing 60 s of sim time in {wall:.0f} s of wall time: base height '
          f'{heights.mean():.5f} m, drift {drift * 1e3:.4f} mm after the landing; the feet carry '
          f'the weight ({weight:.3f} N) within {100 * max(errors):.3g} % at {len(sampled)} '
          f'sampled states')


@pytest.mark.parametrize('name, value, said', [
    ('ground_friction', 0.0, 'ground_friction'),
    ('ground_normal', [0.0, 0.0, 0.0], 'ground_normal'),
    ('ground_radius', [0.01, 0.02], 'ground_radius'),
    ('initial_base_pose', [0.0, 0.3], 'initial_base_pose'),
    ('integrator', 'euler', 'integrator')], ids=repr)
def test_a_bad_ground_parameter_is_one_error_line_and_exit_1(name, value, said):
    parameters = {'urdf_path': SOLO, 'root_joint': 'floating',
                  'ground_contacts': list(FEET), name: value}
    bad = NodeProcess('simulator_node', unique_namespace(), parameters)
    with bad:
        wait_for(lambda: not bad.alive(), 30.0, 'the refused start')
    lines = [line for line in bad.output().splitlines() if line.strip()]
    assert bad.process.returncode == 1, bad.output()
    assert len(lines) == 1 and '[ERROR]' in lines[0] and said in lines[0], lines
