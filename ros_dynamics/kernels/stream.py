# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The 1 kHz stream's JointState bytes: their one reader, and the gravity command in one call.

``walk`` is the only code that walks a serialised ``sensor_msgs/JointState``:
it finds where the stamp, the names and the position, velocity and effort
sequences lie (multibody/layouts.py ``JOINT_STATE_LAYOUT``) and checks that
every count and string fits. Both readers of the stream's bytes go through
it: the compiled step ``gravity_command`` below (comparing the armed names
as it walks them), and the Python decoder (nodes/cdr.py ``JointStateView``,
through the entry point ``joint_state_layout``), which decodes the names in
Python only when their bytes change. rclpy's deserialiser stays the fallback
for other encodings (docs/architecture.md).

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
from ros_dynamics.multibody.layouts import NJOINT_STATE
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
OTHER_NAMES = 5        # not the names the caller expects (gravity_command's armed names)

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
NO_NAMES = np.zeros(0, np.uint8)   # walk's names when any names will do


@kernel
def aligned(offset, size):
    """Return ``offset`` rounded up to a multiple of ``size`` (CDR body offsets)."""
    return (offset + size - 1) // size * size


@kernel
def uint32_of(block):
    """Return the little-endian uint32 at the start of ``block`` (a names block's count)."""
    return (np.int64(block[0]) | (np.int64(block[1]) << 8) | (np.int64(block[2]) << 16)
            | (np.int64(block[3]) << 24))


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
def sequence_at(message, offset):
    """
    Return (first, count, end) of the float64 sequence whose count is at body ``offset``.

    first: the body offset of its first double; end: the offset after it, or
    -ENDS_EARLY when the message ends inside the count (first and count 0
    then), -SHORT_SEQUENCE when it ends inside the doubles.
    """
    body = len(message) - HEADER
    offset = aligned(offset, 4)
    if offset + 4 > body:
        return 0, 0, -ENDS_EARLY
    count = uint32_at(message, offset)
    first = offset + 4
    if count:
        first = aligned(first, 8)
    end = first + 8 * count
    return first, count, (end if end <= body else -SHORT_SEQUENCE)


@kernel
def walk(message, spans, names):
    """
    Walk the serialised JointState ``message``: return its status and where its fields lie.

    Returns (status, then JOINT_STATE_LAYOUT's fields in order: sec,
    nanosec, names, names_end, name_count, position, positions, velocity,
    velocities, effort, efforts), all int64; the fields are complete when
    status is WHOLE, 0 where the walk did not get. The rules are XCDR1's
    (module docstring); the frame_id's bytes are not read.

    names: empty, or the names block (count, then each string's length and
    bytes, 4-aligned) the message must carry, padding aside (CDR leaves the
    padding bytes undefined and rclpy's differ from message to message): the
    walk then compares each count, length and string as it reads them and
    returns OTHER_NAMES at the first difference, and ``spans`` is not
    written. Without names, spans (k, 2) receives for each of the first k
    names the body offset of its first byte and its length without the NUL,
    and a NUL inside a name is BAD_NAME (the armed block compared against
    holds none: the reader without names accepted it first).
    """
    body = len(message) - HEADER
    if body < 20 or message[0] != 0 or message[1] != 1 or message[2] != 0 or message[3] != 0:
        return (NOT_LITTLE_ENDIAN, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    sec = uint32_at(message, 0)
    if sec >= 2 ** 31:   # int32
        sec -= 2 ** 32
    nanosec = uint32_at(message, 4)
    start = aligned(12 + uint32_at(message, 8), 4)   # after the frame_id
    if start + 4 > body:
        return (ENDS_EARLY, sec, nanosec, start, 0, 0, 0, 0, 0, 0, 0, 0)
    count = uint32_at(message, start)
    status = WHOLE
    compare = names.shape[0] > 0
    if compare:   # the count's bytes
        if names.shape[0] < 4 or uint32_at(message, start) != uint32_of(names):
            status = OTHER_NAMES
    offset = start + 4
    for i in range(count if status == WHOLE else 0):
        offset = aligned(offset, 4)
        if offset + 4 > body:
            status = ENDS_EARLY
            break
        length = uint32_at(message, offset)   # with the NUL
        if length == 0 or offset + 4 + length > body or message[HEADER + offset + 3 + length]:
            status = BAD_NAME
            break
        if compare:   # the length, the string and its NUL
            if offset - start + 4 + length > names.shape[0]:
                status = OTHER_NAMES
                break
            for b in range(offset, offset + 4 + length):
                if message[HEADER + b] != names[b - start]:
                    status = OTHER_NAMES
                    break
        else:
            for b in range(HEADER + offset + 4, HEADER + offset + 3 + length):
                if message[b] == 0:   # a NUL inside: no serialiser writes one (rclpy's end there)
                    status = BAD_NAME
                    break
            if i < spans.shape[0]:
                spans[i, 0] = offset + 4
                spans[i, 1] = length - 1
        if status != WHOLE:
            break
        offset += 4 + length
    if status == WHOLE and compare and offset - start != names.shape[0]:
        status = OTHER_NAMES
    if status != WHOLE:
        return (status, sec, nanosec, start, 0, count, 0, 0, 0, 0, 0, 0)
    position, positions, end = sequence_at(message, offset)
    velocity = velocities = effort = efforts = 0
    if end >= 0:
        velocity, velocities, end = sequence_at(message, end)
    if end >= 0:
        effort, efforts, end = sequence_at(message, end)
    return (-end if end < 0 else WHOLE, sec, nanosec, start, offset, count, position, positions,
            velocity, velocities, effort, efforts)


@kernel(signatures=[STATUS(MESSAGE, CURSOR, SPANS)])
def joint_state_layout(message, layout, spans):
    """
    Find the fields of the serialised JointState ``message``; return WHOLE or what is wrong.

    The reader for Python callers (nodes/cdr.py ``JointStateView``): ``walk``
    without names. layout (NJOINT_STATE,) int64 receives the stamp and the
    body offsets and counts of the names and the three sequences
    (multibody/layouts.py ``JOINT_STATE_LAYOUT``; complete when WHOLE). spans
    (k, 2) int64 receives, for each of the first k names, the body offset of
    its first byte and its length in bytes without the NUL (k may be 0;
    names past the k-th are checked all the same).
    """
    fields = walk(message, spans, NO_NAMES)
    for k in range(NJOINT_STATE):
        layout[k] = fields[k + 1]
    return fields[0]


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
    (status, sec, nanosec, _, _, count, position, positions, velocity, velocities, effort,
     efforts) = walk(message, np.empty((0, 2), np.int64), names)
    if status != WHOLE or count != n:
        return GENERAL
    stamp = (sec * 1_000_000_000 + nanosec) * 1e-9
    seconds = now * 1e-9
    if stamp < 0.0 or (stamp > 0.0 and seconds - stamp > timeout):
        return GENERAL   # a stale stamp: the Python path counts it and keeps its offset
    scratch = np.empty(1)
    if positions != n or not all_finite(message, position, n, scratch):
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
