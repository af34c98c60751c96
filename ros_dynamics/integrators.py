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
One compiled integration step of the simulator (RK4 or semi-implicit Euler).

The simulator's step makes four forward-dynamics calls plus the joint
torques of damping, friction and limit stops; done from Python that costs
about 120 us for a 7-DoF arm. This kernel does the whole step in one call
(the same formulas as ``Simulator.joint_torques`` and ABA, see simulation.py):

    tau = effort - d qd - f tanh(qd / v_eps) - o - sigmoid(qd) + k_stop p - c_stop qd_into,

(o and the sigmoid: the friction offset and Gaz et al.'s sigmoid model,
actuators/friction.py) with p the penetration past a position limit and the stop damper acting only
on motion into the stop. External wrenches are not handled here (the
simulator uses its Python path when one is applied).
"""

import math

from numba import types
import numpy as np
from ros_dynamics._jit import IN1, IN2, kernel, OUT1, read_only, STATUS
from ros_dynamics.aba import aba_into, dense_into, new_workspace
from ros_dynamics.actuators.friction import sigmoid_friction
from ros_dynamics.joints import body_count

# rows of the joint-parameter array
DAMPING = 0
FRICTION = 1
FRICTION_VELOCITY = 2
LOWER = 3
UPPER = 4
STOP_STIFFNESS = 5
STOP_DAMPING = 6
OFFSET = 7
SIGMOID = 8     # 3 rows: phi1, phi2, phi3
NPARAMS = 11


@kernel
def joint_torques_into(q, qd, effort, params, limits, tau):
    """Write the total joint torque (effort, damping, friction, limit stops) into ``tau``."""
    for k in range(q.shape[0]):
        value = effort[k] - params[DAMPING, k] * qd[k]
        if params[FRICTION, k] != 0.0:
            value -= params[FRICTION, k] * math.tanh(qd[k] / params[FRICTION_VELOCITY, k])
        if params[OFFSET, k] != 0.0:
            value -= params[OFFSET, k]
        if params[SIGMOID, k] != 0.0:
            value -= sigmoid_friction(params[SIGMOID, k], params[SIGMOID + 1, k],
                                      params[SIGMOID + 2, k], qd[k])
        if limits:
            over = q[k] - params[UPPER, k]
            under = params[LOWER, k] - q[k]
            if over > 0.0:
                value -= params[STOP_STIFFNESS, k] * over
                if qd[k] > 0.0:
                    value -= params[STOP_DAMPING, k] * qd[k]
            elif under > 0.0:
                value += params[STOP_STIFFNESS, k] * under
                if qd[k] < 0.0:
                    value -= params[STOP_DAMPING, k] * qd[k]
        tau[k] = value


@kernel
def acceleration_into(model, q, qd, effort, params, limits, dense, work, mass, no_forces, tau,
                      qdd):
    """
    Write qdd under the current effort into ``qdd``; return -1 or the singular index.

    ABA (or the dense solve) sees read-only states and zero body forces
    ``no_forces``: the argument types of the batch kernels, whose compiled
    specialisations it then shares (compile time).
    """
    joint_torques_into(q, qd, effort, params, limits, tau)
    q, qd, torque = read_only(q), read_only(qd), read_only(tau)
    if dense:
        return dense_into(model, q, qd, torque, no_forces, work, mass, qdd)
    return aba_into(model, q, qd, torque, no_forces, work, qdd)


@kernel(signatures=[STATUS(IN2, OUT1, OUT1, IN1, IN2, types.float64, types.boolean,
                           types.boolean, types.boolean)])
def integration_step(model, q, qd, effort, params, dt, rk4, limits, dense):
    """
    Advance (q, qd) in place by one step of ``dt``.

    Return 0; 1 if the new state is not finite (q, qd left unchanged);
    -(k + 1) if the mass matrix is singular at index k.
    """
    n = q.shape[0]
    work, mass = new_workspace(model)
    # allocated here: measured 0.3 us a step cheaper than one more array through numba's dispatcher
    no_forces = read_only(np.zeros((body_count(model), 6)))
    tau = np.empty(n)
    k1, k2, k3, k4 = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    qs, qds = np.empty(n), np.empty(n)
    q_next, qd_next = np.empty(n), np.empty(n)
    singular = acceleration_into(model, q, qd, effort, params, limits, dense, work, mass,
                                 no_forces, tau, k1)
    if singular >= 0:
        return -(singular + 1)
    if not rk4:   # semi-implicit (symplectic) Euler
        for i in range(n):
            qd_next[i] = qd[i] + dt * k1[i]
            q_next[i] = q[i] + dt * qd_next[i]
    else:
        for i in range(n):
            qs[i] = q[i] + 0.5 * dt * qd[i]
            qds[i] = qd[i] + 0.5 * dt * k1[i]
        singular = acceleration_into(model, qs, qds, effort, params, limits, dense, work, mass,
                                     no_forces, tau, k2)
        for i in range(n):
            q_next[i] = qd[i] + 0.5 * dt * k1[i]         # qd2, kept for the position update
            qs[i] = q[i] + 0.5 * dt * q_next[i]
            qds[i] = qd[i] + 0.5 * dt * k2[i]
        singular = max(singular, acceleration_into(model, qs, qds, effort, params, limits, dense,
                                                   work, mass, no_forces, tau, k3))
        for i in range(n):
            qd_next[i] = qd[i] + 0.5 * dt * k2[i]        # qd3
            qs[i] = q[i] + dt * qd_next[i]
            qds[i] = qd[i] + dt * k3[i]
        singular = max(singular, acceleration_into(model, qs, qds, effort, params, limits, dense,
                                                   work, mass, no_forces, tau, k4))
        if singular >= 0:
            return -(singular + 1)
        for i in range(n):
            qd4 = qd[i] + dt * k3[i]
            position = q[i] + dt / 6.0 * (qd[i] + 2.0 * q_next[i] + 2.0 * qd_next[i] + qd4)
            velocity = qd[i] + dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
            q_next[i], qd_next[i] = position, velocity
    for i in range(n):
        if not (np.isfinite(q_next[i]) and np.isfinite(qd_next[i])):
            return 1
    for i in range(n):
        q[i], qd[i] = q_next[i], qd_next[i]
    return 0
