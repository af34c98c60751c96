# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Forward kinematics: body transforms, velocities and accelerations.

The forward recursion shared by RNEA, the energies and the Jacobian time
derivative (Featherstone 2008, table 5.1, first loop), all quantities in
body coordinates, the world poses of the bodies and link wrenches as body forces.
"""

from typing import Callable, Mapping

import numpy as np

from ros_dynamics.multibody.joints import body_count, joint_transform, joint_velocity, parent_of
from ros_dynamics.multibody.layouts import (NKINEMATICS, NPOSE, NWRENCH, POSE_P, POSE_R,
                                            SP_ANGULAR, SP_LINEAR, W_ACC_V, W_ACC_W, W_POS, W_ROT,
                                            W_VEL_V, W_VEL_W, WRENCH_BODY, WRENCH_FORCE,
                                            WRENCH_OFFSET, wrench_row, WRENCH_TORQUE)
from ros_dynamics.multibody.spatial import (add, cross, cross_motion, load3, load9, mat_mat,
                                            mat_t_vec, mat_vec, motion_to_child, store3, store9)
from ros_dynamics.runtime.batches import as_array
from ros_dynamics.runtime.jit import IN2, kernel, OUT3, STATUS
from ros_dynamics.runtime.views import borrowed

# the workspace: one row per body, KINEMATICS_LAYOUT (W_*, NKINEMATICS) in layouts.py

ZERO3 = (0.0, 0.0, 0.0)


@kernel
def forward_pass(model, q, qd, qdd, root_acc_v, work):
    """
    Fill ``work`` with each body's transform, velocity and acceleration.

    v_i = X_i v_p + S_i qd_i;  a_i = X_i a_p + S_i qdd_i + v_i x S_i qd_i, with
    the root at rest and accelerating by (0, root_acc_v): passing minus the
    gravity vector there adds gravity to every body (the "gravity trick").
    ``qd`` or ``qdd`` may be None for zero (compiled away: a robot at rest
    needs no velocities, and W_VEL_* is then left unset).
    """
    for i in range(body_count(model)):
        rot, r = joint_transform(model, i, q)
        store9(work, i, W_ROT, rot)
        store3(work, i, W_POS, r)
        parent = parent_of(model, i)
        if parent < 0:
            aw, av = motion_to_child(rot, r, ZERO3, root_acc_v)
        else:
            aw, av = motion_to_child(rot, r, load3(work, parent, W_ACC_W),
                                     load3(work, parent, W_ACC_V))
        if qdd is not None:
            jw, jv = joint_velocity(model, i, qdd)
            aw, av = add(aw, jw), add(av, jv)
        if qd is not None:
            if parent < 0:
                vw, vv = ZERO3, ZERO3
            else:
                vw, vv = motion_to_child(rot, r, load3(work, parent, W_VEL_W),
                                         load3(work, parent, W_VEL_V))
            jw, jv = joint_velocity(model, i, qd)
            vw, vv = add(vw, jw), add(vv, jv)
            cw, cv = cross_motion(vw, vv, jw, jv)
            aw, av = add(aw, cw), add(av, cv)
            store3(work, i, W_VEL_W, vw)
            store3(work, i, W_VEL_V, vv)
        store3(work, i, W_ACC_W, aw)
        store3(work, i, W_ACC_V, av)


@kernel
def store_world_pose(model, poses, i, rot, r):
    """Store body i's world pose, from its transform (rot, r) in its parent, in poses[i]."""
    parent = parent_of(model, i)
    if parent >= 0:
        parent_rot = load9(poses, parent, POSE_R)
        r = add(load3(poses, parent, POSE_P), mat_vec(parent_rot, r))
        rot = mat_mat(parent_rot, rot)
    store9(poses, i, POSE_R, rot)
    store3(poses, i, POSE_P, r)


@kernel
def world_poses(model, work, poses):
    """Compose the body transforms in ``work`` into world poses: poses[i] = (R (9), p (3))."""
    for i in range(body_count(model)):
        store_world_pose(model, poses, i, load9(work, i, W_ROT), load3(work, i, W_POS))


@kernel(inline=True)
def transforms(model, q, work):
    """Fill only the body transforms of ``work``: (R_i, r_i) at W_ROT, W_POS."""
    for i in range(body_count(model)):
        rot, r = joint_transform(model, i, q)
        store9(work, i, W_ROT, rot)
        store3(work, i, W_POS, r)


def link_wrench_rows(wrenches: Mapping, attachment: Callable, name: str) -> tuple:
    """
    Return link wrenches as rows (m, NWRENCH) for the kernels, and the wrenches validated.

    ``wrenches``: {link: [fx, fy, fz, tx, ty, tz]} (N, N m; world axes, at
    the link origin); ``attachment(link)`` -> (body, offset (4, 4)), the
    moving body carrying the link (-1: the fixed root) and the link frame in
    it (RobotModel.link_attachment; ValueError for an unknown link). A
    wrench on the fixed root is taken by the base: validated, but no row.
    ``name`` is the argument's name in the errors (ValueError). Returns
    (rows, {link: (6,) array}); one implementation for RobotModel and the
    Simulator (add_link_wrenches turns the rows into body forces).
    """
    if type(wrenches) is not dict and not isinstance(wrenches, Mapping):   # dict: cheaper
        raise ValueError(f'{name}: expected a mapping link name -> [fx, fy, fz, tx, ty, tz]')
    rows, validated = [], dict(wrenches)
    for link, wrench in wrenches.items():
        body, offset = attachment(link)
        wrench = as_array(wrench, f'{name}[{link!r}]')
        if wrench.shape != (6,) or not np.all(np.isfinite(wrench)):
            raise ValueError(f'{name}[{link!r}]: expected 6 finite numbers [force; torque], '
                             f'got {wrench!r}')
        validated[link] = wrench
        if body >= 0:
            rows.append(wrench_row(body, offset[:3, 3], wrench))
    return np.array(rows).reshape(len(rows), NWRENCH), validated


@kernel
def add_link_wrenches(poses, wrenches, fext):
    """
    Add link wrenches (rows, ``WRENCH_*`` columns) to body spatial forces fext (nb, 6).

    poses (nb, 12): the bodies' world poses; with R a body's world rotation,
    n_b = R^T (n + (R o) x f), f_b = R^T f (Featherstone 2008, eq. 2.21).
    """
    for w in range(wrenches.shape[0]):
        body = int(wrenches[w, WRENCH_BODY])
        rot = load9(poses, body, POSE_R)
        force = load3(wrenches, w, WRENCH_FORCE)
        moment = add(load3(wrenches, w, WRENCH_TORQUE),
                     cross(mat_vec(rot, load3(wrenches, w, WRENCH_OFFSET)), force))
        store3(fext, body, SP_ANGULAR, add(load3(fext, body, SP_ANGULAR), mat_t_vec(rot, moment)))
        store3(fext, body, SP_LINEAR, add(load3(fext, body, SP_LINEAR), mat_t_vec(rot, force)))


@kernel(signatures=[STATUS(IN2, IN2, IN2, OUT3)])
def body_forces_batch(model, q, wrenches, fext):
    """
    Write fext[N, nb, 6]: link wrenches as body forces [moment; force], body coordinates.

    ``wrenches`` (m, NWRENCH): one row per wrench [f; n] acting at a link
    origin (offset o in body coordinates), world axes. With the body's world
    rotation R at q[k], the body force is n_b = R^T (n + (R o) x f), f_b = R^T f
    (Featherstone 2008, eq. 2.21: a force moved to the body origin, then
    expressed in body axes); several wrenches on a body add up. Serial, like
    the other batch kernels; return 0.
    """
    model, q, wrenches, fext = borrowed((model, q, wrenches, fext))
    nb = body_count(model)
    work = np.empty((nb, NKINEMATICS))
    poses = np.empty((nb, NPOSE))
    for k in range(q.shape[0]):
        transforms(model, q[k], work)
        world_poses(model, work, poses)
        fext[k, :, :] = 0.0
        add_link_wrenches(poses, wrenches, fext[k])
    return 0
