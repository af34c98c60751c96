# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The compiled stream (nodes/stream_kernel.py) against the node's Python path, message by message.

Two inverse-dynamics nodes in this process take the same serialised joint
states at the same node-clock times: one may arm its compiled stream, the
other runs with ``ROS_DYNAMICS_COMPILED_STREAM=0`` (the Python path for every
message). After every message their commands (bytes), merged states, rings
of joint states and counters must be identical, on clean, messy (NaN, Inf,
partial, reordered, unknown names, stale stamps, odd padding, huge values)
and malformed (truncated, corrupted) messages; and the compiled path must
actually have answered (published and stale) messages, handing the rest over.
"""

import numpy as np
import pytest
import rclpy
from rclpy.serialization import serialize_message
from robot_data import example_urdf
from ros_dynamics.kernels.stream import gravity_command, PUBLISH, STALE
from ros_dynamics.nodes import gravity_stream
from ros_dynamics.nodes.inverse_dynamics_node import InverseDynamicsNode
from ros_dynamics.runtime.jit import ensure_compiled
from sensor_msgs.msg import JointState

pytestmark = pytest.mark.ros

PANDA = example_urdf('panda_description/urdf/panda.urdf')
ARM = [f'panda_joint{k}' for k in range(1, 8)]
FINGER = 'panda_finger_joint1'
START = 1_767_225_600 * 10**9   # node clock at the first message (ns)
MS = 1_000_000


class Clock:
    """The node clock, set by the test (NodeTime's interface)."""

    def __init__(self):
        self.now = START

    def nanoseconds(self):
        return self.now


class Commands:
    """The commands publisher's stand-in: keeps the bytes published."""

    def __init__(self):
        self.sent = []

    def publish(self, data):
        self.sent.append(bytes(data))


def state_bytes(names, position, velocity=(), effort=(), age=0.0002, now=START,
                frame_id='', stamp=None):
    """Return a serialised JointState stamped ``age`` s before ``now`` (or at ``stamp``)."""
    message = JointState(name=list(names), position=[float(v) for v in position],
                         velocity=[float(v) for v in velocity],
                         effort=[float(v) for v in effort])
    if stamp is None:
        stamp = now - int(age * 1e9)
    message.header.stamp.sec, message.header.stamp.nanosec = divmod(stamp, 10**9)
    message.header.frame_id = frame_id
    return serialize_message(message)


def messages(rng):
    """Yield (dt ns, bytes): the sequence both nodes take (phases in the comments)."""
    now = START

    def at(dt, make):
        nonlocal now
        now += dt
        return dt, make(now)

    q0 = np.array([0.1, -0.5, 0.2, -2.0, 0.1, 1.7, 0.6])

    def arm_state(now, scale=0.05, **kw):
        q = q0 + scale * rng.normal(size=7)
        return state_bytes(ARM, q, rng.normal(size=7), rng.normal(size=7), now=now, **kw)
    # clean full states: the compiled stream arms on the second
    for _ in range(40):
        yield at(MS, arm_state)
    clean = arm_state(now)
    # messy values on the armed names block
    for k in range(7):
        for bad in (np.nan, np.inf, -np.inf):
            q, qd, e = q0.copy(), np.zeros(7), np.zeros(7)
            for field in (q, qd, e):
                field[k] = bad
                yield at(MS, lambda t: state_bytes(ARM, q, qd, e, now=t))
                field[k] = 0.0 if field is not q else q0[k]
    for velocity, effort in (((), ()), ([0.1] * 3, [1.0] * 9), ([0.2] * 7, ()), ((), [1] * 7)):
        yield at(MS, lambda t: state_bytes(ARM, q0, velocity, effort, now=t))
    for age in (0.5, 0.1, 0.0999, -5.0):                    # stale, at the limit, the future
        yield at(MS, lambda t: arm_state(t, age=age))
    yield at(MS, lambda t: arm_state(t, stamp=0))           # unstamped
    yield at(MS, lambda t: arm_state(t, stamp=-10**9))      # negative seconds
    for frame_id in ('base', 'x' * 13, ''):                 # the names block moves
        yield at(MS, lambda t: arm_state(t, frame_id=frame_id))
    padded = bytearray(clean)                               # the same names, other padding
    at_name = padded.find(b'panda_joint1\x00') + 13
    padded[at_name:at_name + 3] = b'xyz'
    yield at(MS, lambda t: bytes(padded))
    for length in range(len(clean)):                        # truncated anywhere
        yield at(MS, lambda t: clean[:length])
    yield at(MS, lambda t: clean + b'\x00' * 8)             # trailing bytes
    yield at(MS, lambda t: b'\x00\x00\x00\x00' + clean[4:])   # big-endian header
    yield at(MS, lambda t: b'\x00\x01\x00\x01' + clean[4:])   # options set
    for _ in range(400):                                    # corrupted bytes
        def corrupted(t):
            data = bytearray(arm_state(t))
            for _ in range(int(rng.integers(1, 4))):
                data[int(rng.integers(len(data)))] = int(rng.integers(256))
            return bytes(data)
        yield at(MS, corrupted)
    # partial states of 4 arm joints, armed after a second: fresh for state_timeout, then stale
    yield at(1200 * MS, arm_state)
    for _ in range(3):
        yield at(MS, lambda t: state_bytes(ARM[:4], q0[:4], now=t))
    for _ in range(150):
        yield at(MS, lambda t: state_bytes(ARM[:4], q0[:4] + 0.01, [0.5] * 4, now=t))
    # reordered names
    yield at(1200 * MS, arm_state)
    for _ in range(30):
        yield at(MS, lambda t: state_bytes(ARM[::-1], q0[::-1], [0.1] * 7, now=t))
    # the finger too, up to torques that overflow
    yield at(1200 * MS, arm_state)
    for finger in [0.01] * 5 + [1e299, 1e302, 1e306, 1e308, 1.7e308, 0.02]:
        yield at(MS, lambda t: state_bytes(ARM + [FINGER], np.append(q0, finger), now=t))
    # an unknown name, a name twice
    for names in (ARM + ['ghost'], ARM + [ARM[0]]):
        yield at(1200 * MS, arm_state)
        for _ in range(5):
            yield at(MS, lambda t: state_bytes(names, np.append(q0, 0.3), now=t))
    # two publishers of partial states taking turns
    yield at(1200 * MS, arm_state)
    for k in range(600):
        names = ARM[:3] if k % 2 else ARM[3:]
        yield at(5 * MS, lambda t: state_bytes(names, [0.2] * len(names), now=t))
    # back to full states after all that
    yield at(1200 * MS, arm_state)
    for _ in range(40):
        yield at(MS, arm_state)


def observed(node):
    """Return what the two paths must agree on, as comparable values."""
    state = node._feedforward.state
    ring = node._estimation._buffer
    recent = None
    if ring is not None and ring.cursor[1] > 0:
        k = (int(ring.cursor[0]) - 1) % ring.capacity
        recent = (ring.cursor.tobytes(), ring.times[k], ring.rows[k].tobytes())
    return (state.q.tobytes(), state.qd.tobytes(), state.updated.tobytes(), recent,
            node._commands.sent, node._published, node._skipped_stale,
            node._skipped_overflow, node._skipped_malformed, dict(node._window))


@pytest.fixture
def nodes():
    """Return a factory of node pairs (compiled, Python), each call replacing the last."""
    made = []

    def clean_up():
        while made:
            made.pop().destroy_node()
        rclpy.try_shutdown()

    def make(**parameters):
        clean_up()
        args = ['--ros-args', '-p', f'urdf_path:={PANDA}', '-p', f'joints:=[{", ".join(ARM)}]',
                '-p', 'state_timeout:=0.1']
        for name, value in parameters.items():
            args += ['-p', f'{name}:={value}']
        rclpy.init(args=args)
        for _ in range(2):
            node = InverseDynamicsNode()
            made.append(node)
            node._stale_policy.stop()   # no zero command from the watchdog thread
            node._time = Clock()
            node._commands = Commands()
        return list(made)
    yield make
    clean_up()


@pytest.mark.parametrize('parameters', [
    {}, {'unlisted_joints': 'require'}, {'unlisted_joints': 'ignore', 'clamp_effort': 'false'}],
    ids=['hold', 'require', 'ignore-unclamped'])
def test_compiled_stream_equals_the_python_path(nodes, parameters, monkeypatch):
    ensure_compiled(gravity_command)
    compiled, python = nodes(**parameters)
    statuses = []
    answer = gravity_stream.CompiledGravityStream.answer

    def counted(self, message, now):
        statuses.append(answer(self, message, now))
        return statuses[-1]
    monkeypatch.setattr(gravity_stream.CompiledGravityStream, 'answer', counted)
    rng = np.random.default_rng(11)
    now = START
    for index, (dt, data) in enumerate(messages(rng)):
        now += dt
        if index == 1000:   # a payload beyond the effort limits: the clamp, a new packed model
            for node in (compiled, python):
                node._models.model.set_payload('panda_link7', 60.0, (0.0, 0.05, 0.1))
        for node, switch in ((compiled, '1'), (python, '0')):
            monkeypatch.setenv('ROS_DYNAMICS_COMPILED_STREAM', switch)
            node._time.now = now
            node._on_joint_state_bytes(data)
        assert observed(compiled) == observed(python), f'message {index}: {data!r}'
    published, stale = statuses.count(PUBLISH), statuses.count(STALE)
    assert published >= 1 and stale >= 1 and published + stale > 200
    assert len(statuses) - published - stale > 200   # handed over


def test_arming_needs_the_usual_configuration(nodes):
    """Damping, friction compensation or effort_commands: never armed (the Python path)."""
    ensure_compiled(gravity_command)
    armed = []
    for parameters in ({'kd': '[1.0]'}, {'friction_compensation': 'measured'},
                       {'publish_joint_state': 'true'}, {}):
        node = nodes(**parameters)[-1]
        for k in range(3):
            node._time.now = START + k * MS
            node._on_joint_state_bytes(state_bytes(ARM, [0.1] * 7, now=node._time.now))
        armed.append(node._feedforward.compiled is not None)
        assert len(node._commands.sent) == 3
    assert armed == [False, False, False, True]
