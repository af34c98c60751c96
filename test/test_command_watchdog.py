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
it received). The producer's commands are stamped (``effort_commands``,
``sensor_msgs/JointState``) and the watchdog drops those older than its
``command_timeout``. After ``inverse_dynamics_node`` is killed with SIGKILL
mid-stream:

* on ``feedforward`` (the producer's own topic, what the controller would
  get without the watchdog) nothing more arrives: a controller that holds
  its last command holds it for ever;
* on ``effort_controller/commands`` every command is a factor of the
  streamed one; from the last full one the factors fall (never up by more
  than 1 %) to an exact zero, in at least three steps (a ramp, not a
  step), and nothing comes after the zero. (That no backlog of old
  commands is relayed after a ramp is shown without timing by
  test_stamped_commands_older_than_the_timeout_are_not_relayed: here, on a
  loaded machine, a zero of a ramp before the kill may reach this process
  after it, followed by the producer's last commands.)

Only the controller's own topic is judged (no matching against a copy of
the producer's topic, which this process receives late on a loaded
machine), and ramps before the kill are allowed: on a busy machine a
50 ms ``command_timeout`` may rightly fire while the producer lives. When
the watchdog sent its zero is read from its log line (system clock) and
bounded loosely above; when this process received it is printed only (DDS
sends a lost last sample again at the next heartbeat, seconds later).
"""

import contextlib
import os
import re
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
def recipe_stream(recipe: str, held: np.ndarray):
    """
    Run a recipe's nodes on the 2R arm; yield (producer, watchdog, stream) once 20 came.

    20 commands equal to ``held`` (the streamed command, relayed) must have come
    (a state delayed past state_timeout on a busy machine starts the producer's
    own ramp in between).
    """
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
        ros.node.create_subscription(   # (stamp in ns, efforts)
            JointState, 'feedforward', lambda m: stream.direct.append(
                (m.header.stamp.sec * 1_000_000_000 + m.header.stamp.nanosec,
                 np.array(m.effort))), 100)
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

        def streamed() -> int:
            return sum(1 for _, c in stream.controller
                       if np.allclose(c, held, rtol=0.0, atol=1e-12))
        wait_for(lambda: publish() or streamed() >= 20, 90.0,
                 '20 streamed commands through the watchdog')
        stream.now = lambda: ros.node.get_clock().now().nanoseconds
        yield processes['inverse_dynamics'], processes['command_watchdog'], stream


def ramp_after(stream, held: np.ndarray, since: float) -> tuple:
    """
    Return (arrival of the last full command, [(arrival, factor)] from it to the zero).

    Every command on the controller's topic must be factor * held (the
    producer's streamed command, its own stale ramp on a delayed state, the
    watchdog's ramp); the last one must be an exact zero that arrived after
    ``since`` (nothing follows the zero); from the last full command (factor
    1) before it the factors never rise by more than 0.01. Earlier zeros are
    allowed: on a loaded machine the producer's own stale ramp may end in a
    zero before ``since`` that this process receives after it, and the
    stream resumes.
    """
    factors = [float(c @ held / (held @ held)) for _, c in stream.controller]
    for (_, command), factor in zip(stream.controller, factors):
        assert np.allclose(command, factor * held, atol=1e-12), (command, held)
    end = len(factors) - 1
    assert factors[end] == 0.0 and stream.controller[end][0] > since, (
        'the last command is not a zero that came after the kill: (s after since, factor)',
        [(round(t - since, 3), round(f, 3))
         for (t, _), f in zip(stream.controller[-40:], factors[-40:])])
    first = max(i for i in range(end) if abs(factors[i] - 1.0) <= 1e-12)
    values = factors[first:end + 1]
    # never up by more than 1 % of the streamed command: just before a kill the producer's own
    # stale ramp (its state_timeout can equal the watchdog's timeout) may interleave with the
    # watchdog's, two falling lines a fraction of a step apart (seen: 0.8961 then 0.8965)
    assert all(b <= a + 0.01 for a, b in zip(values, values[1:])), values
    return stream.controller[first][0], [(stream.controller[i][0], factors[i])
                                         for i in range(first + 1, end + 1)]


@pytest.mark.parametrize('recipe', ['effort_interface', 'franka', 'ur'])
def test_a_killed_producer_is_ramped_out_by_the_watchdog(recipe):
    parameters = recipe_parameters(recipe)
    watchdog = parameters['command_watchdog']
    held = expected_command(parameters['inverse_dynamics'])
    assert np.abs(held).max() > 0.1, held
    with recipe_stream(recipe, held) as (producer, relay, stream):
        os.killpg(producer.process.pid, signal.SIGKILL)
        killed, killed_stamp, killed_wall = time.monotonic(), stream.now(), time.time()
        # the last command a zero that came after the kill (an earlier zero may have come late)
        wait_for(lambda: stream.controller and stream.controller[-1][0] > killed
                 and not stream.controller[-1][1].any(), 30.0, "the watchdog's zero")
        time.sleep(1.0)   # anything after the zero would arrive here
        assert relay.alive(), relay.output()
    # the producer's own topic: nothing stamped after the kill (the stamps, not this
    # process's late delivery, tell)
    assert max(stamp for stamp, _ in stream.direct) < killed_stamp, 'published after SIGKILL'
    stream_end, after = ramp_after(stream, held, killed)
    factors = [f for _, f in after]
    assert len(after) >= 3, ('a ramp, not a step', factors)   # 50 Hz: 10 over 0.2 s
    zero = after[-1][0] - killed
    timeout, duration = watchdog['command_timeout'], watchdog['stale_duration']
    # when the watchdog sent it, from its log line's stamp (system clock): this process's
    # arrival times also hold DDS's delays (a lost last sample is sent again at the writer's
    # next heartbeat, every 3 s in Fast DDS; seen: the zero arriving 2.3 s after the kill)
    # (none after the kill: the producer's own stale ramp had ended in a zero before it)
    released = [float(stamp) - killed_wall for stamp in re.findall(
        r'\[(\d+\.\d+)\] \[[^]]*\]: (?:zero effort sent after|.*nothing to send)',
        relay.output())]
    assert released, relay.output()
    sent = next((t for t in released if t > 0.0), 0.0)   # the first after the kill
    assert sent <= timeout + duration + 2.0, (released, relay.output())
    print(f'{recipe}: last full command {1e3 * (stream_end - killed):+.0f} ms from the kill '
          f'(command_timeout {timeout} s), then {len(after) - 1} commands falling to zero; '
          f'the zero sent {sent * 1e3:.0f} ms after the kill (stale_duration {duration} '
          f's), here {zero * 1e3:.0f} ms after it; on feedforward nothing after the kill')


def test_a_stalled_producer_is_ramped_out_and_takes_over_again():
    """
    SIGSTOP (a stall: the process alive, no command), then SIGCONT.

    The watchdog ramps the last command out as for a dead producer; once the
    producer runs again its commands pass at once (a step back to the
    streamed torque: a stall longer than command_timeout is not bridged).
    """
    held = expected_command(recipe_parameters('effort_interface')['inverse_dynamics'])
    with recipe_stream('effort_interface', held) as (producer, relay, stream):
        os.killpg(producer.process.pid, signal.SIGSTOP)
        stopped = time.monotonic()
        try:
            wait_for(lambda: any(not c.any() for t, c in stream.controller if t > stopped),
                     30.0, "the watchdog's zero")
        finally:
            os.killpg(producer.process.pid, signal.SIGCONT)
        resumed = time.monotonic()
        zero = next(t for t, c in stream.controller if t > stopped and not c.any())
        wait_for(lambda: stream.publish() or sum(
            1 for t, c in stream.controller if t > resumed and np.allclose(c, held)) >= 10,
            30.0, 'the stream again')
        assert producer.alive() and relay.alive(), producer.output() + relay.output()
    stalled = [(t, c) for t, c in stream.controller if t <= zero]
    _, ramp = ramp_after(types.SimpleNamespace(controller=stalled), held, stopped)
    assert len(ramp) >= 3 and ramp[-1][1] == 0.0, ramp
    again = next(t for t, c in stream.controller if t > resumed and np.allclose(c, held))
    print(f'stalled producer: ramp of {len(ramp) - 1} commands, zero; resumed: the stream '
          f'relayed again {1e3 * (again - resumed):.0f} ms after SIGCONT')


def test_stamped_commands_older_than_the_timeout_are_not_relayed():
    """
    A stamped watchdog drops what is late or from the future, and names why.

    The backlog a starved watchdog would find on waking is a queue of
    commands stamped before its timeout: none is relayed, none resets the
    watchdog. Names pick the efforts (``joints``), in the watchdog's order.
    """
    namespace = unique_namespace()
    parameters = {'stamped': True, 'joints': ['b', 'a'], 'command_timeout': 0.2,
                  'on_stale': 'zero'}
    with NodeProcess('command_watchdog', namespace, parameters) as node, \
            RosClient(namespace) as ros:
        out = []
        ros.node.create_subscription(Float64MultiArray, 'commands_out',
                                     lambda m: out.append(list(m.data)), 100)
        publisher = ros.node.create_publisher(JointState, 'commands_in', 10)
        wait_for(lambda: publisher.get_subscription_count() == 1, 30.0, 'the watchdog')

        def command(effort, age=0.0, names=('a', 'b')) -> JointState:
            message = JointState(name=list(names), effort=list(effort))
            stamp = ros.node.get_clock().now().nanoseconds - int(age * 1e9)
            message.header.stamp.sec, message.header.stamp.nanosec = divmod(stamp,
                                                                            1_000_000_000)
            return message
        # (until the watchdog's publisher has matched this subscription too, one may be lost)
        wait_for(lambda: publisher.publish(command([1.0, 2.0])) or time.sleep(0.5) or out,
                 20.0, 'the command relayed')
        wait_for(lambda: out[-1] == [0.0, 0.0], 10.0, 'the zero of its timeout')
        assert all(c == [2.0, 1.0] for c in out[:-1]), out
        relayed = len(out)
        # old (a backlog), from the future, without b: dropped, and no new zero
        for message in (command([3.0, 4.0], age=0.5), command([3.0, 4.0], age=-0.5),
                        command([3.0], names=('a',))):
            publisher.publish(message)
        time.sleep(0.6)
        assert len(out) == relayed, out
        output = node.output()
        for why in ('s ago, older than command_timeout 0.2 s', 's in the future',
                    'no effort for b'):
            assert why in output, output


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
        assert 'dropped a command: 3 values (size 2' in node.output(), node.output()
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
