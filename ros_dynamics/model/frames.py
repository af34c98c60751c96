# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
RobotModel's frames: link poses, Jacobians, dJ/dt qd, operational space, contacts.

``FrameMethods`` is a mixin of ``RobotModel`` (model.py), which provides
the packed model, the links' bound single-state calls (``_link_calls``:
kind -> link -> StateCall, emptied by every change of the model) and the
states' validation (model_configuration.py). Wrenches and Jacobian rows are
[linear; angular]; frames as Pinocchio's LOCAL_WORLD_ALIGNED ('world_aligned'),
LOCAL ('local') and WORLD ('world').
"""

from typing import Optional, Sequence

import numpy as np

from ros_dynamics.kernels import jacobian
from ros_dynamics.multibody import layouts
from ros_dynamics.runtime.batches import as_array, check_status, empty

FRAMES = ('world_aligned', 'local', 'world')
# per-link quantities: entry point and output shape (None: the Jacobian's, 6 x dof)
LINK_ENTRIES = {'pose': (jacobian.link_transform_entry, (4, 4)),
                'jacobian': (jacobian.jacobian_entry, None),
                'bias': (jacobian.link_bias_acceleration_entry, (3, 3))}
# functions of the layers above the model (contacts) once imported: {name: function}
_ABOVE = {}


class FrameMethods:
    """The link-frame methods of RobotModel: poses, Jacobians, operational space, contacts."""

    def link_pose(self, q, link: str) -> np.ndarray:
        """Return the 4x4 homogeneous transform of ``link`` in the root frame at q."""
        return self._link_quantity('pose', link, q)

    def _link_quantity(self, kind: str, link: str, *states) -> np.ndarray:
        """Return a link's pose, world-aligned Jacobian or bias acceleration (LINK_ENTRIES)."""
        calls = self._link_calls[kind]
        try:
            out = calls[link](*states)
        except (KeyError, TypeError):   # not bound yet, or an unhashable link
            out = None
        if out is not None:
            return out
        states = [self._single(s, n) for s, n in zip(states, ('q', 'qd'))]
        body = self._body_of(link)
        entry, out_shape = LINK_ENTRIES[kind]
        out_shape = out_shape or self._jacobian_shape
        call = calls.get(link)
        if call is None:   # calls (this model's dict, read first) gets a call of this model
            frame = np.append(self._arrays.link_offset[link][0], float(body))
            call = self._calls.bind(entry, len(states), out_shape, extra=frame,
                                    key=(kind, link))
            calls[link] = call
        out = np.empty(out_shape)
        check_status(call.into(out, *states), ('q', 'qd')[:len(states)], tuple(states))
        return out

    def link_attachment(self, link: str) -> tuple:
        """
        Return (body, offset) of ``link``: the moving body carrying it and its fixed frame there.

        body: its index in ``body_names`` (-1: the fixed root); offset (4, 4): the
        link frame in that body's frame (links merged through fixed joints have
        one). For compiled callers placing points on links (contacts/kernel.py).
        """
        body = self._body_of(link)
        offset = np.eye(4)
        values = self._arrays.link_offset[link][0]
        offset[:3, :3] = layouts.POSE_LAYOUT.view(values, 'R').reshape(3, 3)
        offset[:3, 3] = layouts.POSE_LAYOUT.view(values, 'P')
        return body, offset

    @staticmethod
    def _check_frame(frame: str) -> None:
        if frame not in FRAMES:
            raise ValueError(f'frame: expected one of {FRAMES}, got {frame!r}')

    def jacobian(self, q, link: str, frame: str = 'world_aligned') -> np.ndarray:
        """
        Return the 6 x dof Jacobian of ``link``, rows [linear; angular] (N x 6 x dof for N states).

        frame 'world_aligned': velocity of the link origin and angular velocity,
        world axes (Pinocchio LOCAL_WORLD_ALIGNED); 'local': the same in the
        link's axes (LOCAL); 'world': spatial velocity at the world origin,
        world axes (WORLD).
        """
        if frame == 'world_aligned':
            try:   # the bound call of this link, inlined: the Jacobian is called in loops
                jac = self._jacobian_calls[link](q)
            except (KeyError, TypeError):
                jac = None
            if jac is not None:
                return jac
        array = as_array(q, 'q')
        if array.ndim == 2:
            return self._jacobian_batch(array, link, frame)
        if frame == 'world_aligned':
            return self._link_quantity('jacobian', link, q)
        self._check_frame(frame)
        jac = self._link_quantity('jacobian', link, q)
        pose = self.link_pose(q, link)
        if frame == 'local':
            rot = pose[:3, :3]
            return np.vstack([rot.T @ jac[:3], rot.T @ jac[3:]])
        return np.vstack([jac[:3] + np.cross(pose[:3, 3], jac[3:], axis=0), jac[3:]])

    def _jacobian_batch(self, q: np.ndarray, link: str, frame: str) -> np.ndarray:
        """Return the Jacobians (N, 6, dof) of ``link`` at the rows of q, one bound call each."""
        q = self._state(q, 'q')
        self._body_of(link)
        self._check_frame(frame)
        out = empty((q.shape[0],) + self._jacobian_shape, 'jacobian')
        for k in range(q.shape[0] if out.size else 0):
            out[k] = self.jacobian(q[k], link, frame)
        return out

    def jacobian_dot_qd(self, q, qd, link: str, frame: str = 'world_aligned') -> np.ndarray:
        """
        Return dJ/dt qd (6,) or (N, 6), rows [linear; angular], for the frames of ``jacobian``.

        'world_aligned' gives the classical acceleration of the link origin at
        qdd = 0; 'local' and 'world' the spatial acceleration at qdd = 0.
        """
        self._check_frame(frame)
        if np.ndim(q) == 2:   # a batch: one bound call per state
            self._body_of(link)
            return np.array([self.jacobian_dot_qd(a, b, link, frame) for a, b in zip(
                *self._states(('q', 'qd'), q, qd))]).reshape(-1, 6)
        angular, spatial, classical = self._link_quantity('bias', link, q, qd)
        if frame == 'world_aligned':
            return np.concatenate([classical, angular])
        if frame == 'local':
            rot = self.link_pose(q, link)[:3, :3]
            return np.concatenate([rot.T @ spatial, rot.T @ angular])
        point = self.link_pose(q, link)[:3, 3]
        return np.concatenate([spatial + np.cross(point, angular), angular])

    def operational_space(self, q, qd, link: str, frame: str = 'world_aligned',
                          axes: Optional[Sequence[int]] = None,
                          reference_link: Optional[str] = None,
                          singular_threshold: float = 1e-6, damping: float = 1e-3):
        """
        Return Khatib's operational-space quantities of ``link`` at (q, qd) (Khatib 1987).

        Lambda = (J M^-1 J^T)^-1, J_bar, the null-space projector N, mu and p as an
        ``OperationalSpace``. frame: as ``jacobian``; axes: task rows of [linear;
        angular] (0-2 x, y, z; 3-5 rotations), all six by default; reference_link:
        express the task in the axes of this link (rigidly attached to the root);
        a task whose Lambda^-1 has eigenvalues below ``singular_threshold`` times
        the largest is flagged degenerate and inverted with ``damping`` (see
        ros_dynamics.model.operational_space). Raises SingularMassMatrixError if M is.
        """
        from ros_dynamics.model.operational_space import operational_space
        return operational_space(self, q, qd, link, frame, axes, reference_link,
                                 singular_threshold, damping)

    # ------------------------------------------------------------------ contacts
    def constrained_forward_dynamics(self, q, v, tau, contacts, baumgarte=None) -> tuple:
        """
        Return (qdd, forces) with ``contacts`` held: M qdd + b = tau + J^T f, J qdd + Jdot v = 0.

        See ros_dynamics.contacts.forward (conventions: docs/contacts.md).
        """
        solve = _ABOVE.get('constrained_forward_dynamics')
        if solve is None:   # a layer above the model, imported on first use (then 0.5 us saved)
            from ros_dynamics.contacts.forward import constrained_forward_dynamics as solve
            _ABOVE['constrained_forward_dynamics'] = solve
        return solve(self, q, v, tau, contacts, baumgarte)

    def contact_inverse_dynamics(self, q, v, qdd, contacts, **options) -> tuple:
        """
        Return the actuated torques and contact forces realising qdd (a ContactInverseDynamics).

        See ros_dynamics.contacts.inverse for the options and the QP (docs/contacts.md).
        """
        from ros_dynamics.contacts.inverse import contact_inverse_dynamics
        return contact_inverse_dynamics(self, q, v, qdd, contacts, **options)
