# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Geometric Jacobians of link frames and their time derivative times qd.

The column of joint i (an ancestor of the link's body) at the link origin P,
in world axes, is [z_v + z_w x (P - p_i); z_w] with (z_w, z_v) = R_i S_i the
joint's motion subspace in world axes (Featherstone 2008, sec. 8.1; Craig's
geometric Jacobian for revolute and prismatic joints). Rows are
[linear; angular]. Mimic joints add G_i times their column to the leader's.
"""

from numba import carray
import numpy as np

from ros_dynamics.kernels.kinematics import forward_pass, store_world_pose, world_poses
from ros_dynamics.multibody.joints import (bad_positions, bad_state, body_count, joint_nv,
                                           joint_transform, model_at, nq_of, nv_of, parent_of,
                                           state_at, subspace_column, velocity_index)
from ros_dynamics.multibody.layouts import (LINK_BODY, MIMIC_GAIN, NKINEMATICS, NPOSE, POSE_P,
                                            POSE_R, W_ACC_V, W_ACC_W, W_VEL_V, W_VEL_W)
from ros_dynamics.multibody.spatial import add, cross, load3, load9, mat_mat, mat_vec, sub
from ros_dynamics.runtime.jit import kernel, state_entry
from ros_dynamics.runtime.views import read_only


@kernel
def link_pose(poses, body, offset):
    """Return (R, P) of a link: its body's world pose composed with the fixed offset[12]."""
    off_rot, off_pos = load9(offset, 0, POSE_R), load3(offset, 0, POSE_P)
    if body < 0:
        return off_rot, off_pos
    rot, pos = load9(poses, body, POSE_R), load3(poses, body, POSE_P)
    return mat_mat(rot, off_rot), add(pos, mat_vec(rot, off_pos))


@kernel
def chain_poses(model, q, body):
    """
    Return poses (nb, 12) holding the world poses of ``body`` and its ancestors.

    Only the kinematic chain from the root to the body is composed (the other
    rows are left unset): all a link's pose and Jacobian need.
    """
    nb = body_count(model)
    chain = np.empty(nb, np.int64)
    depth = 0
    k = body
    while k >= 0:
        chain[depth] = k
        depth += 1
        k = parent_of(model, k)
    poses = np.empty((nb, NPOSE))
    for d in range(depth - 1, -1, -1):
        i = chain[d]
        rot, r = joint_transform(model, i, q)
        store_world_pose(model, poses, i, rot, r)
    return poses


@kernel
def link_transform(model, q, body, offset, out):
    """Write the link's 4x4 homogeneous transform in the root frame; return 0, or 1 if q is bad."""
    if bad_positions(model, q):
        return 1
    rot, point = link_pose(chain_poses(model, q, body), body, offset)
    for r in range(3):
        for c in range(3):
            out[r, c] = rot[3 * r + c]
        out[r, 3] = point[r]
        out[3, r] = 0.0
    out[3, 3] = 1.0
    return 0


@state_entry
def link_transform_entry(model, rows, n, q, b, c, extra, out):
    """Entry point of ``link_transform`` (C pointers, _jit.STATE_ENTRY; extra: jacobian_entry)."""
    link = read_only(carray(extra, (1, 13)))
    m = model_at(model, rows)
    return link_transform(m, state_at(q, nq_of(m)), int(link[0, LINK_BODY]), link,
                          carray(out, (4, 4)))


@kernel
def jacobian_world_aligned(model, q, body, offset, jac):
    """
    Write J[6, nv], the link's Jacobian at its origin in world axes (LOCAL_WORLD_ALIGNED).

    ``offset`` is a (1, 12) array: the link frame in its body frame (R row-major, p).
    Return 0, or 1 if q is bad (wrong size, NaN); ``body`` is trusted.
    """
    if bad_positions(model, q) or jac.shape[1] != nv_of(model):
        return 1
    poses = chain_poses(model, q, body)
    jacobian_at_point(model, poses, body, link_pose(poses, body, offset)[1], jac)
    return 0


@kernel
def jacobian_at_point(model, poses, body, point, jac):
    """
    Write J[6, nv] of the point ``point`` (world) fixed in ``body``, world axes.

    poses (nb, 12): the world poses of the body and its ancestors (the other
    rows are not read). Column of a motion-subspace column (z_w, z_v) of an
    ancestor joint with origin p: [z_v + z_w x (P - p); z_w], times its mimic gain.
    """
    jac[:, :] = 0.0
    k = body
    while k >= 0:
        body_rot, origin = load9(poses, k, POSE_R), load3(poses, k, POSE_P)
        gain = model[k, MIMIC_GAIN]
        first = velocity_index(model, k)
        for a in range(joint_nv(model, k)):
            sw, sv = subspace_column(model, k, a)
            zw, zv = mat_vec(body_rot, sw), mat_vec(body_rot, sv)
            linear = add(zv, cross(zw, sub(point, origin)))
            for r in range(3):
                jac[r, first + a] += gain * linear[r]
                jac[3 + r, first + a] += gain * zw[r]
        k = parent_of(model, k)


@state_entry
def jacobian_entry(model, rows, n, q, b, c, extra, jac):
    """
    Entry point of ``jacobian_world_aligned`` (C pointers, _jit.STATE_ENTRY; b, c unused).

    ``extra`` is the link: its offset (R row-major, p) in its body frame, then the
    body index, 13 values.
    """
    link = read_only(carray(extra, (1, 13)))
    m = model_at(model, rows)
    return jacobian_world_aligned(m, state_at(q, nq_of(m)), int(link[0, LINK_BODY]), link,
                                  carray(jac, (6, n)))


@kernel
def link_bias_acceleration(model, q, qd, body, offset, out):
    """
    Write rows (angular, spatial linear at P, classical linear at P) of dJ/dt qd, world axes.

    The forward pass with qdd = 0 and no gravity gives the body's spatial
    acceleration (aw, av) and velocity (w, v); at the link origin P (offset c
    from the body origin): v_P = v + w x c, a_P = av + aw x c, and the
    classical acceleration of P is a_P + w x v_P. ``out`` is (3, 3); return 0.
    """
    nb = body_count(model)
    out[:, :] = 0.0
    if body < 0:
        return 0
    work = np.empty((nb, NKINEMATICS))
    forward_pass(model, q, qd, None, (0.0, 0.0, 0.0), work)
    poses = np.empty((nb, NPOSE))
    world_poses(model, work, poses)
    rows = bias_acceleration_at(work, poses, body, load3(offset, 0, POSE_P))
    for r in range(3):
        for k in range(3):
            out[r, k] = rows[r][k]
    return 0


@kernel
def bias_acceleration_at(work, poses, body, c):
    """
    Return (angular, spatial linear, classical linear) dJ/dt qd of point c of ``body``, world axes.

    work: a forward pass at qdd = 0 without gravity (kinematics.forward_pass),
    poses its world poses, c the point in body coordinates (body >= 0):
    v_P = v + w x c, a_P = av + aw x c, classical a_P + w x v_P.
    """
    w, v = load3(work, body, W_VEL_W), load3(work, body, W_VEL_V)
    aw, av = load3(work, body, W_ACC_W), load3(work, body, W_ACC_V)
    v_point = add(v, cross(w, c))
    a_point = add(av, cross(aw, c))
    classical = add(a_point, cross(w, v_point))
    rot = load9(poses, body, POSE_R)
    return mat_vec(rot, aw), mat_vec(rot, a_point), mat_vec(rot, classical)


@state_entry
def link_bias_acceleration_entry(model, rows, n, q, qd, c, extra, out):
    """
    Entry point of ``link_bias_acceleration`` (C pointers, _jit.STATE_ENTRY; c unused).

    ``extra`` as jacobian_entry; return 0, or 1 if q or qd holds NaN or Inf.
    """
    m = model_at(model, rows)
    q, qd = state_at(q, nq_of(m)), state_at(qd, n)
    if bad_positions(m, q) or bad_state(m, qd):
        return 1
    link = read_only(carray(extra, (1, 13)))
    return link_bias_acceleration(m, q, qd, int(link[0, LINK_BODY]), link, carray(out, (3, 3)))
