# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
TOPP-RA's two passes over the stages of a discretised path, compiled with numba.

Pham and Pham, "A New Approach to Time-Optimal Path Parameterization Based on
Reachability Analysis", IEEE T-RO 34(3), 2018, alg. 1. Stage i is a set of
rows alpha u_i + beta x_i <= gamma (x = sdot^2, u = sddot, built by
``parameterization``). Backward pass: the controllable sets K_i = {x_i : some
u_i satisfies stage i's rows and x_i + 2 h_i u_i in K_{i+1}}, computed exactly
by eliminating u_i (Fourier-Motzkin: every pair of an upper and a lower bound
on u_i gives a bound on x_i), first by Newton steps on the concave gap between
the tightest upper and lower bound on u_i, which reach the same vertices in a
few O(rows) passes. Forward pass: the greedy u_i = the largest admissible.
"""

from collections import namedtuple

import numba
import numpy as np

# the path's constraint rows lo <= a sddot + b sdot^2 + c <= hi at the 2 count + 1 grid and
# mid points, (2 count + 1, r) each (parameterization.py; Pham and Pham 2018, eq. 3)
PathRows = namedtuple('PathRows', 'a b c lo hi')
# a stage's inequalities alpha u + beta x <= gamma (m,) each, filled by _stage_rows
StageRows = namedtuple('StageRows', 'alpha beta gamma')


@numba.njit(cache=True)
def _stage_rows(i, s, path, k_lo, k_hi, stage):
    """Fill stage i's inequalities (StageRows) from the PathRows ``path``; return their count."""
    alpha, beta, gamma = stage
    h = s[i + 1] - s[i]
    n = 0
    for k in range(3):
        p = 2 * i + k
        for r in range(path.a.shape[1]):
            a = path.a[p, r] + k * h * path.b[p, r]
            b = path.b[p, r]
            c = path.c[p, r]
            if path.hi[p, r] < np.inf:
                alpha[n] = a
                beta[n] = b
                gamma[n] = path.hi[p, r] - c
                n += 1
            if path.lo[p, r] > -np.inf:
                alpha[n] = -a
                beta[n] = -b
                gamma[n] = c - path.lo[p, r]
                n += 1
    if k_hi < np.inf:
        alpha[n] = 2.0 * h
        beta[n] = 1.0
        gamma[n] = k_hi
        n += 1
    alpha[n] = -2.0 * h
    beta[n] = -1.0
    gamma[n] = -k_lo
    n += 1
    return n


@numba.njit(cache=True)
def _x_range(n, alpha, beta, gamma):
    """Return the x >= 0 for which some u meets all n rows, as (lo, hi) (lo > hi: none)."""
    lo = 0.0
    hi = np.inf
    for r in range(n):
        if alpha[r] == 0.0:
            if beta[r] > 0.0:
                hi = min(hi, gamma[r] / beta[r])
            elif beta[r] < 0.0:
                lo = max(lo, gamma[r] / beta[r])
            elif gamma[r] < 0.0:
                return 1.0, 0.0
    for r1 in range(n):
        a1 = alpha[r1]
        if a1 <= 0.0:
            continue
        for r2 in range(n):
            a2 = alpha[r2]
            if a2 >= 0.0:
                continue
            coefficient = a1 * beta[r2] - a2 * beta[r1]
            rhs = a1 * gamma[r2] - a2 * gamma[r1]
            if coefficient > 0.0:
                hi = min(hi, rhs / coefficient)
            elif coefficient < 0.0:
                lo = max(lo, rhs / coefficient)
            elif rhs < 0.0:
                return 1.0, 0.0
    return lo, hi


@numba.njit(cache=True)
def _gap(n, alpha, beta, gamma, x):
    """
    Return g(x) = min upper bound - max lower bound on u at x, its slope and a scale.

    g is concave and piecewise linear in x (a minimum of lines minus a maximum
    of lines); the slope is that of the active lines, a supergradient. g is
    +inf when u is unbounded on one side.
    """
    upper = np.inf
    lower = -np.inf
    upper_slope = 0.0
    lower_slope = 0.0
    for r in range(n):
        a = alpha[r]
        if a > 0.0:
            value = (gamma[r] - beta[r] * x) / a
            if value < upper:
                upper = value
                upper_slope = -beta[r] / a
        elif a < 0.0:
            value = (gamma[r] - beta[r] * x) / a
            if value > lower:
                lower = value
                lower_slope = -beta[r] / a
    if upper == np.inf or lower == -np.inf:
        return np.inf, 0.0, 1.0
    return upper - lower, upper_slope - lower_slope, 1.0 + abs(upper) + abs(lower)


@numba.njit(cache=True)
def _x_range_newton(n, alpha, beta, gamma):
    """
    Return the same (lo, hi) as ``_x_range`` by Newton steps on the concave gap g.

    From the largest x the x-only rows allow, each step goes to the root of the
    active lines; as those lie above g (concavity), the steps never pass the
    largest feasible x and end on it after a few pieces; the same from the
    smallest x upward. Returns (nan, nan) where it cannot start (no finite
    x bound) or does not settle in n steps: the caller then eliminates pairwise.
    """
    lo = 0.0
    hi = np.inf
    for r in range(n):
        if alpha[r] == 0.0:
            if beta[r] > 0.0:
                hi = min(hi, gamma[r] / beta[r])
            elif beta[r] < 0.0:
                lo = max(lo, gamma[r] / beta[r])
            elif gamma[r] < 0.0:
                return 1.0, 0.0
    if lo > hi:
        return 1.0, 0.0
    if hi == np.inf:
        return np.nan, np.nan
    x = hi
    settled = False
    for _ in range(n + 2):
        g, slope, scale = _gap(n, alpha, beta, gamma, x)
        if g >= -1e-13 * scale:
            settled = True
            break
        if slope >= 0.0:
            return 1.0, 0.0
        x = x - g / slope
        if x < lo - 1e-13 * max(1.0, abs(lo)):
            return 1.0, 0.0
    if not settled:
        return np.nan, np.nan
    top = x
    x = lo
    for _ in range(n + 2):
        g, slope, scale = _gap(n, alpha, beta, gamma, x)
        if g >= -1e-13 * scale:
            return x, top
        if slope <= 0.0:
            return 1.0, 0.0
        x = x - g / slope
        if x > top:
            return 1.0, 0.0
    return np.nan, np.nan


@numba.njit(cache=True)
def _u_range(n, alpha, beta, gamma, x):
    """Return the interval (lo, hi) of u that meets all n rows at x."""
    lo = -np.inf
    hi = np.inf
    for r in range(n):
        value = gamma[r] - beta[r] * x
        if alpha[r] > 0.0:
            hi = min(hi, value / alpha[r])
        elif alpha[r] < 0.0:
            lo = max(lo, value / alpha[r])
    return lo, hi


@numba.njit(cache=True)
def solve_profile(s, a_rows, b_rows, c_rows, lo_rows, hi_rows, x_start, x_end):
    """
    Backward (controllable sets) and forward (greedy) passes of TOPP-RA.

    Returns (k_lo, k_hi, x, u, status, stage): status 0 solved; 1 the
    controllable set of ``stage`` is empty; 2 x_start is outside K_0.
    """
    count = s.size - 1
    m = 6 * a_rows.shape[1] + 2
    alpha = np.empty(m)
    beta = np.empty(m)
    gamma = np.empty(m)
    path = PathRows(a_rows, b_rows, c_rows, lo_rows, hi_rows)
    stage = StageRows(alpha, beta, gamma)
    k_lo = np.empty(count + 1)
    k_hi = np.empty(count + 1)
    x = np.zeros(count + 1)
    u = np.zeros(count)
    k_lo[count] = x_end
    k_hi[count] = x_end
    for i in range(count - 1, -1, -1):
        n = _stage_rows(i, s, path, k_lo[i + 1], k_hi[i + 1], stage)
        lo, hi = _x_range_newton(n, alpha, beta, gamma)
        if np.isnan(lo):
            lo, hi = _x_range(n, alpha, beta, gamma)
        if lo > hi:
            if lo - hi <= 1e-12 * max(1.0, abs(lo)):
                lo = hi
            else:
                return k_lo, k_hi, x, u, 1, i
        k_lo[i] = lo
        k_hi[i] = hi
    if x_start > k_hi[0] * (1.0 + 1e-12) or x_start < k_lo[0] * (1.0 - 1e-12) - 1e-300:
        return k_lo, k_hi, x, u, 2, 0
    x[0] = x_start
    for i in range(count):
        h = s[i + 1] - s[i]
        n = _stage_rows(i, s, path, k_lo[i + 1], k_hi[i + 1], stage)
        lo, hi = _u_range(n, alpha, beta, gamma, x[i])
        following = x[i] + 2.0 * h * hi
        following = min(max(following, k_lo[i + 1], 0.0), k_hi[i + 1])
        x[i + 1] = following
        u[i] = (following - x[i]) / (2.0 * h)
    return k_lo, k_hi, x, u, 0, -1
