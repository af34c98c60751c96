# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The joint torque regressor: tau = Y(q, qd, qdd) theta, linear in the inertial parameters.

Body i's net spatial force in its own coordinates is linear in its ten
inertial parameters phi_i = [m, h_x, h_y, h_z, I_xx, I_xy, I_yy, I_xz, I_yz, I_zz]
(h = m c the first moment, I the rotational inertia about the body origin;
Pinocchio's ``Inertia.toDynamicParameters`` order):

    f_i = I_i a_i + v_i x* I_i v_i = A_i(v_i, a_i) phi_i          (6 x 10)

with, for v = (w, v_o), a = (a_w, a_o) and c = a_o + w x v_o (Featherstone 2008,
eq. 2.63 for I, 2.32 for x*; Atkeson, An and Hollerbach 1986, eq. 8):

    moment  n = I a_w + w x (I w) + h x c,
    force   f = m c + (a_w x + w x w x) h.

RNEA's backward pass (table 5.1) adds each body's force into all its ancestors,
so joint j's torque is sum over bodies i below j of S_j^T X_{j,i}^* A_i phi_i:
column block i of Y is A_i carried up body i's ancestor chain and projected
onto each joint axis. Mimic joints add G_j S_j^T f into their leader's row, as
RNEA does. Gravity enters as an upward root acceleration (the gravity trick),
so Y theta includes g(q).

Columns: 10 per moving body in body order (``RobotModel.body_names``), then,
on request, per-joint friction and armature columns (see ``regressor``).
"""

from numba import carray
import numpy as np

from ros_dynamics.kernels.kinematics import forward_pass
from ros_dynamics.multibody.joints import (add_joint_force, bad_positions, bad_state, batch_of_one,
                                           body_count, gravity_of, model_at, nq_of, parent_of)
from ros_dynamics.multibody.layouts import (FIRST_MOMENT, IBAR, MASS, NKINEMATICS, SP_ANGULAR,
                                            SP_LINEAR, W_ACC_V, W_ACC_W, W_POS, W_ROT, W_VEL_V,
                                            W_VEL_W)
from ros_dynamics.multibody.spatial import add, cross, force_to_parent, load3, load9, store3
from ros_dynamics.runtime.jit import IN2, kernel, OUT3, state_entry, STATUS
from ros_dynamics.runtime.views import borrowed

PARAMETERS_PER_BODY = 10
# names of the ten parameters of a body, in column order
PARAMETER_NAMES = ('m', 'mx', 'my', 'mz', 'Ixx', 'Ixy', 'Iyy', 'Ixz', 'Iyz', 'Izz')
# the ten parameters' body forces (n, f) are rows of a (10, NSPATIAL) work array


@kernel
def inertia_columns(x):
    """
    Return I x as six 3-vectors, one per parameter I_xx, I_xy, I_yy, I_xz, I_yz, I_zz.

    I x = (Ixx x0 + Ixy x1 + Ixz x2, Ixy x0 + Iyy x1 + Iyz x2, Ixz x0 + Iyz x1 + Izz x2).
    """
    zero = 0.0
    return ((x[0], zero, zero), (x[1], x[0], zero), (zero, x[1], zero),
            (x[2], zero, x[0]), (zero, x[2], x[1]), (zero, zero, x[2]))


@kernel
def body_force_columns(w, v, aw, av, forces):
    """
    Write A(v, a) (the body force per unit inertial parameter) into forces (10, 6).

    forces[k] = (n, f) of parameter k, body coordinates: see the module docstring.
    """
    c = add(av, cross(w, v))
    zero = (0.0, 0.0, 0.0)
    store3(forces, 0, SP_ANGULAR, zero)
    store3(forces, 0, SP_LINEAR, c)
    for k in range(3):
        e = (1.0 if k == 0 else 0.0, 1.0 if k == 1 else 0.0, 1.0 if k == 2 else 0.0)
        store3(forces, 1 + k, SP_ANGULAR, cross(e, c))
        store3(forces, 1 + k, SP_LINEAR, add(cross(aw, e), cross(w, cross(w, e))))
    la = inertia_columns(aw)
    lw = inertia_columns(w)
    for k in range(6):
        store3(forces, 4 + k, SP_ANGULAR, add(la[k], cross(w, lw[k])))
        store3(forces, 4 + k, SP_LINEAR, zero)


@kernel
def regressor_into(model, q, qd, qdd, work, forces, out):
    """
    Write Y(q, qd, qdd) (nv, 10 nb) into ``out``.

    ``work`` (nb, NKINEMATICS) holds the forward pass, ``forces`` (10, 6) one body's
    force columns while they travel up its ancestor chain.
    """
    nb = body_count(model)
    g = gravity_of(model)
    forward_pass(model, q, qd, qdd, (-g[0], -g[1], -g[2]), work)
    out[:, :] = 0.0
    for i in range(nb):
        body_force_columns(load3(work, i, W_VEL_W), load3(work, i, W_VEL_V),
                           load3(work, i, W_ACC_W), load3(work, i, W_ACC_V), forces)
        first = PARAMETERS_PER_BODY * i
        j = i
        while j >= 0:
            parent = parent_of(model, j)
            rot, r = load9(work, j, W_ROT), load3(work, j, W_POS)
            for k in range(PARAMETERS_PER_BODY):
                n, f = load3(forces, k, SP_ANGULAR), load3(forces, k, SP_LINEAR)
                add_joint_force(model, j, n, f, out[:, first + k])
                if parent >= 0:
                    n, f = force_to_parent(rot, r, n, f)
                    store3(forces, k, SP_ANGULAR, n)
                    store3(forces, k, SP_LINEAR, f)
            j = parent


@kernel(signatures=[STATUS(IN2, IN2, IN2, IN2, OUT3)])
def regressor_batch(model, q, qd, qdd, out):
    """
    Write Y[N, nv, 10 nb] for N validated states (rows of q, qd, qdd); return 0.

    Serial: RobotModel runs blocks of rows in parallel threads (the kernel
    releases the GIL).
    """
    model, q, qd, qdd, out = borrowed((model, q, qd, qdd, out))
    work = np.empty((body_count(model), NKINEMATICS))
    forces = np.empty((PARAMETERS_PER_BODY, 6))
    for s in range(q.shape[0]):
        regressor_into(model, q[s], qd[s], qdd[s], work, forces, out[s])
    return 0


@state_entry
def regressor_entry(model, rows, n, q, qd, qdd, extra, out):
    """
    Write Y(q, qd, qdd) (n, 10 nb) for one state (C pointers, _jit.STATE_ENTRY).

    The batch kernel on a batch of one, after checking the state: return 0,
    or 1 if it holds NaN or Inf (``extra`` unused).
    """
    m = model_at(model, rows)
    a, b, c = batch_of_one(q, nq_of(m)), batch_of_one(qd, n), batch_of_one(qdd, n)
    if bad_positions(m, a[0]) or bad_state(m, b[0]) or bad_state(m, c[0]):
        return 1
    return regressor_batch(m, a, b, c, carray(out, (1, n, PARAMETERS_PER_BODY * (rows - 1))))


def inertial_parameters_of(reals: np.ndarray) -> np.ndarray:
    """
    Return the (nb, 10) inertial parameters of the bodies in a model's ``reals`` rows.

    Per body [m, m c_x, m c_y, m c_z, I_xx, I_xy, I_yy, I_xz, I_yz, I_zz]: kg,
    kg m, kg m^2; c the centre of mass and I the rotational inertia about the
    body frame origin, both in body axes (Pinocchio's ``toDynamicParameters``).
    """
    ibar = reals[:, IBAR:IBAR + 6]   # xx, yy, zz, xy, xz, yz
    return np.column_stack([reals[:, MASS], reals[:, FIRST_MOMENT:FIRST_MOMENT + 3],
                            ibar[:, 0], ibar[:, 3], ibar[:, 1], ibar[:, 4], ibar[:, 5],
                            ibar[:, 2]])


def reals_with_parameters(reals: np.ndarray, parameters: np.ndarray) -> np.ndarray:
    """Return a copy of ``reals`` with the bodies' inertial parameters (nb, 10) written in."""
    out = np.array(reals, dtype=float)
    p = np.asarray(parameters, dtype=float).reshape(-1, PARAMETERS_PER_BODY)
    out[:, MASS] = p[:, 0]
    out[:, FIRST_MOMENT:FIRST_MOMENT + 3] = p[:, 1:4]
    out[:, IBAR:IBAR + 6] = np.column_stack([p[:, 4], p[:, 6], p[:, 9], p[:, 5], p[:, 7],
                                             p[:, 8]])
    return out


def friction_columns(qd: np.ndarray, friction_velocity: float) -> np.ndarray:
    """
    Return the friction regressor (..., dof, 3 dof) for joint velocities qd (..., dof).

    Joint j's torque gets b_j qd_j + f_j tanh(qd_j / friction_velocity) + o_j:
    columns 3 j, 3 j + 1, 3 j + 2 are viscous (N m s/rad), Coulomb (N m, the
    smooth sign of ``Simulator``) and a constant offset (N m).
    """
    dof = qd.shape[-1]
    out = np.zeros(qd.shape + (3 * dof,))
    rows = np.arange(dof)
    out[..., rows, 3 * rows] = qd
    out[..., rows, 3 * rows + 1] = np.tanh(qd / friction_velocity)
    out[..., rows, 3 * rows + 2] = 1.0
    return out


def armature_columns(qdd: np.ndarray) -> np.ndarray:
    """Return the armature regressor (..., dof, dof): diag(qdd), joint j's column qdd_j."""
    dof = qdd.shape[-1]
    out = np.zeros(qdd.shape + (dof,))
    rows = np.arange(dof)
    out[..., rows, rows] = qdd
    return out
