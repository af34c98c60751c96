# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Fuzzing the running nodes: malformed requests and garbage messages never end a node.

Seeded generators (numpy) build requests with wrong lengths, NaN and Inf,
huge values, unknown, duplicate and missing joints and links, empty fields;
garbage ``robot_description`` strings (mutations of a real URDF) and
``joint_states`` messages. Every answer is checked:

* ``success: false`` comes with a message; ``success: true`` holds only
  finite numbers, and a request the core can evaluate gets the core's result;
* after each batch, a good request is answered exactly as the core answers;
* every description is either loaded or refused (one log line each) and the
  node lives on; garbage joint states never stop the feedforward stream.

The budget scales with ``ROS_DYNAMICS_FUZZ_SCALE`` (default 1: a few hundred
cases in under a minute; ``make fuzz`` sets 20). Run alone with ``-m fuzz``;
the seed is printed so a failure can be replayed (``ROS_DYNAMICS_FUZZ_SEED``).
"""

import math
import os
import random
import time

from geometry_msgs.msg import Accel, Pose, Twist, Wrench
from nav_msgs.msg import Odometry
import numpy as np
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import serialize_message
from robot_data import example_urdf
from ros_dynamics import RobotModel
from ros_dynamics.msg import LinkWrench
from ros_dynamics.srv import (ForwardDynamics, InverseDynamics, OperationalSpace,
                              SetJointState, SimStep, TrajectoryDynamics)
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

pytestmark = [pytest.mark.ros, pytest.mark.fuzz]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PANDA = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
ROBOT = RobotModel.from_urdf_file(PANDA)
JOINTS = list(ROBOT.joint_names)
LINKS = list(ROBOT.link_names)
SCALE = float(os.environ.get('ROS_DYNAMICS_FUZZ_SCALE', '1'))
SEED = int(os.environ.get('ROS_DYNAMICS_FUZZ_SEED', random.SystemRandom().randint(0, 2**31)))
DESCRIPTION_QOS = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                             reliability=ReliabilityPolicy.RELIABLE)
SPECIAL = [math.nan, math.inf, -math.inf, 1e300, -1e300, 1.7e308, 5e-324, 0.0, -0.0]


def budget(cases: int) -> int:
    return max(1, int(round(cases * SCALE)))


class Generator:
    """Values that are sometimes right and often wrong."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def number(self) -> float:
        if self.chance(0.2):
            return float(self.rng.choice(SPECIAL))
        return float(self.rng.uniform(-3.0, 3.0))

    def numbers(self, n: int, wrong: float = 0.3) -> list:
        if self.chance(wrong):
            n = int(self.rng.integers(0, n + 3))
        clean = not self.chance(wrong)
        return [float(self.rng.uniform(-2.0, 2.0)) if clean else self.number() for _ in range(n)]

    def names(self, wrong: float = 0.3) -> list:
        names = list(JOINTS)
        if self.chance(wrong):
            kind = int(self.rng.integers(0, 5))
            if kind == 0:
                names = names[:int(self.rng.integers(0, len(names)))]   # missing joints
            elif kind == 1:
                names[int(self.rng.integers(0, len(names)))] = 'ghost_joint'
            elif kind == 2:
                names.append(names[0])                                      # duplicate
            elif kind == 3:
                names = []
            else:
                names.append('')
        if self.chance(0.5):
            names = list(self.rng.permutation(names))
        return [str(n) for n in names]

    def state(self, wrong: float = 0.3, effort: bool = False) -> JointState:
        names = self.names(wrong)
        message = JointState(name=names, position=self.numbers(len(names), wrong))
        if self.chance(0.7):
            message.velocity = self.numbers(len(names), wrong)
        if effort and self.chance(0.7):
            message.effort = self.numbers(len(names), wrong)
        return message

    def link(self) -> str:
        if self.chance(0.2):
            return str(self.rng.choice(['', 'nowhere', 'panda_link8 ', '\u00e9\u00e8', 'x' * 300]))
        return str(self.rng.choice(LINKS))

    def wrenches(self) -> list:
        out = []
        for _ in range(int(self.rng.integers(0, 3))):
            wrench = LinkWrench(link=self.link())
            values = self.numbers(6, 0.2) + [0.0] * 6
            wrench.wrench.force.x, wrench.wrench.force.y, wrench.wrench.force.z = values[:3]
            wrench.wrench.torque.x, wrench.wrench.torque.y, wrench.wrench.torque.z = values[3:6]
            out.append(wrench)
        return out


def vector(names, values, default=None):
    """Return the core-order vector of a request field, or None when it is malformed."""
    if not values and default is not None:
        return np.full(len(JOINTS), default)
    if len(values) != len(names) or len(set(names)) != len(names) or set(names) != set(JOINTS):
        return None
    out = np.empty(len(JOINTS))
    for name, value in zip(names, values):
        out[JOINTS.index(name)] = value
    return out if np.all(np.isfinite(out)) else None


def wrench_dict(wrenches):
    out = {}
    for item in wrenches:
        f, t = item.wrench.force, item.wrench.torque
        values = np.array([f.x, f.y, f.z, t.x, t.y, t.z])
        if item.link not in LINKS or item.link in out or not np.all(np.isfinite(values)):
            return None
        out[item.link] = values
    return out


def all_finite(message) -> bool:
    for name in message.get_fields_and_field_types():
        value = getattr(message, name)
        if isinstance(value, float):
            if not (math.isfinite(value) or (name.endswith('limit') and value == math.inf)):
                return False
        elif hasattr(value, 'get_fields_and_field_types'):
            if not all_finite(value):
                return False
        elif isinstance(value, list) and value and \
                hasattr(value[0], 'get_fields_and_field_types'):
            if not all(all_finite(item) for item in value):
                return False
        elif hasattr(value, '__len__') and len(value) and isinstance(value[0], float):
            if not np.all(np.isfinite(np.asarray(value, dtype=float))):
                return False
    return True


def check(response, expected=None, field='effort', counts=None) -> None:
    """Check one answer; ``expected``: the core's result when it can compute one."""
    if response.success:
        assert all_finite(response), response
        if expected is not None and np.all(np.isfinite(expected)) and \
                np.abs(expected).max() < 1e200:
            got = np.asarray(getattr(response, field), dtype=float)
            np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)
        outcome = 'success'
    else:
        assert response.message.strip(), 'a failure without a message'
        outcome = 'refused'
    if counts is not None:
        counts[outcome] = counts.get(outcome, 0) + 1


def core_or_none(function, *args):
    try:
        with np.errstate(all='ignore'):
            return function(*args)
    except (ValueError, TypeError, ArithmeticError):
        return None


@pytest.fixture(scope='module')
def nodes():
    namespace = unique_namespace()
    print(f'fuzz seed {SEED} (ROS_DYNAMICS_FUZZ_SEED), scale {SCALE}')
    dynamics_parameters = {'urdf_path': PANDA, 'state_timeout': 1.0}
    with NodeProcess('inverse_dynamics_node', namespace, dynamics_parameters) as dynamics, \
            NodeProcess('operational_space_node', namespace, {'urdf_path': PANDA}) as space, \
            NodeProcess('simulator_node', namespace, {'urdf_path': PANDA, 'start_paused': True,
                                                      'publish_clock': False}) as simulator, \
            RosClient(namespace) as ros:
        ros.processes = {'dynamics': dynamics, 'space': space, 'simulator': simulator}
        yield ros
        for name, process in ros.processes.items():
            assert process.alive(), f'{name} died:\n{process.output()}'


def good_request_is_answered_correctly(ros, rng) -> None:
    q, qd, qdd = (rng.uniform(-1, 1, len(JOINTS)) for _ in range(3))
    request = InverseDynamics.Request(state=JointState(name=JOINTS, position=q.tolist(),
                                                       velocity=qd.tolist()),
                                      accelerations=qdd.tolist())
    answer = ros.call(InverseDynamics, 'inverse_dynamics/inverse_dynamics', request)
    assert answer.success, answer.message
    np.testing.assert_allclose(answer.effort, ROBOT.inverse_dynamics(q, qd, qdd), atol=1e-12)


def test_fuzz_dynamics_services(nodes):
    gen, counts = Generator(SEED), {}
    for case in range(budget(120)):
        kind = case % 3
        if kind == 0:
            request = InverseDynamics.Request(state=gen.state())
            request.accelerations = gen.numbers(len(request.state.name)) if gen.chance(0.6) \
                else []
            request.external_wrenches = gen.wrenches() if gen.chance(0.3) else []
            request.gravity_only = gen.chance(0.2)
            request.want_bias_torques = request.want_mass_matrix = gen.chance(0.3)
            request.want_coriolis_matrix = gen.chance(0.3)
            names = list(request.state.name)
            q = vector(names, list(request.state.position))
            qd = vector(names, list(request.state.velocity), 0.0)
            qdd = vector(names, list(request.accelerations), 0.0)
            wrenches = wrench_dict(request.external_wrenches)
            expected = None
            if q is not None and request.gravity_only:
                expected = core_or_none(ROBOT.gravity_torques, q)
            elif all(v is not None for v in (q, qd, qdd, wrenches)):
                expected = core_or_none(ROBOT.inverse_dynamics, q, qd, qdd, wrenches or None)
            check(nodes.call(InverseDynamics, 'inverse_dynamics/inverse_dynamics', request),
                  expected, counts=counts)
        elif kind == 1:
            request = ForwardDynamics.Request(state=gen.state(effort=True))
            request.external_wrenches = gen.wrenches() if gen.chance(0.3) else []
            names = list(request.state.name)
            args = (vector(names, list(request.state.position)),
                    vector(names, list(request.state.velocity), 0.0),
                    vector(names, list(request.state.effort), 0.0))
            wrenches = wrench_dict(request.external_wrenches)
            expected = core_or_none(ROBOT.forward_dynamics, *args, wrenches or None) \
                if all(v is not None for v in (*args, wrenches)) else None
            check(nodes.call(ForwardDynamics, 'inverse_dynamics/forward_dynamics', request),
                  expected, 'accelerations', counts)
        else:
            names = gen.names()
            trajectory = JointTrajectory(joint_names=names)
            for k in range(int(gen.rng.integers(0, 4))):
                point = JointTrajectoryPoint(positions=gen.numbers(len(names)),
                                             velocities=gen.numbers(len(names), 0.5)
                                             if gen.chance(0.5) else [])
                point.time_from_start.sec = int(gen.rng.integers(0, 3))
                trajectory.points.append(point)
            check(nodes.call(TrajectoryDynamics, 'inverse_dynamics/trajectory_dynamics',
                             TrajectoryDynamics.Request(trajectory=trajectory)), counts=counts)
        if case % 20 == 19:
            good_request_is_answered_correctly(nodes, gen.rng)
    good_request_is_answered_correctly(nodes, gen.rng)
    print(f'dynamics services: {counts}')
    assert counts.get('refused') and counts.get('success')   # both kinds were exercised


def test_fuzz_operational_space_and_simulator_services(nodes):
    gen, counts = Generator(SEED + 1), {}
    for case in range(budget(80)):
        if case % 2 == 0:
            request = OperationalSpace.Request(state=gen.state(0.15), link=gen.link())
            request.frame = str(gen.rng.choice(['', 'world_aligned', 'local', 'world', 'up'],
                                               p=[0.4, 0.2, 0.15, 0.15, 0.1]))
            if gen.chance(0.3):
                request.axes = [int(a) for a in gen.rng.integers(0, 9 if gen.chance(0.3) else 6,
                                                                 int(gen.rng.integers(0, 7)))]
            request.reference_link = gen.link() if gen.chance(0.1) else ''
            request.has_wrench, request.has_acceleration = gen.chance(0.3), gen.chance(0.2)
            if request.has_wrench:
                values = gen.numbers(6, 0.1) + [0.0] * 6
                request.wrench = Wrench()
                request.wrench.force.x, request.wrench.force.y = values[0], values[1]
                request.wrench.torque.z = values[5]
            request.acceleration = gen.numbers(6, 0.15)
            request.null_space_joint_names = gen.names(0.5) if gen.chance(0.3) else []
            request.null_space_torque = gen.numbers(len(request.null_space_joint_names))
            answer = nodes.call(OperationalSpace, 'operational_space/operational_space', request)
            check(answer, counts=counts)
            # a failure names a field the caller sent, never a "force" computed from it
            assert not answer.message.startswith('force:') or request.has_wrench, \
                answer.message
        else:
            names = gen.names(0.5)
            request = SetJointState.Request(name=names, position=gen.numbers(len(names), 0.5),
                                            velocity=gen.numbers(len(names), 0.5)
                                            if gen.chance(0.5) else [])
            answer = nodes.call(SetJointState, 'simulator/set_state', request)
            assert answer.success or answer.message.strip()
            assert np.all(np.isfinite(answer.state.position)), answer
            step = nodes.call(SimStep, 'simulator/step', SimStep.Request(
                steps=int(gen.rng.integers(0, 20))), once=True)
            assert step.success or step.message.strip()
            counts['simulator'] = counts.get('simulator', 0) + 2
        if case % 20 == 19:
            good_request_is_answered_correctly(nodes, gen.rng)
    print(f'operational space and simulator services: {counts}')


def mutated_description(gen: Generator, text: str) -> str:
    kind = int(gen.rng.integers(0, 7))
    n = len(text)
    a, b = sorted(int(v) for v in gen.rng.integers(0, n, 2))
    if kind == 0:
        return text[:a]                                     # truncated
    if kind == 1:
        return text[:a] + text[b:]                          # a chunk deleted
    if kind == 2:
        return text[:b] + text[a:]                          # a chunk repeated
    if kind == 3:                                           # a number replaced
        token = str(gen.rng.choice(['nan', 'inf', '-1', '1e308', 'abc', '', '1e-320', '0']))
        digits = [k for k, c in enumerate(text) if c.isdigit()]
        k = int(gen.rng.choice(digits))
        return text[:k] + token + text[k + 1:]
    if kind == 4:
        return ''.join(chr(int(c)) for c in gen.rng.integers(32, 127, int(gen.rng.integers(
            0, 200))))
    if kind == 5:
        return str(gen.rng.choice(['', '<robot name="x"/>', '<robot/>', '<?xml version="1.0"?>',
                                   '<robot name="a"><link name="l"/></robot>',
                                   '<!DOCTYPE r [<!ENTITY a "aaaa">]><robot name="&a;"/>']))
    return text.replace('<', '<' * int(gen.rng.integers(1, 3)), 1)


def garbage_joint_state_bytes(gen: Generator, valid: bytes) -> bytes:
    """Bytes on joint_states that are mostly not a JointState: the node's raw path reads them."""
    kind = int(gen.rng.integers(0, 6))
    data = bytearray(valid)
    if kind == 0:
        return bytes(data[:int(gen.rng.integers(0, len(data)))])        # truncated
    if kind == 1:                                                       # bytes changed
        for k in gen.rng.integers(0, len(data), int(gen.rng.integers(1, 9))):
            data[int(k)] = int(gen.rng.integers(0, 256))
        return bytes(data)
    if kind == 2:                                                       # a count made huge
        k = 4 + 4 * int(gen.rng.integers(0, (len(data) - 4) // 4))
        data[k:k + 4] = bytes.fromhex(str(gen.rng.choice(['ffffffff', 'ffffff7f', '00000100'])))
        return bytes(data)
    noise = gen.rng.integers(0, 256, int(gen.rng.integers(0, 300))).astype(np.uint8).tobytes()
    if kind == 3:
        return bytes(data[:4]) + noise                                  # header, then noise
    if kind == 4:
        return b'\x00\x00\x00\x00' + noise                              # "big endian" noise
    return noise


def test_fuzz_topics_never_end_a_node():
    """Garbage descriptions and joint states; the node answers right with the Panda after."""
    gen = Generator(SEED + 2)
    namespace = unique_namespace()
    with open(PANDA, encoding='utf-8') as stream:
        panda = stream.read()
    with NodeProcess('inverse_dynamics_node', namespace, {'state_timeout': 1.0}) as node, \
            RosClient(namespace) as ros:
        description = ros.node.create_publisher(String, 'robot_description', DESCRIPTION_QOS)
        states = ros.node.create_publisher(JointState, 'joint_states', 100)
        commands = []
        ros.node.create_subscription(Float64MultiArray, 'commands',
                                     lambda m: commands.append(np.array(m.data)), 100)

        def outcomes() -> int:
            log = node.output()
            return log.count('cannot load the robot model') + log.count('loaded ')
        counts = {'descriptions': 0, 'joint_states': 0}
        for _ in range(budget(25)):
            before = outcomes()
            description.publish(String(data=mutated_description(gen, panda)))
            wait_for(lambda: outcomes() > before or not node.alive(), 60.0,
                     'the description loaded or refused')
            assert node.alive(), node.output()
            counts['descriptions'] += 1
        before = outcomes()
        description.publish(String(data=panda))
        wait_for(lambda: outcomes() > before, 60.0, 'the Panda again')
        good_request_is_answered_correctly(ros, gen.rng)
        wait_for(lambda: states.get_subscription_count() > 0, 30.0, 'joint_states subscriber')
        for _ in range(budget(150)):
            message = gen.state(wrong=0.6)
            message.header.stamp.sec = int(gen.rng.choice([0, 1, 2**31 - 1, -5])) \
                if gen.chance(0.2) else ros.node.get_clock().now().to_msg().sec
            states.publish(message)
            counts['joint_states'] += 1
        # serialised garbage straight to the node's raw subscription (publish of bytes);
        # paced so that its keep-last-1 subscription sees most of them
        valid = serialize_message(JointState(
            name=JOINTS, position=np.linspace(-0.5, 0.5, len(JOINTS)).tolist(),
            velocity=[0.1] * len(JOINTS)))
        for _ in range(budget(200)):
            states.publish(garbage_joint_state_bytes(gen, valid))
            counts['joint_state_bytes'] = counts.get('joint_state_bytes', 0) + 1
            time.sleep(0.002)
        wait_for(lambda: 'that are not a JointState' in node.output(), 10.0,
                 'the warning about malformed bytes')
        assert 'joint_states stream: serialised bytes' in node.output()
        assert all(np.all(np.isfinite(c)) for c in commands), 'a non-finite command went out'
        q = np.linspace(-0.5, 0.5, len(JOINTS))

        def streams_the_right_command() -> bool:
            count = len(commands)
            message = JointState(name=JOINTS, position=q.tolist())
            message.header.stamp = ros.node.get_clock().now().to_msg()
            states.publish(message)
            try:
                wait_for(lambda: len(commands) > count, 0.5)
            except AssertionError:
                return False
            return bool(np.allclose(commands[-1], ROBOT.gravity_torques(q), atol=1e-12))
        wait_for(streams_the_right_command, 30.0, 'the stream after the garbage')
        assert node.alive(), node.output()
        print(f'topics: {counts}')


SOLO = RobotModel.from_urdf_file(example_urdf('solo_description/robots/solo12.urdf'),
                                 root_joint='floating')
SOLO_JOINTS = list(SOLO.joint_names[1:])   # the actuated joints: the messages' joint vectors


def base_pose(gen: Generator) -> tuple:
    """Return a random Pose and the q_base it means, or None when it must be refused."""
    position = gen.numbers(3, 0.1) + [0.0] * 3
    rotation = gen.rng.normal(size=4)
    rotation /= np.linalg.norm(rotation)
    kind = int(gen.rng.integers(0, 4))
    if kind == 1:   # a little off unit norm: normalised
        rotation = rotation * (1.0 + float(gen.rng.uniform(-5e-7, 5e-7)))
    elif kind == 2:   # far from unit norm: refused
        rotation = rotation * float(gen.rng.choice([0.0, 1e-3, 0.9, 1.001, 2.0, 1e300]))
    elif kind == 3:   # any number, NaN and Inf included
        rotation = np.array([gen.number() for _ in range(4)])
    pose = Pose()
    pose.position.x, pose.position.y, pose.position.z = position[:3]
    (pose.orientation.x, pose.orientation.y, pose.orientation.z,
     pose.orientation.w) = (float(v) for v in rotation)
    with np.errstate(all='ignore'):
        norm = float(np.linalg.norm(rotation))
    usable = np.all(np.isfinite(position[:3])) and abs(norm - 1.0) <= 1e-6
    return pose, (np.concatenate((position[:3], rotation / norm)) if usable else None)


def base_six(gen: Generator, message_type) -> tuple:
    """Return a random Twist or Accel and its six numbers, None when not all finite."""
    values = gen.numbers(6, 0.2) + [0.0] * 6
    message = message_type()
    (message.linear.x, message.linear.y, message.linear.z,
     message.angular.x, message.angular.y, message.angular.z) = values[:6]
    return message, (np.array(values[:6]) if np.all(np.isfinite(values[:6])) else None)


def test_fuzz_floating_base_fields():
    """Base fields of four services: the core's answer, or refused naming the field."""
    gen, counts = Generator(SEED + 3), {}
    namespace = unique_namespace()
    parameters = {'urdf_path': example_urdf('solo_description/robots/solo12.urdf'),
                  'root_joint': 'floating'}
    with NodeProcess('inverse_dynamics_node', namespace, parameters) as node, \
            NodeProcess('operational_space_node', namespace, parameters) as space, \
            RosClient(namespace) as ros:
        odometry = ros.node.create_publisher(Odometry, 'odom', 10)
        for case in range(budget(120)):
            q_joints = gen.rng.uniform(-1.0, 1.0, len(SOLO_JOINTS))
            pose, q_base = base_pose(gen)
            twist, v_base = base_six(gen, Twist)
            state = JointState(name=SOLO_JOINTS, position=q_joints.tolist(),
                               velocity=gen.numbers(len(SOLO_JOINTS), 0.1))
            qd = np.array(state.velocity) if len(state.velocity) == len(SOLO_JOINTS) and \
                np.all(np.isfinite(state.velocity)) else None
            q = None if q_base is None else np.concatenate((q_base, q_joints))
            v = None if v_base is None or qd is None else np.concatenate((v_base, qd))
            if case % 4 == 3:
                request = OperationalSpace.Request(state=state, link='FL_FOOT', base_pose=pose,
                                                   base_twist=twist)
                answer = ros.call(OperationalSpace, 'operational_space/operational_space',
                                  request)
                check(answer, counts=counts)
                if q_base is None:
                    assert not answer.success and 'base_pose' in answer.message, answer.message
                elif v is not None and answer.success:
                    reference = SOLO.operational_space(q, v, 'FL_FOOT')
                    np.testing.assert_allclose(answer.jacobian.data, reference.J.ravel(),
                                               rtol=1e-9, atol=1e-9)
                    np.testing.assert_allclose(answer.mu, reference.mu, rtol=1e-9, atol=1e-9)
                continue
            if case % 4 == 0:
                accel, a_base = base_six(gen, Accel)
                request = InverseDynamics.Request(state=state, base_pose=pose, base_twist=twist,
                                                  base_acceleration=accel)
                answer = ros.call(InverseDynamics, 'inverse_dynamics/inverse_dynamics', request)
                expected = None if q is None or v is None or a_base is None else core_or_none(
                    SOLO.inverse_dynamics, q, v, np.concatenate((a_base, np.zeros(12))))
                field = 'effort'
            elif case % 4 == 1:
                request = ForwardDynamics.Request(state=state, base_pose=pose, base_twist=twist)
                answer = ros.call(ForwardDynamics, 'inverse_dynamics/forward_dynamics', request)
                expected = None if q is None or v is None else core_or_none(
                    SOLO.forward_dynamics, q, v, np.zeros(18))
                field = 'accelerations'
            else:
                point = JointTrajectoryPoint(positions=q_joints.tolist())
                request = TrajectoryDynamics.Request(
                    trajectory=JointTrajectory(joint_names=SOLO_JOINTS, points=[point]),
                    base_poses=[pose] if gen.chance(0.8) else [pose, pose],
                    base_twists=[twist] if gen.chance(0.5) else [])
                answer = ros.call(TrajectoryDynamics, 'inverse_dynamics/trajectory_dynamics',
                                  request)
                twists = request.base_twists
                expected = None if q is None or len(request.base_poses) != 1 or (
                    twists and v_base is None) else core_or_none(
                    SOLO.inverse_dynamics, q, np.concatenate((
                        v_base if twists else np.zeros(6), np.zeros(12))), np.zeros(18))
                field = 'efforts'
            if q_base is None:   # a pose that is no rotation is never used
                assert not answer.success, (pose, answer)
                assert 'base_pose' in answer.message, answer.message
            if expected is not None:
                if field == 'efforts':
                    check(answer, counts=counts)
                    if answer.success:
                        np.testing.assert_allclose(answer.efforts.data, expected[6:],
                                                   rtol=1e-9, atol=1e-9)
                else:
                    check(answer, expected[6:], field, counts)
                if answer.success and field != 'accelerations':
                    wrench = answer.base_wrench if field == 'effort' else \
                        answer.base_wrenches[0]
                    np.testing.assert_allclose(
                        [wrench.force.x, wrench.force.y, wrench.force.z,
                         wrench.torque.x, wrench.torque.y, wrench.torque.z], expected[:6],
                        rtol=1e-9, atol=1e-9)
            else:
                check(answer, counts=counts)
            garbage = Odometry()   # the stream's input, as garbage as the requests
            garbage.pose.pose, garbage.twist.twist = pose, twist
            odometry.publish(garbage)
        assert node.alive(), node.output()
        assert space.alive(), space.output()
        wait_for(lambda: 'dropped an odometry message on odom' in node.output(), 10.0,
                 'the warning about an odometry that does not convert')
    print(f'floating-base fields: {counts}')
    assert counts.get('refused') and counts.get('success')
