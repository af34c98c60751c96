# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Loop closures of a closed chain, compiled: phi, Jc, Jcdot qd, the KKT forward dynamics.

The one implementation of the closed-chain law: the simulator's
closed-chain step (integrators.py) and ``ClosedChain`` (closed_chain.py,
after Ghosal's NPTEL notes, module 6; entries ``closure_terms`` and
``kkt_system``) call it, test/closed_chain_oracle.py is its numpy twin.
For each closure, frames a and b (each fixed in a body) must coincide
along its rows of [position; orientation] in root axes. Position rows:
phi = p_a - p_b, rows of J_a - J_b (Jacobians at the frame origins, world
axes) and of the classical accelerations at qdd = 0;
orientation rows: phi the rotation vector of R_a R_b^T, rows w_a - w_b and
alpha_a - alpha_b. The accelerations solve the KKT system with Baumgarte's
stabilisation (Baumgarte 1972; alpha, beta in 1/s)

    [M  -Jc^T] [qdd   ]   [tau - b                                   ]
    [Jc   0  ] [lambda] = [-Jcdot qd - 2 alpha Jc qd - beta^2 phi    ]

by Gaussian elimination with partial pivoting (Golub and Van Loan,
"Matrix Computations", alg. 3.4.1, as LAPACK's dgesv that numpy uses).

The chain's data follow the simulator's block (integrators.block_size) as
one float array: a header (``K_*``), the passive-joint mask (n), the closure
rows (``R_*`` columns) and scratch space (``chain_size``).
"""

import math

from numba import types
import numpy as np
from ros_dynamics.kernels.crba import crba_into
from ros_dynamics.kernels.jacobian import bias_acceleration_at, jacobian_at_point, link_pose
from ros_dynamics.kernels.kinematics import forward_pass, world_poses
from ros_dynamics.kernels.rnea import rnea_into
from ros_dynamics.multibody.joints import body_count
from ros_dynamics.multibody.layouts import (CL_BODY_A, CL_BODY_B, CL_FRAME_A, CL_FRAME_B, CL_ROWS,
                                            K_ALPHA, K_BETA, K_CLOSURES, K_LOCK_SIGN,
                                            K_LOCK_TOLERANCE, K_RANK_TOLERANCE, K_ROWS, NABA,
                                            NCLOSURE, NCLOSURE_HEADER, NKINEMATICS, NPOSE, POSE_P)
from ros_dynamics.multibody.spatial import load3, mat_mat, mat_t
from ros_dynamics.runtime.jit import IN1, IN2, kernel, OUT1, STATUS
from ros_dynamics.runtime.views import borrowed

ZERO3 = (0.0, 0.0, 0.0)


@kernel
def chain_size(n, closures, m):
    """Return the length of a chain's data: header, mask, closure rows, scratch (chain_parts)."""
    return (NCLOSURE_HEADER + n + closures * NCLOSURE + (n + m) * (n + m) + (n + m) + m * n
            + 2 * m + 12 * n)


@kernel
def chain_parts(block, start, n):
    """
    Return the views of the chain data at block[start:]: the tuple the kernels take.

    (header, passive (n), closure rows (closures, NCLOSURE), KKT matrix (n + m,
    n + m), KKT right-hand side and solution (n + m), Jc (m, n), phi (m),
    Jcdot qd (m), the two frames' Jacobians (6, n) each).
    """
    header = block[start:start + NCLOSURE_HEADER]
    count, m = int(header[K_CLOSURES]), int(header[K_ROWS])
    start += NCLOSURE_HEADER
    passive = block[start:start + n]
    start += n
    rows = block[start:start + count * NCLOSURE].reshape((count, NCLOSURE))
    start += count * NCLOSURE
    size = n + m
    kkt = block[start:start + size * size].reshape((size, size))
    start += size * size
    solution = block[start:start + size]
    start += size
    jac = block[start:start + m * n].reshape((m, n))
    start += m * n
    phi = block[start:start + m]
    start += m
    jbias = block[start:start + m]
    start += m
    jac_a = block[start:start + 6 * n].reshape((6, n))
    start += 6 * n
    jac_b = block[start:start + 6 * n].reshape((6, n))
    return header, passive, rows, kkt, solution, jac, phi, jbias, jac_a, jac_b


@kernel
def rotation_vector(rot_a, rot_b):
    """
    Return the rotation vector (axis * angle, rad) of R_a R_b^T, as control.rotation_error.

    The log map of SO(3): angle = acos((tr - 1) / 2), vector = angle / (2 sin angle)
    times the skew part; the skew part / 2 below 1e-6 rad, the symmetric part near pi.
    """
    d = mat_mat(rot_a, mat_t(rot_b))
    cos_angle = min(max((d[0] + d[4] + d[8] - 1.0) / 2.0, -1.0), 1.0)
    angle = math.acos(cos_angle)
    skew = (d[7] - d[5], d[2] - d[6], d[3] - d[1])
    if angle < 1e-6:
        return 0.5 * skew[0], 0.5 * skew[1], 0.5 * skew[2]
    if math.pi - angle < 1e-6:
        k = 0
        for j in (1, 2):
            if d[4 * j] > d[4 * k]:
                k = j
        scale = math.sqrt(2.0 * (1.0 + d[4 * k]))
        axis = [d[k] / scale, d[3 + k] / scale, d[6 + k] / scale]
        axis[k] += 1.0 / scale
        norm = math.sqrt(axis[0] ** 2 + axis[1] ** 2 + axis[2] ** 2)
        return angle * axis[0] / norm, angle * axis[1] / norm, angle * axis[2] / norm
    factor = angle / (2.0 * math.sin(angle))
    return factor * skew[0], factor * skew[1], factor * skew[2]


@kernel
def frame_terms(model, work, poses, rows, c, body_column, frame_column, jac):
    """
    Return (R, p, angular, classical) of a closure frame and write its Jacobian into ``jac``.

    The frame's rotation and origin (world), and its angular and classical
    linear acceleration at qdd = 0 (world axes; zero for a frame on the fixed
    root); ``jac`` (6, n) its world-aligned Jacobian at the frame origin.
    """
    body = int(rows[c, body_column])
    frame = rows[c:c + 1, frame_column:frame_column + NPOSE]
    rot, point = link_pose(poses, body, frame)
    if body < 0:
        jac[:, :] = 0.0
        return rot, point, ZERO3, ZERO3
    jacobian_at_point(model, poses, body, point, jac)
    angular, _, classical = bias_acceleration_at(work, poses, body, load3(frame, 0, POSE_P))
    return rot, point, angular, classical


@kernel
def closure_terms_into(model, q, qd, chain, work, poses):
    """
    Fill the chain's phi (m), Jc (m, n) and Jcdot qd (m) at (q, qd) (ClosedChain._terms).

    work (nb, NKINEMATICS) and poses (nb, NPOSE) are overwritten by a forward
    pass at qdd = 0 without gravity and its world poses.
    """
    header, rows, jac, phi, jbias, jac_a, jac_b = (chain[0], chain[2], chain[5], chain[6],
                                                   chain[7], chain[8], chain[9])
    forward_pass(model, q, qd, None, ZERO3, work)
    world_poses(model, work, poses)
    r = 0
    for c in range(int(header[K_CLOSURES])):
        rot_a, p_a, ang_a, acc_a = frame_terms(model, work, poses, rows, c, CL_BODY_A, CL_FRAME_A,
                                               jac_a)
        rot_b, p_b, ang_b, acc_b = frame_terms(model, work, poses, rows, c, CL_BODY_B, CL_FRAME_B,
                                               jac_b)
        turn = ZERO3
        if (rows[c, CL_ROWS + 3] != 0.0 or rows[c, CL_ROWS + 4] != 0.0
                or rows[c, CL_ROWS + 5] != 0.0):
            turn = rotation_vector(rot_a, rot_b)
        for k in range(6):
            if rows[c, CL_ROWS + k] == 0.0:
                continue
            if k < 3:
                phi[r] = p_a[k] - p_b[k]
                jbias[r] = acc_a[k] - acc_b[k]
            else:
                phi[r] = turn[k - 3]
                jbias[r] = ang_a[k - 3] - ang_b[k - 3]
            for j in range(jac.shape[1]):
                jac[r, j] = jac_a[k, j] - jac_b[k, j]
            r += 1


@kernel
def lu_solve(a, b):
    """
    Overwrite b with the solution of a x = b (a overwritten by its LU factors); return -1 or k.

    Gaussian elimination with partial pivoting (Golub and Van Loan alg. 3.4.1);
    k is the first column whose pivot is exactly zero (a singular, as LAPACK's
    dgesv reports it).
    """
    n = a.shape[0]
    for k in range(n):
        pivot = k
        big = abs(a[k, k])
        for i in range(k + 1, n):
            if abs(a[i, k]) > big:
                big, pivot = abs(a[i, k]), i
        if big == 0.0:
            return k
        if pivot != k:
            for j in range(n):
                a[k, j], a[pivot, j] = a[pivot, j], a[k, j]
            b[k], b[pivot] = b[pivot], b[k]
        for i in range(k + 1, n):
            factor = a[i, k] / a[k, k]
            if factor != 0.0:
                for j in range(k + 1, n):
                    a[i, j] -= factor * a[k, j]
                b[i] -= factor * b[k]
    for i in range(n - 1, -1, -1):
        value = b[i]
        for j in range(i + 1, n):
            value -= a[i, j] * b[j]
        b[i] = value / a[i, i]
    return -1


@kernel
def kkt_acceleration_into(model, q, qd, tau, fext, chain, work, mass, kinematic_work, poses,
                          qdd):
    """
    Write qdd of the closed chain into ``qdd`` (lambda into the chain's solution[n:]).

    The KKT system of the module docstring (kkt_system_into), solved by
    lu_solve. Return -1, or the column of the KKT matrix whose pivot
    vanished (singular).
    """
    n = qd.shape[0]
    kkt, solution = chain[3], chain[4]
    kkt_system_into(model, q, qd, tau, fext, chain, work, mass, kinematic_work, poses, qdd)
    singular = lu_solve(kkt, solution)
    for i in range(n):
        qdd[i] = solution[i]
    return singular


@kernel
def kkt_system_into(model, q, qd, tau, fext, chain, work, mass, kinematic_work, poses, bias):
    """
    Fill the chain's KKT matrix and right-hand side (solution) at (q, qd) under tau and fext.

    M by CRBA, b = ID(q, qd, 0, fext) by RNEA (into ``bias`` (n,)), the
    closures' terms (closure_terms_into), then [M -Jc^T; Jc 0] and
    [tau - b; -Jcdot qd - 2 alpha Jc qd - beta^2 phi] (ClosedChain.forward_dynamics).
    """
    n = qd.shape[0]
    header, kkt, solution, jac, phi, jbias = (chain[0], chain[3], chain[4], chain[5], chain[6],
                                              chain[7])
    m = int(header[K_ROWS])
    alpha, beta = header[K_ALPHA], header[K_BETA]
    rnea_into(model, q, qd, None, fext, work, bias)
    crba_into(model, q, work, mass)
    closure_terms_into(model, q, qd, chain, kinematic_work, poses)
    for i in range(n):
        for j in range(n):
            kkt[i, j] = mass[i, j]
        solution[i] = tau[i] - bias[i]
    for r in range(m):
        rate = 0.0
        for j in range(n):
            kkt[j, n + r] = -jac[r, j]
            kkt[n + r, j] = jac[r, j]
            rate += jac[r, j] * qd[j]
        for s in range(m):
            kkt[n + r, n + s] = 0.0
        solution[n + r] = -jbias[r] - 2.0 * alpha * rate - beta ** 2 * phi[r]


@kernel
def scratch_size(n, nb):
    """Return the length of the scratch array of closure_terms and kkt_system (nb bodies)."""
    return nb * (NABA + NKINEMATICS + 12) + n * n + n


@kernel(signatures=[STATUS(IN2, IN1, IN1, OUT1, OUT1)])
def closure_terms(model, q, qd, data, scratch):
    """
    Fill the chain data's phi, Jc and Jcdot qd (chain_parts) at q (nq,), qd (n,); return 0.

    ``data``: a chain's data (chain_size, ClosedChain.compiled_data);
    ``scratch`` (scratch_size) is overwritten. ClosedChain.residual, jacobian, bias.
    """
    model, q, qd, data, scratch = borrowed((model, q, qd, data, scratch))
    nb = body_count(model)
    start = nb * NABA
    work = scratch[start:start + nb * NKINEMATICS].reshape((nb, NKINEMATICS))
    start += nb * NKINEMATICS
    poses = scratch[start:start + nb * 12].reshape((nb, 12))
    closure_terms_into(model, q, qd, chain_parts(data, 0, qd.shape[0]), work, poses)
    return 0


@kernel(signatures=[STATUS(IN2, IN1, IN1, IN1, IN2, OUT1, OUT1, types.int64)])
def kkt_system(model, q, qd, tau, fext, data, scratch, solve):
    """
    Fill the chain data's KKT system at (q, qd) under tau (n,) and body forces fext (nb, 6).

    With ``solve`` 1 also solve it in place (lu_solve: the chain's solution
    holds [qdd; lambda], the KKT matrix its LU factors) and return -1 or the
    singular column, as the simulator's step; with 0 return -1 with the
    matrix and right-hand side as assembled. ClosedChain.forward_dynamics.
    """
    (model, q, qd, tau, fext, data, scratch, solve) = borrowed(
        (model, q, qd, tau, fext, data, scratch, solve))
    n, nb = qd.shape[0], body_count(model)
    chain = chain_parts(data, 0, n)
    work = scratch[:nb * NABA].reshape((nb, NABA))
    start = nb * NABA
    kinematic_work = scratch[start:start + nb * NKINEMATICS].reshape((nb, NKINEMATICS))
    start += nb * NKINEMATICS
    poses = scratch[start:start + nb * 12].reshape((nb, 12))
    start += nb * 12
    mass = scratch[start:start + n * n].reshape((n, n))
    bias = scratch[start + n * n:start + n * n + n]
    if solve:
        return kkt_acceleration_into(model, q, qd, tau, fext, chain, work, mass, kinematic_work,
                                     poses, bias)
    kkt_system_into(model, q, qd, tau, fext, chain, work, mass, kinematic_work, poses, bias)
    return -1


@kernel
def relative_smallest_singular_value(matrix):
    """Return sigma_min / sigma_max of a (m, k) matrix, m <= k (LAPACK's SVD, as numpy's)."""
    values = np.linalg.svd(matrix)[1]
    return values[-1] / values[0]


@kernel
def singular_configuration(model, q, qd, chain, work, poses):
    """
    Return True if ClosedChain.singularity_margin(q, lock sign) <= 0 (writes the chain's Jc).

    The margin is the smaller of sigma_min / sigma_max of Jc minus the rank
    tolerance and of Jc's passive block B minus the lock tolerance (signed,
    when B is square, by the lock sign times sign(det B)). The SVDs cost more
    than the rest of a step, so each ratio is first bounded from the
    eigenvalues of B B^T (eigenvalue error ~ m eps lambda_max, Golub and Van
    Loan sec. 8.1): with J = [B A] (columns permuted), sigma_min(J)^2 >=
    lambda_min(B B^T) and sigma_max(J)^2 <= lambda_max(B B^T) + |A|_F^2. Only
    a squared ratio within 4x of its squared tolerance is decided by the SVDs,
    so the answer is the SVD test's.
    """
    header, passive, jac = chain[0], chain[1], chain[5]
    closure_terms_into(model, q, qd, chain, work, poses)
    m, n = jac.shape
    count = 0
    for j in range(n):
        if passive[j] != 0.0:
            count += 1
    rank_tolerance, lock_tolerance = header[K_RANK_TOLERANCE], header[K_LOCK_TOLERANCE]
    if not (count < n and count >= m):   # no passive block to test: Jc alone
        eigenvalues = np.linalg.eigvalsh(jac @ jac.T)
        if max(eigenvalues[0], 0.0) > 4.0 * rank_tolerance ** 2 * eigenvalues[-1]:
            return False
        return relative_smallest_singular_value(jac.copy()) - rank_tolerance <= 0.0
    block = np.empty((m, count))
    rest = 0.0   # |A|_F^2, the actuated columns
    c = 0
    for j in range(n):
        if passive[j] != 0.0:
            for r in range(m):
                block[r, c] = jac[r, j]
            c += 1
        else:
            for r in range(m):
                rest += jac[r, j] ** 2
    if m == count and header[K_LOCK_SIGN] * np.sign(np.linalg.det(block)) <= 0.0:
        return True   # the signed ratio is <= 0
    eigenvalues = np.linalg.eigvalsh(block @ block.T)
    low, high = max(eigenvalues[0], 0.0), eigenvalues[-1]
    if not low > 4.0 * lock_tolerance ** 2 * high:
        if relative_smallest_singular_value(block) - lock_tolerance <= 0.0:
            return True
    if low > 4.0 * rank_tolerance ** 2 * (high + rest):
        return False
    return relative_smallest_singular_value(jac.copy()) - rank_tolerance <= 0.0
