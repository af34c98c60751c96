# Copyright 2026 The ros_dynamics Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Forward dynamics by the articulated-body algorithm (ABA), O(n).

Featherstone 2008, table 7.1 (seed 002 derives it; SEEDS_NOTES lists the
transposition and factor errors of its pseudocode that this code does not
repeat):

1. v_i = X_i v_p + S_i qd_i, c_i = v_i x S_i qd_i, IA_i = I_i,
   pA_i = v_i x* I_i v_i - f_i^ext;
2. leaves to root: U_i = IA_i S_i, D_i = S_i^T U_i, u_i = tau_i - S_i^T pA_i,
   IA_p += X_i^T (IA_i - U_i U_i^T / D_i) X_i,
   pA_p += X_i^* (pA_i + Ia_i c_i + U_i u_i / D_i);
3. root to leaves: a'_i = X_i a_p + c_i, qdd_i = (u_i - U_i^T a'_i) / D_i,
   a_i = a'_i + S_i qdd_i, with a_root = -gravity.

Models with mimic joints use M^-1 (tau - b) instead (see RobotModel).
"""

import numpy as np
from numba import prange

from ros_dynamics._jit import kernel
from ros_dynamics.joints import (joint_position, joint_rate, joint_transform,
                                 motion_subspace, PARENT, QINDEX, rigid_inertia)
from ros_dynamics.rnea import non_finite
from ros_dynamics.spatial import (add, articulated_times, articulated_to_parent, cross_force,
                                  cross_motion, dot, force_to_parent, load3, load9, mat_add,
                                  motion_to_child, outer, rigid_inertia_times, scale, skew,
                                  store3, store9, sub)

W_ROT = 0      # 9
W_POS = 9      # 3
W_VEL_W = 12   # 3, later the acceleration a_i
W_VEL_V = 15   # 3
W_BIAS_W = 18  # 3: c_i
W_BIAS_V = 21  # 3
W_IA_A = 24    # 9: articulated inertia blocks
W_IA_B = 33    # 9
W_IA_C = 42    # 9
W_PA_N = 51    # 3: articulated bias force
W_PA_F = 54    # 3
W_U_W = 57     # 3: U_i
W_U_V = 60     # 3
W_D = 63       # 1: D_i
W_SMALL_U = 64  # 1: u_i
NWORK = 65


@kernel
def aba_into(ints, reals, gravity, q, qd, tau, fext, tolerance, work, qdd):
    """Write qdd = FD(q, qd, tau, fext) into ``qdd``; return -1, or the body whose D_i <= tolerance."""
    nb = ints.shape[0]
    zero = (0.0, 0.0, 0.0)
    for i in range(nb):
        rot, r = joint_transform(ints, reals, i, joint_position(ints, reals, i, q))
        store9(work, i, W_ROT, rot)
        store3(work, i, W_POS, r)
        parent = ints[i, PARENT]
        vw, vv = zero, zero
        if parent >= 0:
            vw, vv = motion_to_child(rot, r, load3(work, parent, W_VEL_W),
                                     load3(work, parent, W_VEL_V))
        sw, sv = motion_subspace(ints, reals, i)
        rate = joint_rate(ints, reals, i, qd)
        jw, jv = scale(rate, sw), scale(rate, sv)
        vw, vv = add(vw, jw), add(vv, jv)
        cw, cv = cross_motion(vw, vv, jw, jv)
        m, h, ibar = rigid_inertia(reals, i)
        iw, iv = rigid_inertia_times(m, h, ibar, vw, vv)
        pn, pf = cross_force(vw, vv, iw, iv)
        store3(work, i, W_VEL_W, vw)
        store3(work, i, W_VEL_V, vv)
        store3(work, i, W_BIAS_W, cw)
        store3(work, i, W_BIAS_V, cv)
        store9(work, i, W_IA_A, (ibar[0], ibar[3], ibar[4], ibar[3], ibar[1], ibar[5],
                                 ibar[4], ibar[5], ibar[2]))
        store9(work, i, W_IA_B, skew(h))
        store9(work, i, W_IA_C, (m, 0.0, 0.0, 0.0, m, 0.0, 0.0, 0.0, m))
        store3(work, i, W_PA_N, sub(pn, load3(fext, i, 0)))
        store3(work, i, W_PA_F, sub(pf, load3(fext, i, 3)))
    for i in range(nb - 1, -1, -1):
        a, b, c = load9(work, i, W_IA_A), load9(work, i, W_IA_B), load9(work, i, W_IA_C)
        pn, pf = load3(work, i, W_PA_N), load3(work, i, W_PA_F)
        sw, sv = motion_subspace(ints, reals, i)
        uw, uv = articulated_times(a, b, c, sw, sv)
        d = dot(sw, uw) + dot(sv, uv)
        if not d > tolerance:
            return i
        u = tau[ints[i, QINDEX]] - dot(sw, pn) - dot(sv, pf)
        store3(work, i, W_U_W, uw)
        store3(work, i, W_U_V, uv)
        work[i, W_D] = d
        work[i, W_SMALL_U] = u
        parent = ints[i, PARENT]
        if parent < 0:
            continue
        s = -1.0 / d
        a = mat_add(a, outer(scale(s, uw), uw))
        b = mat_add(b, outer(scale(s, uw), uv))
        c = mat_add(c, outer(scale(s, uv), uv))
        cn, cf = articulated_times(a, b, c, load3(work, i, W_BIAS_W), load3(work, i, W_BIAS_V))
        k = u / d
        pn = add(add(pn, cn), scale(k, uw))
        pf = add(add(pf, cf), scale(k, uv))
        rot, r = load9(work, i, W_ROT), load3(work, i, W_POS)
        ap, bp, cp = articulated_to_parent(rot, r, a, b, c)
        store9(work, parent, W_IA_A, mat_add(load9(work, parent, W_IA_A), ap))
        store9(work, parent, W_IA_B, mat_add(load9(work, parent, W_IA_B), bp))
        store9(work, parent, W_IA_C, mat_add(load9(work, parent, W_IA_C), cp))
        pn, pf = force_to_parent(rot, r, pn, pf)
        store3(work, parent, W_PA_N, add(load3(work, parent, W_PA_N), pn))
        store3(work, parent, W_PA_F, add(load3(work, parent, W_PA_F), pf))
    for i in range(nb):
        parent = ints[i, PARENT]
        rot, r = load9(work, i, W_ROT), load3(work, i, W_POS)
        if parent < 0:
            aw, av = motion_to_child(rot, r, zero, (-gravity[0], -gravity[1], -gravity[2]))
        else:
            aw, av = motion_to_child(rot, r, load3(work, parent, W_VEL_W),
                                     load3(work, parent, W_VEL_V))
        aw = add(aw, load3(work, i, W_BIAS_W))
        av = add(av, load3(work, i, W_BIAS_V))
        sw, sv = motion_subspace(ints, reals, i)
        acc = (work[i, W_SMALL_U] - dot(load3(work, i, W_U_W), aw)
               - dot(load3(work, i, W_U_V), av)) / work[i, W_D]
        qdd[ints[i, QINDEX]] = acc
        store3(work, i, W_VEL_W, add(aw, scale(acc, sw)))
        store3(work, i, W_VEL_V, add(av, scale(acc, sv)))
    return -1


@kernel
def forward_dynamics(ints, reals, gravity, q, qd, tau, fext, tolerance):
    """Return (qdd, status): status 0; 1, 2, 3 for a non-finite q, qd, tau; -(i + 1) if body i is singular."""
    qdd = np.empty(q.shape[0])
    if non_finite(q):
        return qdd, 1
    if non_finite(qd):
        return qdd, 2
    if non_finite(tau):
        return qdd, 3
    singular = aba_into(ints, reals, gravity, q, qd, tau, fext, tolerance,
                        np.empty((ints.shape[0], NWORK)), qdd)
    if singular >= 0:
        return qdd, -(singular + 1)
    return qdd, 0


@kernel(parallel=True)
def forward_dynamics_batch(ints, reals, gravity, q, qd, tau, fext, tolerance):
    """Return (qdd[N, dof], singular body or -1) for N validated states; fext as in RNEA's batch."""
    count = q.shape[0]
    qdd = np.empty(q.shape)
    chunks = min(count, 64)
    shared = 1 if fext.shape[0] == 1 else 0
    failed = np.full(chunks, -1)
    for chunk in prange(chunks):
        work = np.empty((ints.shape[0], NWORK))
        for s in range(chunk, count, chunks):
            singular = aba_into(ints, reals, gravity, q[s], qd[s], tau[s],
                                fext[s if shared == 0 else 0], tolerance, work, qdd[s])
            if singular >= 0:
                failed[chunk] = singular
                break
    return qdd, failed.max()
