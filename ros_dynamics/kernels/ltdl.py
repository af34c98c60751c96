# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Sparse factorization of the joint-space mass matrix along the kinematic tree: M = L^T D L.

Featherstone, "Rigid Body Dynamics Algorithms" (2008), sec. 6.5 ("Sparse
factorization", tables 6.3 and 6.4) and Featherstone, "Efficient factorization of
the joint-space inertia matrix for branched kinematic trees", IJRR 24(6), 2005:
number the velocity coordinates so that each one's parent lambda(k) < k (the
previous column of its joint, or the last coordinate of the parent body's
joint; -1 at the root). Then M_ij is zero unless i and j lie on one chain
to the root, and M = L^T D L with L unit lower triangular and D diagonal has
no fill-in: L_ij (j < i) is nonzero only for j an ancestor of i. Factoring
costs sum_k depth(k)^2 / 2 instead of n^3 / 3 and a solve 2 nnz(L) instead
of 2 n^2 (Pinocchio's ``cholesky::decompose`` and ``cholesky::solve`` do the
same, with M = U D U^T).

Storage: the factor overwrites the lower triangle of M in place: D_k at [k, k],
L_ij at [i, j] for j an ancestor of i (j < i). Entries off the tree's pattern
are neither read nor written. A model whose velocity coordinates do not form
such a tree (mimic joints share their leader's coordinate: M = G^T M_full G
fills in) gets the chain lambda(k) = k - 1 from ``velocity_parents``, with
which the same code is a dense L^T D L factorization.
"""

import numpy as np

from ros_dynamics.multibody.joints import body_count, joint_nv, nv_of, parent_of, velocity_index
from ros_dynamics.runtime.jit import kernel


@kernel
def velocity_parents(model, parents):
    """
    Fill ``parents`` (nv,) int64 with lambda, each velocity coordinate's parent (-1: the root).

    Return True if the coordinates form the model's tree (each joint owns its
    own consecutive coordinates, numbered after its parent's), False after
    filling the chain lambda(k) = k - 1 instead (mimic joints: the dense
    factorization).
    """
    n = nv_of(model)
    following = 0   # the next coordinate a joint must start at
    for i in range(body_count(model)):
        first, count, parent = velocity_index(model, i), joint_nv(model, i), parent_of(model, i)
        if first != following or count < 1 or parent >= i:
            following = -1
            break
        parents[first] = -1 if parent < 0 else velocity_index(model, parent) + joint_nv(
            model, parent) - 1
        for a in range(1, count):
            parents[first + a] = first + a - 1
        following += count
    if following == n:
        return True
    for k in range(n):
        parents[k] = k - 1
    return False


@kernel
def ltdl_into(mass, parents):
    """
    Overwrite the lower triangle of ``mass`` (n, n) with D and L of M = L^T D L (module doc).

    Featherstone 2008, table 6.3 (LTDL), from the leaves to the root. Return
    False, leaving ``mass`` partly factored, when a pivot D_k is not
    positive (M not positive definite, or NaN).
    """
    for k in range(mass.shape[0] - 1, -1, -1):
        pivot = mass[k, k]
        if not pivot > 0.0:
            return False
        inverse = 1.0 / pivot
        i = parents[k]
        while i >= 0:
            a = mass[k, i] * inverse
            j = i
            while j >= 0:
                mass[i, j] -= a * mass[k, j]
                j = parents[j]
            mass[k, i] = a
            i = parents[i]
    return True


@kernel
def solve_lt_chain(factor, parents, start, rows):
    """
    Overwrite each row x of ``rows`` (k, n) with L^-T x; x is zero off the chain of ``start``.

    Only the chain start, lambda(start), ... to the root is visited (table
    6.4's back substitution restricted to it, all k rows at once: a
    contact's 3 or 6 Jacobian rows share their chain): the results are zero
    outside it too.
    """
    i = start
    while i >= 0:
        j = parents[i]
        while j >= 0:
            value = factor[i, j]
            for a in range(rows.shape[0]):
                rows[a, j] -= value * rows[a, i]
            j = parents[j]
        i = parents[i]


@kernel
def solve_lt(factor, parents, x):
    """Overwrite x (n,) with L^-T x (from the leaves to the root)."""
    for i in range(x.shape[0] - 1, -1, -1):
        value = x[i]
        if value != 0.0:
            j = parents[i]
            while j >= 0:
                x[j] -= factor[i, j] * value
                j = parents[j]


@kernel
def solve_l(factor, parents, x):
    """Overwrite x (n,) with L^-1 x (from the root to the leaves)."""
    for i in range(x.shape[0]):
        value = x[i]
        j = parents[i]
        while j >= 0:
            value -= factor[i, j] * x[j]
            j = parents[j]
        x[i] = value


@kernel
def solve_mass(factor, parents, x):
    """Overwrite x (n,) with M^-1 x = L^-1 D^-1 L^-T x from the factor of ``ltdl_into``."""
    solve_lt(factor, parents, x)
    for i in range(x.shape[0]):
        x[i] /= factor[i, i]
    solve_l(factor, parents, x)


@kernel
def last_coordinate(model, body, tree):
    """
    Return the deepest velocity coordinate whose chain holds every coordinate moving ``body``.

    The last coordinate of its joint on a tree (``velocity_parents`` True), nv - 1
    otherwise (the chain), -1 for the fixed root (body -1).
    """
    if body < 0:
        return -1
    if not tree:
        return nv_of(model) - 1
    return velocity_index(model, body) + joint_nv(model, body) - 1


def factor_mass_matrix(model: np.ndarray, mass: np.ndarray) -> tuple:
    """
    Return (factor, parents, tree) of M (n, n) for the packed ``model`` (tests, examples).

    factor: a copy of M whose lower triangle holds D and L (module doc); raises
    ValueError naming ``mass`` if M is not positive definite.
    """
    parents = np.empty(nv_of(model), np.int64)
    tree = velocity_parents(model, parents)
    factor = np.array(mass, dtype=np.float64, order='C')
    if not ltdl_into(factor, parents):
        raise ValueError('mass: not positive definite (a pivot of its L^T D L factor is not > 0)')
    return factor, parents, tree
