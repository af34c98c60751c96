# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Joint-indexed message fields to model vectors and back, without ROS types.

ROS messages carry joints by name, in any order (``sensor_msgs/JointState``,
``trajectory_msgs/JointTrajectory``); the core wants vectors in
``RobotModel.joint_names`` order. These helpers do that mapping once per
message with the checks a service must make (unknown or duplicate names,
length mismatches, NaN and Inf), raising ``ValueError`` with a message that
names the field and the joint, so a node can answer ``success: false``.
"""

import math
from typing import Optional, Sequence

import numpy as np


class JointVectorMap:
    """Map between named joint values and vectors ordered like ``joint_names``."""

    def __init__(self, joint_names: Sequence[str]) -> None:
        """Index the model's joints by name."""
        self.joint_names = tuple(joint_names)
        self.joint_name_list = list(self.joint_names)   # for messages' string[] fields
        self.index = {name: k for k, name in enumerate(self.joint_names)}
        self._last_order: tuple = ((), [])   # the last name order checked, and its indices

    def indices(self, names: Sequence[str], field: str, ignore_unknown: bool = False) -> list:
        """Return the coordinate index of each name (None for ignored unknown names)."""
        seen = set()
        out = []
        for name in names:
            if name in seen:
                raise ValueError(f'{field}: joint {name!r} appears twice')
            seen.add(name)
            k = self.index.get(name)
            if k is None and not ignore_unknown:
                raise ValueError(f'{field}: unknown joint {name!r} (model joints: '
                                 f'{", ".join(self.joint_names)})')
            out.append(k)
        return out

    def vector(self, names: Sequence[str], values: Sequence[float], field: str,
               default: Optional[float] = None, indices: Optional[list] = None) -> np.ndarray:
        """
        Return values ordered like ``joint_names``.

        ``values`` empty and ``default`` given: every joint takes the default.
        Otherwise ``values`` must match ``names`` in length and every model
        joint must be named, unless ``default`` fills the missing ones.
        """
        if len(values) == 0 and default is not None:
            return np.full(len(self.joint_names), float(default))
        if len(values) != len(names):
            raise ValueError(f'{field}: {len(values)} values for {len(names)} joint names')
        array = np.array(values, dtype=float)
        if not math.isfinite(array.sum()):   # one reduction; the per-joint search if needed
            finite = np.isfinite(array)
            if not finite.all():
                k = int(np.argmin(finite))
                raise ValueError(f'{field}: joint {names[k]!r} is {array[k]} (must be finite)')
        order = tuple(names)
        if order == self.joint_names:   # the usual case: already in model order
            return array
        if indices is None:
            if order == self._last_order[0]:   # a stream or client repeating its name list
                indices = self._last_order[1]
            else:
                indices = self.indices(names, field)
                self._last_order = (order, indices)
        out = np.full(len(self.joint_names), np.nan if default is None else float(default))
        known = [(k, i) for i, k in enumerate(indices) if k is not None]
        if known:
            targets, sources = zip(*known)
            out[list(targets)] = array[list(sources)]
        missing = [n for n, v in zip(self.joint_names, out) if np.isnan(v)]
        if missing:
            raise ValueError(f'{field}: missing joints {", ".join(map(repr, missing))}')
        return out

    def merge(self, target: np.ndarray, names: Sequence[str], values: Sequence[float]) -> int:
        """
        Write the known, finite named values into ``target``; return how many were used.

        For partial streams (``/joint_states`` from several publishers):
        joints not in the model are ignored, NaN/Inf values are skipped.
        """
        used = 0
        for name, value in zip(names, values):
            k = self.index.get(name)
            if k is not None and math.isfinite(value):
                target[k] = value
                used += 1
        return used


class JointStateBuffer:
    """
    The latest position and velocity of every model joint, merged from partial messages.

    ``fresh(now, timeout)`` is True once every joint was updated within
    ``timeout`` s of ``now``: a controller must not act on old data.
    """

    def __init__(self, vectors: JointVectorMap, required: Optional[Sequence[bool]] = None,
                 ignored: Sequence[str] = (), initial: Optional[np.ndarray] = None) -> None:
        """
        Start with no joint received.

        ``required`` (one flag per model joint, default all): the joints
        ``fresh`` waits for; the others keep their latest value, or ``initial``
        (default NaN) until they are received. ``ignored`` joints are never
        taken from messages: they stay at ``initial``.
        """
        self.vectors = vectors
        dof = len(vectors.joint_names)
        self.q = np.full(dof, np.nan) if initial is None else np.array(initial, dtype=float)
        self.qd = np.zeros(dof)
        self.updated = np.full(dof, -math.inf)
        self.required = np.ones(dof, bool) if required is None else np.array(required, bool)
        self._ignored = set(ignored)
        self._message_index: dict = {}

    def merge(self, names: Sequence[str], positions: Sequence[float],
              velocities: Sequence[float], now: float) -> bool:
        """
        Merge one message's joints; unknown joints and non-finite values are ignored.

        Return True when the message alone made the state fresh (it holds
        every required joint, all of them finite): ``fresh`` need not be asked.
        """
        key = tuple(names)   # the same object when names is a tuple already
        order = self._message_index.get(key)
        if order is None:
            order = self._order(key)
        index, known, covers = order
        has_velocity = len(velocities) == len(names)
        if known is not None and len(positions) == len(names) \
                and math.isfinite(np.add.reduce(positions)) \
                and (not has_velocity or math.isfinite(np.add.reduce(velocities))):
            # every name a model joint, every value finite (a finite sum): one fancy write each
            self.q[known] = positions
            self.updated[known] = now
            if has_velocity:
                self.qd[known] = velocities
            return covers
        for k, (j, position) in enumerate(zip(index, positions)):
            if j is None or not math.isfinite(position):
                continue
            self.q[j] = position
            self.updated[j] = now
            if has_velocity and math.isfinite(velocities[k]):
                self.qd[j] = velocities[k]
        return False

    def order(self, names: Sequence[str]) -> tuple:
        """Return the index, known and covers of a message's names: ``_order``, kept."""
        key = tuple(names)
        order = self._message_index.get(key)
        return self._order(key) if order is None else order

    def _order(self, key: tuple) -> tuple:
        """
        Return (index, known, covers) for a message's name order, and keep it.

        index: the model index of each name (None for unknown or ignored
        ones); known: the same as an index array when every name is known and
        used once, else None; covers: whether the names include every required
        joint (a finite message then makes the state fresh by itself).
        """
        index = [None if n in self._ignored else self.vectors.index.get(n) for n in key]
        used = [j for j in index if j is not None]
        known = (np.array(index, dtype=np.intp)
                 if len(used) == len(index) and len(set(used)) == len(used) else None)
        covers = bool(self.required[sorted(set(used))].sum() == self.required.sum())
        if len(self._message_index) >= 64:   # garbage names must not grow it without bound
            self._message_index.clear()
        order = self._message_index[key] = (index, known, covers)
        return order

    def fresh(self, now: float, timeout: float) -> bool:
        """Return True if every required joint was updated within ``timeout`` s of ``now``."""
        # the oldest update of a required joint (inf when none is required: always fresh)
        return bool(now - np.minimum.reduce(self.updated[self.required], initial=math.inf)
                    <= timeout)

    def missing(self) -> list:
        """Return the required joints never received."""
        return [name for name, required, updated in zip(self.vectors.joint_names,
                                                        self.required, self.updated)
                if required and updated == -math.inf]
