# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Parameters cannot crash a node: natural values work, invalid ones are one line.

* ``joints: []`` means the model's order, ``kd: 2``, ``kd: 2.0`` and
  ``kd: [2]`` one gain for all: the node starts and its commands are the
  core's g(q) - M(q) kd qd with that gain on every joint;
* every invalid start-up value (``mode: gravity``, wrong lengths, negative
  gains, wrong types, unknown joints) ends the process with status 1 and
  exactly one ``[ERROR]`` line naming the parameter and what it allows,
  never a traceback;
* at runtime an invalid set is refused with the reason
  (``SetParametersResult.successful`` false) and the node keeps serving;
* fuzzed values (random types, lengths, NaN, Inf, huge, empty) at start-up
  and at runtime: each is accepted or refused as above, and the node
  answers a good request exactly as the core does afterwards. The budget
  scales with ``ROS_DYNAMICS_FUZZ_SCALE`` (the ``fuzz``-marked test).
"""

import math
import os
import random
import subprocess
import types

import numpy as np
import pytest
from rcl_interfaces.srv import SetParameters
from rclpy.parameter import Parameter
from rclpy.qos import qos_profile_sensor_data
from ros_dynamics import RobotModel
from ros_dynamics.nodes.parameters import convert, ParameterError
from ros_dynamics.srv import InverseDynamics
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TWO_R = os.path.join(ROOT, 'urdf', 'planar_2r.urdf')
ROBOT = RobotModel.from_urdf_file(TWO_R)
SCALE = float(os.environ.get('ROS_DYNAMICS_FUZZ_SCALE', '1'))
SEED = int(os.environ.get('ROS_DYNAMICS_FUZZ_SEED', random.SystemRandom().randint(0, 2**31)))
NON_NEGATIVE = (0.0, math.inf)


def test_convert_takes_natural_values_and_names_what_is_allowed():
    gains = ([0.0], NON_NEGATIVE, '', True)
    assert convert('kd', None, *gains) == []            # `kd: []`: rclpy reads "not set"
    for value in (2, 2.0, [2], [2.0], (2,)):
        assert convert('kd', value, *gains) == [2.0], value
    assert convert('kd', [1, 2.5], *gains) == [1.0, 2.5]
    assert convert('joints', None, [''], None, '', True) == []
    assert convert('joints', 'a', [''], None, '', True) == ['a']
    assert convert('state_timeout', 1, 0.1, NON_NEGATIVE) == 1.0
    for bad, said in (([-1], 'got -1.0'), ('abc', "got a string 'abc'"), ([True], 'got a bool'),
                      ([math.nan], 'got nan'), (math.inf, 'got inf'), ([[1]], 'got an array')):
        with pytest.raises(ParameterError) as error:
            convert('kd', bad, *gains)
        text = str(error.value)
        assert text.startswith(f'parameter kd: {said}'), text
        assert text.endswith('expected a list of numbers, [] or one value for all >= 0'), text
    with pytest.raises(ParameterError, match='parameter mode: got an integer 5; expected a '
                       r'string \(one of a, b\)'):
        convert('mode', 5, 'a', None, 'one of a, b')
    assert convert('friction_compensation', False, 'false', None, '', True) == 'false'
    with pytest.raises(ParameterError, match='parameter kd: got nothing'):
        convert('kd', None, [0.0], NON_NEGATIVE)   # not flexible: [] is not a value


def started(parameters: dict, timeout: float = 60.0,
            executable: str = 'inverse_dynamics_node') -> tuple:
    """
    Start a node on the 2R arm; return (exit code or None if serving, output).

    None: it loaded the model and kept running (stopped here with SIGINT).
    """
    namespace = unique_namespace()
    node = NodeProcess(executable, namespace, dict({'urdf_path': TWO_R}, **parameters))
    with node:
        wait_for(lambda: not node.alive() or 'loaded' in node.output(), timeout,
                 f'the node to start or exit with {parameters}')
        if node.alive():   # the model loaded: the stream's checks come right after
            try:
                node.process.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                pass
        code = None if node.alive() else node.process.returncode
    return code, node.output()


def assert_one_error_line(code, output: str, parameter: str, allowed: str) -> None:
    """Exit status 1, one [ERROR] line naming the parameter and the allowed values."""
    assert code == 1, output
    errors = [line for line in output.splitlines() if '[ERROR]' in line]
    assert len(errors) == 1, output
    assert f'cannot start: parameter {parameter}' in errors[0], errors
    assert allowed in errors[0], errors
    assert 'Traceback' not in output, output


@pytest.mark.ros
@pytest.mark.parametrize('parameters, name, allowed', [
    ({'mode': 'gravity'}, 'mode', 'gravity_compensation, inverse_dynamics, computed_torque'),
    ({'kd': [1.0, 2.0, 3.0]}, 'kd', 'expected 2 gains'),
    ({'kd': -1}, 'kd', '>= 0'),
    ({'kp': [2, -1]}, 'kp', '>= 0'),
    ({'kd': 'abc'}, 'kd', 'a list of numbers, [] or one value for all'),
    ({'joints': ['shoulder', 'wrist']}, 'joints', 'model joints: shoulder, elbow'),
    ({'state_timeout': 0}, 'state_timeout', '> 0'),
    ({'on_stale': 'hold on'}, 'on_stale', 'zero, silent'),
    ({'clamp_effort': 'yes'}, 'clamp_effort', 'true or false'),
    ({'root_joint': 'free'}, 'root_joint', "one of '', floating, planar"),
], ids=lambda value: str(value) if isinstance(value, dict) else '')
def test_an_invalid_start_up_value_is_one_error_line(parameters, name, allowed):
    code, output = started(parameters)
    assert_one_error_line(code, output, name, allowed)


@pytest.mark.ros
@pytest.mark.parametrize('executable, parameters, name, allowed', [
    ('simulator_node', {'gravity': [0, 0]}, 'gravity', 'must be 3 finite numbers'),
    ('simulator_node', {'dt': -1}, 'dt', 'a number >= 0 (> 0)'),
    ('cartesian_impedance_controller', {'link': 'tool', 'kd': [1, 2]}, 'kd', '6 finite'),
    ('cartesian_impedance_controller', {'link': 'hand'}, 'link', 'links: base_link, link1'),
    ('operational_space_node', {'damping': 'x'}, 'damping', 'a number >= 0 (> 0)'),
], ids=lambda value: str(value) if isinstance(value, dict) else value.split('_')[0])
def test_other_nodes_say_it_in_one_line_too(executable, parameters, name, allowed):
    code, output = started(parameters, executable=executable)
    assert_one_error_line(code, output, name, allowed)


def stream_commands(ros, gain, velocity) -> np.ndarray:
    """Publish a joint state of the 2R arm moving; return the command that answers it."""
    commands = []
    ros.node.create_subscription(Float64MultiArray, 'commands',
                                 lambda m: commands.append(np.array(m.data)), 10)
    states = ros.node.create_publisher(JointState, 'joint_states', qos_profile_sensor_data)
    q = np.array([0.4, -0.9])

    def publish():
        message = JointState(name=['shoulder', 'elbow'], position=q.tolist(),
                             velocity=list(velocity))
        message.header.stamp = ros.node.get_clock().now().to_msg()
        states.publish(message)
        return bool(commands)
    wait_for(publish, 60.0, 'a command')
    expected = ROBOT.gravity_torques(q) - ROBOT.mass_matrix(q) @ (gain * np.asarray(velocity))
    expected = np.clip(expected, -ROBOT.effort_limit, ROBOT.effort_limit)
    assert np.allclose(commands[-1], expected, atol=1e-9), (commands[-1], expected)
    return commands[-1]


def set_parameters(ros, name: str, **values):
    request = SetParameters.Request(parameters=[
        Parameter(k, value=v).to_parameter_msg() for k, v in values.items()])
    results = ros.call(SetParameters, f'{name}/set_parameters', request).results
    assert len(results) == len(values)
    return types.SimpleNamespace(successful=all(r.successful for r in results),
                                 reason='; '.join(r.reason for r in results if r.reason))


@pytest.mark.ros
@pytest.mark.parametrize('kd', [2, 2.0, [2], [2.0, 2.0]], ids=repr)
def test_natural_values_work(kd):
    """``joints: []`` is the model's order; a scalar or an integer gain is one for all."""
    namespace = unique_namespace()
    with NodeProcess('inverse_dynamics_node', namespace,
                     {'urdf_path': TWO_R, 'joints': [], 'kd': kd,
                      'friction_compensation': False}) as node, \
            RosClient(namespace) as ros:
        stream_commands(ros, 2.0, [0.3, -0.5])
        assert node.alive() and 'Traceback' not in node.output(), node.output()


@pytest.mark.ros
def test_runtime_sets_are_checked_and_refused_with_the_reason():
    namespace = unique_namespace()
    with NodeProcess('inverse_dynamics_node', namespace, {'urdf_path': TWO_R}) as node, \
            RosClient(namespace) as ros:
        stream_commands(ros, 0.0, [0.3, -0.5])
        for values, said in (({'mode': 'gravity'}, 'mode'), ({'kd': [1.0, 2.0, 3.0]}, 'kd'),
                             ({'kd': -1.0}, 'kd'), ({'kd': 'abc'}, 'kd'),
                             ({'joints': ['wrist']}, 'joints'),
                             ({'state_timeout': -1}, 'state_timeout')):
            result = set_parameters(ros, 'inverse_dynamics', **values)
            assert not result.successful and said in result.reason, (values, result.reason)
        assert set_parameters(ros, 'inverse_dynamics', kd=3, joints=[]).successful
        stream_commands(ros, 3.0, [0.3, -0.5])
        assert set_parameters(ros, 'inverse_dynamics', kd=[1.5]).successful
        stream_commands(ros, 1.5, [-0.2, 0.1])
        assert node.alive() and 'Traceback' not in node.output(), node.output()


PARAMETERS = {'mode': 'gravity_compensation', 'joints': [], 'kp': [0.0], 'kd': [0.0],
              'unlisted_joints': 'hold', 'include_gravity': True, 'on_stale': 'zero',
              'state_timeout': 0.1, 'friction_compensation': 'false', 'clamp_effort': True}
VALUES = [None, True, False, 0, 1, -1, 2, 7, 0.0, 2.5, -0.5, 1e308, -1e308, math.nan, math.inf,
          '', 'gravity', 'hold', 'zero', 'reference', 'shoulder', [], [0.0], [1, 2], [1.0, 2.0],
          [1.0, -2.0], [1.0, 2.0, 3.0], [True], ['shoulder'], ['elbow', 'shoulder'],
          ['shoulder', 'shoulder'], ['x'], [math.nan, 1.0], [math.inf]]


def fuzzed(rng: random.Random) -> dict:
    """Return 1-3 parameters of inverse_dynamics_node set to random, often invalid, values."""
    return {name: rng.choice(VALUES + [PARAMETERS[name]])
            for name in rng.sample(sorted(PARAMETERS), rng.randint(1, 3))}


def fuzz(starts: int, sets: int) -> None:
    """Start-ups and runtime sets with fuzzed values; a good request is answered after each."""
    rng = random.Random(SEED)
    print(f'parameter fuzzing seed {SEED} (ROS_DYNAMICS_FUZZ_SEED)')
    for _ in range(starts):
        parameters = {k: v for k, v in fuzzed(rng).items() if v is not None}
        code, output = started(parameters)
        assert 'Traceback' not in output, (parameters, output)
        if code is not None:
            errors = [line for line in output.splitlines() if '[ERROR]' in line]
            assert code == 1 and len(errors) == 1, (parameters, output)
            assert 'cannot start: parameter ' in errors[0], (parameters, output)
    namespace = unique_namespace()
    request = InverseDynamics.Request(state=JointState(name=['shoulder', 'elbow'],
                                                       position=[0.3, -0.7]))
    with NodeProcess('inverse_dynamics_node', namespace, {'urdf_path': TWO_R}) as node, \
            RosClient(namespace) as ros:
        for _ in range(sets):
            values = {k: v for k, v in fuzzed(rng).items() if v is not None}
            try:
                result = set_parameters(ros, 'inverse_dynamics', **values)
            except TypeError:   # rclpy cannot build such a message: nothing sent
                continue
            assert result.successful or result.reason, values
            answer = ros.call(InverseDynamics, 'inverse_dynamics/inverse_dynamics', request)
            assert answer.success, (values, answer.message)
            assert np.allclose(answer.effort, ROBOT.gravity_torques([0.3, -0.7]), atol=1e-12)
        assert node.alive() and 'Traceback' not in node.output(), node.output()


@pytest.mark.ros
def test_fuzzed_parameters_never_crash_a_node():
    fuzz(starts=3, sets=60)


IMPEDANCE = {'link': 'tool', 'joints': [], 'kp': [400.0] * 6, 'kd': [40.0] * 6,
             'axes': [0, 2], 'null_damping': 1.0, 'posture_stiffness': 0.0, 'rest': [0.0],
             'state_timeout': 0.1, 'on_stale': 'zero', 'stale_duration': 0.5}


@pytest.mark.ros
def test_fuzzed_sets_never_crash_the_impedance_controller():
    """Runtime sets with fuzzed values: accepted or refused with a reason; it keeps running."""
    rng = random.Random(SEED + 1)
    namespace = unique_namespace()
    values_of = VALUES + ['tool', 'link2', [0, 1, 2, 3, 4, 5], [5, 0], [0, 9], 'ramp']
    with NodeProcess('cartesian_impedance_controller', namespace,
                     {'urdf_path': TWO_R, 'link': 'tool', 'axes': [0, 2]}) as node, \
            RosClient(namespace) as ros:
        for _ in range(int(40 * SCALE)):
            values = {name: rng.choice(values_of + [IMPEDANCE[name]])
                      for name in rng.sample(sorted(IMPEDANCE), rng.randint(1, 3))}
            values = {k: v for k, v in values.items() if v is not None}
            try:
                result = set_parameters(ros, 'cartesian_impedance_controller', **values)
            except TypeError:   # rclpy cannot build such a message: nothing sent
                continue
            assert result.successful or result.reason, values
            assert node.alive(), (values, node.output())
        assert 'Traceback' not in node.output(), node.output()


@pytest.mark.ros
@pytest.mark.fuzz
@pytest.mark.skipif(SCALE <= 1, reason='the long version runs under make fuzz (scale > 1)')
def test_fuzzed_parameters_never_crash_a_node_long():
    fuzz(starts=int(SCALE), sets=int(25 * SCALE))


@pytest.mark.ros
@pytest.mark.parametrize('executable', ['inverse_dynamics_node', 'simulator_node',
                                        'operational_space_node',
                                        'cartesian_impedance_controller'])
def test_a_node_without_a_model_stops_with_one_line(executable):
    """A URDF given that does not load: nothing to serve and no topic to wait for: exit 1."""
    code, output = started({'urdf_path': '/no/such/arm.urdf', 'link': 'tool'},
                           executable=executable)
    assert code == 1, output
    errors = [line for line in output.splitlines() if '[ERROR]' in line]
    assert len(errors) == 1 and 'Traceback' not in output, output
    assert ("cannot start: no robot model: urdf_path '/no/such/arm.urdf'" in errors[0]
            and 'does not exist' in errors[0]), errors


@pytest.mark.ros
def test_operational_space_refuses_a_wrong_type_at_runtime():
    """A double parameter set to text is refused with the reason; an integer is taken."""
    namespace = unique_namespace()
    with NodeProcess('operational_space_node', namespace, {'urdf_path': TWO_R}) as node, \
            RosClient(namespace) as ros:
        result = set_parameters(ros, 'operational_space', damping='abc')
        assert not result.successful and 'parameter damping' in result.reason, result.reason
        assert set_parameters(ros, 'operational_space', damping=1).successful
        assert not set_parameters(ros, 'operational_space', damping=0).successful
        assert node.alive() and 'Traceback' not in node.output(), node.output()
