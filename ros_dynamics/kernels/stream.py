# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The gravity-compensation stream's usual message in one compiled call, bytes in and out.

A serialised JointState in, the doubles of a serialised Float64MultiArray out.

``gravity_command`` does for one serialised ``sensor_msgs/JointState`` what
the inverse-dynamics node's Python path does (nodes/cdr.py ``JointStateView``,
nodes/joint_vectors.py ``JointStateBuffer.merge`` and ``fresh``, the payload
estimation's ring of states, g(q), the clamp to the effort limits, the
command's doubles) when the message is the usual one: little-endian XCDR1,
the names the caller armed it with (every name a model joint, none twice;
the padding bytes between them may differ), every position and velocity finite, a stamp that is
not stale. Anything else it leaves to the Python path (``GENERAL``) before it
has changed anything, or after a merge the Python path repeats to the same
values (the torque check), so the two paths give the same buffers and the
same command bytes.

The XCDR1 layout (OMG DDS-XTypes 1.3, sec. 7.4.3.5; offsets counted from the
end of the 4-byte encapsulation header): ``header.stamp`` (int32 sec, uint32
nanosec), ``header.frame_id`` (uint32 length with the NUL, bytes), ``name``
(uint32 count, then per string a uint32 length aligned to 4 and the bytes),
then ``position``, ``velocity``, ``effort``: a uint32 count aligned to 4 and,
when not empty, the doubles aligned to 8. In the received ``bytes`` the
doubles sit 4 bytes off an 8-byte boundary, so they are read byte by byte
through an aligned scratch double. The torque is Featherstone 2008, table 5.1
at zero velocity and acceleration (rnea.py ``gravity_torques``).
"""

from numba import types
import numpy as np

from ros_dynamics.kernels.rnea import gravity_torques
from ros_dynamics.runtime.jit import IN2, kernel, OUT1, OUT2, STATUS

# what gravity_command asks of the Python caller
PUBLISH = 0   # the command's doubles are written: publish the command buffer
STALE = 1     # merged, but a required joint is not fresh: count a stale state, no command
GENERAL = 2   # not the usual message: take the Python path (nothing it would not redo changed)

HEADER = 4            # bytes of the encapsulation header before the CDR body
COMMAND_DOUBLES = 20  # offset of the doubles in a Float64MultiArray of empty layout (cdr.py)
# |torque| above which the finiteness of numpy's sum over a model's torques is the
# Python path's call (below, no summation order can overflow)
TORQUE_BOUND = 1e300

MESSAGE = types.Bytes(types.uint8, 1, 'C', readonly=True)   # what a raw subscription receives
BLOCK = types.Array(types.uint8, 1, 'C', readonly=True)
INDEX = types.Array(types.int64, 1, 'C', readonly=True)
CURSOR = types.Array(types.int64, 1, 'C')
COMMAND = types.ByteArray(types.uint8, 1, 'C')              # cdr.Float64ArrayWriter's buffer


@kernel
def aligned(offset, size):
    """Return ``offset`` rounded up to a multiple of ``size`` (CDR body offsets)."""
    return (offset + size - 1) // size * size


@kernel
def uint32_of(data, at):
    """Return the little-endian uint32 at byte ``at`` of ``data``."""
    return (np.int64(data[at]) | (np.int64(data[at + 1]) << 8)
            | (np.int64(data[at + 2]) << 16) | (np.int64(data[at + 3]) << 24))


@kernel
def uint32_at(message, offset):
    """Return the little-endian uint32 at body ``offset`` of ``message``."""
    return uint32_of(message, HEADER + offset)


@kernel
def same_names(message, start, names):
    """
    Return True if the names block at body offset ``start`` holds the strings of ``names``.

    names: a names block as decoded before (its count, then each string's
    length and bytes, 4-aligned). The padding bytes between strings are not
    compared: CDR leaves them undefined, and serialisers leave what the
    buffer held (rclpy's differ from message to message). ``start`` is a
    multiple of 4, so both blocks put their padding at the same places.
    """
    size = names.shape[0]
    if size < 4 or start + size > len(message) - HEADER:
        return False
    at = HEADER + start
    for b in range(4):
        if message[at + b] != names[b]:
            return False
    offset = 4
    for _ in range(uint32_of(names, 0)):
        offset = aligned(offset, 4)
        end = offset + 4 + uint32_of(names, offset)
        for b in range(offset, end):
            if message[at + b] != names[b]:
                return False
        offset = end
    return True


@kernel
def float64_at(message, offset, scratch):
    """Return the little-endian float64 at body ``offset`` (through ``scratch``, (1,))."""
    raw = scratch.view(np.uint8)
    for b in range(8):
        raw[b] = message[HEADER + offset + b]
    return scratch[0]


@kernel
def sequence_at(message, offset):
    """
    Return (first, count, end) of the float64 sequence whose count is at ``offset``.

    first: the body offset of its first double; end: the offset after it.
    count -1 when the message ends first (the Python decoder raises there).
    """
    body = len(message) - HEADER
    offset = aligned(offset, 4)
    if offset + 4 > body:
        return offset, -1, offset
    count = uint32_at(message, offset)
    first = offset + 4
    if count:
        first = aligned(first, 8)
    end = first + 8 * count
    if end > body:
        return first, -1, end
    return first, count, end


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
    body = len(message) - HEADER
    if body < 20 or message[0] != 0 or message[1] != 1 or message[2] != 0 or message[3] != 0:
        return GENERAL
    sec = uint32_at(message, 0)
    if sec >= 2 ** 31:   # int32
        sec -= 2 ** 32
    stamp = (sec * 1_000_000_000 + uint32_at(message, 4)) * 1e-9
    seconds = now * 1e-9
    if stamp < 0.0 or (stamp > 0.0 and seconds - stamp > timeout):
        return GENERAL   # a stale stamp: the Python path counts it and keeps its offset
    start = aligned(12 + uint32_at(message, 8), 4)
    if not same_names(message, start, names):
        return GENERAL
    size = names.shape[0]
    n = index.shape[0]
    scratch = np.empty(1)
    position, count, end = sequence_at(message, start + size)
    if count != n or not all_finite(message, position, n, scratch):
        return GENERAL
    velocity, velocities, end = sequence_at(message, end)
    if velocities < 0 or (velocities == n and not all_finite(message, velocity, n, scratch)):
        return GENERAL
    effort, efforts, end = sequence_at(message, end)
    if efforts < 0:
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
