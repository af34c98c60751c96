# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The one walk of the stream's JointState bytes (kernels/stream.py ``walk``), fuzzed.

Both callers take the same truncated and corrupted messages: the bytes reader
(nodes/cdr.py ``JointStateView.decode``) and the compiled step
(``gravity_command`` through nodes/gravity_stream.py ``CompiledGravityStream``,
armed on the Panda's seven names). The oracle is rclpy's own deserialiser:

* what ``decode`` accepts, rclpy decodes to the same stamp, names and doubles;
  what it refuses raises ValueError naming ``joint_states``;
* a message ``decode`` refuses leaves the compiled step's buffers (state, ring,
  command) untouched with ``GENERAL``; a message it answers (``PUBLISH``) is
  one ``decode`` accepts, with the armed names, its positions merged, and the
  command g(q) clamped to the effort limits (RobotModel.gravity_torques).

Seeded numpy generators, as test/fuzzing.py (every case reproducible by its
seed); ``test_fuzz_truncations_and_counts`` (the ``fuzz`` marker) runs 2000
cases times ROS_DYNAMICS_FUZZ_SCALE (``make fuzz``: 20).
"""

import os
import struct

import fuzzing
import numpy as np
import pytest
from rclpy.serialization import deserialize_message, serialize_message
from ros_dynamics import RobotModel
from ros_dynamics.kernels.stream import gravity_command
from ros_dynamics.nodes import cdr
from ros_dynamics.nodes.feedforward import Feedforward
from ros_dynamics.nodes.gravity_stream import CompiledGravityStream, GENERAL, PUBLISH
from ros_dynamics.nodes.payload_estimation import JointSampleBuffer
from ros_dynamics.runtime.jit import ensure_compiled
from sensor_msgs.msg import JointState

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PANDA = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
ARM = tuple(f'panda_joint{k}' for k in range(1, 8))
START = 1_767_225_600 * 10**9   # node clock at the first message (ns)
TIMEOUT = 5.0   # state_timeout (s)
_U32 = struct.Struct('<I')


class Stream:
    """The two callers of the reader, armed on the Panda's seven names."""

    def __init__(self) -> None:
        ensure_compiled(gravity_command)
        self.model = RobotModel.from_urdf_file(PANDA)
        self.feedforward = Feedforward(self.model, [], [0.0], [0.0])
        self.view = cdr.JointStateView()
        self.view.decode(state_bytes(np.random.default_rng(0), ARM, START))
        self.samples = JointSampleBuffer(self.model.joint_names, 16)
        self.compiled = CompiledGravityStream(
            self.feedforward, ARM, self.view.names_bytes, self.feedforward.state.order(ARM),
            TIMEOUT, True, self.samples)

    def buffers(self) -> list:
        """Return copies of everything the compiled step may write."""
        state = self.feedforward.state
        return [a.copy() for a in (state.q, state.qd, state.updated, self.samples.times,
                                   self.samples.rows, self.samples.cursor)] + \
            [self.compiled.message()]


def state_bytes(rng, names, now: int, frame_id: int = 0) -> bytes:
    """Return a serialised JointState of ``names`` stamped 0.2 ms before ``now`` (ns)."""
    n = len(names)
    message = JointState(name=list(names), position=rng.normal(size=n).tolist())
    if rng.random() < 0.8:
        message.velocity = rng.normal(size=n).tolist()
    if rng.random() < 0.5:
        message.effort = rng.normal(size=n).tolist()
    message.header.stamp.sec, message.header.stamp.nanosec = divmod(now - 200_000, 10**9)
    message.header.frame_id = 'f' * frame_id
    return serialize_message(message)


def mutated(rng, data: bytes) -> bytes:
    """Return ``data`` truncated, with a count or length corrupted, both, or as it is."""
    kind = rng.integers(4)
    data = bytearray(data)
    if kind in (1, 3):   # a 4-aligned word of the body: most often a count or a length
        words = range(4, len(data) - 3, 4)
        small = [at for at in words if _U32.unpack_from(data, at)[0] < 64]
        at = int(rng.choice(small if small and rng.random() < 0.7 else list(words)))
        old = _U32.unpack_from(data, at)[0]
        value = rng.choice([0, 1, 2, 7, 8, 13, 2**31, 2**32 - 1, old + 1, max(old - 1, 0),
                            int(rng.integers(2**32))])
        _U32.pack_into(data, at, int(value) % 2**32)
    if kind in (2, 3):
        del data[int(rng.integers(len(data))):]
    return bytes(data)


def check_case(stream: Stream, rng, now: int) -> str:
    """Run one fuzzed message through both callers; return 'refused', 'general' or 'published'."""
    names = ARM if rng.random() < 0.8 else tuple(rng.permutation(ARM)[:int(rng.integers(8))])
    data = mutated(rng, state_bytes(rng, names, now, int(rng.integers(10))))
    try:
        stamp, decoded, position, velocity, effort = stream.view.decode(data)
    except ValueError as error:
        assert str(error).startswith('joint_states: '), error
        decoded = None
    if decoded is not None:   # rclpy reads the same message
        message = deserialize_message(data, JointState)
        assert stamp == message.header.stamp.sec * 10**9 + message.header.stamp.nanosec
        assert decoded == tuple(message.name)
        for ours, theirs in ((position, message.position), (velocity, message.velocity),
                             (effort, message.effort)):
            np.testing.assert_array_equal(ours, np.asarray(theirs, dtype=float))
    before = stream.buffers()
    status = stream.compiled.answer(data, now)
    if decoded is None:
        assert status == GENERAL
        for old, new in zip(before, stream.buffers()):
            np.testing.assert_array_equal(np.frombuffer(new, np.uint8) if isinstance(new, bytes)
                                          else new, np.frombuffer(old, np.uint8)
                                          if isinstance(old, bytes) else old)
        return 'refused'
    if status != PUBLISH:
        assert status == GENERAL   # the Seven are required: never STALE when they all came
        return 'general'
    assert decoded == ARM
    q = stream.feedforward.state.q
    np.testing.assert_array_equal(q, position)   # ARM is the model's order
    tau = np.clip(stream.model.gravity_torques(q), -stream.model.effort_limit,
                  stream.model.effort_limit)
    command = np.frombuffer(stream.compiled.message(), '<f8', 7, 20)
    np.testing.assert_array_equal(command, tau)
    return 'published'


def run_cases(cases: int, seed: int) -> dict:
    """Run ``cases`` fuzzed messages from ``seed``; return the count of each outcome."""
    stream = Stream()
    counts = {'refused': 0, 'general': 0, 'published': 0}
    for k in range(cases):
        rng = np.random.default_rng([seed, k])
        try:
            counts[check_case(stream, rng, START + k * 1_000_000)] += 1
        except AssertionError as error:
            raise AssertionError(f'case [{seed}, {k}]: {error}') from None
    return counts


def test_truncations_and_counts_through_both_callers():
    counts = run_cases(600, 1)
    # every outcome reached (the fuzzing is not vacuous)
    assert min(counts.values()) >= 30, counts


@pytest.mark.fuzz
def test_fuzz_truncations_and_counts():
    counts = run_cases(int(2000 * fuzzing.SCALE), 2)
    print(fuzzing.summarize('JointState bytes through both readers',
                            [{'outcome': k} for k, n in counts.items() for _ in range(n)]))
    assert min(counts.values()) >= 100, counts


def test_each_problem_has_its_message():
    view = cdr.JointStateView()
    data = bytearray(serialize_message(JointState(name=['a', 'bc'], position=[1.0, 2.0])))
    # names at body offset 16 (frame_id ''): count, 'a' (length 2), 'bc' (length 3)
    assert _U32.unpack_from(data, 4 + 16)[0] == 2 and data[4 + 24:4 + 26] == b'a\0'
    assert data[4 + 32:4 + 35] == b'bc\0'
    cases = [(b'\x00\x00\x00\x00' + bytes(data[4:]), 'not a little-endian'),
             (bytes(data[:4 + 22]), 'ends inside a count or a length'),
             (bytes(data[:4 + 20]) + _U32.pack(0) + bytes(data[4 + 24:]), 'name string'),
             (bytes(data[:4 + 25]) + b'x' + bytes(data[4 + 26:]), 'name string'),
             (bytes(data[:4 + 33]) + b'\0' + bytes(data[4 + 34:]), 'name string'),   # b NUL
             (bytes(data[:4 + 50]), 'shorter than its sequences')]   # in the positions
    for message, problem in cases:
        with pytest.raises(ValueError, match=problem):
            view.decode(message)
    stamp, names, position, _, _ = view.decode(bytearray(data))   # not bytes: copied
    assert names == ('a', 'bc') and position.tolist() == [1.0, 2.0]
