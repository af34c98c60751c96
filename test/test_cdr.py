# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""The stream's byte codecs against rclpy's own serialiser, on random and malformed messages."""

import numpy as np
import pytest
from rclpy.serialization import deserialize_message, serialize_message
from ros_dynamics.nodes import cdr
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray


def test_layout_matches_rclpy():
    assert cdr.layout_ok()


def random_state(rng, names) -> JointState:
    n = len(names)
    state = JointState(name=list(names))
    state.header.stamp.sec = int(rng.integers(0, 2**31 - 1))
    state.header.stamp.nanosec = int(rng.integers(0, 10**9))
    state.header.frame_id = 'f' * int(rng.integers(0, 9))
    state.position = rng.normal(size=n).tolist()
    if rng.random() < 0.8:
        state.velocity = rng.normal(size=n).tolist()
    if rng.random() < 0.5:
        state.effort = rng.normal(size=n).tolist()
    return state


def test_joint_state_view_decodes_what_rclpy_encodes():
    rng = np.random.default_rng(7)
    view = cdr.JointStateView()
    name_sets = [(), ('a',), ('panda_joint1', 'panda_joint2'),
                 tuple(f'j{k}' * k for k in range(9))]
    previous = None
    for _ in range(300):
        names = name_sets[int(rng.integers(len(name_sets)))]
        state = random_state(rng, names)
        stamp, decoded_names, position, velocity, effort = view.decode(serialize_message(state))
        assert stamp == state.header.stamp.sec * 10**9 + state.header.stamp.nanosec
        assert decoded_names == names
        assert position.tolist() == list(state.position)
        assert velocity.tolist() == list(state.velocity)
        assert effort.tolist() == list(state.effort)
        if previous is not None and previous[0] == names:
            assert decoded_names is previous[1]   # names parsed once while they do not change
        previous = (names, decoded_names)


def test_float64_array_serializer_round_trips():
    serialize = cdr.float64_array_serializer()
    rng = np.random.default_rng(3)
    for n in (0, 1, 7, 33):
        values = rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, size=n)
        message = deserialize_message(serialize(values), Float64MultiArray)
        assert list(message.data) == values.tolist()
        assert list(message.layout.dim) == [] and message.layout.data_offset == 0


@pytest.mark.parametrize('data', [b'', b'\x00\x01\x00\x00', b'\x00\x00\x00\x00' + bytes(40),
                                  b'\x00\x01\x00\x00' + b'\xff' * 40])
def test_malformed_bytes_raise_value_error(data):
    with pytest.raises(ValueError):
        cdr.JointStateView().decode(data)


def test_truncated_messages_raise_value_error():
    state = JointState(name=['a', 'b'], position=[1.0, 2.0], velocity=[3.0, 4.0])
    data = serialize_message(state)
    view = cdr.JointStateView()
    effort_end = data.find(np.float64(4.0).tobytes()) + 8 + 4   # the last velocity, a count 0
    assert view.decode(data[:effort_end])[3].tolist() == [3.0, 4.0]   # (the rest is padding)
    for cut in range(effort_end):
        with pytest.raises(ValueError, match='joint_states'):
            view.decode(data[:cut])
