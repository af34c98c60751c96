# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The two messages of the 1 kHz stream as bytes: JointState in, Float64MultiArray out.

A raw subscription hands the callback the serialised message, and a publisher
sends bytes as they are; both skip rclpy's conversion to and from Python
message objects, which costs more than the dynamics (about 20 us per
JointState of 7 joints on this project's machines). The layout is the OMG
XCDR1 encoding that rmw implementations use for ROS 2 messages: a 4-byte
encapsulation header (``00 01`` little endian, ``00 00`` big endian), then the
fields in order, each primitive aligned to its size counted from the end of
the header, sequences and strings as a uint32 count followed by the elements
(strings: the bytes and a NUL, the count including the NUL).

Both codecs check themselves against rclpy's own serialiser when they are
built (``layout_ok``); the nodes fall back to message objects when a check
fails, so a future encoding change costs speed, never correctness.
"""

import struct
from typing import Callable, Optional, Tuple

import numpy as np
from rclpy.serialization import deserialize_message, serialize_message
from ros_dynamics.kernels.stream import (BAD_NAME, ENDS_EARLY, joint_state_layout,
                                         NOT_LITTLE_ENDIAN, SHORT_SEQUENCE, WHOLE)
from ros_dynamics.multibody.layouts import NJOINT_STATE
from ros_dynamics.runtime.jit import ensure_compiled
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

_HEADER_LE = b'\x00\x01\x00\x00'
LITTLE_ENDIAN_CDR = _HEADER_LE[:2]   # the encapsulation identifier that JointStateView reads
_SPANS = 64   # names whose spans JointStateView reads in one call (grows when a message has more)
_PROBLEMS = {
    NOT_LITTLE_ENDIAN: 'joint_states: not a little-endian CDR JointState',
    ENDS_EARLY: 'joint_states: malformed message (it ends inside a count or a length)',
    BAD_NAME: 'joint_states: malformed name string',
    SHORT_SEQUENCE: 'joint_states: message shorter than its sequences',
}


class JointStateView:
    """
    Decode the fields a dynamics stream uses from a serialised ``sensor_msgs/JointState``.

    ``decode(data)`` returns ``(stamp_ns, names, position, velocity, effort)``:
    the header stamp in integer nanoseconds, the joint names as a tuple (the
    same tuple object as long as the names do not change, so a caller can key
    an index map on it), and position, velocity and effort as read-only
    float64 views into ``data`` of shape (len(names),) or (0,) when absent.
    Where each field lies is found by the stream's one compiled walk of the
    layout (kernels/stream.py ``walk``, through its entry point
    ``joint_state_layout``; the compiled stream walks with it too); the
    names are decoded here only when their bytes differ from the previous
    message's. Raises ValueError for bytes that are not a
    little-endian JointState.
    """

    def __init__(self) -> None:
        """Start with no cached names; compile (or load) the reader."""
        ensure_compiled(joint_state_layout)
        self._names_bytes = b''
        self._names: tuple = ()
        self._layout = np.zeros(NJOINT_STATE, np.int64)
        self._spans = np.zeros((_SPANS, 2), np.int64)

    @property
    def names_bytes(self) -> bytes:
        """Return the names block (count and strings) of the last message decoded, b'' before."""
        return self._names_bytes

    def decode(self, data: bytes) -> Tuple[int, tuple, np.ndarray, np.ndarray, np.ndarray]:
        """Return (stamp_ns, names, position (n,), velocity, effort (n,) or (0,)) of a message."""
        if type(data) is not bytes:   # the reader's argument type (a bytearray, a memoryview)
            data = bytes(data)
        layout = self._layout
        status = joint_state_layout(data, layout, self._spans)
        if status != WHOLE:
            raise ValueError(_PROBLEMS[status])
        (sec, nanosec, start, end, count, position, positions, velocity, velocities, effort,
         efforts) = layout.tolist()
        names = data[4 + start:4 + end]
        if names != self._names_bytes:   # new names, or the same with other padding bytes
            decoded = self._decode_names(data, count)
            if decoded != self._names:   # the same tuple object while the names do not change
                self._names = decoded
            self._names_bytes = names
        return (sec * 1_000_000_000 + nanosec, self._names,
                np.frombuffer(data, '<f8', positions, 4 + position),
                np.frombuffer(data, '<f8', velocities, 4 + velocity),
                np.frombuffer(data, '<f8', efforts, 4 + effort))

    def _decode_names(self, data: bytes, count: int) -> tuple:
        """Return the ``count`` names of ``data`` (UTF-8) at the spans the reader found."""
        if count > self._spans.shape[0]:   # more names than ever: a bigger array, read again
            self._spans = np.zeros((count, 2), np.int64)
            joint_state_layout(data, self._layout, self._spans)
        try:
            return tuple(data[4 + first:4 + first + length].decode('utf-8')
                         for first, length in self._spans[:count].tolist())
        except UnicodeDecodeError as error:
            raise ValueError(f'joint_states: malformed message ({error})') from None


def _float64_array_prefix(count: int) -> bytes:
    """Return the bytes of a Float64MultiArray (empty layout) before its ``count`` doubles."""
    # no dimensions, data_offset 0, the count, 4 bytes aligning the doubles to 8
    return _HEADER_LE + struct.pack('<IIII', 0, 0, count, 0)


def float64_array_serializer() -> Callable[[np.ndarray], bytes]:
    """
    Return ``serialize(values)`` -> a serialised ``std_msgs/Float64MultiArray`` (empty layout).

    values: float64 (n,). The bytes are the header, an empty ``layout.dim``,
    ``data_offset`` 0, the count, and the doubles aligned to 8.
    """
    def serialize(values: np.ndarray) -> bytes:
        return _float64_array_prefix(values.shape[0]) + \
            values.astype('<f8', copy=False).tobytes()
    return serialize


class Float64ArrayWriter:
    """
    A serialised ``std_msgs/Float64MultiArray`` of ``count`` doubles, reused for every message.

    Write the values into ``values`` (a writable float64 view of shape
    (count,) into the message's own buffer), then publish ``message()``: the
    bytes of the whole message, the same layout as ``float64_array_serializer``.
    Nothing else is allocated per message.
    """

    def __init__(self, count: int) -> None:
        """Allocate the message of ``count`` doubles, all 0."""
        prefix = _float64_array_prefix(count)
        self._buffer = bytearray(prefix + bytes(8 * count))
        self.values = np.frombuffer(self._buffer, '<f8', count, len(prefix))

    @property
    def buffer(self) -> bytearray:
        """Return the message's bytes as the writable buffer ``values`` views."""
        return self._buffer

    def message(self) -> bytes:
        """Return the serialised message holding the current ``values``."""
        return bytes(self._buffer)


def layout_ok(sample_names: tuple = ('a', 'joint_2', 'long_joint_name_3')) -> bool:
    """Return whether both codecs agree with rclpy's serialiser on sample messages."""
    n = len(sample_names)
    state = JointState(name=list(sample_names), position=[0.5 + k for k in range(n)],
                       velocity=[-1.25 * k for k in range(n)], effort=[3.0] * n)
    state.header.stamp.sec, state.header.stamp.nanosec = 1767225600, 999999999
    state.header.frame_id = 'odd'
    stamp, names, position, velocity, _ = JointStateView().decode(serialize_message(state))
    decoded = (stamp == 1767225600 * 1_000_000_000 + 999999999 and names == sample_names
               and position.tolist() == list(state.position)
               and velocity.tolist() == list(state.velocity))
    serialize = float64_array_serializer()
    samples = (np.array([1.5, -2.0, 1e-300]), np.zeros(0))
    encoded = []
    for values in samples:
        writer = Float64ArrayWriter(values.shape[0])
        writer.values[:] = values
        encoded += [serialize(values), writer.message()]
    # padding bytes may differ from rclpy's, so compare what a reader decodes
    return decoded and all(
        list(deserialize_message(data, Float64MultiArray).data) == values.tolist()
        for data, values in zip(encoded, [v for v in samples for _ in range(2)]))


def joint_state_from_bytes(data: bytes) -> Optional[JointState]:
    """Return the JointState message of ``data`` through rclpy (the fallback path)."""
    return deserialize_message(data, JointState)
