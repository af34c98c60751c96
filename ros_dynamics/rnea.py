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

"""Inverse dynamics by the recursive Newton-Euler algorithm (RNEA).

Featherstone 2008, table 5.1 (and seed 000's iterative Newton-Euler):
forward recursion for velocities and accelerations, then

    f_i = I_i a_i + v_i x* I_i v_i - f_i^ext,    tau_i = S_i^T f_i,
    f_parent += X_i^* f_i,

with gravity entered as an upward acceleration of the root. Mimic joints
contribute G_i tau_i to their leader's coordinate (tau = G^T tau_full).
"""

import numpy as np
from numba import prange

from ros_dynamics._jit import kernel
from ros_dynamics.joints import MIMIC_GAIN, motion_subspace, PARENT, QINDEX, rigid_inertia
from ros_dynamics.kinematics import (forward_pass, NWORK, W_ACC_V, W_ACC_W, W_FORCE_F,
                                     W_FORCE_N, W_POS, W_ROT, W_VEL_V, W_VEL_W)
from ros_dynamics.spatial import (add, cross_force, dot, force_to_parent, load3, load9,
                                  rigid_inertia_times, store3, sub)


@kernel
def non_finite(x):
    """Return True if any entry of the 1-D array x is NaN or infinite."""
    for k in range(x.shape[0]):
        if not np.isfinite(x[k]):
            return True
    return False


@kernel
def rnea_into(ints, reals, gravity, q, qd, qdd, fext, work, tau):
    """Write tau = ID(q, qd, qdd, fext) into ``tau``; ``fext`` (nb, 6) holds (n, f) in body coordinates."""
    nb = ints.shape[0]
    forward_pass(ints, reals, q, qd, qdd, (-gravity[0], -gravity[1], -gravity[2]), work)
    for i in range(nb):
        m, h, ibar = rigid_inertia(reals, i)
        vw, vv = load3(work, i, W_VEL_W), load3(work, i, W_VEL_V)
        n, f = rigid_inertia_times(m, h, ibar, load3(work, i, W_ACC_W), load3(work, i, W_ACC_V))
        iw, iv = rigid_inertia_times(m, h, ibar, vw, vv)
        cn, cf = cross_force(vw, vv, iw, iv)
        store3(work, i, W_FORCE_N, sub(add(n, cn), load3(fext, i, 0)))
        store3(work, i, W_FORCE_F, sub(add(f, cf), load3(fext, i, 3)))
    tau[:] = 0.0
    for i in range(nb - 1, -1, -1):
        n, f = load3(work, i, W_FORCE_N), load3(work, i, W_FORCE_F)
        sw, sv = motion_subspace(ints, reals, i)
        tau[ints[i, QINDEX]] += reals[i, MIMIC_GAIN] * (dot(sw, n) + dot(sv, f))
        parent = ints[i, PARENT]
        if parent >= 0:
            pn, pf = force_to_parent(load9(work, i, W_ROT), load3(work, i, W_POS), n, f)
            store3(work, parent, W_FORCE_N, add(load3(work, parent, W_FORCE_N), pn))
            store3(work, parent, W_FORCE_F, add(load3(work, parent, W_FORCE_F), pf))


@kernel
def inverse_dynamics(ints, reals, gravity, q, qd, qdd, fext):
    """Return (tau, status): status 0, or k = 1, 2, 3 if the k-th state argument is not finite."""
    tau = np.empty(q.shape[0])
    if non_finite(q):
        return tau, 1
    if non_finite(qd):
        return tau, 2
    if non_finite(qdd):
        return tau, 3
    rnea_into(ints, reals, gravity, q, qd, qdd, fext, np.empty((ints.shape[0], NWORK)), tau)
    return tau, 0


@kernel(parallel=True)
def inverse_dynamics_batch(ints, reals, gravity, q, qd, qdd, fext):
    """Return tau[N, dof] for N states (rows of q, qd, qdd); inputs already validated.

    ``fext`` is (N, nb, 6), or (1, nb, 6) to apply the same body forces to every state.
    """
    count = q.shape[0]
    tau = np.empty(q.shape)
    chunks = min(count, 64)
    shared = 1 if fext.shape[0] == 1 else 0
    for chunk in prange(chunks):
        work = np.empty((ints.shape[0], NWORK))
        for s in range(chunk, count, chunks):
            rnea_into(ints, reals, gravity, q[s], qd[s], qdd[s], fext[s if shared == 0 else 0],
                      work, tau[s])
    return tau
