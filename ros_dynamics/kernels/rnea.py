# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Inverse dynamics by the recursive Newton-Euler algorithm (RNEA).

Featherstone 2008, table 5.1 (and Craig's iterative Newton-Euler, ch. 6):
forward recursion for velocities and accelerations, then

    f_i = I_i a_i + v_i x* I_i v_i - f_i^ext,    tau_i = S_i^T f_i,
    f_parent += X_i^* f_i,

with gravity entered as an upward acceleration of the root. Mimic joints
contribute G_i tau_i to their leader's coordinate (tau = G^T tau_full). A
joint's armature I_a (reflected rotor inertia) adds I_a qdd_i to its torque
(Featherstone 2008, sec. 7.2: the rotor as a body of inertia I_a turning
with the joint; Pinocchio's ``model.armature``).
"""

from numba import carray
import numpy as np

from ros_dynamics.kernels.kinematics import forward_pass
from ros_dynamics.multibody.joints import (add_joint_force, armature_of, bad_positions, body_count,
                                           gravity_of, joint_rate, model_at, nq_of, nv_of,
                                           one_state, parent_of, rigid_inertia, state_at,
                                           velocity_index)
from ros_dynamics.multibody.layouts import (NKINEMATICS, SP_ANGULAR, SP_LINEAR, W_ACC_V, W_ACC_W,
                                            W_FORCE_F, W_FORCE_N, W_POS, W_ROT, W_VEL_V, W_VEL_W)
from ros_dynamics.multibody.spatial import (add, cross_force, force_to_parent, load3, load9,
                                            rigid_inertia_times, store3, sub)
from ros_dynamics.runtime.jit import IN2, IN3, kernel, OUT2, state_entry, STATUS
from ros_dynamics.runtime.views import borrowed


@kernel
def rnea_into(model, q, qd, qdd, fext, work, tau):
    """
    Write tau = ID(q, qd, qdd, fext) into ``tau``.

    ``fext`` (nb, 6) holds body forces (n, f) in body coordinates; ``qd``,
    ``qdd`` and ``fext`` may be None for zero (specialised at compile time:
    gravity torques skip every velocity term).
    """
    nb = body_count(model)
    g = gravity_of(model)
    forward_pass(model, q, qd, qdd, (-g[0], -g[1], -g[2]), work)
    for i in range(nb):
        m, h, ibar = rigid_inertia(model, i)
        n, f = rigid_inertia_times(m, h, ibar, load3(work, i, W_ACC_W), load3(work, i, W_ACC_V))
        if qd is not None:
            vw, vv = load3(work, i, W_VEL_W), load3(work, i, W_VEL_V)
            iw, iv = rigid_inertia_times(m, h, ibar, vw, vv)
            cn, cf = cross_force(vw, vv, iw, iv)
            n, f = add(n, cn), add(f, cf)
        if fext is not None:
            n, f = sub(n, load3(fext, i, SP_ANGULAR)), sub(f, load3(fext, i, SP_LINEAR))
        store3(work, i, W_FORCE_N, n)
        store3(work, i, W_FORCE_F, f)
    tau[:] = 0.0
    for i in range(nb - 1, -1, -1):
        n, f = load3(work, i, W_FORCE_N), load3(work, i, W_FORCE_F)
        add_joint_force(model, i, n, f, tau)
        if qdd is not None and armature_of(model, i) != 0.0:
            tau[velocity_index(model, i)] += armature_of(model, i) * joint_rate(model, i, qdd)
        parent = parent_of(model, i)
        if parent >= 0:
            pn, pf = force_to_parent(load9(work, i, W_ROT), load3(work, i, W_POS), n, f)
            store3(work, parent, W_FORCE_N, add(load3(work, parent, W_FORCE_N), pn))
            store3(work, parent, W_FORCE_F, add(load3(work, parent, W_FORCE_F), pf))


@kernel
def gravity_torques(model, q, tau):
    """Write g(q) = ID(q, 0, 0) into tau (nv,); return 0, or 1 if q is bad (wrong size, NaN)."""
    if bad_positions(model, q) or tau.shape[0] != nv_of(model):
        return 1
    rnea_into(model, q, None, None, None, np.empty((body_count(model), NKINEMATICS)), tau)
    return 0


@state_entry
def inverse_dynamics_entry(model, rows, n, q, qd, qdd, extra, tau):
    """
    Write ID(q, qd, qdd) for one state into tau (C pointers, _jit.STATE_ENTRY).

    The batch kernel on a batch of one (``extra``: zero body forces (1, nb, 6)),
    after checking the state: return 0, or 1 if it holds NaN or Inf.
    """
    m, q, qd, qdd, fext, tau, bad = one_state(model, rows, n, q, qd, qdd, extra, tau)
    return 1 if bad else inverse_dynamics_batch(m, q, qd, qdd, fext, tau)


@state_entry
def gravity_torques_entry(model, rows, n, q, b, c, extra, tau):
    """Entry point of ``gravity_torques`` (C pointers, _jit.STATE_ENTRY; b, c, extra unused)."""
    m = model_at(model, rows)
    return gravity_torques(m, state_at(q, nq_of(m)), carray(tau, n))


@kernel(signatures=[STATUS(IN2, IN2, IN2, IN2, IN3, OUT2)])
def inverse_dynamics_batch(model, q, qd, qdd, fext, tau):
    """
    Write tau[N, dof] for N validated states (rows of q, qd, qdd); return 0.

    ``fext`` is (N, nb, 6), or (1, nb, 6) to apply the same body forces to
    every state. Serial: RobotModel runs blocks of rows in parallel threads
    (the kernel releases the GIL).
    """
    model, q, qd, qdd, fext, tau = borrowed((model, q, qd, qdd, fext, tau))
    work = np.empty((body_count(model), NKINEMATICS))
    shared = fext.shape[0] == 1
    for s in range(q.shape[0]):
        rnea_into(model, q[s], qd[s], qdd[s], fext[0 if shared else s], work, tau[s])
    return 0
