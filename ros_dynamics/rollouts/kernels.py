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

"""
Many simulations in one call: the simulator's compiled step over a batch of rollouts.

Rollout b starts at (q0[b], qd0[b]) and takes ``steps`` steps of the
simulator's step (integrators.checked_step, simulation_steps' step with its
energy check),
holding over step k the effort

    tau_k = sat(tau_ff[k] + K (q_ref[k] - q_k) + D (qd_ref[k] - qd_k))

(zero-order hold of a joint-space PD law with feed-forward, Craig 2005 sec.
10.7; without gains tau_k = sat(tau_ff[k])), saturated at the effort limits
as ``Simulator.set_effort`` does. Each rollout has its own block (the
simulator's settings, its own parameter rows, since the limit stops are
tuned to its initial mass matrix, and scratch space).
"""

import numpy as np
from ros_dynamics._jit import IN1, IN2, IN3, kernel, OUT1, OUT3, read_only, STATUS
from ros_dynamics.integrators import (block_parts, C_KINETIC_SCALE, C_LIMITS, C_REFERENCE,
                                      C_TIME, checked_step, DONE, has_input, NCONTROL, NPARAMS,
                                      total_energy, zero_body_forces)
from ros_dynamics.joints import body_count


@kernel
def effort_into(feedforward, limit, gains, q_ref, qd_ref, q, qd, effort):
    """
    Write the saturated effort of one step: tau_ff + K (q_ref - q) + D (qd_ref - qd).

    ``gains`` (2, n, n) holds K then D, or is empty (0, n, n) for open loop.
    NaN stays NaN (it makes the step diverge, as Simulator.set_effort lets it).
    """
    n = q.shape[0]
    for i in range(n):
        value = feedforward[i]
        if gains.shape[0] > 0:   # in the order of tau_ff + K @ (q_ref - q) + D @ (qd_ref - qd)
            position, velocity = 0.0, 0.0
            for j in range(n):
                position += gains[0, i, j] * (q_ref[j] - q[j])
                velocity += gains[1, i, j] * (qd_ref[j] - qd[j])
            value = value + position + velocity
        if not np.isnan(value):
            value = min(max(value, -limit[i]), limit[i])
        effort[i] = value


@kernel(signatures=[STATUS(IN2, IN2, IN2, IN3, IN3, IN1, IN3, IN3, IN3, IN1, OUT3, OUT3, OUT1)])
def rollout_batch(model, q0, qd0, feedforward, params, limit, gains, q_ref, qd_ref, template,
                  q_out, qd_out, outcome):
    """
    Roll out len(q0) simulations; write q_out, qd_out (B, steps + 1, n) and outcome (B,).

    ``feedforward``, ``q_ref``, ``qd_ref``: (B or 1, steps, n), one row of 1
    shared by every rollout; ``params`` (B, NPARAMS, n): each rollout's
    parameter rows; ``template``: a simulator block with the settings.
    outcome[b] = steps for a rollout that ran through, else the step k at
    which it was refused (its states from k + 1 on are NaN). Return 0, or
    the first refused rollout's status (integrators.simulation_steps).
    """
    batch, n = q0.shape
    steps = q_out.shape[1] - 1
    limits = template[C_LIMITS] != 0.0
    first = DONE
    effort = np.empty(n)
    for b in range(batch):
        block = template.copy()
        block[NCONTROL:NCONTROL + NPARAMS * n] = params[b].ravel()
        control, rows, wrenches, workspace, q_next, qd_next = block_parts(block, n,
                                                                          body_count(model))
        zero_body_forces(workspace)
        q, qd = q0[b].copy(), qd0[b].copy()
        # the reference energy of the initial state, as Simulator.reset takes it
        control[C_REFERENCE], control[C_KINETIC_SCALE] = total_energy(model, q, qd, rows,
                                                                      limits, workspace)
        control[C_TIME] = 0.0
        q_out[b, 0] = q
        qd_out[b, 0] = qd
        ff = feedforward[0 if feedforward.shape[0] == 1 else b]
        qr = q_ref[0 if q_ref.shape[0] == 1 else b]
        qdr = qd_ref[0 if qd_ref.shape[0] == 1 else b]
        outcome[b] = steps
        for k in range(steps):   # simulation_steps' step, the block's parts taken once
            effort_into(ff[k], limit, gains, qr[k], qdr[k], q, qd, effort)
            applied = read_only(effort)
            status = checked_step(model, q, qd, applied, has_input(applied, wrenches), control,
                                  rows, wrenches, workspace, q_next, qd_next, None)
            if status != DONE:
                outcome[b] = k
                if first == DONE:
                    first = status
                q_out[b, k + 1:] = np.nan
                qd_out[b, k + 1:] = np.nan
                break
            for i in range(n):
                q_out[b, k + 1, i] = q[i]
                qd_out[b, k + 1, i] = qd[i]
    return first
