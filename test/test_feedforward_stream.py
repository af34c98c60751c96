# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The feedforward stream as a real ros2_control arm needs it, over ROS.

* a subset of the model's joints out (example-robot-data's panda.urdf: the 7
  arm joints, the finger held), efforts compared with the core;
* ``include_gravity: false`` for controllers that compensate gravity themselves;
* stale input after commands: zero effort once (``on_stale: zero``), so an
  effort controller does not hold the last torque;
* ``/diagnostics`` WARN, saying why, when every joint state is stale.
"""

import os
import struct
import time

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
import numpy as np
import pytest
from rcl_interfaces.srv import SetParameters
from rclpy.parameter import Parameter
from rclpy.qos import qos_profile_sensor_data, QoSProfile, ReliabilityPolicy
from robot_data import example_urdf
from ros_dynamics import RobotModel
from ros_dynamics.nodes.inverse_dynamics_node import Feedforward
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectoryPoint
import yaml

pytestmark = pytest.mark.ros

PANDA = example_urdf('panda_description/urdf/panda.urdf')
ROBOT = RobotModel.from_urdf_file(PANDA)
ARM = [f'panda_joint{k}' for k in range(1, 8)]
ARM_INDEX = [ROBOT.joint_names.index(j) for j in ARM]
QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)


class Stream:
    """Publish joint states, collect the node's commands and diagnostics."""

    def __init__(self, ros):
        self.ros = ros
        self.states = ros.node.create_publisher(JointState, 'joint_states', QOS)
        self.references = ros.node.create_publisher(JointTrajectoryPoint, 'reference', QOS)
        self.commands, self.diagnostics = [], []
        ros.node.create_subscription(Float64MultiArray, 'commands',
                                     lambda m: self.commands.append(np.array(m.data)), QOS)
        ros.node.create_subscription(DiagnosticArray, '/diagnostics',
                                     lambda m: self.diagnostics.extend(m.status), QOS)
        wait_for(lambda: self.states.get_subscription_count() > 0, 60.0, 'the node subscribing')
        wait_for(lambda: ros.node.count_publishers('commands') > 0, 60.0, 'commands publisher')

    def send(self, names, q, age=0.0):
        message = JointState(name=list(names), position=[float(v) for v in q])
        stamp = self.ros.node.get_clock().now().nanoseconds * 1e-9 - age
        message.header.stamp.sec = int(stamp)
        message.header.stamp.nanosec = int((stamp % 1) * 1e9)
        self.states.publish(message)

    def exchange(self, names, q, expected, attempts=40):
        """Send until a command equal to ``expected`` comes back; return it."""
        for _ in range(attempts):
            count = len(self.commands)
            self.send(names, q)
            try:
                wait_for(lambda: len(self.commands) > count, 0.5, 'a command')
            except AssertionError:
                continue
            if np.allclose(self.commands[-1], expected, rtol=0, atol=1e-12):
                return self.commands[-1]
        raise AssertionError(f'no command equal to {expected}; last {self.commands[-1:]}')

    def set_parameters(self, **values):
        request = SetParameters.Request(parameters=[
            Parameter(k, value=v).to_parameter_msg() for k, v in values.items()])
        return self.ros.call(SetParameters, 'inverse_dynamics/set_parameters', request).results


def full_state(q_arm, finger=0.0):
    q = np.zeros(ROBOT.dof)
    q[ARM_INDEX] = q_arm
    q[ROBOT.joint_names.index('panda_finger_joint1')] = finger
    return q


@pytest.fixture
def panda_stream():
    namespace = unique_namespace()
    parameters = {'urdf_path': PANDA, 'joints': ARM, 'state_timeout': 0.3,
                  'diagnostics_period': 0.2}
    with NodeProcess('inverse_dynamics_node', namespace, parameters) as node, \
            RosClient(namespace) as ros:
        yield Stream(ros)
        assert node.alive(), node.output()


def test_the_arm_joints_of_a_panda_with_fingers(panda_stream):
    """7 efforts for the 7 arm joints; the finger is held at its last (or default) position."""
    assert 'panda_finger_joint1' in ROBOT.joint_names and ROBOT.dof == 8
    q_arm = np.array([0.1, -0.5, 0.2, -2.0, 0.1, 1.7, 0.6])
    expected = ROBOT.gravity_torques(full_state(q_arm))[ARM_INDEX]   # finger: 0, its lower limit
    command = panda_stream.exchange(ARM, q_arm, expected)
    assert command.shape == (7,)
    with_finger = ROBOT.gravity_torques(full_state(q_arm, 0.03))[ARM_INDEX]
    panda_stream.exchange(ARM + ['panda_finger_joint1'], np.append(q_arm, 0.03), with_finger)
    panda_stream.exchange(ARM, q_arm, with_finger)   # held at 0.03 while absent


def big_endian_joint_state(stamp_ns: int, names: list, position) -> bytes:
    """Return a JointState in big-endian XCDR1 (a peer on a big-endian machine), by hand."""
    body = bytearray()

    def align(size):
        body.extend(bytes(-len(body) % size))

    def string(text):
        align(4)
        data = text.encode() + b'\x00'
        body.extend(struct.pack('>I', len(data)) + data)
    body.extend(struct.pack('>iI', stamp_ns // 10**9, stamp_ns % 10**9))
    string('')                                                  # frame_id
    align(4)
    body.extend(struct.pack('>I', len(names)))
    for name in names:
        string(name)
    for values in (list(position), [], []):                    # position, velocity, effort
        align(4)
        body.extend(struct.pack('>I', len(values)))
        if values:
            align(8)
            body.extend(struct.pack(f'>{len(values)}d', *values))
    return b'\x00\x00\x00\x00' + bytes(body)


def test_serialised_bytes_from_reliable_and_best_effort_publishers(panda_stream):
    """The stream's subscription is best effort: publishers of either reliability reach it."""
    stream = panda_stream
    q_arm = np.array([0.3, -0.2, 0.1, -1.8, 0.0, 1.5, 0.4])
    stream.exchange(ARM, q_arm, ROBOT.gravity_torques(full_state(q_arm))[ARM_INDEX])  # reliable
    stream.states = stream.ros.node.create_publisher(JointState, 'joint_states',
                                                     qos_profile_sensor_data)
    wait_for(lambda: stream.states.get_subscription_count() > 0, 10.0, 'a best-effort match')
    q_arm = q_arm + 0.1
    stream.exchange(ARM, q_arm, ROBOT.gravity_torques(full_state(q_arm))[ARM_INDEX])
    wait_for(lambda: any(v.key == 'stream_input' and v.value == 'bytes'
                         for s in stream.diagnostics for v in s.values),
             10.0, 'diagnostics saying stream_input: bytes')
    # another encapsulation (big endian) goes through rclpy's deserialiser
    q_arm = q_arm + 0.1
    expected = ROBOT.gravity_torques(full_state(q_arm))[ARM_INDEX]

    def answered() -> bool:
        count = len(stream.commands)
        stream.states.publish(big_endian_joint_state(
            stream.ros.node.get_clock().now().nanoseconds, ARM, q_arm))
        try:
            wait_for(lambda: len(stream.commands) > count, 0.5)
        except AssertionError:
            return False
        return bool(np.allclose(stream.commands[-1], expected, rtol=0, atol=1e-12))
    wait_for(answered, 20.0, 'the command for a big-endian joint state')


def test_without_gravity_for_controllers_that_compensate_it(panda_stream):
    stream = panda_stream
    # in gravity_compensation there would be nothing left to send
    (refused,) = stream.set_parameters(include_gravity=False)
    assert not refused.successful and 'include_gravity' in refused.reason
    results = stream.set_parameters(mode='inverse_dynamics', include_gravity=False)
    assert all(r.successful for r in results), results
    q_ref = np.array([0.3, -0.2, 0.1, -1.8, 0.0, 1.5, 0.4])
    qd_ref, qdd_ref = np.linspace(-0.5, 0.5, 7), np.linspace(1.0, -1.0, 7)
    stream.references.publish(JointTrajectoryPoint(
        positions=q_ref.tolist(), velocities=qd_ref.tolist(), accelerations=qdd_ref.tolist()))
    full = [full_state(v) for v in (q_ref, qd_ref, qdd_ref)]
    full[1][ROBOT.joint_names.index('panda_finger_joint1')] = 0.0
    expected = (ROBOT.inverse_dynamics(*full) - ROBOT.gravity_torques(full[0]))[ARM_INDEX]
    assert np.abs(ROBOT.gravity_torques(full[0])[ARM_INDEX]).max() > 1.0   # g matters here
    stream.exchange(ARM, q_ref, expected)


def test_stale_input_sends_zero_once_and_diagnostics_say_why(panda_stream):
    stream = panda_stream
    q_arm = np.array([0.0, -0.3, 0.0, -2.2, 0.0, 2.0, 0.7])
    stream.exchange(ARM, q_arm, ROBOT.gravity_torques(full_state(q_arm))[ARM_INDEX])
    count = len(stream.commands)
    # the publisher stops: after state_timeout (0.3 s) one zero command, then nothing
    wait_for(lambda: len(stream.commands) > count, 5.0, 'the zero command')
    assert np.all(stream.commands[count] == 0.0) and len(stream.commands[count]) == 7
    # joint states stamped 100 s ago (a publisher on another clock): stale, WARN says why
    stream.exchange(ARM, q_arm, ROBOT.gravity_torques(full_state(q_arm))[ARM_INDEX])
    count, seen = len(stream.commands), len(stream.diagnostics)

    def warned():
        stream.send(ARM, q_arm, age=100.0)
        return any(s.level == DiagnosticStatus.WARN and 'clock mismatch?' in s.message
                   for s in stream.diagnostics[seen:])
    wait_for(warned, 10.0, 'a WARN about stale input')
    wait_for(lambda: len(stream.commands) > count, 5.0, 'the zero command')
    end = time.monotonic() + 1.0   # stale states keep coming: still that one zero only
    while time.monotonic() < end:
        stream.send(ARM, q_arm, age=100.0)
        time.sleep(0.01)
    zeros = [c for c in stream.commands[count:] if np.all(c == 0.0)]
    assert len(zeros) == 1 and len(stream.commands) == count + 1, stream.commands[count:]
    message = [s.message for s in stream.diagnostics[seen:] if s.level == DiagnosticStatus.WARN]
    assert 'use_sim_time differs between publisher and this node' in message[-1]


def test_the_worked_ros2_control_configuration_matches_its_controller():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, 'config', 'ros2_control_feedforward.yaml')) as stream:
        ours = yaml.safe_load(stream)['inverse_dynamics']['ros__parameters']
    with open(os.path.join(root, 'config', 'ros2_control_controllers.yaml')) as stream:
        controllers = yaml.safe_load(stream)
    assert ours['joints'] == controllers['effort_controller']['ros__parameters']['joints'] == ARM
    kind = controllers['controller_manager']['ros__parameters']['effort_controller']['type']
    assert kind == 'effort_controllers/JointGroupEffortController'
    feedforward = Feedforward(ROBOT, ours['joints'], [0.0], [0.0], ours['unlisted_joints'])
    assert feedforward.unlisted == ['panda_finger_joint1']


def test_message_objects_when_the_byte_layout_check_fails(monkeypatch):
    """The fallback path (codecs disagree with rclpy's serialiser): the same commands."""
    import threading
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from ros_dynamics.nodes import cdr
    from ros_dynamics.nodes.inverse_dynamics_node import InverseDynamicsNode
    monkeypatch.setattr(cdr, 'layout_ok', lambda: False)
    namespace = unique_namespace()
    rclpy.init(args=['--ros-args', '-r', f'__ns:={namespace}', '-p', f'urdf_path:={PANDA}',
                     '-p', f'joints:=[{", ".join(ARM)}]', '-p', 'diagnostics_period:=0.2'])
    stop = threading.Event()
    try:
        node = InverseDynamicsNode()
        executor = SingleThreadedExecutor()
        executor.add_node(node)

        def spin():
            while not stop.is_set():
                executor.spin_once(timeout_sec=0.05)
        spinner = threading.Thread(target=spin)
        spinner.start()
        try:
            with RosClient(namespace) as ros:
                stream = Stream(ros)
                q_arm = np.array([0.1, -0.5, 0.2, -2.0, 0.1, 1.7, 0.6])
                stream.exchange(ARM, q_arm, ROBOT.gravity_torques(full_state(q_arm))[ARM_INDEX])
                with_finger = ROBOT.gravity_torques(full_state(q_arm, 0.03))[ARM_INDEX]
                stream.exchange(ARM + ['panda_finger_joint1'], np.append(q_arm, 0.03),
                                with_finger)
                stream.exchange(ARM[::-1], q_arm[::-1], with_finger)   # any order, by name
                wait_for(lambda: any(v.key == 'stream_input' and v.value == 'messages'
                                     for s in stream.diagnostics for v in s.values),
                         10.0, 'diagnostics saying stream_input: messages')
        finally:
            stop.set()
            spinner.join(timeout=5.0)
            executor.shutdown(timeout_sec=1.0)
            node.destroy_node()
    finally:
        rclpy.try_shutdown()
