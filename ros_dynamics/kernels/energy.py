# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Kinetic and potential energy of the moving bodies.

T = 1/2 sum_i v_i^T I_i v_i + 1/2 sum_i I_a,i qd_i^2 (body coordinates; I_a the
joints' armature, the rotors' kinetic energy), V = -sum_i m_i g^T c_i with
c_i the centre of mass in the root frame, so V = 0 at the root origin's
height (Pinocchio's convention; the fixed root link's constant share is left
out, as Pinocchio does).
"""

from numba import types
import numpy as np

from ros_dynamics.kernels.kinematics import forward_pass, transforms, world_poses
from ros_dynamics.multibody.joints import (armature_of, body_count, gravity_of, joint_rate,
                                           rigid_inertia)
from ros_dynamics.multibody.layouts import NKINEMATICS, NPOSE, POSE_P, POSE_R, W_VEL_V, W_VEL_W
from ros_dynamics.multibody.spatial import (add, dot, load3, load9, mat_vec, rigid_inertia_times,
                                            scale)
from ros_dynamics.runtime.jit import IN1, IN2, kernel
from ros_dynamics.runtime.views import borrowed


@kernel(signatures=[types.float64(IN2, IN1, IN1)])
def kinetic_energy(model, q, qd):
    """Return T(q, qd) in J for validated q, qd."""
    model, q, qd = borrowed((model, q, qd))
    return kinetic_energy_of(model, q, qd, np.empty((body_count(model), NKINEMATICS)))


@kernel(signatures=[types.float64(IN2, IN1)])
def potential_energy(model, q):
    """Return V(q) in J for a validated q."""
    model, q = borrowed((model, q))
    nb = body_count(model)
    return potential_energy_of(model, q, np.empty((nb, NKINEMATICS)), np.empty((nb, NPOSE)))


@kernel
def kinetic_energy_of(model, q, qd, work):
    """Return T(q, qd) in J; ``work`` (nb, NKINEMATICS) is overwritten."""
    forward_pass(model, q, qd, None, (0.0, 0.0, 0.0), work)
    energy = 0.0
    for i in range(body_count(model)):
        m, h, ibar = rigid_inertia(model, i)
        w, v = load3(work, i, W_VEL_W), load3(work, i, W_VEL_V)
        n, f = rigid_inertia_times(m, h, ibar, w, v)
        energy += 0.5 * (dot(w, n) + dot(v, f))
        if armature_of(model, i) != 0.0:
            rate = joint_rate(model, i, qd)
            energy += 0.5 * armature_of(model, i) * rate * rate
    return energy


@kernel
def potential_energy_of(model, q, work, poses):
    """Return V(q) in J; ``work`` (nb, NKINEMATICS) and ``poses`` (nb, NPOSE) are overwritten."""
    transforms(model, q, work)
    return potential_energy_at(model, work, poses)


@kernel
def potential_energy_at(model, work, poses):
    """Return V in J from the body transforms in ``work``; ``poses`` (nb, 12) is overwritten."""
    world_poses(model, work, poses)
    g = gravity_of(model)
    energy = 0.0
    for i in range(body_count(model)):
        m, h, ibar = rigid_inertia(model, i)
        moment = add(scale(m, load3(poses, i, POSE_P)), mat_vec(load9(poses, i, POSE_R), h))
        energy -= dot(g, moment)
    return energy
