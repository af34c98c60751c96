# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Many simulations in one call: the simulator's compiled step over a batch of rollouts.

Rollout b starts at (q0[b], qd0[b]) (nq and nv entries) and takes ``steps``
steps of the simulator's step (integrators.checked_step, simulation_steps'
step with its energy check, on the configuration manifold), holding over
step k the effort (nv,)

    tau_k = sat(tau_ff[k] + K (q_ref[k] - q_k) + D (qd_ref[k] - qd_k))

(zero-order hold of a joint-space PD law with feed-forward, Craig 2005 sec.
10.7; without gains tau_k = sat(tau_ff[k])), saturated at the effort limits
as ``Simulator.set_effort`` does. The position error of velocity coordinate
j is that of its one-dof joint's position q[Q_INDEX_j]; the coordinates of
a multi-dof joint (floating, planar, ball) get none (K's columns there are
zero, rollout.py checks). Each rollout has its own block (the
simulator's settings, its own parameter rows, since the limit stops are
tuned to its initial mass matrix, and scratch space). ``rollout_batch``
runs them one at a time; ``rollout_lanes_batch``, for models solved by ABA
(no mimic joints, one-dof joints only: nq = nv), in groups of LANES
(``rollout_group``, rollouts/lanes.py), with the same states.
"""

from collections import namedtuple

import numpy as np
from ros_dynamics.kernels.ground import ground_checked_step, ground_of
from ros_dynamics.kernels.integrators import (accepted_step, block_parts, checked_step, DONE,
                                              has_input, Step, step_of, total_energy,
                                              zero_body_forces)
from ros_dynamics.kernels.rollout_lanes import group_advance
from ros_dynamics.multibody.joints import body_count
from ros_dynamics.multibody.layouts import (C_DT, C_KINETIC_SCALE, C_LIMITS, C_REFERENCE, C_RK4,
                                            C_TIME, L_Q, L_Q_NEXT, L_QD, L_QD_NEXT, NABA, NCONTROL,
                                            NLANE_ROWS, NLANE_STATES, NPARAMS, Q_INDEX, R_EFFORT,
                                            R_Q, R_QD, R_STAGE_Q, R_STAGE_QD)
from ros_dynamics.runtime.jit import IN1, IN2, IN3, kernel, OUT1, OUT3, STATUS
from ros_dynamics.runtime.lanes import LANES
from ros_dynamics.runtime.views import borrowed, keep, read_only


# rollout_batch's arguments after the initial states, as one named record for the compiled
# functions below the entry points (numba passes it as a tuple; taken once per batch or group)
Rollouts = namedtuple('Rollouts', ['feedforward', 'params', 'limit', 'gains', 'q_ref', 'qd_ref',
                                   'template', 'q_out', 'qd_out', 'outcome'])


@kernel(inline=True)   # per step: a call would count references of its 9 arrays
def effort_into(feedforward, limit, gains, q_ref, qd_ref, q, qd, qindex, effort):
    """
    Write the saturated effort (nv,) of one step: tau_ff + K (q_ref - q) + D (qd_ref - qd).

    ``gains`` (2, n, n) holds K then D, or is empty (0, n, n) for open loop;
    q, q_ref (nq,), qd, qd_ref (n,) with n = nv; ``qindex`` (n,): the
    params row Q_INDEX (the position of velocity coordinate j, or -1: no
    position error). NaN stays NaN (it makes the step diverge, as
    Simulator.set_effort lets it).
    """
    n = qd.shape[0]
    for i in range(n):
        value = feedforward[i]
        if gains.shape[0] > 0:   # in the order of tau_ff + K @ (q_ref - q) + D @ (qd_ref - qd)
            position, velocity = 0.0, 0.0
            for j in range(n):
                if qindex[j] >= 0.0:
                    k = int(qindex[j])
                    position += gains[0, i, j] * (q_ref[k] - q[k])
                velocity += gains[1, i, j] * (qd_ref[j] - qd[j])
            value = value + position + velocity
        if not np.isnan(value):
            value = min(max(value, -limit[i]), limit[i])
        effort[i] = value


@kernel(signatures=[STATUS(IN2, IN2, IN2, IN3, IN3, IN1, IN3, IN3, IN3, IN1, OUT3, OUT3, OUT1)])
def rollout_batch(model, q0, qd0, feedforward, params, limit, gains, q_ref, qd_ref, template,
                  q_out, qd_out, outcome):
    """
    Roll out len(q0) simulations; write q_out (B, steps + 1, nq), qd_out (.., nv), outcome (B,).

    ``feedforward``, ``qd_ref``: (B or 1, steps, nv), ``q_ref`` (B or 1,
    steps, nq), one row of 1
    shared by every rollout; ``params`` (B, NPARAMS, n): each rollout's
    parameter rows; ``template``: a simulator block with the settings.
    outcome[b] = steps for a rollout that ran through, else the step k at
    which it was refused (its states from k + 1 on are NaN). Return 0, or
    the first refused rollout's status (integrators.simulation_steps).
    """
    (model, q0, qd0, feedforward, params, limit, gains, q_ref, qd_ref, template, q_out, qd_out,
     outcome) = borrowed((model, q0, qd0, feedforward, params, limit, gains, q_ref, qd_ref,
                          template, q_out, qd_out, outcome))
    return rollouts_of(model, q0, qd0, Rollouts(feedforward, params, limit, gains, q_ref, qd_ref,
                                                template, q_out, qd_out, outcome), None)


@kernel(signatures=[STATUS(IN2, IN2, IN2, IN3, IN3, IN1, IN3, IN3, IN3, IN1, OUT3, OUT3, OUT1)])
def ground_rollout_batch(model, q0, qd0, feedforward, params, limit, gains, q_ref, qd_ref,
                         template, q_out, qd_out, outcome):
    """
    Run rollout_batch with ground contact: ``template`` ends with the ground data.

    Each rollout steps by contacts/ground_kernel.ground_checked_step (the
    Simulator's step with a Ground), from zero impulses (no warm start).
    """
    (model, q0, qd0, feedforward, params, limit, gains, q_ref, qd_ref, template, q_out, qd_out,
     outcome) = borrowed((model, q0, qd0, feedforward, params, limit, gains, q_ref, qd_ref,
                          template, q_out, qd_out, outcome))
    return rollouts_of(model, q0, qd0, Rollouts(feedforward, params, limit, gains, q_ref, qd_ref,
                                                template, q_out, qd_out, outcome), 1.0)


@kernel(inline=True)   # one caller per specialisation: compiled (and optimised) once
def rollouts_of(model, q0, qd0, batch, ground):
    """
    Run rollout_batch (``ground`` None) or ground_rollout_batch (``ground`` not None).

    ``batch``: the Rollouts record of the entry point's arguments.
    """
    feedforward, params, limit, gains, q_ref, qd_ref, template, q_out, qd_out, outcome = batch
    nq, n = q0.shape[1], qd0.shape[1]
    steps = q_out.shape[1] - 1
    first = DONE
    size = template.shape[0]
    owner = np.empty(size + nq + 2 * n)   # a rollout's block, state and effort, reused
    (scratch,) = borrowed((owner,))
    block, effort = scratch[:size], scratch[size + nq + n:]
    q, qd = scratch[size:size + nq], scratch[size + nq:size + nq + n]
    for b in range(q0.shape[0]):
        block[:] = template
        block[NCONTROL:NCONTROL + NPARAMS * n] = params[b].ravel()
        control, rows, wrenches, workspace, q_next, qd_next = block_parts(block, nq, n,
                                                                          body_count(model))
        zero_body_forces(workspace)
        if ground is not None:
            parts = ground_of(block, model, n)
            parts[2][:, :] = 0.0   # the impulses: no warm start, as Simulator.reset
        q[:] = q0[b]
        qd[:] = qd0[b]
        start_rollout(model, q, qd, control, step_of(control, read_only(effort), rows, wrenches,
                                                     workspace), q_out, qd_out, outcome, b)
        ff = feedforward[0 if feedforward.shape[0] == 1 else b]
        qr = q_ref[0 if q_ref.shape[0] == 1 else b]
        qdr = qd_ref[0 if qd_ref.shape[0] == 1 else b]
        for k in range(steps):   # simulation_steps' step, the block's parts taken once
            effort_into(ff[k], limit, gains, qr[k], qdr[k], q, qd, rows[Q_INDEX], effort)
            applied = read_only(effort)
            step = step_of(control, applied, rows, wrenches, workspace)
            if ground is None:
                status = checked_step(model, q, qd, step, has_input(applied, wrenches), control,
                                      q_next, qd_next, None)
            else:
                status = ground_checked_step(model, q, qd, step, has_input(applied, wrenches),
                                             control, q_next, qd_next, ground_of(block, model, n))
            record_step(q_out, qd_out, outcome, b, k, status, q, qd)
            if status != DONE:
                if first == DONE:
                    first = status
                break
    keep(owner)
    return first


@kernel
def start_rollout(model, q, qd, control, step, q_out, qd_out, outcome, b):
    """
    Start rollout b at (q, qd): its energy reference and time, as Simulator.reset takes them.

    control[C_REFERENCE], [C_KINETIC_SCALE] = the total and kinetic energy
    (integrators.total_energy with the rollout's Step record: its parameter
    rows and workspace), C_TIME = 0; q_out[b, 0], qd_out[b, 0] the state and
    outcome[b] = steps (ran through, until record_step says otherwise).
    """
    control[C_REFERENCE], control[C_KINETIC_SCALE] = total_energy(model, q, qd, step)
    control[C_TIME] = 0.0
    q_out[b, 0] = q
    qd_out[b, 0] = qd
    outcome[b] = q_out.shape[1] - 1


@kernel(inline=True)   # returns a record of 20 arrays
def lane_step(rows, lane_params, wrenches, limits, workspace, j):
    """Return lane j's integrators.Step record: its effort row and parameter rows (ABA's)."""
    return Step(read_only(rows[R_EFFORT, j]), read_only(lane_params[j]), wrenches, limits, False,
                workspace)


@kernel(inline=True)   # per step: a call would count references of its 5 arrays
def record_step(q_out, qd_out, outcome, b, k, status, q, qd):
    """
    Write rollout b's state (q, qd) after step k, or its refusal of step k (status != DONE).

    A refused rollout's outcome[b] = k and its states from k + 1 on are NaN.
    """
    if status != DONE:
        outcome[b] = k
        q_out[b, k + 1:] = np.nan
        qd_out[b, k + 1:] = np.nan
        return
    for i in range(q.shape[0]):
        q_out[b, k + 1, i] = q[i]
    for i in range(qd.shape[0]):
        qd_out[b, k + 1, i] = qd[i]


@kernel(signatures=[STATUS(IN2, IN2, IN2, IN3, IN3, IN1, IN3, IN3, IN3, IN1, OUT3, OUT3, OUT1)])
def rollout_lanes_batch(model, q0, qd0, feedforward, params, limit, gains, q_ref, qd_ref,
                        template, q_out, qd_out, outcome):
    """
    Run rollout_batch (its arguments and results) in groups of LANES rollouts.

    For models whose forward dynamics is ABA (no mimic joints), one-dof
    joints only (nq = nv) and no applied wrenches; the same states bit for
    bit. A separate entry point, so that
    each compiles only where it is used (on a cold cache 60 s of CPU for this
    one, 41 s for rollout_batch).
    """
    (model, q0, qd0, feedforward, params, limit, gains, q_ref, qd_ref, template, q_out, qd_out,
     outcome) = borrowed((model, q0, qd0, feedforward, params, limit, gains, q_ref, qd_ref,
                          template, q_out, qd_out, outcome))
    rollouts = Rollouts(feedforward, params, limit, gains, q_ref, qd_ref, template, q_out, qd_out,
                        outcome)
    batch = q0.shape[0]
    first = DONE
    for start in range(0, batch, LANES):
        status = rollout_group(model, q0, qd0, rollouts, start, min(LANES, batch - start))
        if first == DONE:
            first = status
    return first


@kernel(inline=True)   # one caller per specialisation: compiled (and optimised) once
def rollout_group(model, q0, qd0, rollouts, start, count):
    """
    Roll out rows start .. start + count - 1 (count <= LANES) of rollouts.kernels.rollout_batch.

    Its arguments (the Rollouts record ``rollouts``) and results for those
    rows, the group's forward dynamics in vector lanes (rollouts/lanes.py);
    lanes past ``count`` repeat the last row and are not written. Return 0
    or the first refused row's status.
    """
    feedforward, params, limit, gains, q_ref, qd_ref, template, q_out, qd_out, outcome = rollouts
    n = q0.shape[1]
    steps = q_out.shape[1] - 1
    dt, rk4, limits = template[C_DT], template[C_RK4] != 0.0, template[C_LIMITS] != 0.0
    owners = (template.copy(), np.empty((LANES, NCONTROL)), np.empty((LANES, NPARAMS, n)),
              np.empty((NLANE_ROWS, LANES, n)), np.empty((NLANE_STATES, n, LANES)),
              np.empty((body_count(model), NABA, LANES)), np.empty((4, LANES), np.int64),
              np.empty(LANES, np.int64), np.zeros(LANES, np.bool_),
              np.full(LANES, DONE, np.int64))
    (block, controls, lane_params, rows, lanes, lane_work, singular, status, forced,
     refusal) = borrowed(owners)
    _, _, wrenches, workspace, _, _ = block_parts(block, n, n, body_count(model))
    zero_body_forces(workspace)
    shared_ff, shared_ref = feedforward.shape[0] == 1, q_ref.shape[0] == 1
    for j in range(LANES):
        b = start + min(j, count - 1)
        controls[j] = template[:NCONTROL]
        lane_params[j] = params[b]
        rows[R_Q, j], rows[R_QD, j] = q0[b], qd0[b]
        start_rollout(model, rows[R_Q, j], rows[R_QD, j], controls[j],
                      lane_step(rows, lane_params, wrenches, limits, workspace, j),
                      q_out, qd_out, outcome, b)
    running = count
    for k in range(steps):
        for j in range(LANES):
            b = start + min(j, count - 1)
            f, r = 0 if shared_ff else b, 0 if shared_ref else b
            effort_into(feedforward[f, k], limit, gains, q_ref[r, k], qd_ref[r, k],
                        rows[R_Q, j], rows[R_QD, j], read_only(lane_params[j, Q_INDEX]),
                        rows[R_EFFORT, j])
            forced[j] = has_input(read_only(rows[R_EFFORT, j]), wrenches)
            for i in range(n):
                lanes[L_Q, i, j], lanes[L_QD, i, j] = rows[R_Q, j, i], rows[R_QD, j, i]
        group_advance(model, lane_params, dt, rk4, limits, lanes, lane_work, rows, workspace,
                      singular, status)
        for j in range(count):
            b = start + j
            if outcome[b] < steps:   # refused before: its lane runs on, unread
                continue
            result = status[j]
            if result == DONE:
                q_next, qd_next = rows[R_STAGE_Q, j], rows[R_STAGE_QD, j]
                for i in range(n):
                    q_next[i], qd_next[i] = lanes[L_Q_NEXT, i, j], lanes[L_QD_NEXT, i, j]
                result = accepted_step(model, rows[R_Q, j], rows[R_QD, j],
                                       lane_step(rows, lane_params, wrenches, limits, workspace,
                                                 j), forced[j], controls[j], q_next, qd_next)
            record_step(q_out, qd_out, outcome, b, k, result, rows[R_Q, j], rows[R_QD, j])
            if result != DONE:
                refusal[j] = result
                running -= 1
        if running == 0:
            break
    first = DONE
    for j in range(count):
        if refusal[j] != DONE and first == DONE:
            first = refusal[j]
    keep(owners)
    return first
