# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Contact-consistent (whole-body) inverse dynamics: torques and contact forces realising qdd.

The equations of motion with contact forces f (world axes, constraints.py)
and the actuation S^T tau (S selects the actuated coordinates; the
unactuated ones, a floating base's six, get no torque)::

    M qdd + b = S^T tau + J^T f,       J qdd + gamma = 0

(Featherstone 2008, ch. 8; the formulation of TSID, Del Prete et al. 2016).
Given qdd, the unactuated rows S_u (M qdd + b) = S_u J^T f fix f up to a null
space, and tau = S (M qdd + b - J^T f).

**Stage 1** (the desired qdd is kept exactly). With W = diag(w) the force
weights (1 per force component in N, ``moment_weight`` per moment component
in N m of a 6D contact), f = f0 + W^-1/2 N z with f0 the W-weighted
least-norm solution of the unactuated rows and N an orthonormal basis of the
null space (an SVD). Bilateral contacts without limits: f = f0, the forces
minimising f^T W f. With limits (friction pyramids, unilateral normals,
centres of pressure; C f <= 0, constraints.py) the QP

    minimise |z|^2 / 2 (= f^T W f / 2 + const)    subject to  C (f0 + W^-1/2 N z) <= 0

is solved by DAQP (Arnstrom, Bemporad and Axehill 2022, a dual active-set
solver; chosen by benchmarks/bench_contact_qp.py, docs/contacts.md). The
unactuated rows hold to rounding whatever the solver's tolerance: every z
gives forces that satisfy them.

**Stage 2** (when stage 1 is infeasible: the cones cannot produce the base
wrench, or qdd violates J qdd + gamma = 0): the closest feasible
acceleration, minimising

    sum_i w_a,i (qdd_i - qdd_des,i)^2 + eps f^T W f

(w_a = ``acceleration_weights``, 1 per coordinate by default, in (rad/s^2)^-2
or (m/s^2)^-2; eps = ``force_regularization``, 1e-6) subject to the
unactuated rows, J qdd + gamma = 0 and C f <= 0: both equalities eliminated
by an SVD, the same QP form. The answer has ``limited=True``; the desired
acceleration is never silently violated.
"""

from typing import NamedTuple, Optional, Sequence

import numpy as np

from ros_dynamics.contacts.constraints import check_frames, contact_terms, force_limits
from ros_dynamics.contacts.description import as_contacts
from ros_dynamics.contacts.forward import compiled_call
from ros_dynamics.kernels.contact import contact_rows_entry
from ros_dynamics.runtime.batches import as_array
from scipy.linalg.lapack import dgesdd

RANK_TOLERANCE = 1e-10   # relative singular values treated as zero
CONSISTENCY = 1e-9       # relative residual of an equality system treated as solvable
ACTIVE = 1e-9            # relative slack of a limit counted as active


class ContactInfeasibleError(ValueError):
    """No acceleration holds the contacts (J qdd + gamma = 0 with the base rows unsolvable)."""


class ContactInverseDynamics(NamedTuple):
    """
    The answer of ``contact_inverse_dynamics``.

    tau (nv,): joint torques (N m, N), zero on the unactuated coordinates;
    forces (m,): stacked contact forces, world axes (a point contact's force
    at its point, a 6D contact's [force; moment] at its frame origin); active:
    whether a friction, unilateral or centre-of-pressure limit is active;
    qdd (nv,): the acceleration realised (the desired one unless limited);
    limited: True when the desired qdd could not be realised within the
    limits and qdd is the closest feasible one (module doc).
    """

    tau: np.ndarray
    forces: np.ndarray
    active: bool
    qdd: np.ndarray
    limited: bool


def unactuated_coordinates(robot, unactuated: Optional[Sequence[str]]) -> np.ndarray:
    """
    Return the velocity indices of the unactuated joints (no torque), an int array.

    unactuated: joint names; None: the root joint of a model built with
    ``root_joint='floating'`` or ``'planar'`` (named 'root_joint'), else none.
    """
    if unactuated is None:
        names = robot.joint_names
        unactuated = ('root_joint',) if names and names[0] == 'root_joint' else ()
    elif isinstance(unactuated, str) or not isinstance(unactuated, Sequence):
        raise ValueError(f'unactuated: expected a sequence of joint names, got {unactuated!r}')
    indices = []
    for name in unactuated:
        try:
            part = robot.v_slice(name)
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f'unactuated: {error}') from None
        indices.extend(range(part.start, part.stop))
    return np.array(sorted(set(indices)), dtype=np.int64)


def _weights(robot, contacts, moment_weight, acceleration_weights) -> tuple:
    """Return the force weights w (m,) and acceleration weights (nv,), validated."""
    if isinstance(moment_weight, bool) or not isinstance(moment_weight, (int, float)) or \
            not np.isfinite(moment_weight) or moment_weight <= 0.0:
        raise ValueError(f'moment_weight: expected a finite number > 0, got {moment_weight!r}')
    force = np.ones(sum(c.size for c in contacts))
    if moment_weight != 1.0:
        row = 0
        for contact in contacts:
            if contact.size == 6:
                force[row + 3:row + 6] = moment_weight
            row += contact.size
    if acceleration_weights is None:
        return force, np.ones(robot.nv)
    accel = as_array(acceleration_weights, 'acceleration_weights')
    if accel.shape != (robot.nv,) or not np.all(np.isfinite(accel)) or np.any(accel <= 0.0):
        raise ValueError(f'acceleration_weights: expected {robot.nv} finite numbers > 0, '
                         f'got shape {accel.shape}')
    return force, accel


def _largest(x: np.ndarray) -> float:
    """Return max |x| (0 for an empty x)."""
    return float(np.abs(x).max()) if x.size else 0.0


def least_norm_basis(matrix: np.ndarray, rhs: np.ndarray) -> tuple:
    """
    Return (x0, Z, residual) with x0 the least-norm least-squares solution of A x = rhs.

    Z: an orthonormal basis of the null space of A (columns); residual: the
    largest |A x0 - rhs| relative to 1 + |rhs| (0 when A has full row rank).
    By an SVD (rank: singular values above RANK_TOLERANCE times the largest).
    """
    if matrix.shape[0] == 0:
        return np.zeros(matrix.shape[1]), np.eye(matrix.shape[1]), 0.0
    if matrix.shape[1] == 0:   # no unknown: rhs = 0 or nothing solves it
        return np.zeros(0), np.zeros((0, 0)), _largest(rhs) / (1.0 + _largest(rhs))
    u, s, vt, info = dgesdd(matrix, full_matrices=1)
    if info:
        raise np.linalg.LinAlgError(f'the SVD did not converge (LAPACK dgesdd info {info})')
    rank = int(np.sum(s > RANK_TOLERANCE * max(s[0], 1e-300))) if s.size else 0
    x0 = vt[:rank].T @ ((u[:, :rank].T @ rhs) / s[:rank])
    residual = 0.0 if rank == matrix.shape[0] else \
        _largest(matrix @ x0 - rhs) / (1.0 + _largest(rhs))
    return x0, vt[rank:].T, residual


def solve_projection(linear: np.ndarray, a: np.ndarray, u: np.ndarray) -> Optional[tuple]:
    """
    Return (z, active) minimising |z|^2 / 2 - linear . z subject to a z <= u, or None.

    DAQP solves it (an active-set method: the active rows hold to rounding);
    the answer is checked: None when the problem is infeasible or a row is
    violated by more than ACTIVE (relative). active: whether any row is active.
    """
    if a.shape[1] == 0:   # nothing to choose: z is empty, the limits hold or not
        slack, tol = np.max(-u, initial=-np.inf), ACTIVE * (1.0 + _largest(u))
        return (np.zeros(0), bool(slack > -tol)) if slack <= tol else None
    try:   # the contacts extra (setup.py): only the inverse dynamics with limits need it
        import daqp
    except ImportError:
        raise ImportError('contact_inverse_dynamics with unilateral contacts solves a QP with '
                          'DAQP: pip install daqp (the ros_dynamics[contacts] extra)') from None
    z, _, exitflag, _ = daqp.solve(np.eye(a.shape[1]), -linear, a, u,
                                   np.full(a.shape[0], -1e30), primal_tol=1e-10)
    if exitflag < 1:
        return None
    az = a @ z
    tol = ACTIVE * (1.0 + _largest(u) + _largest(az))
    slack = (az - u).max()
    return (z, bool(slack > -tol)) if slack <= tol else None


def contact_inverse_dynamics(robot, q, v, qdd, contacts, unactuated: Optional[Sequence[str]] =
                             None, friction_facets: int = 4, moment_weight: float = 1.0,
                             acceleration_weights=None, force_regularization: float = 1e-6
                             ) -> ContactInverseDynamics:
    """
    Return the torques and contact forces realising ``qdd`` at (q, v) (module doc).

    q (nq,), v and qdd (nv,); contacts: a Contact or a sequence (description.py).
    unactuated: the joints with no actuator (default: a floating or planar
    root). friction_facets: faces of the friction pyramid (constraints.py).
    moment_weight, acceleration_weights, force_regularization: the QP's
    weights (module doc). Raises ContactInfeasibleError when no acceleration
    can hold the contacts.
    """
    contacts = as_contacts(contacts)
    check_frames(robot, contacts)
    q, v, qdd = robot.validated_states(('q', 'v', 'qdd'), q, v, qdd)
    if q.ndim != 1:
        raise ValueError(f'q, v, qdd: expected one state (nq,), (nv,), got shape {q.shape}')
    if isinstance(force_regularization, bool) or \
            not isinstance(force_regularization, (int, float)) or \
            not np.isfinite(force_regularization) or force_regularization <= 0.0:
        raise ValueError('force_regularization: expected a finite number > 0, '
                         f'got {force_regularization!r}')
    base = unactuated_coordinates(robot, unactuated)
    weights, accel_weights = _weights(robot, contacts, moment_weight, acceleration_weights)
    limited_contacts = any(not c.bilateral for c in contacts)
    jac, gamma, rotations = _contact_terms(robot, q, v, contacts, limited_contacts)
    limits = force_limits(contacts, rotations, friction_facets) if limited_contacts else None
    scale = 1.0 / np.sqrt(weights)   # f = scale * g, |g|^2 = f^T W f
    motion = jac @ qdd
    drift = motion + gamma
    if drift @ drift <= CONSISTENCY ** 2 * (1.0 + gamma @ gamma + motion @ motion):
        torque = robot.inverse_dynamics(q, v, qdd)
        g0, basis, residual = least_norm_basis(jac[:, base].T * scale, torque[base])
        if residual < CONSISTENCY:
            answer = _stage_one(g0, basis, scale, limits)
            if answer is not None:
                force, active = answer
                tau = torque - jac.T @ force
                tau[base] = 0.0
                return ContactInverseDynamics(tau, force, active, qdd.copy(), False)
    return _stage_two(robot, q, v, qdd, jac, gamma, base, weights, accel_weights,
                      force_regularization, limits)


def _contact_terms(robot, q, v, contacts, rotations: bool) -> tuple:
    """Return constraints.contact_terms's (J, gamma, rotations), by the compiled call if it can."""
    call = compiled_call(robot, contacts, contact_rows_entry)
    rows = call(q, v) if call is not None else None
    if rows is None:
        return contact_terms(robot, q, v, contacts, rotations=rotations)
    frames = [robot.link_pose(q, c.frame)[:3, :3] @ c.rotation if c.size == 6 else None
              for c in contacts] if rotations else None
    return rows[:, :-1], rows[:, -1], frames


def stage_one_problem(robot, q, v, qdd, contacts, unactuated: Optional[Sequence[str]] = None,
                      friction_facets: int = 4, moment_weight: float = 1.0) -> tuple:
    """
    Return (a, u): stage 1's QP, minimise |z|^2 / 2 subject to a z <= u (module doc).

    Arguments as ``contact_inverse_dynamics`` (one state, at least one limited
    contact); the problem every solver of benchmarks/bench_contact_qp.py is given.
    """
    contacts = as_contacts(contacts)
    check_frames(robot, contacts)
    q, v, qdd = robot.validated_states(('q', 'v', 'qdd'), q, v, qdd)
    base = unactuated_coordinates(robot, unactuated)
    scale = 1.0 / np.sqrt(_weights(robot, contacts, moment_weight, None)[0])
    jac, _, rotations = contact_terms(robot, q, v, contacts, rotations=True)
    limits = force_limits(contacts, rotations, friction_facets)
    if limits is None:
        raise ValueError('contacts: stage 1 is a QP only with a unilateral contact')
    torque = robot.inverse_dynamics(q, v, qdd)
    g0, basis, _ = least_norm_basis(jac[:, base].T * scale, torque[base])
    return (limits * scale) @ basis, -(limits * scale) @ g0


def _stage_one(g0: np.ndarray, basis: np.ndarray, scale: np.ndarray,
               limits: Optional[np.ndarray]) -> Optional[tuple]:
    """Return (f, active) of stage 1 (module doc), or None when the limits make it infeasible."""
    if limits is None:
        return scale * g0, False
    a = (limits * scale) @ basis
    u = -(limits * scale) @ g0
    solved = solve_projection(np.zeros(basis.shape[1]), a, u)
    if solved is None:
        return None
    z, active = solved
    return scale * (g0 + basis @ z), active


def _stage_two(robot, q, v, qdd_des, jac, gamma, base, weights, accel_weights, regularization,
               limits) -> ContactInverseDynamics:
    """Return the closest feasible acceleration's answer (module doc, stage 2), or raise."""
    nv, m = robot.nv, jac.shape[0]
    mass, bias = robot.mass_matrix(q), robot.bias_torques(q, v)
    # x = (qdd, f), y = D x with D = sqrt(diag(w_a, eps W)): the objective is |y - y_des|^2
    scale = 1.0 / np.sqrt(np.concatenate([accel_weights, regularization * weights]))
    equality = np.vstack([np.hstack([mass[base], -jac[:, base].T]),
                          np.hstack([jac, np.zeros((m, m))])]) * scale
    rhs = np.concatenate([-bias[base], -gamma])
    y0, basis, residual = least_norm_basis(equality, rhs)
    if residual >= CONSISTENCY:
        raise ContactInfeasibleError(
            'contacts: no acceleration holds these contacts and the unactuated rows '
            f'(relative residual {residual:.2e}); check the contact frames and unactuated')
    target = np.concatenate([qdd_des, np.zeros(m)]) / scale
    linear = basis.T @ (target - y0)
    active = False
    if limits is None:
        z = linear
    else:
        cut = limits * scale[nv:]
        solved = solve_projection(linear, cut @ basis[nv:], -cut @ y0[nv:])
        if solved is None:
            raise ContactInfeasibleError('contacts: no acceleration holds the contacts within '
                                         'their friction, unilateral and sole limits')
        z, active = solved
    x = scale * (y0 + basis @ z)
    accel, force = x[:nv], x[nv:]
    tau = mass @ accel + bias - jac.T @ force
    tau[base] = 0.0
    return ContactInverseDynamics(tau, force, active, accel, True)
