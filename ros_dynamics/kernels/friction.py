# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Joint friction torques, compiled: the models the packed kernel model carries.

Per independent joint, with v its velocity (rad/s or m/s), the torque that
friction takes from the motor (so the motor must deliver ID + tau_f):

    tau_f(v) = b v + f_c tanh(v / v_s) + o
               + phi1 / (1 + exp(-phi2 (v + phi3))) - phi1 / (1 + exp(-phi2 phi3))

viscous b, Coulomb f_c with the smooth sign tanh(v / v_s) the simulator uses
(v_s: the model's ``friction_velocity``), a constant offset o, and the
sigmoid model of Gaz, Cognetti, Oliva, Robuffo Giordano and De Luca,
"Dynamic Identification of the Franka Emika Panda Robot With Retrieval of
Feasible Parameters Using Penalty-Based Optimization", IEEE RA-L 4(4), 2019
(eq. of the friction model; zero at v = 0). The parameters are the packed
model's columns COL_VISCOUS ... COL_SIGMOID (joints.py), so every kernel sees
the model's current friction without extra arguments.
"""

import math

from numba import carray

from ros_dynamics.kernels.rnea import inverse_dynamics_batch
from ros_dynamics.multibody.joints import (bad_state, body_count, model_at, one_state, state_at,
                                           velocity_index)
from ros_dynamics.multibody.layouts import (COL_COULOMB, COL_OFFSET, COL_SIGMOID, COL_SIGMOID_REST,
                                            COL_VISCOUS, H_FRICTION_VELOCITY)
from ros_dynamics.runtime.jit import IN2, kernel, OUT2, state_entry, STATUS
from ros_dynamics.runtime.views import borrowed


@kernel
def joint_friction(viscous, coulomb, offset, phi1, phi2, phi3, rest, velocity_scale, v):
    """
    Return tau_f(v) of one joint (N m or N) for its parameters (module docstring).

    rest: the sigmoid's constant term phi1 / (1 + exp(-phi2 phi3)), precomputed.
    """
    tau = viscous * v
    if coulomb != 0.0:
        tau += coulomb * math.tanh(v / velocity_scale)
    tau += offset
    if phi1 != 0.0:
        tau += phi1 / (1.0 + math.exp(-phi2 * (v + phi3))) - rest
    return tau


@kernel
def sigmoid_friction(phi1, phi2, phi3, v):
    """Return Gaz et al.'s phi1 / (1 + exp(-phi2 (v + phi3))) - phi1 / (1 + exp(-phi2 phi3))."""
    return phi1 / (1.0 + math.exp(-phi2 * (v + phi3))) - phi1 / (1.0 + math.exp(-phi2 * phi3))


@kernel
def friction_into(model, qd, tau):
    """Add tau_f(qd) (nv,) to ``tau``: each actuated one-dof joint's friction at its velocity."""
    nb = body_count(model)
    scale = model[nb, H_FRICTION_VELOCITY]
    for i in range(nb):
        viscous, coulomb = model[i, COL_VISCOUS], model[i, COL_COULOMB]
        offset, phi1 = model[i, COL_OFFSET], model[i, COL_SIGMOID]
        if viscous == 0.0 and coulomb == 0.0 and offset == 0.0 and phi1 == 0.0:
            continue
        k = velocity_index(model, i)
        tau[k] += joint_friction(viscous, coulomb, offset, phi1, model[i, COL_SIGMOID + 1],
                                 model[i, COL_SIGMOID + 2], model[i, COL_SIGMOID_REST], scale,
                                 qd[k])


@kernel(signatures=[STATUS(IN2, IN2, OUT2)])
def friction_torques_batch(model, qd, tau):
    """Write tau_f[N, nv] for the N validated rows of qd; return 0."""
    model, qd, tau = borrowed((model, qd, tau))
    for s in range(qd.shape[0]):
        tau[s, :] = 0.0
        friction_into(model, qd[s], tau[s])
    return 0


@state_entry
def friction_torques_entry(model, rows, n, qd, b, c, extra, tau):
    """
    Write tau_f(qd) for one state into tau (C pointers, _jit.STATE_ENTRY; b, c, extra unused).

    Return 0, or 1 if qd holds NaN or Inf.
    """
    m = model_at(model, rows)
    velocity = state_at(qd, n)
    if bad_state(m, velocity):
        return 1
    out = carray(tau, n)
    out[:] = 0.0
    friction_into(m, velocity, out)
    return 0


@state_entry
def inverse_dynamics_friction_entry(model, rows, n, q, qd, qdd, extra, tau):
    """
    Write ID(q, qd, qdd) + tau_f(qd) for one state into tau (C pointers, _jit.STATE_ENTRY).

    The motor-side torque: RNEA's batch kernel on a batch of one (``extra``:
    zero body forces (1, nb, 6)), then the friction. Return 0, or 1 if the
    state holds NaN or Inf.
    """
    m, q, qd, qdd, fext, out, bad = one_state(model, rows, n, q, qd, qdd, extra, tau)
    if bad:
        return 1
    inverse_dynamics_batch(m, q, qd, qdd, fext, out)
    friction_into(m, qd[0], out[0])
    return 0
