# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Joint-space mass matrix by the composite rigid-body algorithm (CRBA).

Featherstone 2008, table 6.2: composite inertias I^c_i = I_i + sum of the
children's X^T I^c X, then H_ii = S_i^T I^c_i S_i and, walking up the
ancestors j of i with F = X^* F, H_ij = H_ji = S_j^T F. With mimic joints the
result is G^T H_full G. Armature (reflected rotor inertia) adds diag(I_a)
(Featherstone 2008, sec. 7.2).
"""

from numba import carray
import numpy as np

from ros_dynamics.kernels.kinematics import transforms, W_POS, W_ROT
from ros_dynamics.multibody.joints import (armature_of, bad_positions, batch_of_one, body_count,
                                           joint_nv, model_at, nq_of, parent_of, rigid_inertia,
                                           subspace_column, velocity_index)
from ros_dynamics.multibody.layouts import MIMIC_GAIN
from ros_dynamics.multibody.spatial import (add, dot, force_to_parent, load3, load6, load9,
                                            rigid_inertia_times, rigid_inertia_to_parent, store3,
                                            store6)
from ros_dynamics.runtime.jit import IN2, kernel, OUT3, state_entry, STATUS

# workspace columns beyond the transforms of kinematics.transforms
W_MASS = 12
W_H = 13
W_IBAR = 16
NWORK = 22


@kernel(inline=True)
def composite_inertias(model, work):
    """Fill work[:, W_MASS:] with each body's composite (subtree) inertia, body coordinates."""
    nb = body_count(model)
    for i in range(nb):
        m, h, ibar = rigid_inertia(model, i)
        work[i, W_MASS] = m
        store3(work, i, W_H, h)
        store6(work, i, W_IBAR, ibar)
    for i in range(nb - 1, -1, -1):
        parent = parent_of(model, i)
        if parent >= 0:
            m = work[i, W_MASS]
            h, ibar = rigid_inertia_to_parent(load9(work, i, W_ROT), load3(work, i, W_POS),
                                              m, load3(work, i, W_H), load6(work, i, W_IBAR))
            work[parent, W_MASS] += m
            store3(work, parent, W_H, add(load3(work, parent, W_H), h))
            pi = load6(work, parent, W_IBAR)
            store6(work, parent, W_IBAR, (pi[0] + ibar[0], pi[1] + ibar[1], pi[2] + ibar[2],
                                          pi[3] + ibar[3], pi[4] + ibar[4], pi[5] + ibar[5]))


@kernel(inline=True)
def crba_into(model, q, work, mass):
    """
    Write the (nv, nv) mass matrix H(q) into ``mass``.

    H_ij = S_i^T X Ic_j S_j for j in the subtree of i (Featherstone 2008,
    table 6.2), one entry per pair of motion-subspace columns; a mimic joint
    adds G_i G_j times its entries to its leader's (H = G^T H_full G), and
    armature I_a to the diagonal.
    """
    transforms(model, q, work)
    crba_from_transforms(model, work, mass)


@kernel(inline=True)
def crba_from_transforms(model, work, mass):
    """``crba_into`` on the body transforms already in ``work`` (W_ROT, W_POS: a pass's)."""
    composite_inertias(model, work)
    mass[:, :] = 0.0
    for i in range(body_count(model)):
        ki = velocity_index(model, i)
        gi = model[i, MIMIC_GAIN]
        if armature_of(model, i) != 0.0:   # a one-dof joint's
            mass[ki, ki] += gi * gi * armature_of(model, i)
        for a in range(joint_nv(model, i)):
            sw, sv = subspace_column(model, i, a)
            n, f = rigid_inertia_times(work[i, W_MASS], load3(work, i, W_H),
                                       load6(work, i, W_IBAR), sw, sv)
            for b in range(joint_nv(model, i)):
                tw, tv = subspace_column(model, i, b)
                mass[ki + b, ki + a] += gi * gi * (dot(tw, n) + dot(tv, f))
            j = i
            while parent_of(model, j) >= 0:
                n, f = force_to_parent(load9(work, j, W_ROT), load3(work, j, W_POS), n, f)
                j = parent_of(model, j)
                kj = velocity_index(model, j)
                gain = gi * model[j, MIMIC_GAIN]
                for b in range(joint_nv(model, j)):
                    tw, tv = subspace_column(model, j, b)
                    value = gain * (dot(tw, n) + dot(tv, f))
                    mass[ki + a, kj + b] += value
                    mass[kj + b, ki + a] += value


@state_entry
def mass_matrix_entry(model, rows, n, q, b, c, extra, mass):
    """
    Write H(q) (n, n) for one state into mass (C pointers, _jit.STATE_ENTRY; b, c, extra unused).

    The batch kernel on a batch of one, after checking q: return 0, or 1 if it
    holds NaN or Inf.
    """
    m = model_at(model, rows)
    q = batch_of_one(q, nq_of(m))
    if bad_positions(m, q[0]):
        return 1
    return mass_matrix_batch(m, q, carray(mass, (1, n, n)))


@kernel(signatures=[STATUS(IN2, IN2, OUT3)])
def mass_matrix_batch(model, q, mass):
    """Write H[N, nv, nv] for the N validated rows of q; return 0 (serial, as RNEA's batch)."""
    work = np.empty((body_count(model), NWORK))
    for s in range(q.shape[0]):
        crba_into(model, q[s], work, mass[s])
    return 0
