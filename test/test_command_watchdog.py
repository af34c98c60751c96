# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
A dead producer, seen from the consumer: each recipe's configuration, the producer SIGKILLed.

The nodes are started from the recipes' own declarations
(config/feedforward_<recipe>.yaml, through ``ros_dynamics.bringup.command``,
the command lines ``bringup --config`` runs) on the 2R arm (``robot:=``,
``joints:=``, ``size:=`` the only overrides), in a namespace of their own.
This test's subscription on ``effort_controller/commands`` stands for the
effort controller (``JointGroupEffortController`` applies the last command
it received). After ``inverse_dynamics_node`` is killed with SIGKILL
mid-stream:

* on ``feedforward`` (the producer's own topic, what the controller would
  get without the watchdog) nothing more arrives: a controller that holds
  its last command holds it for ever;
* on ``effort_controller/commands`` the watchdog sends the last command
  times a factor that falls (never rises) from at most 1 to an exact zero,
  then nothing.

The ramp's shape is checked on the commands' own factors (the watchdog's
clock), the times (arrival after the last streamed command, steady clock)
are printed and bounded only loosely above (a loaded machine delivers
late, not early).
"""

import contextlib
import os
import signal
import time
import types

from bringup_helpers import recipe_commands
import numpy as np
import pytest
from rclpy.qos import qos_profile_sensor_data
from ros_dynamics import RobotModel
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from test_node_parameter_errors import set_parameters
from trajectory_msgs.msg import JointTrajectoryPoint
import yaml

pytestmark = pytest.mark.ros

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TWO_R = os.path.join(ROOT, 'urdf', 'planar_2r.urdf')
Q, QD, QDD = [0.4, -0.9], [0.5, -0.3], [1.0, 2.0]


def recipe_parameters(recipe: str) -> dict:
    """Return {node: parameters} of a recipe's parameter file (its /**/<node> sections)."""
    path = os.path.join(ROOT, 'config', f'feedforward_{recipe}_parameters.yaml')
    with open(path, encoding='utf-8') as stream:
        data = yaml.safe_load(stream)
    return {key.split('/')[-1]: value['ros__parameters'] for key, value in data.items()}


def expected_command(parameters: dict) -> np.ndarray:
    """Return the command the producer streams for the fixed state and reference."""
    model = RobotModel.from_urdf_file(TWO_R)
    q, qd, qdd = (np.array(v) for v in (Q, QD, QDD))
    if parameters['mode'] == 'gravity_compensation':
        return model.gravity_torques(q)
    tau = model.inverse_dynamics(q, qd, qdd)
    return tau if parameters['include_gravity'] else tau - model.gravity_torques(q)


@contextlib.contextmanager
def recipe_stream(recipe: str):
    """Run a recipe's nodes on the 2R arm; yield (producer, watchdog, stream) once 30 came."""
    namespace = unique_namespace()
    commands = recipe_commands(recipe, {'robot': TWO_R, 'namespace': namespace,
                                        'joints': '[shoulder, elbow]', 'size': '2'})
    processes = {name: NodeProcess(executable, namespace) for name, (executable, _) in
                 commands.items()}
    for name, process in processes.items():
        process.args = commands[name][1]
    with processes['command_watchdog'], processes['inverse_dynamics'], \
            RosClient(namespace) as ros:
        stream = types.SimpleNamespace(controller=[], direct=[])
        ros.node.create_subscription(
            Float64MultiArray, 'effort_controller/commands',
            lambda m: stream.controller.append((time.monotonic(), np.array(m.data))), 100)
        ros.node.create_subscription(
            Float64MultiArray, 'feedforward',
            lambda m: stream.direct.append((time.monotonic(), np.array(m.data))), 100)
        states = ros.node.create_publisher(JointState, 'joint_states', qos_profile_sensor_data)
        reference = ros.node.create_publisher(JointTrajectoryPoint, 'reference', 10)

        def publish(count: int = 1) -> None:
            for _ in range(count):
                reference.publish(JointTrajectoryPoint(positions=Q, velocities=QD,
                                                       accelerations=QDD))
                message = JointState(name=['shoulder', 'elbow'], position=Q,
                                     velocity=[0.0, 0.0])
                message.header.stamp = ros.node.get_clock().now().to_msg()
                states.publish(message)
                time.sleep(0.01)
        stream.publish = publish
        wait_for(lambda: publish() or len(stream.controller) >= 30, 90.0,
                 '30 commands through the watchdog')
        yield processes['inverse_dynamics'], processes['command_watchdog'], stream


def ramp_after(stream, held: np.ndarray) -> tuple:
    """
    Return (arrival of the last relayed command before it, [(arrival, factor)]) of the ramp.

    The controller's commands are the producer's (``stream.direct``, relayed
    unchanged and in order) and the watchdog's own: matched from the end
    against the producer's sequence, the first of its own starts the ramp,
    which ends at its zero. Every command is checked to be factor * held (the producer's
    own stale ramp, on a delayed state, is one too).
    """
    own, k = [], len(stream.direct) - 1   # from the end: the first ones predate discovery
    for index in reversed(range(len(stream.controller))):
        if k >= 0 and np.array_equal(stream.controller[index][1], stream.direct[k][1]):
            k -= 1
        else:
            own.insert(0, index)
    assert own, 'no command of the watchdog'
    factors = [float(c @ held / (held @ held)) for _, c in stream.controller]
    for (_, command), factor in zip(stream.controller, factors):
        assert np.allclose(command, factor * held, atol=1e-12), (command, held)
    assert sum(1 for f in factors if f == 1.0) >= 20, 'the streamed command'
    first = own[0]
    end = next(i for i in range(first, len(factors)) if factors[i] == 0.0)
    assert own[:end - first + 1] == list(range(first, end + 1)), 'one run of its own'
    ramp = [(stream.controller[i][0], factors[i]) for i in range(first, end + 1)]
    values = [factors[first - 1]] + [f for _, f in ramp]
    assert all(b <= a + 1e-12 for a, b in zip(values, values[1:])), values
    return stream.controller[first - 1][0], ramp


@pytest.mark.timing   # make fuzz, not make test: see the marker in setup.cfg
@pytest.mark.parametrize('recipe', ['effort_interface', 'franka', 'ur'])
def test_a_killed_producer_is_ramped_out_by_the_watchdog(recipe):
    parameters = recipe_parameters(recipe)
    watchdog = parameters['command_watchdog']
    with recipe_stream(recipe) as (producer, relay, stream):
        os.killpg(producer.process.pid, signal.SIGKILL)
        killed = time.monotonic()
        wait_for(lambda: any(not c.any() for t, c in stream.controller if t > killed), 30.0,
                 "the watchdog's zero")
        time.sleep(0.5)   # anything after the zero would arrive here
        assert relay.alive(), relay.output()
    held = expected_command(parameters['inverse_dynamics'])
    assert np.abs(held).max() > 0.1, held
    # the producer's own topic: silent from the kill on (commands in flight excepted)
    assert stream.direct[-1][0] < killed + 0.2, 'the producer published after its SIGKILL'
    stream_end, after = ramp_after(stream, held)
    factors = [f for _, f in after]
    assert 0.0 <= factors[0] < 1.0, factors
    assert after[-1][0] == stream.controller[-1][0], 'one zero, then nothing'
    assert len(after) >= 3, ('a ramp, not a step', factors)   # 50 Hz: 10 over 0.2 s
    first, zero = after[0][0] - stream_end, after[-1][0] - stream_end
    timeout, duration = watchdog['command_timeout'], watchdog['stale_duration']
    assert first <= timeout + 1.5 and zero <= timeout + duration + 2.0, (first, zero)
    print(f'{recipe}: last streamed command held {first * 1e3:.0f} ms (command_timeout '
          f'{timeout} s), then a ramp of {len(after) - 1} commands, zero at '
          f'{zero * 1e3:.0f} ms (stale_duration {duration} s); on feedforward nothing after '
          f'the kill')


@pytest.mark.timing
def test_a_stalled_producer_is_ramped_out_and_takes_over_again():
    """
    SIGSTOP (a stall: the process alive, no command), then SIGCONT.

    The watchdog ramps the last command out as for a dead producer; once the
    producer runs again its commands pass at once (a step back to the
    streamed torque: a stall longer than command_timeout is not bridged).
    """
    held = expected_command(recipe_parameters('effort_interface')['inverse_dynamics'])
    with recipe_stream('effort_interface') as (producer, relay, stream):
        os.killpg(producer.process.pid, signal.SIGSTOP)
        stopped = time.monotonic()
        try:
            wait_for(lambda: any(not c.any() for t, c in stream.controller if t > stopped),
                     30.0, "the watchdog's zero")
        finally:
            os.killpg(producer.process.pid, signal.SIGCONT)
        resumed = time.monotonic()
        wait_for(lambda: stream.publish() or sum(
            1 for t, c in stream.controller if t > resumed and np.allclose(c, held)) >= 10,
            30.0, 'the stream again')
        assert producer.alive() and relay.alive(), producer.output() + relay.output()
    _, ramp = ramp_after(stream, held)
    assert len(ramp) >= 3 and ramp[-1][1] == 0.0, ramp
    again = next(t for t, c in stream.controller if t > resumed and np.allclose(c, held))
    print(f'stalled producer: ramp of {len(ramp) - 1} commands, zero; resumed: the stream '
          f'relayed again {1e3 * (again - resumed):.0f} ms after SIGCONT')


def test_the_watchdog_relays_checked_commands_and_refuses_bad_sets():
    """Wrong-length and non-finite commands are dropped; a bad runtime set is refused."""
    namespace = unique_namespace()
    with NodeProcess('command_watchdog', namespace, {'size': 2, 'on_stale': 'silent'}) as node, \
            RosClient(namespace) as ros:
        out = []
        ros.node.create_subscription(Float64MultiArray, 'commands_out',
                                     lambda m: out.append(list(m.data)), 100)
        publisher = ros.node.create_publisher(Float64MultiArray, 'commands_in', 10)
        wait_for(lambda: publisher.get_subscription_count() == 1, 30.0, 'the watchdog')
        for data in ([1.0, 2.0, 3.0], [float('nan'), 1.0], [1.0, 2.0]):
            publisher.publish(Float64MultiArray(data=data))
        wait_for(lambda: out, 10.0, 'the relayed command')
        time.sleep(0.3)
        assert out == [[1.0, 2.0]], out
        assert 'dropped a command of 3 values (size 2' in node.output(), node.output()
        # after a zero command (a producer's own ramp ends in one) there is nothing to release
        assert set_parameters(ros, 'command_watchdog', on_stale='zero').successful
        publisher.publish(Float64MultiArray(data=[0.0, 0.0]))
        wait_for(lambda: len(out) == 2, 10.0, 'the zero relayed')
        time.sleep(0.5)   # command_timeout 0.1 s: a release would have sent a second zero
        assert out == [[1.0, 2.0], [0.0, 0.0]], out
        for name, value in (('command_timeout', 0.0), ('on_stale', 'drop'), ('size', -1),
                            ('stale_duration', float('nan'))):
            result = set_parameters(ros, 'command_watchdog', **{name: value})
            assert not result.successful and name in result.reason, (name, result.reason)
        assert set_parameters(ros, 'command_watchdog', command_timeout=1).successful


@pytest.mark.parametrize('name, value', [
    ('command_timeout', 0.0), ('command_timeout', -1.0), ('command_timeout', 'fast'),
    ('on_stale', 'drop'), ('size', -1), ('size', 2.5), ('stale_duration', -0.5)], ids=repr)
def test_a_bad_parameter_is_one_error_line_and_exit_1(name, value):
    bad = NodeProcess('command_watchdog', unique_namespace(), {name: value})
    with bad:
        wait_for(lambda: not bad.alive(), 30.0, 'the refused start')
    lines = [line for line in bad.output().splitlines() if line.strip()]
    assert bad.process.returncode == 1, bad.output()
    assert len(lines) == 1 and '[ERROR]' in lines[0] and name in lines[0], lines
