# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Joint models and the flat layout of the model arrays the kernels read.

A model is built once at load time as ``ints[nb, NINT]`` (parent body, joint
type, the joint's first position and velocity coordinates and how many of
each) and ``reals[nb, NREAL]`` (tree transform, axis, inertia, mimic map), one
row per moving body, parents before children. Body ``-1`` is the fixed root.

This module is the only place that knows joint types (Featherstone 2008,
sec. 4.4 and table 4.1, his ``jcalc``; Pinocchio's joint models): the joint
transform ``joint_transform(model, i, q)``, the motion subspace S_i as
``joint_nv`` constant columns in body coordinates (``subspace_column``), the
joint velocity S_i qd_i (``joint_velocity``) and the projection S_i^T f of a
body force onto the joint's coordinates (``add_joint_force``). The
algorithms' passes loop over a joint's columns and never branch on its type.
Every joint type here (revolute, continuous and prismatic, and Pinocchio's
free-flyer, planar and spherical joints with their velocity conventions) has
S_i constant in body coordinates, so its bias c_J = dS/dt qd is zero
(Featherstone 2008, eq. 4.10). q holds nq position coordinates and qd nv
velocity coordinates (a free-flyer 7 and 6, planar and spherical 4 and 3,
the one-dof joints 1 and 1; docs/conventions.md). A mimic
joint's coordinate is ``q_i = G_i q[k_i] + o_i`` of its leader's coordinate
k_i (G = 1, o = 0 unless it mimics another), so mimic joints need no special
case in the recursions beyond this map (Featherstone 2008, sec. 3.5).

The kernels receive both packed into one read-only float array (``pack``):
``model[i]`` is body i's reals followed by its ints (exact as floats), its
actuator terms (armature and joint friction of the coordinate it drives, set
on the body of each independent joint only, zero on mimic followers), the
joint-aligned copy ABA reads and the motion subspace columns, and the last
row ``model[nb]`` holds gravity, nq, nv, the singularity tolerance and the
velocity scale of the smooth Coulomb sign. One argument instead of four
keeps the per-call cost of crossing from Python into compiled code low. The
columns are declared in layouts.py (MODEL_LAYOUT, HEADER_LAYOUT).
"""

import functools
import math
from typing import Optional

from numba import carray
import numpy as np

from ros_dynamics.multibody.layouts import (ALIGN_TREE_P, ALIGN_TREE_R, AXIS, COL_ARMATURE,
                                            COL_JOINT_NQ, COL_JOINT_NV, COL_JTYPE, COL_PARENT,
                                            COL_QINDEX, COL_VINDEX, FIRST_MOMENT,
                                            H_FRICTION_VELOCITY, H_GRAVITY, H_NQ, H_NV,
                                            H_ROTATIONS, H_SUBTREES, H_TOLERANCE, IBAR, JOINT_NQ,
                                            JOINT_NV, JTYPE, MASS, MAX_JOINT_NV, MIMIC_GAIN,
                                            MIMIC_OFFSET, NACTUATOR, NALIGNED, NCOL, NINT, NREAL,
                                            PARENT, QINDEX, SP_ANGULAR, SP_LINEAR, SUBSPACE,
                                            TREE_P, TREE_R, VINDEX)
from ros_dynamics.multibody.spatial import (add, axis_rotation, dot, load3, load9, mat_mat,
                                            mat_vec, scale)
from ros_dynamics.runtime.jit import kernel
from ros_dynamics.runtime.views import read_only

# joint types (the ``jcalc`` functions below are the only code that reads them, but for
# ABA's joint-aligned fast path for one-dof joints)
REVOLUTE = 0
PRISMATIC = 1
FREE_FLYER = 2   # q (x, y, z, qx, qy, qz, qw), v (linear, angular) in the child frame
PLANAR = 3       # q (x, y, cos theta, sin theta), v (vx, vy, omega) in the child frame
SPHERICAL = 4    # q (qx, qy, qz, qw), v the angular velocity in the child frame
# URDF joint type -> (type code, nq, nv); Pinocchio's conventions (docs/conventions.md)
JOINT_TYPES = {'revolute': (REVOLUTE, 1, 1), 'continuous': (REVOLUTE, 1, 1),
               'prismatic': (PRISMATIC, 1, 1), 'floating': (FREE_FLYER, 7, 6),
               'planar': (PLANAR, 4, 3), 'spherical': (SPHERICAL, 4, 3)}

# the rigid-body inertia columns a payload adds to (MASS, FIRST_MOMENT, IBAR)
INERTIA_COLUMNS = slice(MASS, IBAR + 6)


def pack(ints: np.ndarray, reals: np.ndarray, nq: int, nv: int, gravity: np.ndarray,
         tolerance: float, actuator: Optional[np.ndarray] = None,
         friction_velocity: float = 1e-3, inertia: Optional[np.ndarray] = None) -> np.ndarray:
    """
    Return the read-only packed model (nb + 1, NCOL) the kernels read.

    actuator: (nb, NACTUATOR) armature and friction columns (None: zeros);
    inertia: (nb, 10) added to the bodies' (m, h, ibar) columns (payloads), or None.
    """
    nb = ints.shape[0]
    model = np.zeros((nb + 1, NCOL))
    model[:nb, :NREAL] = reals
    model[:nb, NREAL:NREAL + NINT] = ints
    if actuator is not None:
        model[:nb, COL_ARMATURE:COL_ARMATURE + NACTUATOR] = actuator
    if inertia is not None:
        model[:nb, INERTIA_COLUMNS] += inertia
    if nb:
        turns = np.array([axis_alignment(axis) if nv == 1 else np.eye(3)   # ABA's fast path
                          for axis, nv in zip(reals[:, AXIS:AXIS + 3], ints[:, JOINT_NV])])
        parents = ints[:, PARENT]
        parent_turns = np.where((parents >= 0)[:, None, None], turns[parents], np.eye(3))
        model[:nb, ALIGN_TREE_R:ALIGN_TREE_R + NALIGNED] = aligned_columns(
            model[:nb], turns, parent_turns)
        model[:nb, SUBSPACE:NCOL] = subspace_columns(ints, reals)
    model[nb, H_GRAVITY:H_GRAVITY + 3] = gravity
    model[nb, H_NQ] = nq
    model[nb, H_NV] = nv
    model[nb, H_ROTATIONS] = np.sum((ints[:, JTYPE] >= FREE_FLYER) & (ints[:, JOINT_NQ] > 0))
    model[nb, H_SUBTREES] = float(contiguous_subtrees(ints))
    model[nb, H_TOLERANCE] = tolerance
    model[nb, H_FRICTION_VELOCITY] = friction_velocity
    model.setflags(write=False)
    return model


def contiguous_subtrees(ints: np.ndarray) -> bool:
    """
    Return True if each subtree owns one range of velocity coordinates (crba.py's fast pass).

    True for bodies numbered depth-first in pre-order (model_build) with the
    coordinates in body order and no mimic follower (it shares its leader's).
    """
    parents, nv, size = ints[:, PARENT], ints[:, JOINT_NV], np.ones(ints.shape[0], np.int64)
    for i in np.flatnonzero(parents >= 0)[::-1]:   # subtree sizes, leaves first
        size[parents[i]] += size[i]
    return bool(ints.shape[0] > 0 and np.all(ints[:, JOINT_NQ] > 0) and np.array_equal(
        ints[:, VINDEX], np.cumsum(nv) - nv) and all(   # each child's range within its parent's
        parents[i] < i and i + size[i] <= parents[i] + size[parents[i]]
        for i in range(ints.shape[0]) if parents[i] >= 0))


def neutral_positions(ints: np.ndarray) -> np.ndarray:
    """
    Return the neutral configuration (nq,): Pinocchio's ``neutral``.

    Zero for the one-dof joints and positions, the identity quaternion
    (w = 1) of free-flyer and spherical joints, cos theta = 1 of planar ones.
    """
    q = np.zeros(int(np.sum(ints[:, JOINT_NQ])))
    for code, w in ((FREE_FLYER, 6), (SPHERICAL, 3), (PLANAR, 2)):
        q[ints[(ints[:, JTYPE] == code) & (ints[:, JOINT_NQ] > 0), QINDEX] + w] = 1.0
    return q


def subspace_columns(ints: np.ndarray, reals: np.ndarray) -> np.ndarray:
    """
    Return the motion subspaces (nb, 6 MAX_JOINT_NV): S_i's columns (angular, linear), body axes.

    Featherstone 2008, table 4.1: revolute (axis, 0), prismatic (0, axis),
    with the unit axis in body coordinates; in the order of Pinocchio's
    velocity coordinates, free-flyer (0, e_x), (0, e_y), (0, e_z), (e_x, 0),
    (e_y, 0), (e_z, 0), planar (0, e_x), (0, e_y), (e_z, 0), spherical
    (e_x, 0), (e_y, 0), (e_z, 0); unused columns are zero.
    """
    nb = ints.shape[0]
    columns = np.zeros((nb, 6 * MAX_JOINT_NV))
    axis = reals[:, AXIS:AXIS + 3]
    revolute = ints[:, JTYPE] == REVOLUTE
    prismatic = ints[:, JTYPE] == PRISMATIC
    columns[revolute, SP_ANGULAR:SP_ANGULAR + 3] = axis[revolute]
    columns[prismatic, SP_LINEAR:SP_LINEAR + 3] = axis[prismatic]
    unit = np.eye(3)
    for code, twists in ((FREE_FLYER, [(None, e) for e in unit] + [(e, None) for e in unit]),
                         (PLANAR, [(None, unit[0]), (None, unit[1]), (unit[2], None)]),
                         (SPHERICAL, [(e, None) for e in unit])):
        rows = ints[:, JTYPE] == code
        for a, (angular, linear) in enumerate(twists):
            part = (angular, 0) if angular is not None else (linear, 3)
            columns[rows, 6 * a + part[1]:6 * a + part[1] + 3] = part[0]
    return columns


def axis_alignment(axis: np.ndarray) -> np.ndarray:
    """
    Return a rotation A (3, 3) whose third column is the unit joint ``axis``.

    A frame turned by A has its z axis along the joint axis (Featherstone 2008,
    sec. 4.4: a joint frame chosen so that S is a column of the identity).
    A coordinate axis (+-x, +-y, +-z, the usual URDF case) gives a signed
    permutation, exact in floating point; the identity for +z.
    """
    return np.array(_alignment_of(tuple(float(x) for x in axis)))


@functools.lru_cache(maxsize=1024)
def _alignment_of(axis: tuple) -> tuple:
    """Return axis_alignment(axis) as nested tuples (memoised: a model repacks often)."""
    def cross(a, b):
        return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
    for k in range(3):
        if abs(axis[k]) == 1.0:
            if k == 2:
                return ((1.0, 0.0, 0.0), (0.0, axis[2], 0.0), (0.0, 0.0, axis[2]))
            z = tuple(axis[j] if j == k else 0.0 for j in range(3))
            x = tuple(1.0 if j == (k + 1) % 3 else 0.0 for j in range(3))
            y = cross(z, x)
            return tuple((x[j], y[j], z[j]) for j in range(3))
    smallest = min(range(3), key=lambda j: abs(axis[j]))
    other = tuple(1.0 if j == smallest else 0.0 for j in range(3))
    x = cross(other, axis)
    norm = math.sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2])
    x = (x[0] / norm, x[1] / norm, x[2] / norm)
    y = cross(axis, x)
    return tuple((x[j], y[j], axis[j]) for j in range(3))


def aligned_columns(rows: np.ndarray, alignment: np.ndarray,
                    parent_alignment: np.ndarray) -> np.ndarray:
    """
    Return the joint-aligned columns (nb, NALIGNED) of the body rows ``rows`` (nb, NCOL), for ABA.

    With A_i = ``alignment[i]`` and A_p = ``parent_alignment[i]`` (nb, 3, 3;
    the identity for a body on the fixed root), the aligned body frame is the
    body frame turned by A_i, so the joint transform is R = (A_p^T R_tree A_i)
    Rz(q_i), r = A_p^T p_tree (revolute) or R = A_p^T R_tree A_i,
    r = A_p^T p_tree + R e_z q_i (prismatic), and the inertia is A_i^T (h,
    ibar A_i) (Featherstone 2008, eq. 2.66 for a pure rotation).
    """
    nb = rows.shape[0]
    tree = np.einsum('bji,bjk,bkl->bil', parent_alignment,
                     rows[:, TREE_R:TREE_R + 9].reshape(nb, 3, 3), alignment)
    ibar = rows[:, IBAR:IBAR + 6]
    full = ibar[:, [0, 3, 4, 3, 1, 5, 4, 5, 2]].reshape(nb, 3, 3)
    turned = np.einsum('bji,bjk,bkl->bil', alignment, full, alignment)
    return np.concatenate([tree.reshape(nb, 9),
                           np.einsum('bji,bj->bi', parent_alignment, rows[:, TREE_P:TREE_P + 3]),
                           np.einsum('bji,bj->bi', alignment,
                                     rows[:, FIRST_MOMENT:FIRST_MOMENT + 3]),
                           turned[:, [0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]],
                           alignment.reshape(nb, 9)], axis=1)


@kernel
def model_at(pointer, rows):
    """Return the read-only packed model (rows, NCOL) at a C pointer (a state entry's)."""
    return read_only(carray(pointer, (rows, NCOL)))


@kernel
def state_at(pointer, n):
    """Return the read-only state vector (n,) at a C pointer (a state entry's input)."""
    return read_only(carray(pointer, n))


@kernel
def batch_of_one(pointer, n):
    """Return the read-only state (1, n) at a C pointer: a batch of one for a batch kernel."""
    return read_only(carray(pointer, (1, n)))


@kernel
def one_state(model, rows, n, a, b, c, extra, out):
    """
    Return the arguments of a 3-input batch kernel for one state given by C pointers.

    (model, a, b, c, fext, out, bad): ``a`` the positions (1, nq), ``b`` and
    ``c`` velocity-sized (1, n) (velocities, accelerations or torques), as
    batches of one, ``extra`` as zero body forces (1, nb, 6), ``out`` as (1, n),
    and whether a state vector holds NaN or Inf or has the wrong size. (A state
    entry cannot take the batch kernel as an argument: numba does not cache
    functions called through one.)
    """
    m = model_at(model, rows)
    a, b, c = batch_of_one(a, nq_of(m)), batch_of_one(b, n), batch_of_one(c, n)
    bad = bad_positions(m, a[0]) or bad_state(m, b[0]) or bad_state(m, c[0])
    return m, a, b, c, read_only(carray(extra, (1, rows - 1, 6))), carray(out, (1, n)), bad


@kernel
def body_count(model):
    """Return nb, the number of moving bodies."""
    return model.shape[0] - 1


@kernel
def nq_of(model):
    """Return nq, the number of position coordinates."""
    return int(model[model.shape[0] - 1, H_NQ])


@kernel
def nv_of(model):
    """Return nv, the number of velocity coordinates (the size of qd, qdd, tau)."""
    return int(model[model.shape[0] - 1, H_NV])


@kernel
def one_dof_joints(model):
    """
    Return True if every joint has one position and one velocity coordinate (nq = nv).

    The model-level flag set at pack time (H_ROTATIONS, the count of joints
    of several coordinates, is zero): such a model takes ABA's joint-aligned
    path for every body and the plain q + h v of the integrators, with no
    per-joint test of the joint's size in the passes.
    """
    return model[model.shape[0] - 1, H_ROTATIONS] == 0.0


@kernel
def gravity_of(model):
    """Return the gravity vector (root frame) as a tuple."""
    nb = model.shape[0] - 1
    return (model[nb, H_GRAVITY], model[nb, H_GRAVITY + 1], model[nb, H_GRAVITY + 2])


@kernel
def parent_of(model, i):
    """Return body i's parent body (-1: the fixed root)."""
    return int(model[i, COL_PARENT])


@kernel
def position_index(model, i):
    """Return the first position coordinate of body i's joint (its leader's for a mimic joint)."""
    return int(model[i, COL_QINDEX])


@kernel
def velocity_index(model, i):
    """Return k_i, the first velocity coordinate of body i's joint (its leader's if mimic)."""
    return int(model[i, COL_VINDEX])


@kernel
def joint_nv(model, i):
    """Return the number of velocity coordinates of body i's joint (the columns of S_i)."""
    return int(model[i, COL_JOINT_NV])


@kernel
def joint_position(model, i, q):
    """Return q_i = G_i q[k_i] + o_i, the coordinate of body i's one-dof joint."""
    return model[i, MIMIC_GAIN] * q[position_index(model, i)] + model[i, MIMIC_OFFSET]


@kernel
def joint_rate(model, i, qd):
    """Return qd_i = G_i qd[k_i] of body i's one-dof joint (also used for accelerations)."""
    return model[i, MIMIC_GAIN] * qd[velocity_index(model, i)]


@kernel(inline=True)   # in every pass, per body: inlined at numba IR level
def joint_transform(model, i, q):
    """
    Return (R, r): body i's frame in its parent body's frame at the positions q (nq,).

    ``jcalc`` (Featherstone 2008, table 4.1) after the tree transform:
    revolute, R = R_tree Rot(axis, q_i), r = p_tree; prismatic, R = R_tree,
    r = p_tree + R_tree axis q_i (URDF: the child frame moves along the axis
    expressed in the joint frame).
    """
    tree_r = load9(model, i, TREE_R)
    tree_p = load3(model, i, TREE_P)
    jtype = model[i, COL_JTYPE]
    if jtype == REVOLUTE:
        return mat_mat(tree_r, axis_rotation(load3(model, i, AXIS),
                                             joint_position(model, i, q))), tree_p
    if jtype == PRISMATIC:
        return tree_r, add(tree_p, scale(joint_position(model, i, q),
                                         mat_vec(tree_r, load3(model, i, AXIS))))
    return joint_motion_after(model, i, q, tree_r, tree_p)


@kernel(inline=True)
def joint_motion_after(model, i, q, tree_r, tree_p):
    """Return the transform of body i's joint of several coordinates after (tree_r, tree_p)."""
    return multi_dof_transform(model[i, COL_JTYPE], multi_dof_positions(model, i, q), tree_r,
                               tree_p)


@kernel(inline=True)
def multi_dof_positions(model, i, q):
    """
    Return body i's position coordinates (a joint of several) as a 7-tuple, zeros after its nq_i.

    Plain floats, so that ``multi_dof_transform`` takes no array: a pass
    with a call that takes q ran 10-27 % slower on robots without such
    joints (Panda, Talos reduced), though the call never ran.
    """
    k = position_index(model, i)
    if model[i, COL_JOINT_NQ] > 4:
        return (q[k], q[k + 1], q[k + 2], q[k + 3], q[k + 4], q[k + 5], q[k + 6])
    return (q[k], q[k + 1], q[k + 2], q[k + 3], 0.0, 0.0, 0.0)


@kernel
def multi_dof_transform(jtype, x, tree_r, tree_p):
    """
    Return joint_transform for the free-flyer, spherical and planar joints (a call apart).

    ``x``: the joint's positions (``multi_dof_positions``); the joint's
    motion after the tree transform (tree_r, tree_p).
    """
    if jtype == FREE_FLYER:
        rot, r = quaternion_rotation(x[3], x[4], x[5], x[6]), (x[0], x[1], x[2])
    elif jtype == SPHERICAL:
        rot, r = quaternion_rotation(x[0], x[1], x[2], x[3]), (0.0, 0.0, 0.0)
    else:   # PLANAR, in the joint frame's xy plane; (cos, sin) normalised
        norm = math.sqrt(x[2] * x[2] + x[3] * x[3])
        c, s = x[2] / norm, x[3] / norm
        rot, r = (c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0), (x[0], x[1], 0.0)
    return mat_mat(tree_r, rot), add(tree_p, mat_vec(tree_r, r))


@kernel
def quaternion_rotation(x, y, z, w):
    """
    Return the rotation (row-major 9-tuple) of the quaternion (x, y, z, w).

    Pinocchio's (and ROS's) order, w last. Any nonzero quaternion is the
    rotation of its unit quaternion: with s = 2 / |q|^2 the matrix is exactly
    that of q / |q| (Shoemake 1985), so a quaternion that is not of unit
    length is normalised, never used as a scaled matrix (``bad_positions``
    refuses one of near-zero length).
    """
    s = 2.0 / (x * x + y * y + z * z + w * w)
    return (1.0 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w),
            s * (x * y + z * w), 1.0 - s * (x * x + z * z), s * (y * z - x * w),
            s * (x * z - y * w), s * (y * z + x * w), 1.0 - s * (x * x + y * y))


@kernel
def aligned_angular(model, i):
    """
    Return True if body i's one-dof joint turns about its aligned z axis, False if it slides.

    In the joint-aligned frames of ABA's fast path (``aligned_columns``) S_i
    is (e_z, 0) for a revolute joint and (0, e_z) for a prismatic one.
    """
    return model[i, COL_JTYPE] == REVOLUTE


@kernel
def aligned_subspace_column(model, i, a):
    """Return column a of S_i in body i's aligned frame (``aligned_angular``; else S_i's own)."""
    if joint_nv(model, i) != 1:
        return subspace_column(model, i, a)
    if aligned_angular(model, i):
        return (0.0, 0.0, 1.0), (0.0, 0.0, 0.0)
    return (0.0, 0.0, 0.0), (0.0, 0.0, 1.0)


@kernel
def aligned_transform(model, i, q):
    """
    Return (R, r): body i's aligned frame in its parent's aligned frame at the positions q.

    ``jcalc`` in the joint-aligned frames of ABA's fast path for one-dof
    joints: revolute, R = T Rz(q_i), r = p; prismatic, R = T, r = p + T e_z q_i,
    with T, p the aligned tree transform (``aligned_columns``). Rz(q_i) only
    mixes T's first two columns.
    """
    t = load9(model, i, ALIGN_TREE_R)
    p = load3(model, i, ALIGN_TREE_P)
    qi = joint_position(model, i, q)
    if aligned_angular(model, i):
        c, s = math.cos(qi), math.sin(qi)
        return ((c * t[0] + s * t[1], c * t[1] - s * t[0], t[2],
                 c * t[3] + s * t[4], c * t[4] - s * t[3], t[5],
                 c * t[6] + s * t[7], c * t[7] - s * t[6], t[8]), p)
    return t, (p[0] + t[2] * qi, p[1] + t[5] * qi, p[2] + t[8] * qi)


@kernel
def subspace_column(model, i, a):
    """Return column a of S_i, (angular, linear) in body coordinates (``subspace_columns``)."""
    column = SUBSPACE + 6 * a
    return load3(model, i, column + SP_ANGULAR), load3(model, i, column + SP_LINEAR)


@kernel(inline=True)   # in every pass, per body: inlined at numba IR level
def joint_velocity(model, i, x):
    """
    Return S_i x_i (angular, linear), body coordinates, for x = qd or qdd (nv,).

    x_i = G_i x[k_i .. k_i + nv_i) (the mimic gain G_i is 1 unless body i's
    joint mimics another).
    """
    k = velocity_index(model, i)
    gain = model[i, MIMIC_GAIN]
    sw, sv = subspace_column(model, i, 0)
    w, v = scale(gain * x[k], sw), scale(gain * x[k], sv)
    for a in range(1, joint_nv(model, i)):
        sw, sv = subspace_column(model, i, a)
        w, v = add(w, scale(x[k + a], sw)), add(v, scale(x[k + a], sv))
    return w, v


@kernel(inline=True)   # in every pass, per body: inlined at numba IR level
def add_joint_force(model, i, n, f, out):
    """Add G_i S_i^T (n, f), the body force (body coordinates) on body i's joint, to out (nv,)."""
    k = velocity_index(model, i)
    gain = model[i, MIMIC_GAIN]
    for a in range(joint_nv(model, i)):
        sw, sv = subspace_column(model, i, a)
        out[k + a] += gain * (dot(sw, n) + dot(sv, f))


@kernel
def rigid_inertia(model, i):
    """Return (m, h, ibar) of body i in body coordinates."""
    return (model[i, MASS], load3(model, i, FIRST_MOMENT),
            (model[i, IBAR], model[i, IBAR + 1], model[i, IBAR + 2],
             model[i, IBAR + 3], model[i, IBAR + 4], model[i, IBAR + 5]))


@kernel
def armature_of(model, i):
    """Return the armature of body i's joint (zero unless it is an independent joint)."""
    return model[i, COL_ARMATURE]


@kernel
def non_finite(x):
    """Return True if any entry of the 1-D array x is NaN or infinite."""
    for k in range(x.shape[0]):
        if not np.isfinite(x[k]):
            return True
    return False


@kernel
def bad_vector(x, n):
    """
    Return True unless x is a finite, contiguous vector of n entries.

    The stride is checked too, so that no caller that bypasses numba's type
    checks can hand a kernel a strided view.
    """
    return x.shape[0] != n or (x.shape[0] > 1 and x.strides[0] != 8) or non_finite(x)


# a quaternion or planar (cos, sin) whose squared length is below this is refused: it names
# no rotation (any longer one is normalised by the joint transform)
MIN_ROTATION_NORM2 = 1e-12


@kernel
def bad_positions(model, q):
    """
    Return True unless q is a finite, contiguous vector of nq positions with valid rotations.

    Every free-flyer and ball quaternion and planar (cos, sin) must have a
    squared length of at least MIN_ROTATION_NORM2 (they are normalised where
    used).
    """
    if bad_vector(q, nq_of(model)):
        return True
    if one_dof_joints(model):
        return False
    for i in range(body_count(model)):
        jtype = model[i, COL_JTYPE]
        if jtype == REVOLUTE or jtype == PRISMATIC or model[i, COL_JOINT_NQ] == 0.0:
            continue
        k = position_index(model, i)
        start, stop = (k + 3, k + 7) if jtype == FREE_FLYER else (
            (k, k + 4) if jtype == SPHERICAL else (k + 2, k + 4))
        norm2 = 0.0
        for j in range(start, stop):
            norm2 += q[j] * q[j]
        if norm2 < MIN_ROTATION_NORM2:
            return True
    return False


@kernel
def bad_state(model, x):
    """Return True unless x is a finite, contiguous velocity-sized vector (nv: qd, qdd, tau)."""
    return bad_vector(x, nv_of(model))
