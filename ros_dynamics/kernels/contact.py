# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Constrained forward dynamics in one compiled call: forward.py's equations, no Python between.

M by CRBA (Featherstone 2008, table 6.2), b by RNEA (table 5.1), the contact
rows J and gamma (constraints.py: world axes, a point's classical acceleration,
a 6D frame's spatial acceleration) from RNEA's own forward pass (its gravity
lift subtracted), then the Schur complement along the tree's sparsity:
M = L^T D L (ltdl.py, Featherstone 2008, sec. 6.5, no fill-in), W = D^-1/2
L^-T J^T (each contact's rows touch only its chain to the root), t = D^-1/2
L^-T (tau - b), the Delassus matrix G = J M^-1 J^T = W W^T (two contacts'
rows overlap only on their common chain), G f = -gamma - W t (dense Cholesky,
Golub and Van Loan, "Matrix Computations", alg. 4.2.1) and qdd = L^-1 D^-1/2
(t + W^T f) (Pinocchio's ``constraintDynamics`` factors its KKT matrix along
the same sparsity). Status 0, or 1 (a state holds NaN or Inf), 2 (M not positive
definite, or a pivot of D below RANK_TOLERANCE times the largest), 3 (G
singular or ill-conditioned: a rank-deficient contact set) or 4 (the result
overflowed): then the Python path of forward.py raises or computes the
least-norm forces. No Baumgarte terms here (forward.py takes its Python path
for them).

``extra`` holds the contacts: their count, then per contact its size (3 or 6),
its body (-1: the fixed root) and its point (the contact frame's origin) in
body coordinates, ``NCONTACT`` values.
"""

from numba import carray
import numpy as np
from ros_dynamics.kernels.crba import crba_from_transforms
from ros_dynamics.kernels.jacobian import bias_acceleration_at, jacobian_at_point
from ros_dynamics.kernels.kinematics import forward_pass, world_poses
from ros_dynamics.kernels.ltdl import (last_coordinate, ltdl_into, solve_l, solve_lt,
                                       solve_lt_chain, velocity_parents)
from ros_dynamics.kernels.rnea import rnea_into
from ros_dynamics.multibody.joints import (bad_positions, bad_state, body_count, gravity_of,
                                           model_at, nq_of, state_at)
from ros_dynamics.multibody.layouts import (CT_BODY, CT_POINT, CT_SIZE, NCONTACT, NKINEMATICS,
                                            NPOSE, POSE_P, POSE_R)
from ros_dynamics.multibody.spatial import add, cross, load3, load9, mat_vec, sub
from ros_dynamics.runtime.jit import kernel, state_entry
from ros_dynamics.runtime.views import read_only

RANK_TOLERANCE = 1e-10  # forward.RANK_TOLERANCE: G's smallest pivot^2 relative to its largest


@kernel
def cholesky_into(a, lower):
    """
    Write the Cholesky factor of ``a`` into ``lower``; return False unless a is well posed.

    False when a pivot is not positive or the smallest squared pivot is below
    RANK_TOLERANCE times the largest (numerically rank-deficient).
    """
    n = a.shape[0]
    smallest, largest = np.inf, 0.0
    for j in range(n):
        value = a[j, j]
        for k in range(j):
            value -= lower[j, k] * lower[j, k]
        if not value > 0.0:
            return False
        smallest, largest = min(smallest, value), max(largest, value)
        pivot = np.sqrt(value)
        lower[j, j] = pivot
        for i in range(j + 1, n):
            value = a[i, j]
            for k in range(j):
                value -= lower[i, k] * lower[j, k]
            lower[i, j] = value / pivot
        for i in range(j):
            lower[i, j] = 0.0
    return n == 0 or smallest > RANK_TOLERANCE * largest


@kernel
def forward_substitute(lower, b):
    """Overwrite the columns of ``b`` (n, k) with L^-1 b."""
    n = lower.shape[0]
    for c in range(b.shape[1]):
        for i in range(n):
            value = b[i, c]
            for k in range(i):
                value -= lower[i, k] * b[k, c]
            b[i, c] = value / lower[i, i]


@kernel
def back_substitute(lower, b):
    """Overwrite the columns of ``b`` (n, k) with L^-T b."""
    n = lower.shape[0]
    for c in range(b.shape[1]):
        for i in range(n - 1, -1, -1):
            value = b[i, c]
            for k in range(i + 1, n):
                value -= lower[k, i] * b[k, c]
            b[i, c] = value / lower[i, i]


@kernel
def contact_rows_into(model, q, qd, contacts, count, jac, gamma):
    """
    Fill J (m, n) and gamma (m,) of the contacts at (q, qd) (constraints.py's rows, world axes).

    contacts: ``extra`` past its count (module doc). One forward pass at qdd = 0
    without gravity gives every body's velocity, bias acceleration and pose.
    """
    nb = body_count(model)
    work = np.empty((nb, NKINEMATICS))
    poses = np.empty((nb, NPOSE))
    forward_pass(model, q, qd, None, (0.0, 0.0, 0.0), work)
    world_poses(model, work, poses)
    rows_from_pass(model, work, poses, qd, contacts, count, (0.0, 0.0, 0.0), jac, gamma)


@kernel
def rows_from_pass(model, work, poses, qd, contacts, count, lift, jac, gamma):
    """
    Fill J (m, n) and gamma (m,) from a forward pass at qdd = 0 (``work``) and its ``poses``.

    lift: the root's linear acceleration in that pass (world axes; minus gravity
    after RNEA's pass, the "gravity trick"), subtracted from every point's
    classical acceleration and every frame's spatial linear one (it adds the
    same to each: a uniform translation has no angular part).
    """
    n = qd.shape[0]
    jac[:, :] = 0.0
    gamma[:] = 0.0
    point_jac = np.empty((6, n))
    r = 0
    for c in range(count):
        base = c * NCONTACT
        size, body = int(contacts[base + CT_SIZE]), int(contacts[base + CT_BODY])
        if body >= 0:
            local = (contacts[base + CT_POINT], contacts[base + CT_POINT + 1],
                     contacts[base + CT_POINT + 2])
            point = add(load3(poses, body, POSE_P), mat_vec(load9(poses, body, POSE_R), local))
            jacobian_at_point(model, poses, body, point, point_jac)
            angular, _, classical = bias_acceleration_at(work, poses, body, local)
            classical = sub(classical, lift)
            for i in range(size):
                for j in range(n):
                    jac[r + i, j] = point_jac[i, j]
            if size == 3:
                for i in range(3):
                    gamma[r + i] = classical[i]
            else:   # the spatial acceleration: the classical one minus omega x v
                w0, w1, w2, v0, v1, v2 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
                for j in range(n):
                    v0 += point_jac[0, j] * qd[j]
                    v1 += point_jac[1, j] * qd[j]
                    v2 += point_jac[2, j] * qd[j]
                    w0 += point_jac[3, j] * qd[j]
                    w1 += point_jac[4, j] * qd[j]
                    w2 += point_jac[5, j] * qd[j]
                drift = cross((w0, w1, w2), (v0, v1, v2))
                for i in range(3):
                    gamma[r + i] = classical[i] - drift[i]
                    gamma[r + 3 + i] = angular[i]
        r += size


@kernel
def rows_of(contacts, count):
    """Return m, the contacts' constraint rows."""
    m = 0
    for c in range(count):
        m += int(contacts[c * NCONTACT + CT_SIZE])
    return m


@kernel
def constrained_dynamics(model, q, qd, tau, contacts, count, out):
    """
    Write [qdd; f] (n + m) of M qdd + b = tau + J^T f, J qdd + gamma = 0 into ``out``.

    contacts: ``extra`` past its count (module doc); return the status. RNEA's
    forward pass also gives the contact rows (``rows_from_pass``); M = L^T D L
    along the tree (ltdl.py), W = D^-1/2 L^-T J^T (m, n) row by row (each
    contact's rows on its chain to the root only) and t = D^-1/2 L^-T (tau -
    b), then G = W W^T (J M^-1 = W^T D^-1/2 L^-1 with W stored as rows),
    G f = -gamma - W t and qdd = L^-1 D^-1/2 (t + W^T f).
    """
    nb, n = body_count(model), qd.shape[0]
    m = rows_of(contacts, count)
    work = np.empty((nb, NKINEMATICS))
    poses = np.empty((nb, NPOSE))
    bias = np.empty(n)
    rnea_into(model, q, qd, None, None, work, bias)
    world_poses(model, work, poses)
    jac = np.empty((m, n))   # J, then W = D^-1/2 L^-T J^T row by row
    gamma = np.empty(m)
    g = gravity_of(model)
    rows_from_pass(model, work, poses, qd, contacts, count, (-g[0], -g[1], -g[2]), jac, gamma)
    factor = np.empty((n, n))
    crba_from_transforms(model, work, factor)   # RNEA's transforms, still in work
    parents = np.empty(n, np.int64)
    tree = velocity_parents(model, parents)
    if not ltdl_into(factor, parents):
        return 2
    scale = np.empty(n)   # D^-1/2
    smallest, largest = np.inf, 0.0
    for k in range(n):
        smallest, largest = min(smallest, factor[k, k]), max(largest, factor[k, k])
        scale[k] = 1.0 / np.sqrt(factor[k, k])
    if n > 0 and not smallest > RANK_TOLERANCE * largest:
        return 2
    # t = D^-1/2 L^-T (tau - b), W = D^-1/2 L^-T J^T as rows: G = W W^T, J M^-1 (tau - b) = W t
    t = np.empty(n)
    for i in range(n):
        t[i] = tau[i] - bias[i]
    solve_lt(factor, parents, t)
    for i in range(n):
        t[i] *= scale[i]
    # each row's deepest coordinate: past it the row of W is zero, and contiguous
    # dot products up to the smaller of two rows' (the common chain, and the few zeros
    # of other branches between) vectorize better than walks along the chains
    deepest = np.empty(m, np.int64)
    r = 0
    for c in range(count):
        last = last_coordinate(model, int(contacts[c * NCONTACT + CT_BODY]), tree)
        size = int(contacts[c * NCONTACT + CT_SIZE])
        solve_lt_chain(factor, parents, last, jac[r:r + size])
        for a in range(r, r + size):
            deepest[a] = last
            for k in range(last + 1):
                jac[a, k] *= scale[k]
        r += size
    delassus = np.empty((m, m))
    force = np.empty((m, 1))
    for a in range(m):
        value = 0.0
        for k in range(deepest[a] + 1):
            value += jac[a, k] * t[k]
        force[a, 0] = -gamma[a] - value
        for b in range(a + 1):
            value = 0.0
            for k in range(min(deepest[a], deepest[b]) + 1):
                value += jac[a, k] * jac[b, k]
            delassus[a, b] = value
            delassus[b, a] = value
    lower = np.empty((m, m))
    if not cholesky_into(delassus, lower):
        return 3
    forward_substitute(lower, force)
    back_substitute(lower, force)
    for a in range(m):   # qdd = L^-1 D^-1/2 (t + W^T f)
        for k in range(deepest[a] + 1):
            t[k] += jac[a, k] * force[a, 0]
    for k in range(n):
        t[k] *= scale[k]
    solve_l(factor, parents, t)
    total = 0.0
    for i in range(n):
        out[i] = t[i]
        total += t[i] * t[i]
    for k in range(m):
        out[n + k] = force[k, 0]
        total += force[k, 0] * force[k, 0]
    return 0 if np.isfinite(total) else 4


@state_entry
def constrained_dynamics_entry(model, rows, n, q, qd, tau, extra, out):
    """Entry point of ``constrained_dynamics`` (C pointers, _jit.STATE_ENTRY)."""
    m = model_at(model, rows)
    q, qd, tau = state_at(q, nq_of(m)), state_at(qd, n), state_at(tau, n)
    if bad_positions(m, q) or bad_state(m, qd) or bad_state(m, tau):
        return 1
    count = int(carray(extra, 1)[0])
    contacts = read_only(carray(extra, 1 + count * NCONTACT))[1:]
    return constrained_dynamics(m, q, qd, tau, contacts, count,
                                carray(out, n + rows_of(contacts, count)))


@state_entry
def contact_rows_entry(model, rows, n, q, qd, c, extra, out):
    """
    Entry point of ``contact_rows_into`` (C pointers, _jit.STATE_ENTRY; c unused).

    out (m, n + 1): [J, gamma]; return 0, or 1 if q or qd holds NaN or Inf.
    """
    m = model_at(model, rows)
    q, qd = state_at(q, nq_of(m)), state_at(qd, n)
    if bad_positions(m, q) or bad_state(m, qd):
        return 1
    count = int(carray(extra, 1)[0])
    contacts = read_only(carray(extra, 1 + count * NCONTACT))[1:]
    size = rows_of(contacts, count)
    rows_out = carray(out, (size, n + 1))
    jac = np.empty((size, n))
    gamma = np.empty(size)
    contact_rows_into(m, q, qd, contacts, count, jac, gamma)
    for i in range(size):
        for j in range(n):
            rows_out[i, j] = jac[i, j]
        rows_out[i, n] = gamma[i]
    return 0
