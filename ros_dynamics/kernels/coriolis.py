# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Coriolis matrix C(q, qd) with C qd = bias - gravity and dM/dt - 2C skew-symmetric.

Written in world coordinates (spatial vectors at the world origin), the
mass matrix is M = sum_i J_i^T I_i J_i, with J_i the columns S_k of body i's
ancestors. Following Echeandia and Wensing (2021) (the factorisation
Pinocchio's computeCoriolisMatrix also uses),

    C = sum_i J_i^T (I_i dJ_i/dt + B_i J_i),
    B_i u = 1/2 (v_i x* I_i u - I_i (v_i x u) + u x* I_i v_i),

with dS_k/dt = v_k x S_k. Then C qd = sum_i J_i^T (I_i a_i + v_i x* I_i v_i)
with a_i the velocity-product acceleration, which is the bias force, and
dM/dt - 2C = sum_i (dJ_i^T I_i J_i - J_i^T I_i dJ_i) - J_i^T (I_i v_i)x-bar J_i
is skew-symmetric. Cost O(n d^2) for depth d.
"""

import numpy as np

from ros_dynamics.kernels.kinematics import forward_pass, world_poses
from ros_dynamics.multibody.joints import (bad_positions, bad_state, body_count, joint_nv,
                                           parent_of, rigid_inertia, subspace_column,
                                           velocity_index)
from ros_dynamics.multibody.layouts import (COR_H, COR_IBAR, COR_MASS, COR_S_AXIS, COR_S_RATE,
                                            COR_VEL, MIMIC_GAIN, NCOR_COLUMN, NCOR_SUBSPACE,
                                            NCORIOLIS, NKINEMATICS, NPOSE, POSE_P, POSE_R,
                                            SP_LINEAR, W_VEL_V, W_VEL_W)
from ros_dynamics.multibody.spatial import (add, cross_force, cross_motion, dot, load3, load6,
                                            load9, motion_to_parent, rigid_inertia_times,
                                            rigid_inertia_to_parent, scale, store3, store6, sub)
from ros_dynamics.runtime.jit import IN1, IN2, kernel, OUT2, STATUS
from ros_dynamics.runtime.views import borrowed


@kernel(signatures=[STATUS(IN2, IN1, IN1, OUT2)])
def coriolis_matrix(model, q, qd, out):
    """Write C(q, qd) into out (nv, nv); return 0, or 1 if q or qd is bad (wrong size, NaN)."""
    model, q, qd, out = borrowed((model, q, qd, out))
    if bad_positions(model, q) or bad_state(model, qd):
        return 1
    nb = body_count(model)
    out[:, :] = 0.0
    work = np.empty((nb, NKINEMATICS))
    forward_pass(model, q, qd, None, (0.0, 0.0, 0.0), work)
    poses = np.empty((nb, NPOSE))
    world_poses(model, work, poses)
    world = np.empty((nb, NCORIOLIS))
    subspace = np.empty((nb, NCOR_SUBSPACE))
    for i in range(nb):
        rot, pos = load9(poses, i, POSE_R), load3(poses, i, POSE_P)
        vw, vv = motion_to_parent(rot, pos, load3(work, i, W_VEL_W), load3(work, i, W_VEL_V))
        for a in range(joint_nv(model, i)):
            sw, sv = subspace_column(model, i, a)
            sw, sv = motion_to_parent(rot, pos, sw, sv)
            dw, dv = cross_motion(vw, vv, sw, sv)
            store3(subspace, i, NCOR_COLUMN * a + COR_S_AXIS, sw)
            store3(subspace, i, NCOR_COLUMN * a + COR_S_AXIS + SP_LINEAR, sv)
            store3(subspace, i, NCOR_COLUMN * a + COR_S_RATE, dw)
            store3(subspace, i, NCOR_COLUMN * a + COR_S_RATE + SP_LINEAR, dv)
        m, h, ibar = rigid_inertia(model, i)
        h, ibar = rigid_inertia_to_parent(rot, pos, m, h, ibar)
        store3(world, i, COR_VEL, vw)
        store3(world, i, COR_VEL + SP_LINEAR, vv)
        world[i, COR_MASS] = m
        store3(world, i, COR_H, h)
        store6(world, i, COR_IBAR, ibar)
    for i in range(nb):
        m, h, ibar = world[i, COR_MASS], load3(world, i, COR_H), load6(world, i, COR_IBAR)
        vw, vv = load3(world, i, COR_VEL), load3(world, i, COR_VEL + SP_LINEAR)
        ivn, ivf = rigid_inertia_times(m, h, ibar, vw, vv)
        k = i
        while k >= 0:
            gk = model[k, MIMIC_GAIN]
            for a in range(joint_nv(model, k)):
                column = NCOR_COLUMN * a
                sw = load3(subspace, k, column + COR_S_AXIS)
                sv = load3(subspace, k, column + COR_S_AXIS + SP_LINEAR)
                fn, ff = rigid_inertia_times(m, h, ibar, load3(subspace, k, column + COR_S_RATE),
                                             load3(subspace, k,
                                                   column + COR_S_RATE + SP_LINEAR))
                isn, isf = rigid_inertia_times(m, h, ibar, sw, sv)
                t1n, t1f = cross_force(vw, vv, isn, isf)
                xw, xv = cross_motion(vw, vv, sw, sv)
                t2n, t2f = rigid_inertia_times(m, h, ibar, xw, xv)
                t3n, t3f = cross_force(sw, sv, ivn, ivf)
                fn = add(fn, scale(0.5, add(sub(t1n, t2n), t3n)))
                ff = add(ff, scale(0.5, add(sub(t1f, t2f), t3f)))
                col = velocity_index(model, k) + a
                j = i
                while j >= 0:
                    gain = model[j, MIMIC_GAIN] * gk
                    for b in range(joint_nv(model, j)):
                        value = (dot(load3(subspace, j, NCOR_COLUMN * b + COR_S_AXIS), fn)
                                 + dot(load3(subspace, j, NCOR_COLUMN * b + SP_LINEAR), ff))
                        out[velocity_index(model, j) + b, col] += gain * value
                    j = parent_of(model, j)
            k = parent_of(model, k)
    return 0
