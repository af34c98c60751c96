# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The inverse-dynamics node's compiled stream: the stream kernel bound to the node's buffers.

The node arms a ``CompiledGravityStream`` once the same names have come
twice through its Python path in a row (so that two publishers of partial
states taking turns never re-arm it for every message), in
``gravity_compensation`` mode without damping, friction or
``publish_joint_state``; a new configuration (any parameter, a new model)
drops it. ``answer(message, now)`` then serves each message in one compiled
call and says what is left to do in Python (``PUBLISH``, ``STALE``,
``GENERAL``). ``ROS_DYNAMICS_COMPILED_STREAM=0`` turns it off (the Python
path for every message: what benchmarks compare against).
"""

import os
import sys
import threading

import numpy as np
from ros_dynamics.kernels.stream import GENERAL, gravity_command, PUBLISH, STALE
from ros_dynamics.nodes import cdr
from ros_dynamics.runtime.jit import ensure_compiled

__all__ = ['CompiledGravityStream', 'enabled', 'GENERAL', 'prepare', 'PUBLISH', 'ready',
           'STALE']


def enabled() -> bool:
    """Return whether the compiled stream may be used (little-endian host, not switched off)."""
    return (sys.byteorder == 'little'
            and os.environ.get('ROS_DYNAMICS_COMPILED_STREAM', '1') != '0')


def ready() -> bool:
    """Return whether ``gravity_command`` is compiled (or loaded from the cache)."""
    return gravity_command.entry_ready


def prepare() -> None:
    """Compile (or load) ``gravity_command`` in a background thread, so no message waits."""
    if enabled() and not ready():
        threading.Thread(target=ensure_compiled, args=(gravity_command,), daemon=True,
                         name='compile_stream').start()


class CompiledGravityStream:
    """
    ``gravity_command`` bound to a Feedforward's state, one names block and the states' ring.

    feedforward: the node's Feedforward (its model, JointStateBuffer, output
    order and effort bounds); names: the joint names it serves, and
    names_block their names block as a message carried them
    (cdr.JointStateView.names_bytes; the kernel compares all but the
    padding bytes); order: the buffer's
    (index, known, covers) for those names, every one a model joint, none
    twice (``known`` not None); timeout: state_timeout (s); clamp: clamp to
    the effort limits; samples: the payload estimation's JointSampleBuffer
    (payload_estimation.py) of the model's joints. ``message()`` is the
    command a PUBLISH wrote, in a buffer of its own (the watchdog's zero
    command never shares it).
    """

    def __init__(self, feedforward, names: tuple, names_block: bytes, order: tuple,
                 timeout: float, clamp: bool, samples) -> None:
        """Bind the kernel's arguments; ValueError if ``order`` is not every name known."""
        index, known, covers = order
        if known is None or not names_block:
            raise ValueError('compiled stream: every name must be a model joint, none twice')
        state, dof = feedforward.state, feedforward.model.dof
        self.names = tuple(names)
        self._robot = feedforward.model
        self._names = np.frombuffer(bytes(names_block), np.uint8)
        self._index = np.asarray(known, dtype=np.int64)
        self._covers = int(bool(covers))
        self._required = np.flatnonzero(state.required).astype(np.int64)
        self._q, self._qd, self._updated = state.q, state.qd, state.updated
        if clamp:
            self._bounds = np.array(feedforward.effort_bounds, dtype=float).reshape(2, dof)
        else:
            self._bounds = np.array([[-np.inf] * dof, [np.inf] * dof])
        self._output = np.asarray(feedforward.output_index, dtype=np.int64)
        self._timeout = float(timeout)
        self._samples = samples
        self.writer = cdr.Float64ArrayWriter(len(feedforward.joints))
        self._command = self.writer.buffer

    def answer(self, message: bytes, now: int) -> int:
        """Serve one serialised JointState at node-clock ``now`` (int ns); return the status."""
        samples = self._samples
        with samples.lock:   # against the estimation service reading the ring
            return gravity_command(self._robot.packed, message, now, self._timeout,
                                   self._names, self._index, self._covers, self._required,
                                   self._q, self._qd, self._updated, self._bounds,
                                   self._output, samples.times, samples.rows, samples.cursor,
                                   self._command)

    def message(self) -> bytes:
        """Return the serialised command the last PUBLISH wrote."""
        return bytes(self._command)
