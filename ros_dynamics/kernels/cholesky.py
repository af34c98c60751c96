# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Dense symmetric positive definite solves by Cholesky's factorisation M = L L^T, compiled.

The mass matrix's solve of the forward dynamics of models with mimic joints
(aba.dense_into), of several right-hand sides (aba.solve_mass_rows) and of
the ground contact's step (ground.py). Golub and Van Loan, "Matrix
Computations", 4th ed., 2013, algorithm 4.2.1 (the outer-product form, row by
row) and sec. 3.1 (forward and back substitution). No pivoting: a pivot not
above the tolerance names a coordinate that moves no inertia of its own.
"""

import numpy as np

from ros_dynamics.runtime.jit import kernel


@kernel
def cholesky_solve(mass, rhs, tolerance, x):
    """Write x = M^-1 rhs by M = L L^T (L in ``mass``); return -1, or the first k with pivot ~0."""
    singular = cholesky_factor(mass, tolerance)
    if singular < 0:
        cholesky_substitute(mass, rhs, x)
    return singular


@kernel
def cholesky_factor(mass, tolerance):
    """
    Overwrite the lower triangle of ``mass`` with L, M = L L^T; return -1 or the first k, pivot ~0.

    The pivot of coordinate k is the inertia it moves that the coordinates
    before it cannot (a Schur complement of M), so a vanishing pivot names a
    joint that moves no inertia of its own.
    """
    n = mass.shape[0]
    for k in range(n):
        pivot = mass[k, k]
        for j in range(k):
            pivot -= mass[k, j] * mass[k, j]
        if not pivot > tolerance:
            return k
        diagonal = np.sqrt(pivot)
        mass[k, k] = diagonal
        for i in range(k + 1, n):
            value = mass[i, k]
            for j in range(k):
                value -= mass[i, j] * mass[k, j]
            mass[i, k] = value / diagonal
    return -1


@kernel
def cholesky_substitute(factor, rhs, x):
    """Write x = (L L^T)^-1 rhs for L the lower triangle of ``factor``; ``x`` may be ``rhs``."""
    n = factor.shape[0]
    for i in range(n):   # L y = rhs
        value = rhs[i]
        for j in range(i):
            value -= factor[i, j] * x[j]
        x[i] = value / factor[i, i]
    for i in range(n - 1, -1, -1):   # L^T x = y
        value = x[i]
        for j in range(i + 1, n):
            value -= factor[j, i] * x[j]
        x[i] = value / factor[i, i]
