# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The 1 kHz stream's JointState bytes: their one reader, and the gravity command in one call.

``joint_state_layout`` is the only code that walks a serialised
``sensor_msgs/JointState``: it finds where the stamp, the names and the
position, velocity and effort sequences lie (multibody/layouts.py
``JOINT_STATE_LAYOUT``) and checks that every count and string fits. Both
readers of the stream's bytes call it: the compiled step ``gravity_command``
below, and the Python decoder (nodes/cdr.py ``JointStateView``), which
decodes the names in Python only when their bytes change. rclpy's
deserialiser stays the fallback for other encodings (docs/architecture.md).

The XCDR1 layout (OMG DDS-XTypes 1.3, sec. 7.4.3.5; offsets counted from the
end of the 4-byte encapsulation header ``00 01 00 00``, little endian):
``header.stamp`` (int32 sec, uint32 nanosec), ``header.frame_id`` (uint32
length with the NUL, bytes), ``name`` (uint32 count, then per string a
uint32 length aligned to 4, counting the terminating NUL, and the bytes),
then ``position``, ``velocity``, ``effort``: a uint32 count aligned to 4 and,
when not empty, the doubles aligned to 8. In the received ``bytes`` the
doubles sit 4 bytes off an 8-byte boundary, so they are read byte by byte
through an aligned scratch double.

``gravity_command`` does for one serialised JointState what the
inverse-dynamics node's Python path does (nodes/cdr.py ``JointStateView``,
nodes/joint_vectors.py ``JointStateBuffer.merge`` and ``fresh``, the payload
estimation's ring of states, g(q), the clamp to the effort limits, the
command's doubles) when the message is the usual one: little-endian XCDR1,
the names the caller armed it with (every name a model joint, none twice;
the padding bytes between them may differ), every position and velocity finite, a stamp that is
not stale. Anything else it leaves to the Python path (``GENERAL``) before it
has changed anything, or after a merge the Python path repeats to the same
values (the torque check), so the two paths give the same buffers and the
same command bytes. The torque is Featherstone 2008, table 5.1 at zero
velocity and acceleration (rnea.py ``gravity_torques``).
"""

from numba import types
import numpy as np

from ros_dynamics.kernels.rnea import gravity_torques
from ros_dynamics.multibody.layouts import (JS_EFFORT, JS_EFFORTS, JS_NAME_COUNT, JS_NAMES,
                                            JS_NAMES_END, JS_NANOSEC, JS_POSITION,
                                            JS_POSITIONS, JS_SEC, JS_VELOCITIES, JS_VELOCITY,
                                            NJOINT_STATE)
from ros_dynamics.runtime.jit import IN2, kernel, OUT1, OUT2, STATUS

# what gravity_command asks of the Python caller
PUBLISH = 0   # the command's doubles are written: publish the command buffer
STALE = 1     # merged, but a required joint is not fresh: count a stale state, no command
GENERAL = 2   # not the usual message: take the Python path (nothing it would not redo changed)

# what joint_state_layout finds (nodes/cdr.py turns each into its ValueError)
WHOLE = 0              # every field fits: the layout is filled
NOT_LITTLE_ENDIAN = 1  # shorter than a stamp and three counts, or another encapsulation header
ENDS_EARLY = 2         # the message ends inside a count or a string's length
BAD_NAME = 3           # a name of length 0, past the end, not NUL-terminated or with a NUL inside
SHORT_SEQUENCE = 4     # the doubles a count announces run past the end

HEADER = 4            # bytes of the encapsulation header before the CDR body
COMMAND_DOUBLES = 20  # offset of the doubles in a Float64MultiArray of empty layout (cdr.py)
# |torque| above which the finiteness of numpy's sum over a model's torques is the
# Python path's call (below, no summation order can overflow)
TORQUE_BOUND = 1e300

MESSAGE = types.Bytes(types.uint8, 1, 'C', readonly=True)   # what a raw subscription receives
BLOCK = types.Array(types.uint8, 1, 'C', readonly=True)
INDEX = types.Array(types.int64, 1, 'C', readonly=True)
CURSOR = types.Array(types.int64, 1, 'C')
SPANS = types.Array(types.int64, 2, 'C')
COMMAND = types.ByteArray(types.uint8, 1, 'C')              # cdr.Float64ArrayWriter's buffer


@kernel
def aligned(offset, size):
    """Return ``offset`` rounded up to a multiple of ``size`` (CDR body offsets)."""
    return (offset + size - 1) // size * size


@kernel
def uint32_at(message, offset):
    """Return the little-endian uint32 at body ``offset`` of ``message``."""
    at = HEADER + offset
    return (np.int64(message[at]) | (np.int64(message[at + 1]) << 8)
            | (np.int64(message[at + 2]) << 16) | (np.int64(message[at + 3]) << 24))


@kernel
def float64_at(message, offset, scratch):
    """Return the little-endian float64 at body ``offset`` (through ``scratch``, (1,))."""
    raw = scratch.view(np.uint8)
    for b in range(8):
        raw[b] = message[HEADER + offset + b]
    return scratch[0]


@kernel
def sequence_at(message, offset, layout, first):
    """
    Read the float64 sequence whose count is at ``offset``; return the offset after it.

    Writes the body offset of its first double to ``layout[first]`` and its
    count to ``layout[first + 1]``. Returns -ENDS_EARLY when the message
    ends inside the count, -SHORT_SEQUENCE when it ends inside the doubles.
    """
    offset = aligned(offset, 4)
    if offset + 4 > len(message) - HEADER:
        return -ENDS_EARLY
    count = uint32_at(message, offset)
    offset += 4
    if count:
        offset = aligned(offset, 8)
    layout[first] = offset
    layout[first + 1] = count
    end = offset + 8 * count
    return end if end <= len(message) - HEADER else -SHORT_SEQUENCE


@kernel(signatures=[STATUS(MESSAGE, CURSOR, SPANS)])
def joint_state_layout(message, layout, spans):
    """
    Find the fields of the serialised JointState ``message``; return WHOLE or what is wrong.

    layout (NJOINT_STATE,) int64: receives the stamp and the body offsets and
    counts of the names and the three sequences (multibody/layouts.py
    ``JOINT_STATE_LAYOUT``; filled as far as the walk got, complete when WHOLE).
    spans (k, 2) int64: receives, for each of the first k names, the body
    offset of its first byte and its length in bytes without the NUL (k may
    be 0; names past the k-th are checked all the same). The rules are XCDR1's
    (module docstring); the frame_id's bytes are not read.
    """
    body = len(message) - HEADER
    if body < 20 or message[0] != 0 or message[1] != 1 or message[2] != 0 or message[3] != 0:
        return NOT_LITTLE_ENDIAN
    sec = uint32_at(message, 0)
    layout[JS_SEC] = sec - 2 ** 32 if sec >= 2 ** 31 else sec   # int32
    layout[JS_NANOSEC] = uint32_at(message, 4)
    start = aligned(12 + uint32_at(message, 8), 4)   # after the frame_id
    layout[JS_NAMES] = start
    if start + 4 > body:
        return ENDS_EARLY
    count = uint32_at(message, start)
    layout[JS_NAME_COUNT] = count
    offset = start + 4
    for i in range(count):
        offset = aligned(offset, 4)
        if offset + 4 > body:
            return ENDS_EARLY
        length = uint32_at(message, offset)   # with the NUL
        if length == 0 or offset + 4 + length > body or message[HEADER + offset + 3 + length]:
            return BAD_NAME
        for b in range(HEADER + offset + 4, HEADER + offset + 3 + length):
            if message[b] == 0:   # a NUL inside: no serialiser writes one (rclpy's end there)
                return BAD_NAME
        if i < spans.shape[0]:
            spans[i, 0] = offset + 4
            spans[i, 1] = length - 1
        offset += 4 + length
    layout[JS_NAMES_END] = offset
    for k in range(3):   # position, velocity, effort: each an offset and a count
        offset = sequence_at(message, offset, layout, JS_POSITION + 2 * k)
        if offset < 0:
            return -offset
    return WHOLE


@kernel
def same_names(message, layout, spans, names):
    """
    Return True if the message's names (``layout``, ``spans``) are those of ``names``.

    names: a names block as a message carried them (its count, then each
    string's length and bytes, 4-aligned), starting like the message's at
    a multiple of 4, so both put their padding at the same places. The
    padding bytes between strings are not compared: CDR leaves them
    undefined, and serialisers leave what the buffer held (rclpy's differ
    from message to message).
    """
    start = layout[JS_NAMES]
    if layout[JS_NAMES_END] - start != names.shape[0]:
        return False
    at = HEADER + start
    for b in range(4):   # the count
        if message[at + b] != names[b]:
            return False
    for i in range(layout[JS_NAME_COUNT]):   # each length, string and NUL, in order
        for b in range(spans[i, 0] - 4, spans[i, 0] + spans[i, 1] + 1):
            if message[HEADER + b] != names[b - start]:
                return False
    return True


@kernel
def all_finite(message, first, count, scratch):
    """Return True if the ``count`` doubles from body offset ``first`` are all finite."""
    for i in range(count):
        if not np.isfinite(float64_at(message, first + 8 * i, scratch)):
            return False
    return True


@kernel(signatures=[STATUS(IN2, MESSAGE, types.int64, types.float64, BLOCK, INDEX, types.int64,
                           INDEX, OUT1, OUT1, OUT1, IN2, INDEX, OUT1, OUT2, CURSOR, COMMAND)])
def gravity_command(model, message, now, timeout, names, index, covers, required, q, qd,
                    updated, bounds, output, ring_t, ring_rows, ring_cursor, command):
    """
    Answer one serialised JointState with a gravity-compensation command; return the status.

    model: the packed model; message: the serialised JointState; now: the
    node clock (int ns); timeout: state_timeout (s). names: the armed names
    block (its count and strings, as a message carried them); index (n,):
    the model coordinate of each of its n names; covers: 1 if they include
    every required joint; required: the coordinates ``fresh`` waits for.
    q (rad or m), qd (rad/s or m/s), updated (node-clock s), (dof,): the
    stream's merged state, updated in place. bounds (2, dof): the lowest and
    highest effort (N m or N; -inf, inf without the clamp); output: the model
    coordinate of each command entry. ring_t (N,), ring_rows (N, 3 dof),
    ring_cursor [next, count, capacity]: the payload estimation's states (t,
    q, qd, efforts in model order, NaN for joints the message lacks), one
    appended per fresh state unless the capacity is 0. command: the
    Float64MultiArray bytes whose doubles receive tau = clamp(g(q))[output].

    Return PUBLISH, STALE or GENERAL (module docstring).
    """
    n = index.shape[0]
    layout = np.empty(NJOINT_STATE, np.int64)
    spans = np.empty((n, 2), np.int64)
    if joint_state_layout(message, layout, spans) != WHOLE:
        return GENERAL
    stamp = (layout[JS_SEC] * 1_000_000_000 + layout[JS_NANOSEC]) * 1e-9
    seconds = now * 1e-9
    if stamp < 0.0 or (stamp > 0.0 and seconds - stamp > timeout):
        return GENERAL   # a stale stamp: the Python path counts it and keeps its offset
    if layout[JS_NAME_COUNT] != n or not same_names(message, layout, spans, names):
        return GENERAL
    scratch = np.empty(1)
    position, velocity, effort = layout[JS_POSITION], layout[JS_VELOCITY], layout[JS_EFFORT]
    velocities, efforts = layout[JS_VELOCITIES], layout[JS_EFFORTS]
    if layout[JS_POSITIONS] != n or not all_finite(message, position, n, scratch):
        return GENERAL
    if velocities == n and not all_finite(message, velocity, n, scratch):
        return GENERAL
    # JointStateBuffer.merge: every name known, every value finite
    for i in range(n):
        j = index[i]
        q[j] = float64_at(message, position + 8 * i, scratch)
        updated[j] = seconds
        if velocities == n:
            qd[j] = float64_at(message, velocity + 8 * i, scratch)
    if not covers:   # JointStateBuffer.fresh
        oldest = np.inf
        for j in required:
            oldest = min(oldest, updated[j])
        if not seconds - oldest <= timeout:
            return STALE
    dof = q.shape[0]
    tau = np.empty(dof)
    if gravity_torques(model, q, tau) != 0:
        return GENERAL
    for k in range(dof):
        if not abs(tau[k]) <= TORQUE_BOUND:
            return GENERAL   # the Python path's overflow check decides (the merge repeats as is)
    capacity = ring_cursor[2]
    if capacity > 0:   # PayloadEstimation.add
        k = ring_cursor[0]
        row = ring_rows[k]
        row[:dof] = q
        row[dof:2 * dof] = qd
        row[2 * dof:] = np.nan
        if efforts == n:
            for i in range(n):
                row[2 * dof + index[i]] = float64_at(message, effort + 8 * i, scratch)
        ring_t[k] = seconds
        ring_cursor[0] = (k + 1) % capacity
        ring_cursor[1] = min(ring_cursor[1] + 1, capacity)
    raw = scratch.view(np.uint8)
    for i in range(output.shape[0]):
        j = output[i]
        value = tau[j] if tau[j] < bounds[1, j] else bounds[1, j]   # np.minimum, np.maximum
        scratch[0] = value if value > bounds[0, j] else bounds[0, j]
        for b in range(8):
            command[COMMAND_DOUBLES + 8 * i + b] = raw[b]
    return PUBLISH
