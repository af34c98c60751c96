# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Constrained forward dynamics: the accelerations and contact forces of a robot in contact.

The KKT system of Featherstone, Rigid Body Dynamics Algorithms (2008), sec.
8.1 (Lagrange multipliers) and Pinocchio's ``constraintDynamics``::

    M qdd + b = tau + J^T f,        J qdd + gamma = 0

with M, b = C qd + g from the RobotModel, J, gamma from constraints.py (world
axes, Pinocchio's LOCAL_WORLD_ALIGNED; with Baumgarte terms if asked). It is
solved by the Schur complement: X = M^-1 [tau - b, J^T], the Delassus matrix
G = J M^-1 J^T and G f = -gamma - J M^-1 (tau - b), then qdd = M^-1 (tau - b
+ J^T f). Units: qdd in rad/s^2 (m/s^2), f in N (point) or [N; N m] (6D).

Rank-deficient contact sets (more constrained directions than the robot can
move independently, e.g. two 6D contacts on one link) have a singular G and
many force solutions. Pinocchio's proximal solver iterates (G + mu I)
f_k+1 = rhs + mu f_k from f_0 = 0, which converges to the least-norm
solution; here that limit is computed directly: f = G^+ rhs with the
eigenvalues of G below ``RANK_TOLERANCE`` times the largest dropped. qdd is
unique either way. A contact set whose constraint cannot hold (rhs outside
the range of G) gets the least-squares f; ``constraint_residual`` gives
J qdd + gamma.

Single states (and each row of a batch) go through one compiled call
(contacts/kernel.py, bound per robot and contact set by ``compiled_call``);
the Python path here, from the public RobotModel calls, answers what the
kernel refuses (Baumgarte terms, a singular M, a rank-deficient contact set,
arguments to validate) with the same equations.
"""

import math
from typing import NamedTuple, Optional, Sequence, Tuple
import weakref

import numpy as np

from ros_dynamics.contacts.constraints import check_frames, contact_terms, rows_of
from ros_dynamics.contacts.description import as_contacts, Contact
from ros_dynamics.exceptions import SingularMassMatrixError
from ros_dynamics.kernels.contact import constrained_dynamics_entry
from ros_dynamics.runtime.jit import ensure_compiled
from ros_dynamics.runtime.statecall import StateCall
from scipy.linalg.lapack import dposv

RANK_TOLERANCE = 1e-10
# the compiled calls bound per entry and robot: {entry: {robot: {ids of the contacts: (packed
# model, contacts, call, nv)}}}; an entry holds its contacts, so their ids stay theirs while
# it lives
_COMPILED = {constrained_dynamics_entry: weakref.WeakKeyDictionary()}
_NEW_TUPLE = tuple.__new__   # ConstrainedDynamics without its Python-level __new__ (per call)
_MAX_BOUND = 64   # contact sets bound per robot before the oldest are forgotten


class ConstrainedDynamics(NamedTuple):
    """qdd (nv,) or (N, nv); forces (m,) or (N, m) stacked in contact order, world axes."""

    qdd: np.ndarray
    forces: np.ndarray


def baumgarte_gains(baumgarte) -> Tuple[float, float]:
    """Return (kp, kd) >= 0 from ``baumgarte`` or raise a ValueError naming the keyword."""
    try:
        kp, kd = (float(x) for x in baumgarte)
    except (TypeError, ValueError):
        raise ValueError(f'baumgarte: expected (kp, kd), got {baumgarte!r}') from None
    if not (np.isfinite(kp) and np.isfinite(kd) and kp >= 0.0 and kd >= 0.0):
        raise ValueError(f'baumgarte: expected finite gains >= 0 (kp 1/s^2, kd 1/s), '
                         f'got {baumgarte!r}')
    return kp, kd


def least_norm_solve(delassus: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Return G^+ rhs for a symmetric positive semi-definite G (module doc, rank deficiency)."""
    values, vectors = np.linalg.eigh(delassus)
    keep = values > RANK_TOLERANCE * max(values[-1], 0.0)
    return vectors[:, keep] @ ((vectors[:, keep].T @ rhs) / values[keep])


def solve_kkt(mass: np.ndarray, bias: np.ndarray, tau: np.ndarray, jac: np.ndarray,
              gamma: np.ndarray) -> tuple:
    """
    Return (qdd, f) of M qdd + b = tau + J^T f, J qdd + gamma = 0 for one state.

    Cholesky solves (LAPACK dposv); raises SingularMassMatrixError if M is not
    positive definite.
    """
    rhs = np.empty((jac.shape[1], jac.shape[0] + 1))
    rhs[:, 0] = tau - bias
    rhs[:, 1:] = jac.T
    _, solved, info = dposv(mass, rhs)
    if info:
        raise SingularMassMatrixError('the mass matrix is singular (not positive definite): '
                                      'the constrained dynamics need a positive definite M')
    free, minv_jt = solved[:, 0], solved[:, 1:]
    if jac.shape[0] == 0:   # no contact: the unconstrained dynamics
        return free, np.zeros(0)
    delassus = jac @ minv_jt
    rhs = -gamma - jac @ free
    factor, force, info = dposv(delassus, rhs)
    diagonal = np.diagonal(factor)
    if info or diagonal.min() ** 2 <= RANK_TOLERANCE * diagonal.max() ** 2:
        force = least_norm_solve(delassus, rhs)
    qdd = free + minv_jt @ force
    if not math.isfinite(qdd @ qdd + force @ force):
        raise ValueError('the constrained dynamics overflowed (the state or the torques are too '
                         'large for float64): no finite qdd and forces')
    return qdd, force


def compiled_call(robot, contacts, entry=constrained_dynamics_entry) -> Optional[StateCall]:
    """
    Return a compiled single-state call of ``contacts`` on ``robot`` (contacts/kernel.py).

    entry: ``constrained_dynamics_entry`` (the default: ``call(q, v, tau)``
    returns [qdd; f]) or ``contact_rows_entry`` (``call(q, v)`` returns [J,
    gamma], (m, nv + 1)). Bound once per robot model, contact set (the same
    Contact objects) and entry. A call returns None for arguments that are not
    float64 vectors of the right sizes and for what the kernel refuses (NaN, a
    singular M, a rank-deficient contact set): then the Python path answers.
    None when the contacts are not a valid sequence of Contact on links of ``robot``.
    """
    bound = _bound(robot, contacts, entry)
    return None if bound is None else bound[2]


def _bound(robot, contacts, entry) -> Optional[tuple]:
    """Return ``compiled_call``'s bound entry (packed model, contacts, call, nv) or None."""
    if isinstance(contacts, Contact):
        contacts = (contacts,)
    robots = _COMPILED.get(entry)
    if robots is None:
        robots = _COMPILED.setdefault(entry, weakref.WeakKeyDictionary())
    try:
        key = tuple(map(id, contacts))
        calls = robots.get(robot)
    except TypeError:
        return None
    if calls is None:
        calls = robots.setdefault(robot, {})
    packed = robot.packed
    bound = calls.get(key)
    if bound is not None and bound[0] is packed:
        return bound
    try:
        contacts = as_contacts(contacts)
        check_frames(robot, contacts)
    except ValueError:
        return None
    extra = [float(len(contacts))]
    for contact in contacts:
        body, offset = robot.link_attachment(contact.frame)
        extra += [contact.size, body, *(offset[:3, :3] @ contact.position + offset[:3, 3])]
    ensure_compiled(entry)
    m = rows_of(contacts)
    if entry is constrained_dynamics_entry:
        inputs, shape = 3, (robot.nv + m,)
    else:
        inputs, shape = 2, (m, robot.nv + 1)
    call = StateCall(entry.address, packed, robot.nv, inputs, shape, np.array(extra), robot.nq)
    if len(calls) >= _MAX_BOUND:
        calls.clear()
    calls[key] = bound = (packed, contacts, call, robot.nv)
    return bound


def constrained_forward_dynamics(robot, q, v, tau, contacts: Sequence,
                                 baumgarte=None) -> ConstrainedDynamics:
    """
    Return (qdd, forces) of ``robot`` (a RobotModel) held by ``contacts`` (module doc).

    q (nq,) or (N, nq), v and tau (nv,) or (N, nv): SI units, Pinocchio's
    free-flyer convention (v: the base twist in the base frame). contacts: a
    Contact or a sequence of them (the same for every state of a batch).
    baumgarte: (kp 1/s^2, kd 1/s), None for zero (Pinocchio's corrector
    gains; kp acts on anchored contacts only). Returns qdd (nv,) or (N, nv)
    and the stacked forces (m,) or (N, m): a point contact's force (N) at its
    point, a 6D contact's [force; moment] (N, N m) at its frame origin, world axes.
    """
    call = None
    if baumgarte is None:
        try:   # the bound call of this robot and contact set (_bound), looked up inline
            packed, _, call, nv = _COMPILED[constrained_dynamics_entry][robot][
                tuple(map(id, contacts))]
        except (KeyError, TypeError):
            packed = None
        if packed is not robot.packed:
            bound = _bound(robot, contacts, constrained_dynamics_entry)
            call, nv = (None, 0) if bound is None else bound[2:]
        if call is not None:
            out = call(q, v, tau)   # None for batches and anything the kernel refused
            if out is not None:
                return _NEW_TUPLE(ConstrainedDynamics, (out[:nv], out[nv:]))
    contacts = as_contacts(contacts)
    check_frames(robot, contacts)
    gains = (0.0, 0.0) if baumgarte is None else baumgarte_gains(baumgarte)
    q, v, tau = robot.validated_states(('q', 'v', 'tau'), q, v, tau)
    if q.ndim == 1:
        mass, bias = robot.mass_matrix(q), robot.bias_torques(q, v)
        jac, gamma, _ = contact_terms(robot, q, v, contacts, gains)
        return ConstrainedDynamics(*solve_kkt(mass, bias, tau, jac, gamma))
    count, m = q.shape[0], rows_of(contacts)
    qdd, forces = np.empty(v.shape), np.empty((count, m))
    if count == 0:
        return ConstrainedDynamics(qdd, forces)
    if call is not None:   # row by row through the compiled call, the Python path for the rest
        out = np.empty((count, robot.nv + m))
        for k in range(count):
            if call.into(out[k], q[k], v[k], tau[k]) == 0:
                qdd[k], forces[k] = out[k, :robot.nv], out[k, robot.nv:]
            else:
                qdd[k], forces[k] = constrained_forward_dynamics(robot, q[k], v[k], tau[k],
                                                                 contacts, (0.0, 0.0))
        return ConstrainedDynamics(qdd, forces)
    masses, biases = robot.mass_matrix(q), robot.bias_torques(q, v)
    for k in range(count):
        jac, gamma, _ = contact_terms(robot, q[k], v[k], contacts, gains)
        qdd[k], forces[k] = solve_kkt(masses[k], biases[k], tau[k], jac, gamma)
    return ConstrainedDynamics(qdd, forces)


def constraint_residual(robot, q, v, qdd, contacts: Sequence) -> Optional[np.ndarray]:
    """Return J qdd + gamma (m,) at one state: how far ``qdd`` is from holding the contacts."""
    contacts = as_contacts(contacts)
    check_frames(robot, contacts)
    q, v, qdd = robot.validated_states(('q', 'v', 'qdd'), q, v, qdd)
    jac, gamma, _ = contact_terms(robot, q, v, contacts)
    return jac @ qdd + gamma
