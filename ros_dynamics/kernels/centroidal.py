# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Centroidal dynamics: the centre of mass and the momentum of the whole robot about it.

Orin, Goswami and Lee, "Centroidal dynamics of a humanoid robot", Autonomous
Robots 35, 2013: h_G = A_G(q) qd, the linear momentum and the angular
momentum about the centre of mass G, world axes (rows linear, then angular,
as Pinocchio's ``ccrba``). Column j of A_G is the spatial momentum that a unit
rate of velocity coordinate j gives the subtree the joint moves, Ic_i S_ij
with Ic_i the composite inertia of body i's subtree (CRBA's, Featherstone
2008, table 6.2), moved from body i's frame to world axes at G. The rate
dh_G/dt = A_G qdd + (dA_G/dt) qd; the bias (dA_G/dt) qd is the sum over the
bodies of I_i a_i + v_i x* I_i v_i at qdd = 0 without gravity, moved to G.
The centre of mass moves with the linear rows: J_G = A_G[:3] / m.
"""

from numba import carray
import numpy as np

from ros_dynamics.kernels.crba import composite_inertias
from ros_dynamics.kernels.kinematics import forward_pass, transforms, world_poses
from ros_dynamics.multibody.joints import (bad_positions, bad_state, body_count, joint_nv,
                                           model_at, nq_of, nv_of, rigid_inertia, state_at,
                                           subspace_column, velocity_index)
from ros_dynamics.multibody.layouts import (CRBA_H, CRBA_IBAR, CRBA_MASS, MIMIC_GAIN, NCRBA,
                                            NKINEMATICS, NPOSE, POSE_P, POSE_R, W_ACC_V, W_ACC_W,
                                            W_VEL_V, W_VEL_W)
from ros_dynamics.multibody.spatial import (add, cross, cross_force, load3, load6, load9, mat_vec,
                                            rigid_inertia_times, scale, sub)
from ros_dynamics.runtime.jit import IN1, IN2, kernel, OUT1, OUT2, state_entry, STATUS
from ros_dynamics.runtime.views import borrowed


@kernel
def centre_of_mass_of(model, poses):
    """Return (m, c): the total mass and the centre of mass (world) of the moving bodies."""
    mass = 0.0
    moment = (0.0, 0.0, 0.0)
    for i in range(body_count(model)):
        m, h, _ = rigid_inertia(model, i)
        mass += m
        moment = add(moment, add(scale(m, load3(poses, i, POSE_P)),
                                 mat_vec(load9(poses, i, POSE_R), h)))
    return mass, scale(1.0 / mass if mass > 0.0 else 0.0, moment)


@kernel
def force_at(poses, i, com, n, f):
    """Return (linear, angular): body i's force (n, f) (body coordinates) in world axes at com."""
    rot = load9(poses, i, POSE_R)
    linear = mat_vec(rot, f)
    return linear, add(mat_vec(rot, n), cross(sub(load3(poses, i, POSE_P), com), linear))


@kernel(signatures=[STATUS(IN2, IN1, OUT2, OUT1)])
def centroidal_momentum_matrix(model, q, out, com):
    """
    Write A_G (6, nv) into ``out`` and (m, c_x, c_y, c_z) into ``com``; return 0, or 1 if q is bad.

    Rows: linear momentum, angular momentum about the centre of mass, world axes.
    """
    model, q, out, com = borrowed((model, q, out, com))
    if bad_positions(model, q) or out.shape[1] != nv_of(model):
        return 1
    nb = body_count(model)
    work = np.empty((nb, NCRBA))
    poses = np.empty((nb, NPOSE))
    transforms(model, q, work)
    world_poses(model, work, poses)
    composite_inertias(model, work)
    mass, centre = centre_of_mass_of(model, poses)
    com[0], com[1], com[2], com[3] = mass, centre[0], centre[1], centre[2]
    out[:, :] = 0.0
    for i in range(nb):
        gain = model[i, MIMIC_GAIN]
        first = velocity_index(model, i)
        for a in range(joint_nv(model, i)):
            sw, sv = subspace_column(model, i, a)
            n, f = rigid_inertia_times(work[i, CRBA_MASS], load3(work, i, CRBA_H),
                                       load6(work, i, CRBA_IBAR), sw, sv)
            linear, angular = force_at(poses, i, centre, n, f)
            for r in range(3):
                out[r, first + a] += gain * linear[r]
                out[3 + r, first + a] += gain * angular[r]
    return 0


@state_entry
def centroidal_momentum_matrix_entry(model, rows, n, q, b, c, extra, out):
    """
    Write A_G (6, n) for one state into out (C pointers, _jit.STATE_ENTRY; b, c, extra unused).

    Return 0, or 1 if q holds NaN or Inf.
    """
    m = model_at(model, rows)
    return centroidal_momentum_matrix(m, state_at(q, nq_of(m)), carray(out, (6, n)),
                                      np.empty(4))


@kernel(signatures=[STATUS(IN2, IN1, IN1, OUT1)])
def centroidal_momentum_bias(model, q, qd, out):
    """
    Write (dA_G/dt) qd (6,): linear, angular about G, world axes; return 0, or 1 if bad.

    The sum over the bodies of I_i a_i + v_i x* I_i v_i (the forward pass at
    qdd = 0 without gravity), moved to world axes at the centre of mass.
    """
    model, q, qd, out = borrowed((model, q, qd, out))
    if bad_positions(model, q) or bad_state(model, qd):
        return 1
    nb = body_count(model)
    work = np.empty((nb, NKINEMATICS))
    poses = np.empty((nb, NPOSE))
    forward_pass(model, q, qd, None, (0.0, 0.0, 0.0), work)
    world_poses(model, work, poses)
    _, centre = centre_of_mass_of(model, poses)
    linear_sum, angular_sum = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    for i in range(nb):
        m, h, ibar = rigid_inertia(model, i)
        vw, vv = load3(work, i, W_VEL_W), load3(work, i, W_VEL_V)
        n, f = rigid_inertia_times(m, h, ibar, load3(work, i, W_ACC_W), load3(work, i, W_ACC_V))
        iw, iv = rigid_inertia_times(m, h, ibar, vw, vv)
        cn, cf = cross_force(vw, vv, iw, iv)
        linear, angular = force_at(poses, i, centre, add(n, cn), add(f, cf))
        linear_sum, angular_sum = add(linear_sum, linear), add(angular_sum, angular)
    for r in range(3):
        out[r] = linear_sum[r]
        out[3 + r] = angular_sum[r]
    return 0
