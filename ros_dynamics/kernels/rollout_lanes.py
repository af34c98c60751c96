# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The simulator's step for LANES rollouts at once, their forward dynamics in vector lanes.

A group of LANES rollouts (4: AVX2's four float64) advances step by step
together. Each step is integrators.checked_step for each rollout, with the
forward dynamics of every stage evaluated once for the group: aba.one_dof_aba_into
compiled for LaneArrays of the stage states (_lanes.py), which gives in each
lane bit for bit the scalar kernel's result, for about a third of its time
per state. The stage states and the RK4 update run on Lanes through the
same integrators helpers as the scalar step (stage_state, velocity_stage,
rk4_state, euler_state). What branches on a rollout's own state runs per
lane on its rows with the scalar kernels: the effort law, the joint torques
(damping, friction, limit stops), the finite check and the energy check
(integrators.accepted_step). Lanes on both sides of ABA's armature branch
take each their own side (_lanes.select_le); when the group's ABA exits
early (D_i ~0 in a lane) that stage is evaluated again lane by lane with
the scalar ABA, which names each lane's singular body.

Arrays: lane states (n, LANES) (coordinate-major, a rollout per column),
rows (LANES, n) (a rollout per row), work (nb, NABA, LANES).
"""

import numpy as np
from ros_dynamics.kernels.aba import aba_into, one_dof_aba_into
from ros_dynamics.kernels.integrators import (DONE, euler_state, NON_FINITE, rk4_state,
                                              stage_state, velocity_stage)
from ros_dynamics.kernels.joint_torques import joint_torques_into
from ros_dynamics.multibody.layouts import (L_K1, L_K2, L_K3, L_K4, L_Q, L_Q_NEXT, L_QD, L_QD_NEXT,
                                            L_QDS, L_QS, L_TAU, R_EFFORT, R_QDD, R_STAGE_Q,
                                            R_STAGE_QD, R_TAU)
from ros_dynamics.runtime.jit import kernel
from ros_dynamics.runtime.lanes import as_lanes, LANES
from ros_dynamics.runtime.views import read_only


@kernel(inline=True)   # per stage: a call would count references of its arrays
def group_accelerations(model, q, qd, params, limits, lane_tau, lane_work, rows, workspace, qdd,
                        singular):
    """
    Write qdd (n, LANES) at the stage states (q, qd) (n, LANES); singular[j] = -1 or lane j's body.

    The joint torques of lane j (joint_torques.joint_torques_into, its own
    ``params[j]`` and rows[R_EFFORT, j]) go to the group's ABA; ``workspace``
    (block_parts, zero body forces) serves the lane-by-lane ABA when the
    group's exits early (a singular lane), so that each lane gets the
    scalar step's result and singular body.
    """
    n = q.shape[0]
    tau = rows[R_TAU]
    for j in range(LANES):
        singular[j] = -1
        for i in range(n):
            rows[R_STAGE_Q, j, i], rows[R_STAGE_QD, j, i] = q[i, j], qd[i, j]
        joint_torques_into(rows[R_STAGE_Q, j], rows[R_STAGE_QD, j], read_only(rows[R_EFFORT, j]),
                           params[j], limits, tau[j])
    for i in range(n):
        for j in range(LANES):
            lane_tau[i, j] = tau[j, i]
    if one_dof_aba_into(model, as_lanes(q), as_lanes(qd), as_lanes(lane_tau), None,
                        as_lanes(lane_work), as_lanes(qdd)) < 0:
        return
    work, forces = workspace[0], read_only(workspace[2])
    for j in range(LANES):
        singular[j] = aba_into(model, read_only(rows[R_STAGE_Q, j]),
                               read_only(rows[R_STAGE_QD, j]), read_only(tau[j]), forces, work,
                               rows[R_QDD, j])
        for i in range(n):
            qdd[i, j] = rows[R_QDD, j, i]


@kernel(inline=True)   # per stage: a call would count references of its arrays
def group_advance(model, params, dt, rk4, limits, lanes, lane_work, rows, workspace, singular,
                  status):
    """
    Advance the group one step from lanes[L_Q], lanes[L_QD] into lanes[L_Q_NEXT], lanes[L_QD_NEXT].

    integrators.advance on lane states (its stages through the same
    helpers); status[j]: DONE, NON_FINITE or -(k + 1) for lane j, as
    advance returns it for that rollout alone.
    """
    q, qd, lane_tau = lanes[L_Q], lanes[L_QD], lanes[L_TAU]
    k1, k2, k3, k4 = lanes[L_K1], lanes[L_K2], lanes[L_K3], lanes[L_K4]
    qs, qds, q_next, qd_next = lanes[L_QS], lanes[L_QDS], lanes[L_Q_NEXT], lanes[L_QD_NEXT]
    qs[:], qds[:] = q, qd
    h = 0.5 * dt
    # the stages in a loop: one call of the group's ABA for LLVM to compile (four inlined
    # copies of it took 40 s of CPU to compile)
    for stage in range(4 if rk4 else 1):
        group_accelerations(model, qs, qds, params, limits, lane_tau, lane_work, rows, workspace,
                            lanes[L_K1 + stage], singular[stage])
        if not rk4:
            euler_state(as_lanes(q), as_lanes(qd), dt, as_lanes(k1), as_lanes(q_next),
                        as_lanes(qd_next))
        elif stage == 0:
            stage_state(as_lanes(q), as_lanes(qd), h, as_lanes(qd), as_lanes(k1), as_lanes(qs),
                        as_lanes(qds))
        elif stage == 1:
            velocity_stage(as_lanes(qd), h, as_lanes(k1), as_lanes(q_next))
            stage_state(as_lanes(q), as_lanes(qd), h, as_lanes(q_next), as_lanes(k2),
                        as_lanes(qs), as_lanes(qds))
        elif stage == 2:
            velocity_stage(as_lanes(qd), h, as_lanes(k2), as_lanes(qd_next))
            stage_state(as_lanes(q), as_lanes(qd), dt, as_lanes(qd_next), as_lanes(k3),
                        as_lanes(qs), as_lanes(qds))
        else:
            rk4_state(as_lanes(q), as_lanes(qd), dt, as_lanes(k1), as_lanes(k2), as_lanes(k3),
                      as_lanes(k4), as_lanes(q_next), as_lanes(qd_next))
    for j in range(LANES):
        first = singular[0, j]
        later = max(singular[1, j], max(singular[2, j], singular[3, j])) if rk4 else -1
        if first >= 0:
            status[j] = -(first + 1)
        elif later >= 0:
            status[j] = -(later + 1)
        else:
            status[j] = DONE
            for i in range(q.shape[0]):
                if not (np.isfinite(q_next[i, j]) and np.isfinite(qd_next[i, j])):
                    status[j] = NON_FINITE
                    break
