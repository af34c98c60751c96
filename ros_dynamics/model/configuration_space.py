# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
RobotModel's configuration space: the layout of q and v, moves on the manifold, checks.

``ConfigurationSpace`` is a mixin of ``RobotModel`` (model.py), which
provides the attributes set in its ``__init__`` (``_nq``, ``_nv``,
``_ints``, ``_reals``, ``_arrays``, ``_coordinate_body``, ``_neutral``,
``_rotations``, ``_model``). Its public half is Pinocchio's configuration
space API (``integrate``, ``difference``, ``interpolate``, ``neutral``,
``idx_q``/``idx_v`` as ``q_slice``/``v_slice``) and the floating base's
converters (floating_base.py); its private half validates states for the
algorithms (``_state``, ``_states``, ``_single``: q has nq entries, every
other state nv; a quaternion or planar (cos, sin) of length near zero is
refused).
"""

from typing import Callable, Optional, Sequence

import numpy as np

from ros_dynamics.kernels import manifold
from ros_dynamics.model import configuration, floating_base
from ros_dynamics.multibody.layouts import (JOINT_NQ, JOINT_NV, MIMIC_GAIN, MIMIC_OFFSET, QINDEX,
                                            VINDEX)
from ros_dynamics.runtime.batches import as_array, did_you_mean
from ros_dynamics.runtime.jit import ensure_compiled


class ConfigurationSpace:
    """The configuration-space methods of RobotModel and the validation of its states."""

    def joint_index(self, name: str) -> int:
        """Return the coordinate index of an independent joint."""
        try:
            return self.joint_names.index(name)
        except ValueError:
            raise ValueError(f'joint {name!r} is not an independent joint of this robot'
                             f'{did_you_mean(name, self.joint_names)} '
                             f'(joints: {", ".join(self.joint_names)})') from None

    def integrate(self, q, v) -> np.ndarray:
        """
        Return q (+) v: the configuration reached from q by the velocity v in unit time.

        q (nq,) or (N, nq), v (nv,) or (N, nv); on the manifold for floating,
        planar and ball joints (Pinocchio's ``integrate``), quaternions and
        planar (cos, sin) normalised: the simulator's compiled law
        (manifold.integrate_batch).
        """
        q, v = self._states(('q', 'qd'), q, v)
        single = q.ndim == 1
        q2 = np.ascontiguousarray(np.atleast_2d(q), dtype=float)
        v2 = np.ascontiguousarray(np.atleast_2d(v), dtype=float)
        out = np.empty(q2.shape)
        ensure_compiled(manifold.integrate_batch)
        if manifold.integrate_batch(self._model, q2, v2, out):
            for name, array in (('q', q2), ('v', v2)):
                if not np.all(np.isfinite(array)):
                    raise ValueError(f'{name}: contains NaN or Inf')
            raise ValueError('q: a zero quaternion or planar (cos, sin): not a configuration')
        return out[0] if single else out

    def difference(self, q0, q1) -> np.ndarray:
        """Return v (nv,) or (N, nv) with integrate(q0, v) = q1 (Pinocchio's ``difference``)."""
        q0, q1 = self._state(q0, 'q'), self._state(q1, 'q')
        if q0.shape != q1.shape:
            raise ValueError(f'q0, q1: shapes differ ({q0.shape}, {q1.shape})')
        return self._rows(lambda a, b: configuration.difference(self._ints, a, b, self._nv),
                          q0, q1)

    def interpolate(self, q0, q1, u: float) -> np.ndarray:
        """Return integrate(q0, u difference(q0, q1)): q0 at u = 0, q1 at u = 1."""
        return self.integrate(q0, float(u) * self.difference(q0, q1))

    def normalize(self, q) -> np.ndarray:
        """Return q with every quaternion and planar (cos, sin) scaled to unit length."""
        q = self._state(q, 'q')
        return self._rows(lambda a: configuration.normalized(self._ints, a), q)

    @staticmethod
    def _rows(function: Callable, *arrays) -> np.ndarray:
        """Apply ``function`` to one state, or to each row of a batch."""
        if arrays[0].ndim == 1:
            return function(*arrays)
        return np.array([function(*row) for row in zip(*arrays)])

    def random_configuration(self, rng=None, count: Optional[int] = None) -> np.ndarray:
        """
        Return a random q (nq,), or (count, nq), within the joint limits.

        One-dof joints uniform between their limits ([-pi, pi) rad or [-1, 1] m
        without limits), a free-flyer's or planar base's position uniform in
        the box [-1, 1] m per axis (floating_base.BASE_BOX), rotations uniform
        (scipy ``Rotation.random``). rng: None, a seed or a numpy Generator.
        """
        return floating_base.random_configuration(self, rng, count)

    def to_mujoco(self, q, v=None) -> tuple:
        """
        Return (qpos, qvel) in MuJoCo's conventions, in ``joint_names`` order (qvel None if v is).

        Free joint qpos (x, y, z, qw, qx, qy, qz) (m, unit quaternion), qvel
        (linear velocity of the base origin in world axes, m/s; angular
        velocity in base axes, rad/s); ball qpos (qw, qx, qy, qz), qvel the
        angular velocity in child axes; planar (x, y, theta), (vx, vy) in
        the joint frame's axes and omega. q (nq,) or (N, nq), v (nv,) or
        (N, nv). Place them in a MuJoCo model by joint name (jnt_qposadr).
        """
        return floating_base.converted(self, floating_base.to_mujoco, q, v)

    def from_mujoco(self, qpos, qvel=None) -> tuple:
        """Return (q, v) from MuJoCo's (qpos, qvel) in joint_names order (to_mujoco inverted)."""
        return floating_base.converted(self, floating_base.from_mujoco, qpos, qvel, 'mujoco')

    def to_mixed_velocity(self, q, v) -> np.ndarray:
        """
        Return v (nv,) or (N, nv) in the mixed representation of iDynTree and adam.

        A free-flyer root's (v_lin, omega) in base axes becomes (R v_lin,
        R omega): the base origin's velocity (m/s) and the angular velocity
        (rad/s) in world-aligned axes, R the base rotation; a planar root's
        (vx, vy) turns by Rz(theta); joint velocities and other robots' v are unchanged.
        """
        return floating_base.converted(self, floating_base.mixed_velocity, q, v)

    def from_mixed_velocity(self, q, v_mixed) -> np.ndarray:
        """Return our v from a mixed-representation velocity (inverse of to_mixed_velocity)."""
        return floating_base.converted(self, floating_base.mixed_velocity, q, v_mixed, 'mixed')

    def neutral_configuration(self) -> np.ndarray:
        """
        Return the neutral configuration q (nq,): zeros, identity quaternions, cos theta = 1.

        Pinocchio's ``neutral``: a free-flyer at the world origin, unrotated,
        every one-dof joint at 0.
        """
        return self._neutral.copy()

    def q_slice(self, joint: str) -> slice:
        """Return the slice of q holding ``joint``'s position coordinates (Pinocchio's idx_q)."""
        body = self._coordinate_body[self.joint_index(joint)]
        start = int(self._ints[body, QINDEX])
        return slice(start, start + int(self._ints[body, JOINT_NQ]))

    def v_slice(self, joint: str) -> slice:
        """Return the slice of qd, qdd and tau that holds ``joint``'s coordinates (idx_v)."""
        body = self._coordinate_body[self.joint_index(joint)]
        start = int(self._ints[body, VINDEX])
        return slice(start, start + int(self._ints[body, JOINT_NV]))

    def all_joint_positions(self, q) -> np.ndarray:
        """Return the positions of ``all_joint_names`` (mimic followers G q + o) for q."""
        q = self._state(q, 'q')
        self._check_finite(q, 'q')
        ints, reals = self._ints, self._reals
        return q[..., ints[:, QINDEX]] * reals[:, MIMIC_GAIN] + reals[:, MIMIC_OFFSET]

    # ------------------------------------------------------------------ validation
    def _state(self, value, name: str) -> np.ndarray:
        """Return a validated q (name 'q': nq entries) or velocity-sized state (nv), or batch."""
        array = as_array(value, name)
        size = self._nq if name == 'q' else self._nv
        if array.shape == (size,):
            if name == 'q' and self._rotations:
                floating_base.check_rotations(self._rotations, array)
            return array
        if array.ndim == 2 and array.shape[1] == size:
            if not np.all(np.isfinite(array)):
                row = int(np.argwhere(~np.isfinite(array))[0, 0])
                raise ValueError(f'{name}: row {row} contains NaN or Inf')
            if name == 'q' and self._rotations:
                floating_base.check_rotations(self._rotations, array)
            return array
        raise ValueError(f'{name}: expected shape ({size},) or (N, {size}) '
                         f'for {self._coordinates_of(name)}, got shape {array.shape}')

    def _coordinates_of(self, name: str) -> str:
        """Return what the entries of a state called ``name`` are, for error messages."""
        if name == 'q' and self._nq != self._nv:
            return f'the positions of joints {list(self.joint_names)} (nq = {self._nq})'
        return f'joints {list(self.joint_names)}'

    def _states(self, names: tuple, *values) -> tuple:
        arrays = tuple(self._state(v, n) for n, v in zip(names, values))
        shapes = {a.shape[:-1] for a in arrays}
        if len(shapes) > 1:
            raise ValueError(f'{", ".join(names)}: shapes differ '
                             f'({", ".join(str(a.shape) for a in arrays)})')
        return arrays

    def validated_states(self, names: Sequence[str], *values) -> tuple:
        """
        Return finite float64 states, one per name, all (size,) or all (N, size).

        A name 'q' has nq entries, any other nv (its name is the one in the
        ValueError raised for a wrong shape, NaN or Inf, or differing batches).
        """
        try:   # single float64 states of the right sizes, finite: returned as they are
            if all(type(x) is np.ndarray and x.dtype == np.float64 and x.ndim == 1
                   and x.shape[0] == (self._nq if n == 'q' else self._nv)
                   for n, x in zip(names, values)) and np.isfinite(np.concatenate(values)).all():
                return values
        except TypeError:
            pass
        arrays = self._states(tuple(names), *values)
        for name, array in zip(names, arrays):
            if array.ndim == 1:
                self._check_finite(array, name)
        return arrays

    def _body_of(self, link: str) -> int:
        body = self._arrays.link_body.get(link) if isinstance(link, str) else None
        if body is None:
            raise ValueError(f'link {link!r} is not a link of this robot'
                             f'{did_you_mean(link, self.link_names)} '
                             f'(links: {", ".join(self.link_names)})')
        return body

    def _single(self, value, name: str) -> np.ndarray:
        array = as_array(value, name)
        size = self._nq if name == 'q' else self._nv
        if array.shape != (size,):
            raise ValueError(f'{name}: expected shape ({size},) for '
                             f'{self._coordinates_of(name)}, got shape {array.shape}')
        self._check_finite(array, name)
        if name == 'q' and self._rotations:
            floating_base.check_rotations(self._rotations, array)
        return array

    @staticmethod
    def _check_finite(x: np.ndarray, name: str) -> None:
        if not np.all(np.isfinite(x)):
            raise ValueError(f'{name}: contains NaN or Inf')
