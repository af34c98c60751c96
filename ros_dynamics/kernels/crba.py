# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Joint-space mass matrix by the composite rigid-body algorithm (CRBA).

Featherstone 2008, table 6.2: composite inertias I^c_i = I_i + sum of the
children's X^T I^c X, then H_ii = S_i^T I^c_i S_i and, walking up the
ancestors j of i with F = X^* F, H_ij = H_ji = S_j^T F. With mimic joints the
result is G^T H_full G. Armature (reflected rotor inertia) adds diag(I_a)
(Featherstone 2008, sec. 7.2).

Models whose subtrees own contiguous coordinate ranges (joints.contiguous_subtrees:
depth-first bodies, no mimic follower; every URDF model without mimic tags)
take the same algorithm written in one reference frame per tree (the frame
of its root body), as Pinocchio 3's ``crba`` does in its WORLD convention
(pinocchio/algorithm/crba.hxx; the library: Carpentier et al., IEEE/SICE
SII 2019), with the joint-aligned body frames of ABA: a forward pass stores each
body's pose X_0i in that frame and its inertia there, Y_i = X_0i^* I_i X_0i;
backwards, Y_i is complete once the children's are added (a plain sum, all
in one frame), F_a = Y_i J_a for each column J_a = X_0i^-1 S_ia of the body's
joint, and row a of H over the subtree's coordinates is J_a . F_c, dot
products with the columns F_c already stored for the subtree (no spatial
transform per ancestor). The root body's own frame keeps the numbers at the
scale of the robot wherever its base is.
"""

from numba import carray
import numpy as np

from ros_dynamics.kernels.kinematics import transforms
from ros_dynamics.multibody.joints import (aligned_subspace_column, aligned_transform, armature_of,
                                           bad_positions, batch_of_one, body_count,
                                           joint_motion_after, joint_nv, model_at, nq_of, nv_of,
                                           parent_of, rigid_inertia, subspace_column,
                                           velocity_index)
from ros_dynamics.multibody.layouts import (ALIGN_FIRST_MOMENT, ALIGN_IBAR, ALIGN_TREE_P,
                                            ALIGN_TREE_R, CRBA_COUNT, CRBA_H, CRBA_IBAR,
                                            CRBA_MASS, H_SUBTREES, MASS, MIMIC_GAIN, NCRBA, W_POS,
                                            W_ROT)
from ros_dynamics.multibody.spatial import (add, dot, force_to_parent, load3, load6, load9,
                                            mat_mat, mat_vec, motion_to_parent,
                                            rigid_inertia_times, rigid_inertia_to_parent, store3,
                                            store6, store9)
from ros_dynamics.runtime.jit import IN2, kernel, OUT3, state_entry, STATUS
from ros_dynamics.runtime.views import borrowed

IDENTITY = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
ZERO3 = (0.0, 0.0, 0.0)


@kernel(inline=True)
def add_inertia(work, row, m, h, ibar):
    """Add a rigid-body inertia (m, h, ibar) to row's composite (CRBA_MASS, CRBA_H, CRBA_IBAR)."""
    work[row, CRBA_MASS] += m
    store3(work, row, CRBA_H, add(load3(work, row, CRBA_H), h))
    pi = load6(work, row, CRBA_IBAR)
    store6(work, row, CRBA_IBAR, (pi[0] + ibar[0], pi[1] + ibar[1], pi[2] + ibar[2],
                                  pi[3] + ibar[3], pi[4] + ibar[4], pi[5] + ibar[5]))


@kernel(inline=True)
def composite_inertias(model, work):
    """Fill work[:, CRBA_MASS:] with each body's composite (subtree) inertia, body coordinates."""
    nb = body_count(model)
    for i in range(nb):
        m, h, ibar = rigid_inertia(model, i)
        work[i, CRBA_MASS] = m
        store3(work, i, CRBA_H, h)
        store6(work, i, CRBA_IBAR, ibar)
    for i in range(nb - 1, -1, -1):
        parent = parent_of(model, i)
        if parent >= 0:
            m = work[i, CRBA_MASS]
            h, ibar = rigid_inertia_to_parent(load9(work, i, W_ROT), load3(work, i, W_POS),
                                              m, load3(work, i, CRBA_H), load6(work, i, CRBA_IBAR))
            add_inertia(work, parent, m, h, ibar)


@kernel
def crba_into(model, q, work, mass):
    """
    Write the (nv, nv) mass matrix H(q) into ``mass``; ``work`` (nb, >= NCRBA) is overwritten.

    H_ij = S_i^T X Ic_j S_j for j in the subtree of i (Featherstone 2008,
    table 6.2), one entry per pair of motion-subspace columns; a mimic joint
    adds G_i G_j times its entries to its leader's (H = G^T H_full G), and
    armature I_a to the diagonal.
    """
    if subtrees_contiguous(model):
        reference_crba(model, q, work, np.empty((6, mass.shape[0])), mass)
    else:
        transforms(model, q, work)
        ancestor_crba(model, work, mass)


@kernel
def crba_from_transforms(model, work, mass):
    """``crba_into`` on the body transforms already in ``work`` (W_ROT, W_POS: a pass's)."""
    if subtrees_contiguous(model):
        reference_crba(model, None, work, np.empty((6, mass.shape[0])), mass)
    else:
        ancestor_crba(model, work, mass)


@kernel
def subtrees_contiguous(model):
    """Return True if every subtree's velocity coordinates are one range (H_SUBTREES)."""
    return model[body_count(model), H_SUBTREES] != 0.0


@kernel(inline=True)
def reference_poses(model, q, work):
    """
    Write each body's pose and inertia in its tree's reference frame into ``work``.

    The reference frame of a tree is its root body's frame: a root body's pose
    is the identity, a child's X_0i = X_0p X_pi. With q, X_pi is the joint
    transform at q between the joint-aligned frames of ABA's fast path
    (joints.aligned_columns: a one-dof joint turns or slides along z, a
    rotation that mixes two columns); with q None, the body-frame transform
    already in work (W_ROT, W_POS, which the pose overwrites). The inertia
    Y_i = X_0i^* I_i X_0i (m, h, ibar about the reference origin;
    Featherstone 2008, eq. 2.66) goes to CRBA_MASS, CRBA_H, CRBA_IBAR, the joint's
    number of coordinates to CRBA_COUNT.
    """
    for i in range(body_count(model)):
        parent = parent_of(model, i)
        if q is None:
            m, h, ibar = rigid_inertia(model, i)
        else:
            m, h, ibar = model[i, MASS], load3(model, i, ALIGN_FIRST_MOMENT), load6(
                model, i, ALIGN_IBAR)
        if parent < 0:
            rot, r = IDENTITY, ZERO3
        else:
            if q is None:
                local, offset = load9(work, i, W_ROT), load3(work, i, W_POS)
            elif joint_nv(model, i) == 1:
                local, offset = aligned_transform(model, i, q)
            else:
                local, offset = joint_motion_after(model, i, q, load9(model, i, ALIGN_TREE_R),
                                                   load3(model, i, ALIGN_TREE_P))
            parent_rot = load9(work, parent, W_ROT)
            r = add(load3(work, parent, W_POS), mat_vec(parent_rot, offset))
            rot = mat_mat(parent_rot, local)
            h, ibar = rigid_inertia_to_parent(rot, r, m, h, ibar)
        store9(work, i, W_ROT, rot)
        store3(work, i, W_POS, r)
        work[i, CRBA_MASS] = m
        store3(work, i, CRBA_H, h)
        store6(work, i, CRBA_IBAR, ibar)
        work[i, CRBA_COUNT] = joint_nv(model, i)


@kernel(inline=True)
def reference_crba(model, q, work, forces, mass):
    """
    Write H(q) into ``mass`` in the reference frames (module doc); models with contiguous_subtrees.

    ``forces`` (6, nv) holds F_c = Y_i J_c (moment, force) for each
    coordinate c of body i, in the reference frame. Body i's coordinates
    k .. k + nv_i - 1 and its subtree's k .. stop - 1 (depth-first): row
    k + a of H is J_a . F_c for c from k + a to stop, mirrored below the
    diagonal; the other entries of the row are zero. Armature adds to the
    diagonal.
    """
    reference_poses(model, q, work)
    mass[:, :] = 0.0   # also brings a fresh matrix into the cache in order
    for i in range(body_count(model) - 1, -1, -1):   # children first: Y_i is complete
        m, h, ibar = work[i, CRBA_MASS], load3(work, i, CRBA_H), load6(work, i, CRBA_IBAR)
        rot, r = load9(work, i, W_ROT), load3(work, i, W_POS)
        first, count = velocity_index(model, i), joint_nv(model, i)
        stop = first + int(work[i, CRBA_COUNT])
        for a in range(count - 1, -1, -1):   # row a needs F_c for c >= a only
            if q is None:
                sw, sv = subspace_column(model, i, a)
            else:
                sw, sv = aligned_subspace_column(model, i, a)
            jw, jv = motion_to_parent(rot, r, sw, sv)
            n, f = rigid_inertia_times(m, h, ibar, jw, jv)
            row = first + a
            forces[0, row], forces[1, row], forces[2, row] = n[0], n[1], n[2]
            forces[3, row], forces[4, row], forces[5, row] = f[0], f[1], f[2]
            for c in range(row, stop):
                value = (jw[0] * forces[0, c] + jw[1] * forces[1, c] + jw[2] * forces[2, c]
                         + jv[0] * forces[3, c] + jv[1] * forces[4, c] + jv[2] * forces[5, c])
                mass[row, c] = value
                mass[c, row] = value
        mass[first, first] += armature_of(model, i)
        parent = parent_of(model, i)
        if parent >= 0:
            work[parent, CRBA_COUNT] += work[i, CRBA_COUNT]
            add_inertia(work, parent, m, h, ibar)


@kernel(inline=True)
def ancestor_crba(model, work, mass):
    """
    Write H into ``mass`` from the body transforms in ``work``: table 6.2 in body coordinates.

    The general pass (mimic joints, any body order): each column's force
    I^c_i S_i is carried up the ancestors by X^*.
    """
    composite_inertias(model, work)
    mass[:, :] = 0.0
    for i in range(body_count(model)):
        ki = velocity_index(model, i)
        gi = model[i, MIMIC_GAIN]
        if armature_of(model, i) != 0.0:   # a one-dof joint's
            mass[ki, ki] += gi * gi * armature_of(model, i)
        for a in range(joint_nv(model, i)):
            sw, sv = subspace_column(model, i, a)
            n, f = rigid_inertia_times(work[i, CRBA_MASS], load3(work, i, CRBA_H),
                                       load6(work, i, CRBA_IBAR), sw, sv)
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

    The batch kernel's pass, after checking q: return 0, or 1 if it holds NaN
    or Inf. One allocation holds the body rows and then the forces (6, n).
    """
    m = model_at(model, rows)
    q = batch_of_one(q, nq_of(m))
    if bad_positions(m, q[0]):
        return 1
    if not subtrees_contiguous(m):
        return mass_matrix_batch(m, q, carray(mass, (1, n, n)))
    nb = body_count(m)
    work = np.empty((nb + 6, max(NCRBA, n)))
    reference_crba(m, q[0], work[:nb], work[nb:], carray(mass, (n, n)))
    return 0


@kernel(signatures=[STATUS(IN2, IN2, OUT3)])
def mass_matrix_batch(model, q, mass):
    """Write H[N, nv, nv] for the N validated rows of q; return 0 (serial, as RNEA's batch)."""
    model, q, mass = borrowed((model, q, mass))
    work = np.empty((body_count(model), NCRBA))
    if subtrees_contiguous(model):
        forces = np.empty((6, nv_of(model)))
        for s in range(q.shape[0]):
            reference_crba(model, q[s], work, forces, mass[s])
    else:
        for s in range(q.shape[0]):
            transforms(model, q[s], work)
            ancestor_crba(model, work, mass[s])
    return 0
