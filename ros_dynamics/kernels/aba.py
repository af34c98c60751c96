# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Forward dynamics by the articulated-body algorithm (ABA), O(n).

Featherstone 2008, table 7.1 (derived with spatial algebra in Mirtich's 1996
thesis, "Impulse-based dynamic simulation of rigid body systems"):

1. v_i = X_i v_p + S_i qd_i, c_i = v_i x S_i qd_i, IA_i = I_i,
   pA_i = v_i x* I_i v_i - f_i^ext;
2. leaves to root: U_i = IA_i S_i, D_i = S_i^T U_i + I_a,i, u_i = tau_i - S_i^T pA_i,
   IA_p += X_i^T (IA_i - U_i U_i^T / D_i) X_i,
   pA_p += X_i^* (pA_i + Ia_i c_i + U_i u_i / D_i);
3. root to leaves: a'_i = X_i a_p + c_i, qdd_i = (u_i - U_i^T a'_i) / D_i,
   a_i = a'_i + S_i qdd_i, with a_root = -gravity.

with I_a,i the joint's armature (reflected rotor inertia; Featherstone 2008,
sec. 7.2 and table 7.1's D_i with the rotor inertia added, as Pinocchio does).
A one-dof joint takes the steps in its joint-aligned frame, where S_i is a
unit vector (a column, an element); a joint of m > 1 velocity coordinates
(free-flyer, planar, spherical) takes them as written, with U_i 6 x m, D_i
m x m (inverted by Gauss-Jordan elimination) and c_i = v_i x S_i qd_i (S_i
is constant in body coordinates for these joints).

ABA has no joint model for mimic joints (one coordinate driving several
bodies), so models with mimic joints solve M qdd = tau - b instead: M by CRBA
and b = C qd + g - J^T f_ext by RNEA, then a Cholesky factorisation in the
same kernel (O(n^3), still small for the hands and grippers that have mimic
joints).
"""

import numpy as np

from ros_dynamics.kernels.cholesky import cholesky_factor, cholesky_solve, cholesky_substitute
from ros_dynamics.kernels.crba import crba_into
from ros_dynamics.kernels.rnea import rnea_into
from ros_dynamics.multibody.joints import (aligned_angular, aligned_transform, armature_of,
                                           body_count, gravity_of, joint_motion_after, joint_nv,
                                           joint_rate, joint_velocity, nv_of, one_dof_joints,
                                           one_state, parent_of, subspace_column,
                                           velocity_index)
from ros_dynamics.multibody.layouts import (ABA_BIAS_V, ABA_BIAS_W, ABA_D, ABA_IA_A, ABA_IA_B,
                                            ABA_IA_C, ABA_MULTI_DINV, ABA_MULTI_SMALL_U,
                                            ABA_MULTI_U, ABA_PA_F, ABA_PA_N, ABA_POS, ABA_ROT,
                                            ABA_SMALL_U, ABA_U_V, ABA_U_W, ABA_VEL_V, ABA_VEL_W,
                                            ALIGN_FIRST_MOMENT, ALIGN_IBAR, ALIGN_R, ALIGN_TREE_P,
                                            ALIGN_TREE_R, H_TOLERANCE, MASS, NABA, NSPATIAL,
                                            SP_ANGULAR, SP_LINEAR)
from ros_dynamics.multibody.spatial import (add, articulated_times, articulated_times_prismatic_z,
                                            articulated_times_z, articulated_to_parent,
                                            articulated_to_parent_prismatic_z,
                                            articulated_to_parent_z, cross_force, cross_motion,
                                            dot, force_to_parent, load3, load6, load9, mat_add,
                                            mat_t_vec, motion_to_child, outer,
                                            projected_inertia_prismatic_z, projected_inertia_z,
                                            rigid_inertia_times, scale, skew, store3, store9, sub)
from ros_dynamics.runtime.jit import IN2, IN3, kernel, OUT2, state_entry, STATUS
from ros_dynamics.runtime.lanes import diverge, select_le
from ros_dynamics.runtime.views import borrowed


@kernel
def aligned_body_force(model, fext, i):
    """Return body i's force (n, f) of ``fext`` (body coordinates) in its aligned frame, A^T."""
    n, f = load3(fext, i, SP_ANGULAR), load3(fext, i, SP_LINEAR)
    if n[0] == 0.0 and n[1] == 0.0 and n[2] == 0.0 and f[0] == 0.0 and f[1] == 0.0 \
            and f[2] == 0.0:
        return n, f
    turn = load9(model, i, ALIGN_R)
    return mat_t_vec(turn, n), mat_t_vec(turn, f)


@kernel
def aba_into(model, q, qd, tau, fext, work, qdd):
    """
    Write qdd = FD(q, qd, tau, fext) into ``qdd``; return -1, or the body whose D_i is ~0.

    ``fext`` (nb, 6) holds body forces (n, f) in body coordinates, or is None for none.
    Runs in the joint-aligned body frames (joints.aligned_columns), where S_i
    is e_z (revolute: angular; prismatic: linear), so U_i = IA_i S_i is a
    column of IA_i, D_i an element and S_i^T pA_i a component (Featherstone
    2008, sec. 4.4); the joint accelerations do not depend on the body frames.
    A model of one-dof joints only (joints.one_dof_joints) takes the one_dof_
    passes: a call that takes an array, even one never made, costs each
    pass atomic reference counts of its arrays (measured +10 % on UR5).
    """
    if one_dof_joints(model):   # pack-time flag: passes with no call that takes an array
        return one_dof_aba_into(model, q, qd, tau, fext, work, qdd)
    aba_velocities(model, q, qd, fext, work)
    singular = aba_articulated(model, tau, work)
    if singular < 0:
        aba_accelerations(model, work, qdd)
    return singular


@kernel(inline=True)   # in aba_into: a call would count references of its arrays
def one_dof_aba_into(model, q, qd, tau, fext, work, qdd):
    """
    Return aba_into for a model of one-dof joints only (joints.one_dof_joints): one_dof_ passes.

    The rollouts' lanes call it directly (their models have one-dof joints
    only), so that the passes for joints of several coordinates are not
    compiled for lanes.
    """
    one_dof_velocities(model, q, qd, fext, work)
    singular = one_dof_articulated(model, tau, work)
    if singular < 0:
        one_dof_accelerations(model, work, qdd)
    return singular


@kernel
def aba_velocities(model, q, qd, fext, work):
    """ABA pass 1 into ``work``: X_i, v_i, c_i, IA_i = I_i and pA_i, aligned body frames."""
    for i in range(body_count(model)):
        if joint_nv(model, i) == 1:
            vw, vv = aligned_velocity(model, q, qd, work, i)
        else:
            vw, vv = multi_dof_velocity(model, q, qd, work, i, parent_of(model, i))
        start_articulated(model, fext, work, i, vw, vv)


@kernel
def one_dof_velocities(model, q, qd, fext, work):
    """aba_velocities for a model of one-dof joints only (aba_into)."""
    for i in range(body_count(model)):
        vw, vv = aligned_velocity(model, q, qd, work, i)
        start_articulated(model, fext, work, i, vw, vv)


@kernel(inline=True)   # in both versions of pass 1
def aligned_velocity(model, q, qd, work, i):
    """
    Write X_i and c_i of body i's one-dof joint into ``work``; return v_i (aligned frame).

    S_i qd_i is (rate e_z, 0) for a revolute joint, (0, rate e_z) for a
    prismatic one, and c_i = v_i x S_i qd_i.
    """
    zero = (0.0, 0.0, 0.0)
    parent = parent_of(model, i)
    revolute = aligned_angular(model, i)
    rot, r = aligned_transform(model, i, q)
    store9(work, i, ABA_ROT, rot)
    store3(work, i, ABA_POS, r)
    vw, vv = zero, zero
    if parent >= 0:
        vw, vv = motion_to_child(rot, r, load3(work, parent, ABA_VEL_W),
                                 load3(work, parent, ABA_VEL_V))
    rate = joint_rate(model, i, qd)
    if revolute:   # S qd = (rate e_z, 0): c = v x S qd
        vw = (vw[0], vw[1], vw[2] + rate)
        cw, cv = (vw[1] * rate, -vw[0] * rate, 0.0), (vv[1] * rate, -vv[0] * rate, 0.0)
    else:          # S qd = (0, rate e_z)
        vv = (vv[0], vv[1], vv[2] + rate)
        cw, cv = zero, (vw[1] * rate, -vw[0] * rate, 0.0)
    store3(work, i, ABA_BIAS_W, cw)
    store3(work, i, ABA_BIAS_V, cv)
    return vw, vv


@kernel(inline=True)   # in both versions of pass 1
def start_articulated(model, fext, work, i, vw, vv):
    """Write v_i, IA_i = I_i and pA_i = v_i x* I_i v_i - f_i^ext of body i into ``work``."""
    m = model[i, MASS]
    h = load3(model, i, ALIGN_FIRST_MOMENT)
    ibar = load6(model, i, ALIGN_IBAR)
    iw, iv = rigid_inertia_times(m, h, ibar, vw, vv)
    pn, pf = cross_force(vw, vv, iw, iv)
    store3(work, i, ABA_VEL_W, vw)
    store3(work, i, ABA_VEL_V, vv)
    store9(work, i, ABA_IA_A, (ibar[0], ibar[3], ibar[4], ibar[3], ibar[1], ibar[5],
                               ibar[4], ibar[5], ibar[2]))
    store9(work, i, ABA_IA_B, skew(h))
    store9(work, i, ABA_IA_C, (m, 0.0, 0.0, 0.0, m, 0.0, 0.0, 0.0, m))
    if fext is not None:
        en, ef = aligned_body_force(model, fext, i)
        pn, pf = sub(pn, en), sub(pf, ef)
    store3(work, i, ABA_PA_N, pn)
    store3(work, i, ABA_PA_F, pf)


@kernel(inline=True)
def multi_dof_velocity(model, q, qd, work, i, parent):
    """
    Write X_i and c_i of body i's joint of m > 1 coordinates into ``work``; return v_i.

    X_i is the joint's transform after the aligned tree transform (A_i = 1
    for such a joint: ``aligned_columns``), v_i = X_i v_p + S_i qd_i and
    c_i = v_i x S_i qd_i (S_i constant in body coordinates).
    """
    rot, r = joint_motion_after(model, i, q, load9(model, i, ALIGN_TREE_R),
                                load3(model, i, ALIGN_TREE_P))
    store9(work, i, ABA_ROT, rot)
    store3(work, i, ABA_POS, r)
    vw, vv = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    if parent >= 0:
        vw, vv = motion_to_child(rot, r, load3(work, parent, ABA_VEL_W),
                                 load3(work, parent, ABA_VEL_V))
    jw, jv = joint_velocity(model, i, qd)
    vw, vv = add(vw, jw), add(vv, jv)
    cw, cv = cross_motion(vw, vv, jw, jv)
    store3(work, i, ABA_BIAS_W, cw)
    store3(work, i, ABA_BIAS_V, cv)
    return vw, vv


@kernel
def aba_articulated(model, tau, work):
    """ABA pass 2 (leaves to root) in ``work``: IA_i, pA_i, U_i, D_i, u_i; -1 or the singular i."""
    nb = body_count(model)
    tolerance = model[nb, H_TOLERANCE]
    for i in range(nb - 1, -1, -1):
        if joint_nv(model, i) == 1:
            if not aligned_articulated(model, tau, work, i, tolerance):
                return i
            continue
        a, b, c = load9(work, i, ABA_IA_A), load9(work, i, ABA_IA_B), load9(work, i, ABA_IA_C)
        pn, pf = load3(work, i, ABA_PA_N), load3(work, i, ABA_PA_F)
        if not multi_dof_articulated(model, tau, work, i, a, b, c, pn, pf, tolerance):
            return i
    return -1


@kernel
def one_dof_articulated(model, tau, work):
    """aba_articulated for a model of one-dof joints only (aba_into)."""
    nb = body_count(model)
    tolerance = model[nb, H_TOLERANCE]
    for i in range(nb - 1, -1, -1):
        if not aligned_articulated(model, tau, work, i, tolerance):
            return i
    return -1


@kernel(inline=True)   # in both versions of pass 2
def aligned_articulated(model, tau, work, i, tolerance):
    """
    ABA pass 2 for body i's one-dof joint in its aligned frame; return False if D_i is ~0.

    U_i = IA_i e_z is a column of IA_i, D_i = U_z + I_a, u_i = tau_i - pA_i,z;
    IA_i's and pA_i's contributions go to the parent.
    """
    a, b, c = load9(work, i, ABA_IA_A), load9(work, i, ABA_IA_B), load9(work, i, ABA_IA_C)
    pn, pf = load3(work, i, ABA_PA_N), load3(work, i, ABA_PA_F)
    revolute = aligned_angular(model, i)
    if revolute:   # U = IA e_z (angular), the third column
        uw, uv = (a[2], a[5], a[8]), (b[6], b[7], b[8])
        uz, u = a[8], tau[velocity_index(model, i)] - pn[2]
    else:          # U = IA e_z (linear)
        uw, uv = (b[2], b[5], b[8]), (c[2], c[5], c[8])
        uz, u = c[8], tau[velocity_index(model, i)] - pf[2]
    armature = armature_of(model, i)
    d = uz + armature
    if not d > tolerance:   # on Lanes: in some lane; the caller runs them one at a time
        return False
    store3(work, i, ABA_U_W, uw)
    store3(work, i, ABA_U_V, uv)
    work[i, ABA_D] = d
    work[i, ABA_SMALL_U] = u
    parent = parent_of(model, i)
    if parent < 0:
        return True
    k = u / d
    cw, cv = load3(work, i, ABA_BIAS_W), load3(work, i, ABA_BIAS_V)
    rot, r = load9(work, i, ABA_ROT), load3(work, i, ABA_POS)
    if diverge(armature, uz):
        # Lanes (_lanes.py) on both sides of the branch: both sides for every lane, then
        # each lane's own, as the scalar kernel takes it
        ap, bp, cp, cn, cf = select_le(
            armature, uz,
            projected_transfer(revolute, a, b, c, uw, uv, uz, d, armature, cw, cv, rot, r),
            general_transfer(a, b, c, uw, uv, d, cw, cv, rot, r))
    elif armature <= uz:
        ap, bp, cp, cn, cf = projected_transfer(revolute, a, b, c, uw, uv, uz, d, armature,
                                                cw, cv, rot, r)
    else:
        ap, bp, cp, cn, cf = general_transfer(a, b, c, uw, uv, d, cw, cv, rot, r)
    add_to_parent(work, i, parent, ap, bp, cp, add(add(pn, cn), scale(k, uw)),
                  add(add(pf, cf), scale(k, uv)))
    return True


@kernel(inline=True)   # in pass 2 of one-dof models: a call would count references
def add_to_parent(work, i, parent, ap, bp, cp, pn, pf):
    """Add X^T Ia X (blocks ap, bp, cp, parent coordinates) and X^* pa (pn, pf) to the parent."""
    store9(work, parent, ABA_IA_A, mat_add(load9(work, parent, ABA_IA_A), ap))
    store9(work, parent, ABA_IA_B, mat_add(load9(work, parent, ABA_IA_B), bp))
    store9(work, parent, ABA_IA_C, mat_add(load9(work, parent, ABA_IA_C), cp))
    pn, pf = force_to_parent(load9(work, i, ABA_ROT), load3(work, i, ABA_POS), pn, pf)
    store3(work, parent, ABA_PA_N, add(load3(work, parent, ABA_PA_N), pn))
    store3(work, parent, ABA_PA_F, add(load3(work, parent, ABA_PA_F), pf))


@kernel
def multi_dof_articulated(model, tau, work, i, a, b, c, pn, pf, tolerance):
    """ABA pass 2 for body i's joint of m > 1 coordinates; return False if D_i is singular."""
    if not multi_dof_projection(model, tau, work, i, a, b, c, pn, pf, tolerance):
        return False
    parent = parent_of(model, i)
    if parent >= 0:
        ap, bp, cp, pn, pf = multi_dof_transfer(model, work, i, a, b, c, pn, pf)
        add_to_parent(work, i, parent, ap, bp, cp, pn, pf)
    return True


@kernel
def multi_dof_projection(model, tau, work, i, a, b, c, pn, pf, tolerance):
    """
    Write U_i = IA_i S_i, D_i^-1 and u_i of body i's joint of m > 1 coordinates; False if singular.

    D_i = S_i^T U_i (+ I_a on the diagonal), u_i = tau_i - S_i^T pA_i
    (Featherstone 2008, table 7.1), IA_i = [a b; b^T c] and pA_i = (pn, pf) in
    body coordinates. D_i is inverted in place by Gauss-Jordan elimination
    without pivoting (D_i is symmetric positive definite unless a pivot is not
    above ``tolerance``: then the joint moves no inertia of its own).
    """
    m = joint_nv(model, i)
    k = velocity_index(model, i)
    armature = armature_of(model, i)
    for col in range(m):
        sw, sv = subspace_column(model, i, col)
        uw, uv = articulated_times(a, b, c, sw, sv)
        store3(work, i, ABA_MULTI_U + NSPATIAL * col, uw)
        store3(work, i, ABA_MULTI_U + NSPATIAL * col + SP_LINEAR, uv)
        work[i, ABA_MULTI_SMALL_U + col] = tau[k + col] - dot(sw, pn) - dot(sv, pf)
        for row in range(col + 1):
            rw, rv = subspace_column(model, i, row)
            d = dot(rw, uw) + dot(rv, uv)
            work[i, ABA_MULTI_DINV + m * row + col] = d
            work[i, ABA_MULTI_DINV + m * col + row] = d
        diagonal = ABA_MULTI_DINV + (m + 1) * col
        work[i, diagonal] = work[i, diagonal] + armature
    for p in range(m):   # Gauss-Jordan: row p scaled, then eliminated from the others
        pivot = work[i, ABA_MULTI_DINV + (m + 1) * p]
        if not pivot > tolerance:
            return False
        inverse = 1.0 / pivot
        work[i, ABA_MULTI_DINV + (m + 1) * p] = 1.0
        for j in range(m):
            work[i, ABA_MULTI_DINV + m * p + j] = work[i, ABA_MULTI_DINV + m * p + j] * inverse
        for row in range(m):
            if row != p:
                factor = work[i, ABA_MULTI_DINV + m * row + p]
                work[i, ABA_MULTI_DINV + m * row + p] = 0.0
                for j in range(m):
                    work[i, ABA_MULTI_DINV + m * row + j] = (
                        work[i, ABA_MULTI_DINV + m * row + j]
                        - factor * work[i, ABA_MULTI_DINV + m * p + j])
    return True


@kernel
def multi_dof_transfer(model, work, i, a, b, c, pn, pf):
    """
    Return X^T Ia X (blocks, parent coordinates) and pa (body i's) of a joint of m > 1 coordinates.

    Ia = IA - U D^-1 U^T and pa = pA + Ia c + U D^-1 u (Featherstone 2008,
    table 7.1), with U, D^-1, u from ``multi_dof_projection``.
    """
    m = joint_nv(model, i)
    for col in range(m):
        uw = load3(work, i, ABA_MULTI_U + NSPATIAL * col)
        uv = load3(work, i, ABA_MULTI_U + NSPATIAL * col + SP_LINEAR)
        vw, vv, s = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.0   # V = D^-1 U^T's row, (D^-1 u)_col
        for row in range(m):
            g = work[i, ABA_MULTI_DINV + m * col + row]
            vw = add(vw, scale(g, load3(work, i, ABA_MULTI_U + NSPATIAL * row)))
            vv = add(vv, scale(g, load3(work, i, ABA_MULTI_U + NSPATIAL * row + SP_LINEAR)))
            s = s + g * work[i, ABA_MULTI_SMALL_U + row]
        a = mat_add(a, outer(scale(-1.0, uw), vw))
        b = mat_add(b, outer(scale(-1.0, uw), vv))
        c = mat_add(c, outer(scale(-1.0, uv), vv))
        pn, pf = add(pn, scale(s, uw)), add(pf, scale(s, uv))
    cn, cf = articulated_times(a, b, c, load3(work, i, ABA_BIAS_W), load3(work, i, ABA_BIAS_V))
    ap, bp, cp = articulated_to_parent(load9(work, i, ABA_ROT), load3(work, i, ABA_POS), a, b, c)
    return ap, bp, cp, add(pn, cn), add(pf, cf)


@kernel
def multi_dof_acceleration(model, work, i, aw, av, qdd):
    """
    Write qdd_i = D^-1 (u - U^T a') of body i's joint of m > 1 coordinates; return S_i qdd_i.

    a' = (aw, av), body coordinates (Featherstone 2008, table 7.1, pass 3).
    """
    m = joint_nv(model, i)
    k = velocity_index(model, i)
    for col in range(m):
        qdd[k + col] = 0.0
    for row in range(m):
        u = ABA_MULTI_U + NSPATIAL * row
        r = (work[i, ABA_MULTI_SMALL_U + row] - dot(load3(work, i, u), aw)
             - dot(load3(work, i, u + SP_LINEAR), av))
        for col in range(m):
            qdd[k + col] = qdd[k + col] + work[i, ABA_MULTI_DINV + m * col + row] * r
    return joint_velocity(model, i, qdd)


@kernel(inline=True)   # two call sites: LLVM would not inline it (pass 2 +40 %)
def projected_transfer(revolute, a, b, c, uw, uv, uz, d, armature, cw, cv, rot, r):
    """
    Return (A, B, C) of X^T Ia X and (n, f) of Ia c for Ia = IA0 + kappa U U^T (I_a <= U_z).

    IA0 = IA - U U^T / U_z, kappa = I_a / (U_z D) (zero without armature;
    U_z >= D / 2 keeps both terms of the size of Ia). IA0 S = 0 (it does not
    resist the joint's own motion) and c_i has no z components, so IA0 c_i
    and X^T IA0 X take about a third of the products less; the rank-one
    term moves to the parent as one force transform of U.
    """
    if revolute:
        a, b, c = projected_inertia_z(a, b, c, uw, uv, -1.0 / uz)
        cn, cf = articulated_times_z(a, b, c, cw, cv)
        ap, bp, cp = articulated_to_parent_z(rot, r, a, b, c)
    else:
        a, b, c = projected_inertia_prismatic_z(a, b, c, uw, uv, -1.0 / uz)
        cn, cf = articulated_times_prismatic_z(a, b, c, cw, cv)
        ap, bp, cp = articulated_to_parent_prismatic_z(rot, r, a, b, c)
    if armature > 0.0:
        kappa = armature / (uz * d)
        uc = kappa * (dot(uw, cw) + dot(uv, cv))
        cn, cf = add(cn, scale(uc, uw)), add(cf, scale(uc, uv))
        fn, ff = force_to_parent(rot, r, uw, uv)
        ap = mat_add(ap, outer(scale(kappa, fn), fn))
        bp = mat_add(bp, outer(scale(kappa, fn), ff))
        cp = mat_add(cp, outer(scale(kappa, ff), ff))
    return ap, bp, cp, cn, cf


@kernel(inline=True)
def general_transfer(a, b, c, uw, uv, d, cw, cv, rot, r):
    """Return (A, B, C) of X^T Ia X and (n, f) of Ia c for Ia = IA - U U^T / D (any I_a)."""
    s = -1.0 / d
    a = mat_add(a, outer(scale(s, uw), uw))
    b = mat_add(b, outer(scale(s, uw), uv))
    c = mat_add(c, outer(scale(s, uv), uv))
    cn, cf = articulated_times(a, b, c, cw, cv)
    ap, bp, cp = articulated_to_parent(rot, r, a, b, c)
    return ap, bp, cp, cn, cf


@kernel
def aba_accelerations(model, work, qdd):
    """ABA pass 3 (root to leaves): qdd from ``work``, which then holds the a_i."""
    for i in range(body_count(model)):
        if joint_nv(model, i) == 1:
            aw, av = aligned_acceleration(model, work, i, qdd)
        else:
            aw, av = acceleration_before_joint(model, work, i)
            jw, jv = multi_dof_acceleration(model, work, i, aw, av, qdd)
            aw, av = add(aw, jw), add(av, jv)
        store3(work, i, ABA_VEL_W, aw)
        store3(work, i, ABA_VEL_V, av)


@kernel
def one_dof_accelerations(model, work, qdd):
    """aba_accelerations for a model of one-dof joints only (aba_into)."""
    for i in range(body_count(model)):
        aw, av = aligned_acceleration(model, work, i, qdd)
        store3(work, i, ABA_VEL_W, aw)
        store3(work, i, ABA_VEL_V, av)


@kernel(inline=True)   # in both versions of pass 3
def acceleration_before_joint(model, work, i):
    """Return a'_i = X_i a_p + c_i (a_root = -gravity), body i's (aligned) coordinates."""
    parent = parent_of(model, i)
    rot, r = load9(work, i, ABA_ROT), load3(work, i, ABA_POS)
    if parent < 0:
        gravity = gravity_of(model)
        aw, av = motion_to_child(rot, r, (0.0, 0.0, 0.0), (-gravity[0], -gravity[1], -gravity[2]))
    else:
        aw, av = motion_to_child(rot, r, load3(work, parent, ABA_VEL_W),
                                 load3(work, parent, ABA_VEL_V))
    return add(aw, load3(work, i, ABA_BIAS_W)), add(av, load3(work, i, ABA_BIAS_V))


@kernel(inline=True)   # in both versions of pass 3
def aligned_acceleration(model, work, i, qdd):
    """Write qdd_i = (u_i - U_i^T a'_i) / D_i of body i's one-dof joint; return a_i (aligned)."""
    aw, av = acceleration_before_joint(model, work, i)
    acc = (work[i, ABA_SMALL_U] - dot(load3(work, i, ABA_U_W), aw)
           - dot(load3(work, i, ABA_U_V), av)) / work[i, ABA_D]
    qdd[velocity_index(model, i)] = acc
    if aligned_angular(model, i):
        return (aw[0], aw[1], aw[2] + acc), av
    return aw, (av[0], av[1], av[2] + acc)


@kernel
def dense_into(model, q, qd, tau, fext, work, mass, qdd):
    """
    Write qdd = M^-1 (tau - b) into ``qdd``; return -1, or the coordinate whose pivot vanishes.

    b = ID(q, qd, 0, fext) by RNEA, M by CRBA (both share ``work``), then a
    Cholesky solve.
    """
    rnea_into(model, q, qd, None, fext, work, qdd)
    for k in range(qdd.shape[0]):
        qdd[k] = tau[k] - qdd[k]
    crba_into(model, q, work, mass)
    return cholesky_solve(mass, qdd, model[body_count(model), H_TOLERANCE], qdd)


@kernel
def new_workspace(model):
    """Return the (work, mass) arrays of dense_into (work also fits aba_into)."""
    nb = body_count(model)
    nv = nv_of(model)
    return np.empty((nb, NABA)), np.empty((nv, nv))   # NABA > RNEA's and CRBA's


@state_entry
def forward_dynamics_entry(model, rows, n, q, qd, tau, extra, qdd):
    """
    Write FD(q, qd, tau) by ABA for one state into qdd (C pointers, _jit.STATE_ENTRY).

    For models without mimic joints. The batch kernel on a batch of one
    (``extra``: zero body forces (1, nb, 6)), after checking the state: return
    0; 1 if it holds NaN or Inf; -(k + 1) if M is singular at body k.
    """
    m, q, qd, tau, fext, qdd, bad = one_state(model, rows, n, q, qd, tau, extra, qdd)
    return 1 if bad else forward_dynamics_batch(m, q, qd, tau, fext, qdd)


@state_entry
def forward_dynamics_dense_entry(model, rows, n, q, qd, tau, extra, qdd):
    """
    Write FD(q, qd, tau) by M qdd = tau - b for one state (models with mimic joints).

    As forward_dynamics_entry, with k the coordinate whose Cholesky pivot vanishes.
    """
    m, q, qd, tau, fext, qdd, bad = one_state(model, rows, n, q, qd, tau, extra, qdd)
    return 1 if bad else forward_dynamics_dense_batch(m, q, qd, tau, fext, qdd)


@kernel(signatures=[STATUS(IN2, IN2, IN2, IN2, IN3, OUT2)])
def forward_dynamics_batch(model, q, qd, tau, fext, qdd):
    """
    Write qdd[N, nv] by ABA for N validated states; fext as in RNEA's batch.

    Return 0, or -(k + 1) for the first singular body k met (serial, as RNEA's batch).
    """
    model, q, qd, tau, fext, qdd = borrowed((model, q, qd, tau, fext, qdd))
    work = np.empty((body_count(model), NABA))
    shared = fext.shape[0] == 1
    for s in range(q.shape[0]):
        singular = aba_into(model, q[s], qd[s], tau[s], fext[0 if shared else s], work, qdd[s])
        if singular >= 0:
            return -(singular + 1)
    return 0


@kernel(signatures=[STATUS(IN2, IN2, IN2, IN2, IN3, OUT2)])
def forward_dynamics_dense_batch(model, q, qd, tau, fext, qdd):
    """
    Write qdd[N, nv] by M qdd = tau - b for N validated states (models with mimic joints).

    Return 0, or -(k + 1) for the first coordinate k whose pivot vanishes.
    """
    model, q, qd, tau, fext, qdd = borrowed((model, q, qd, tau, fext, qdd))
    work, mass = new_workspace(model)
    shared = fext.shape[0] == 1
    for s in range(q.shape[0]):
        singular = dense_into(model, q[s], qd[s], tau[s], fext[0 if shared else s], work, mass,
                              qdd[s])
        if singular >= 0:
            return -(singular + 1)
    return 0


@kernel(signatures=[STATUS(IN2, IN2, IN2, OUT2, OUT2)])
def solve_mass_rows(model, mass, rows, factor, out):
    """
    Write out[k] = M^-1 rows[k] for the m rows (m, n) of ``rows``, by one Cholesky factor.

    ``factor`` (n, n) is overwritten. Return -1, or the coordinate whose pivot
    vanishes (M singular, as forward_dynamics_dense).
    """
    model, mass, rows, factor, out = borrowed((model, mass, rows, factor, out))
    for i in range(mass.shape[0]):   # the lower triangle (a slice copy compiles 3 s longer)
        for j in range(i + 1):
            factor[i, j] = mass[i, j]
    singular = cholesky_factor(factor, model[body_count(model), H_TOLERANCE])
    if singular >= 0:
        return singular
    for k in range(rows.shape[0]):
        cholesky_substitute(factor, rows[k], out[k])
    return -1
