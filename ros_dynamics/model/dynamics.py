# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
RobotModel's joint-space algorithms: inverse and forward dynamics, M, C, g, energies, momenta.

``JointSpaceDynamics`` is a mixin of ``RobotModel`` (model.py), which
provides the packed model (``_model``), the bound single-state calls
(``_id_call``, ... bound by ``_bind``, runtime.BoundCalls) and the states'
validation (model_configuration.py). Each public method tries its bound
single-state call first (a float64 vector of the right size: about 1 us),
then validates, binds and raises the documented errors; batches (N, n) run
on the runtime's BatchPool in blocks of rows (runtime.run_batch). Equations:
Featherstone, Rigid Body Dynamics Algorithms (2008), tables 5.1 (RNEA),
6.2 (CRBA), 7.1 (ABA); Orin, Goswami and Lee (2013) for the centroidal
momentum.
"""

from typing import Callable, Mapping, Optional

import numpy as np

from ros_dynamics.exceptions import SingularMassMatrixError
from ros_dynamics.kernels import (centroidal, coriolis, crba, energy, friction as friction_kernels,
                                  kinematics, rnea)
from ros_dynamics.multibody.layouts import VINDEX
from ros_dynamics.runtime.batches import check_status, empty, run_batch, zeros
from ros_dynamics.runtime.jit import ensure_compiled

ARGUMENT_NAMES = {
    'inverse_dynamics': ('q', 'qd', 'qdd'),
    'forward_dynamics': ('q', 'qd', 'tau'),
}
# states whose body forces are computed at once (a batch with external wrenches)
FORCE_ROWS = 1024


class JointSpaceDynamics:
    """The joint-space algorithms of RobotModel: RNEA, CRBA, ABA, Coriolis, energies, momenta."""

    def friction_torques(self, qd) -> np.ndarray:
        """
        Return the joint friction torques tau_f(qd) (N m or N), (dof,) or (N, dof).

        Per joint: b qd + f_c tanh(qd / v_s) + o + Gaz et al.'s sigmoid
        phi1 / (1 + exp(-phi2 (qd + phi3))) - phi1 / (1 + exp(-phi2 phi3))
        (RA-L 2019), with the parameters of ``actuators``: the torque friction
        takes, so the motors must deliver inverse dynamics + tau_f.
        """
        tau = self._friction_call(qd)
        if tau is not None:
            return tau
        qd = self._state(qd, 'qd')
        out = np.empty(qd.shape)
        if qd.ndim == 1:
            call = self._bind('_friction_call', friction_kernels.friction_torques_entry, 1,
                              self._shape, first=self._nv)
            check_status(call.into(out, qd), ('qd',), (qd,))
            return out
        ensure_compiled(friction_kernels.friction_torques_batch)
        friction_kernels.friction_torques_batch(self._model, qd, out)
        return out

    def _link_wrenches(self, external_wrenches: Optional[Mapping]) -> Optional[np.ndarray]:
        """
        Return link wrenches as rows for kinematics.body_forces_batch, or None for none.

        Wrenches on the fixed root are taken by the base and dropped.
        """
        if external_wrenches is None:
            return None
        rows, _ = kinematics.link_wrench_rows(external_wrenches, self.link_attachment,
                                              'external_wrenches')
        return rows if rows.shape[0] else None

    def _run_states(self, batch: Callable, wrenches: Optional[np.ndarray], states: tuple,
                    out: np.ndarray) -> int:
        """
        Run a batch kernel ``batch(model, *states, fext, out)`` over (N, dof) states.

        With link wrenches the body forces of each block of FORCE_ROWS states
        are computed by a compiled kernel first (memory stays bounded for any
        N); blocks run on the shared thread pool. Returns the first nonzero status.
        """
        model = self._model
        if out.size == 0:   # no states, or no joints: nothing to compute for any N
            return 0
        ensure_compiled(batch)
        if wrenches is None:
            none = self._no_wrench_batch
            return run_batch(batch, out.shape[0],
                             lambda a, b: (model,) + tuple(s[a:b] for s in states)
                             + (none, out[a:b]))
        ensure_compiled(kinematics.body_forces_batch)
        shape = (self._ints.shape[0], 6)

        def block(start: int, stop: int) -> int:
            fext = np.empty((min(FORCE_ROWS, stop - start),) + shape)
            status = 0
            for a in range(start, stop, FORCE_ROWS):
                b = min(stop, a + FORCE_ROWS)
                forces = fext[:b - a]
                kinematics.body_forces_batch(model, states[0][a:b], wrenches, forces)
                status = status or batch(model, *(s[a:b] for s in states), forces, out[a:b])
            return status
        return run_batch(block, out.shape[0], lambda a, b: (a, b))

    # ------------------------------------------------------------------ dynamics
    def inverse_dynamics(self, q, qd, qdd, external_wrenches: Optional[Mapping] = None,
                         friction: bool = False) -> np.ndarray:
        """
        Return tau = M(q) qdd + C(q, qd) qd + g(q) - sum J_l^T w_l (RNEA, Featherstone t. 5.1).

        q, qd, qdd: (dof,) or (N, dof) in rad, rad/s, rad/s^2 (m for prismatic).
        external_wrenches: {link: [fx, fy, fz, tx, ty, tz]} acting on the robot
        at the link origin, world axes (N, N m). M includes the armature.
        friction: True adds ``friction_torques(qd)``, giving the torque the
        actuators must deliver (joint side). Returns tau (N m or N), same
        leading shape.
        """
        if external_wrenches is None and (friction is False or friction is True):
            tau = (self._idf_call if friction else self._id_call)(q, qd, qdd)
            if tau is not None:
                return tau
        return self._inverse_dynamics(q, qd, qdd, external_wrenches, friction)

    def _inverse_dynamics(self, q, qd, qdd, external_wrenches, friction=False) -> np.ndarray:
        if isinstance(friction, np.bool_):
            friction = bool(friction)
        if friction is not True and friction is not False:
            raise ValueError(f'friction: expected True or False, got {friction!r}')
        names = ARGUMENT_NAMES['inverse_dynamics']
        q, qd, qdd = self._states(names, q, qd, qdd)
        wrenches = self._link_wrenches(external_wrenches)
        tau = np.empty(qd.shape)
        if q.ndim == 1 and wrenches is None:
            if friction:
                call = self._bind('_idf_call', friction_kernels.inverse_dynamics_friction_entry,
                                  3, self._shape)
            else:
                call = self._bind('_id_call', rnea.inverse_dynamics_entry, 3, self._shape)
            check_status(call.into(tau, q, qd, qdd), names, (q, qd, qdd))
            return tau
        # batches, and single states with wrenches (a batch of one: one kernel less to compile)
        q, qd, qdd = self._as_batch(names, q, qd, qdd)
        out = tau.reshape(qd.shape)
        model = self._model
        self._run_states(rnea.inverse_dynamics_batch, wrenches, (q, qd, qdd), out)
        if friction and out.size:
            ensure_compiled(friction_kernels.friction_torques_batch)
            losses = np.empty(qd.shape)
            friction_kernels.friction_torques_batch(model, qd, losses)
            out += losses
        return tau

    def _as_batch(self, names: tuple, *arrays) -> tuple:
        """Return validated states as (N, dof) views; single states are checked for NaN here."""
        if arrays[0].ndim == 2:
            return arrays
        check_status(1 if not all(np.all(np.isfinite(a)) for a in arrays) else 0, names,
                     arrays)
        return tuple(a.reshape(1, a.shape[-1]) for a in arrays)

    def gravity_torques(self, q) -> np.ndarray:
        """Return g(q) (N m): the joint torques that hold the robot still at q."""
        tau = self._gravity_call(q)
        if tau is not None:
            return tau
        q = self._state(q, 'q')
        if q.ndim == 2:
            zero = np.zeros((q.shape[0], self._nv))
            return self.inverse_dynamics(q, zero, zero)
        call = self._bind('_gravity_call', rnea.gravity_torques_entry, 1, self._shape)
        tau = np.empty(self._dof)
        check_status(call.into(tau, q), ('q',), (q,))
        return tau

    def bias_torques(self, q, qd) -> np.ndarray:
        """Return C(q, qd) qd + g(q) (N m) = inverse_dynamics(q, qd, 0)."""
        tau = self._id_call(q, qd, self._zero_state)
        if tau is not None:
            return tau
        q, qd = self._states(('q', 'qd'), q, qd)
        return self.inverse_dynamics(q, qd, np.zeros(qd.shape))

    def mass_matrix(self, q) -> np.ndarray:
        """Return the joint-space inertia M(q), (dof, dof) or (N, dof, dof), by CRBA (t. 6.2)."""
        mass = self._mass_call(q)
        if mass is not None:
            return mass
        q = self._state(q, 'q')
        mass = empty(q.shape[:-1] + self._mass_shape, 'mass_matrix')
        if q.ndim == 1:
            call = self._bind('_mass_call', crba.mass_matrix_entry, 1, self._mass_shape)
            check_status(call.into(mass, q), ('q',), (q,))
            return mass
        if mass.size == 0:
            return mass
        ensure_compiled(crba.mass_matrix_batch)
        model = self._model
        run_batch(crba.mass_matrix_batch, q.shape[0], lambda a, b: (model, q[a:b], mass[a:b]))
        return mass

    def coriolis_matrix(self, q, qd) -> np.ndarray:
        """Return C(q, qd) (dof, dof) with C qd = bias - g and dM/dt - 2C skew-symmetric."""
        q, qd = self._states(('q', 'qd'), q, qd)
        out = empty(q.shape[:-1] + self._mass_shape, 'coriolis_matrix')
        if out.size == 0:
            return out
        ensure_compiled(coriolis.coriolis_matrix)
        for k in np.ndindex(q.shape[:-1]):   # () for a single state
            check_status(coriolis.coriolis_matrix(self._model, q[k], qd[k], out[k]),
                         ('q', 'qd'), (q, qd))
        return out

    def forward_dynamics(self, q, qd, tau, external_wrenches: Optional[Mapping] = None
                         ) -> np.ndarray:
        """
        Return qdd = M^-1 (tau - C qd - g + sum J_l^T w_l) by ABA (O(n), table 7.1).

        Shapes and units as ``inverse_dynamics``. Models with mimic joints
        solve M qdd = tau - b by Cholesky instead (ABA has no mimic joint
        model). Raises SingularMassMatrixError naming the joint when M is
        singular (a joint that moves no inertia).
        """
        if external_wrenches is None:
            qdd = self._fd_call(q, qd, tau)
            if qdd is not None:
                return qdd
        return self._forward_dynamics(q, qd, tau, external_wrenches)

    def _forward_dynamics(self, q, qd, tau, external_wrenches) -> np.ndarray:
        names = ARGUMENT_NAMES['forward_dynamics']
        q, qd, tau = self._states(names, q, qd, tau)
        wrenches = self._link_wrenches(external_wrenches)
        qdd = np.empty(qd.shape)
        if q.ndim == 1 and wrenches is None:
            call = self._bind('_fd_call', self._fd_entry, 3, self._shape)
            status = call.into(qdd, q, qd, tau)
        else:
            q, qd, tau = self._as_batch(names, q, qd, tau)
            status = self._run_states(self._fd_batch, wrenches, (q, qd, tau),
                                      qdd.reshape(qd.shape))
        if status < 0:
            raise self.singular_mass_error(-status - 1)
        check_status(status, names, (q, qd, tau))
        return qdd

    def singular_mass_error(self, index: int, coordinate: Optional[bool] = None
                            ) -> SingularMassMatrixError:
        """
        Return the SingularMassMatrixError of a kernel's singular body or coordinate ``index``.

        A kernel's status -1 - index (ABA: a body; a dense solve, Cholesky: a
        velocity coordinate) becomes the error naming the joint that moves no
        inertia. coordinate: whether ``index`` is a coordinate; by default,
        when the model solves forward dynamics densely (mimic joints). For the
        simulator and operational_space, which run those kernels themselves.
        """
        if coordinate is None:
            coordinate = self._dense_forward
        if coordinate:   # the joint whose velocity coordinates hold ``index``
            starts = self._ints[self._coordinate_body, VINDEX]
            joint = self.joint_names[int(np.searchsorted(starts, index, side='right')) - 1]
            return SingularMassMatrixError(
                f'the mass matrix is singular (not positive definite): joint {joint!r} moves '
                'no inertia that the joints before it do not (no mass or inertia about its '
                'axis downstream); give its child links inertia or make it fixed')
        joint = self._arrays.body_joints[index]
        return SingularMassMatrixError(
            f'the mass matrix is singular: joint {joint!r} moves no inertia (no mass or '
            'inertia about its axis downstream); give its child links inertia or make it fixed')

    def kinetic_energy(self, q, qd) -> float:
        """Return T = 1/2 qd^T M(q) qd (J)."""
        q, qd = self._states(('q', 'qd'), q, qd)
        if q.ndim == 2:
            if self._dof == 0:
                return zeros(q.shape[:1], 'kinetic_energy')
            return np.array([self.kinetic_energy(a, b) for a, b in zip(q, qd)], dtype=float)
        self._check_finite(q, 'q')
        self._check_finite(qd, 'qd')
        ensure_compiled(energy.kinetic_energy)
        return energy.kinetic_energy(self._model, q, qd)

    def potential_energy(self, q) -> float:
        """Return V(q) = -sum m_i g^T c_i (J), zero with every centre of mass at the root."""
        q = self._state(q, 'q')
        if q.ndim == 2:
            if self._dof == 0:   # no moving body: V = 0 (the root's does not change)
                return zeros(q.shape[:1], 'potential_energy')
            return np.array([self.potential_energy(a) for a in q], dtype=float)
        self._check_finite(q, 'q')
        ensure_compiled(energy.potential_energy)
        return energy.potential_energy(self._model, q)

    # ------------------------------------------------------------------ centroidal dynamics
    def centroidal_momentum_matrix(self, q) -> np.ndarray:
        """
        Return A_G (6, nv) with h_G = A_G qd: linear momentum, angular about the CoM, world axes.

        Orin, Goswami and Lee (2013); Pinocchio's ``ccrba`` (centroidal.py).
        """
        matrix = self._centroidal_call(q)
        if matrix is not None:
            return matrix
        q = self._single(q, 'q')
        call = self._bind('_centroidal_call', centroidal.centroidal_momentum_matrix_entry, 1,
                          (6, self._nv))
        matrix = np.empty((6, self._nv))
        check_status(call.into(matrix, q), ('q',), (q,))
        return matrix

    def center_of_mass(self, q) -> np.ndarray:
        """Return the centre of mass (3,) of the moving bodies in the world (root) frame (m)."""
        return self._centroidal(q)[1][1:]

    def com_jacobian(self, q) -> np.ndarray:
        """Return J_G (3, nv): the centre of mass velocity, world axes, is J_G qd."""
        matrix, com = self._centroidal(q)
        return matrix[:3] / com[0] if com[0] > 0.0 else np.zeros_like(matrix[:3])

    def centroidal_momentum(self, q, qd) -> np.ndarray:
        """Return h_G = A_G(q) qd (6,): linear (kg m/s), angular about the CoM (kg m^2/s)."""
        qd = self._single(qd, 'qd')
        return self._centroidal(q)[0] @ qd

    def centroidal_momentum_bias(self, q, qd) -> np.ndarray:
        """Return (dA_G/dt) qd (6,): dh_G/dt at qdd = 0 (Pinocchio's dhg at a = 0), world axes."""
        q, qd = self._single(q, 'q'), self._single(qd, 'qd')
        ensure_compiled(centroidal.centroidal_momentum_bias)
        out = np.empty(6)
        check_status(centroidal.centroidal_momentum_bias(self._model, q, qd, out),
                     ('q', 'qd'), (q, qd))
        return out

    def _centroidal(self, q) -> tuple:
        """Return (A_G (6, nv), (m, c_x, c_y, c_z)) at one configuration q."""
        q = self._single(q, 'q')
        ensure_compiled(centroidal.centroidal_momentum_matrix)
        matrix, com = np.empty((6, self._nv)), np.empty(4)
        check_status(centroidal.centroidal_momentum_matrix(self._model, q, matrix, com),
                     ('q',), (q,))
        return matrix, com

    def regressor(self, q, qd, qdd, friction: bool = False, armature: bool = False,
                  friction_velocity: float = 1e-3) -> np.ndarray:
        """
        Return the joint torque regressor Y, tau = Y theta: (dof, p) or (N, dof, p).

        See ``ros_dynamics.model.regressor.joint_torque_regressor``
        for the columns (10 per body, then 3 friction columns per joint, then
        one armature column per joint).
        """
        from ros_dynamics.model.regressor import joint_torque_regressor
        return joint_torque_regressor(self, q, qd, qdd, friction, armature, friction_velocity)
