# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The simulator's joint torque law and the energy it stores, compiled: one implementation.

The joint torques of the simulator (simulation/simulator.py), per velocity
coordinate k (N m or N),

    tau_k = effort_k - d_k qd_k - f_k tanh(qd_k / v_eps) - o_k - sigmoid_k(qd_k)
            + k_stop p - c_stop qd_into,

(o and the sigmoid: the friction offset and Gaz et al.'s sigmoid model,
C. Gaz, E. Magrini and A. De Luca, "A model-based residual approach for
human-robot collaboration during manual polishing operations", Mechatronics
55, 2018; actuators/friction.py) with p the penetration past a position
limit and the stop damper c_stop acting only on motion into the stop, and
the energy those stops store, 1/2 k_stop p^2 (added to the kinetic and
potential energy of energy.py for the simulator's energy check). The
compiled steps (integrators.py), the rollouts, the ground contact's step
and ``Simulator.joint_torques`` all call these.
"""

import math

from ros_dynamics.kernels.energy import kinetic_energy_of, potential_energy_at
from ros_dynamics.kernels.friction import sigmoid_friction
from ros_dynamics.multibody.layouts import (DAMPING, FRICTION, FRICTION_VELOCITY, LOWER, OFFSET,
                                            Q_INDEX, SIGMOID, STOP_DAMPING, STOP_STIFFNESS,
                                            UPPER)
from ros_dynamics.runtime.jit import kernel


@kernel
def joint_torques_into(q, qd, effort, params, limits, tau):
    """
    Write the total joint torque (effort, damping, friction, limit stops) into ``tau`` (nv,).

    q (nq,), qd (nv,), effort (nv,), params (NPARAMS, nv) the parameter
    rows (PARAMS_LAYOUT); ``limits``: the stops on. A limit stop acts on a
    one-dof coordinate k at its position q[params[Q_INDEX, k]] (the
    multi-dof joints have none); with one-dof joints only (nq = nv, the
    model-level case of joints.one_dof_joints) that position is q[k] and the
    stop is added in the same pass.
    """
    plain = q.shape[0] == qd.shape[0]
    for k in range(qd.shape[0]):
        value = effort[k] - params[DAMPING, k] * qd[k]
        if params[FRICTION, k] != 0.0:
            value -= params[FRICTION, k] * math.tanh(qd[k] / params[FRICTION_VELOCITY, k])
        if params[OFFSET, k] != 0.0:
            value -= params[OFFSET, k]
        if params[SIGMOID, k] != 0.0:
            value -= sigmoid_friction(params[SIGMOID, k], params[SIGMOID + 1, k],
                                      params[SIGMOID + 2, k], qd[k])
        if limits and plain:
            value = with_stop(value, q[k], qd[k], params[LOWER, k], params[UPPER, k],
                              params[STOP_STIFFNESS, k], params[STOP_DAMPING, k])
        tau[k] = value
    if limits and not plain:
        add_stop_torques(q, qd, params, tau)


@kernel
def with_stop(value, position, rate, lower, upper, stiffness, damping):
    """
    Return the torque ``value`` plus a limit stop's at (position, rate) (N m or N).

    A stop is a one-sided spring k_stop p (``stiffness``) on the penetration
    p past ``lower`` or ``upper`` (rad or m) with a damper c_stop qd
    (``damping``) acting only on motion into the stop (never pulling toward
    it); nothing inside the limits. Scalars only: an array argument would
    cost a reference count per call (per coordinate).
    """
    over = position - upper
    under = lower - position
    if over > 0.0:
        value -= stiffness * over
        if rate > 0.0:
            value -= damping * rate
    elif under > 0.0:
        value += stiffness * under
        if rate < 0.0:
            value -= damping * rate
    return value


@kernel
def add_stop_torques(q, qd, params, tau):
    """
    Add the limit stops' torques (N m or N) at q (nq,), qd (nv,) to ``tau`` (nv,).

    ``with_stop`` for each one-dof coordinate k at q[params[Q_INDEX, k]];
    nothing on the coordinates of multi-dof joints (params[Q_INDEX, k] < 0).
    """
    for k in range(qd.shape[0]):
        if params[Q_INDEX, k] >= 0.0:
            tau[k] = with_stop(tau[k], q[int(params[Q_INDEX, k])], qd[k], params[LOWER, k],
                               params[UPPER, k], params[STOP_STIFFNESS, k],
                               params[STOP_DAMPING, k])


@kernel
def spring_energy(q, params):
    """Return the limit stops' energy 1/2 sum k_stop p^2 (J) at q (nq,), p the penetration."""
    springs = 0.0
    for k in range(params.shape[1]):
        if params[Q_INDEX, k] < 0.0:
            continue
        position = q[int(params[Q_INDEX, k])]
        p = position - min(max(position, params[LOWER, k]), params[UPPER, k])
        springs += params[STOP_STIFFNESS, k] * (p * p)
    return 0.5 * springs


@kernel
def energy_terms(model, q, qd, params, limits, kinematic_work, poses):
    """
    Return (E, T) in J at q (nq,), qd (nv,): kinetic + potential + limit springs, kinetic.

    The limit springs store 1/2 k_stop p^2 for the penetration p past a limit;
    kinematic_work (nb, NKINEMATICS) and poses (nb, NPOSE) are overwritten.
    """
    kinetic = kinetic_energy_of(model, q, qd, kinematic_work)   # leaves the body transforms
    total = kinetic + potential_energy_at(model, kinematic_work, poses)
    if limits:
        total += spring_energy(q, params)
    return total, kinetic
