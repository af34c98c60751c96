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

"""Forward kinematics: body transforms, velocities and accelerations.

The forward recursion shared by RNEA, the energies and the Jacobian time
derivative (Featherstone 2008, table 5.1, first loop), all quantities in
body coordinates, and the world poses of the bodies.
"""

import numpy as np

from ros_dynamics._jit import kernel
from ros_dynamics.joints import (joint_position, joint_rate, joint_transform,
                                 motion_subspace, PARENT)
from ros_dynamics.spatial import (add, cross_motion, load3, load9, mat_mat, mat_vec,
                                  motion_to_child, scale, store3, store9)

# workspace columns, one row per body
W_ROT = 0       # 9: R_i, body frame in parent coordinates
W_POS = 9       # 3: r_i, body origin in parent coordinates
W_VEL_W = 12    # 3: angular velocity (body coordinates)
W_VEL_V = 15    # 3: linear velocity of the body origin
W_ACC_W = 18    # 3: spatial acceleration, angular part
W_ACC_V = 21    # 3: spatial acceleration, linear part
W_FORCE_N = 24  # 3: net spatial force, moment part (RNEA)
W_FORCE_F = 27  # 3: net spatial force, linear part (RNEA)
NWORK = 30

ZERO3 = (0.0, 0.0, 0.0)


@kernel
def forward_pass(ints, reals, q, qd, qdd, root_acc_v, work):
    """Fill ``work`` with each body's transform, velocity and acceleration.

    v_i = X_i v_p + S_i qd_i;  a_i = X_i a_p + S_i qdd_i + v_i x S_i qd_i, with
    the root at rest and accelerating by (0, root_acc_v): passing minus the
    gravity vector there adds gravity to every body (the "gravity trick").
    """
    for i in range(ints.shape[0]):
        rot, r = joint_transform(ints, reals, i, joint_position(ints, reals, i, q))
        store9(work, i, W_ROT, rot)
        store3(work, i, W_POS, r)
        parent = ints[i, PARENT]
        if parent < 0:
            vw, vv, aw, av = ZERO3, ZERO3, ZERO3, root_acc_v
        else:
            vw, vv = load3(work, parent, W_VEL_W), load3(work, parent, W_VEL_V)
            aw, av = load3(work, parent, W_ACC_W), load3(work, parent, W_ACC_V)
        sw, sv = motion_subspace(ints, reals, i)
        rate = joint_rate(ints, reals, i, qd)
        acc = joint_rate(ints, reals, i, qdd)
        vw, vv = motion_to_child(rot, r, vw, vv)
        vw, vv = add(vw, scale(rate, sw)), add(vv, scale(rate, sv))
        aw, av = motion_to_child(rot, r, aw, av)
        cw, cv = cross_motion(vw, vv, scale(rate, sw), scale(rate, sv))
        aw = add(add(aw, scale(acc, sw)), cw)
        av = add(add(av, scale(acc, sv)), cv)
        store3(work, i, W_VEL_W, vw)
        store3(work, i, W_VEL_V, vv)
        store3(work, i, W_ACC_W, aw)
        store3(work, i, W_ACC_V, av)


@kernel
def world_poses(ints, work, poses):
    """Compose the body transforms in ``work`` into world poses: poses[i] = (R (9), p (3))."""
    for i in range(ints.shape[0]):
        rot, r = load9(work, i, W_ROT), load3(work, i, W_POS)
        parent = ints[i, PARENT]
        if parent >= 0:
            parent_rot = load9(poses, parent, 0)
            r = add(load3(poses, parent, 9), mat_vec(parent_rot, r))
            rot = mat_mat(parent_rot, rot)
        store9(poses, i, 0, rot)
        store3(poses, i, 9, r)


@kernel
def transforms(ints, reals, q, work):
    """Fill only the body transforms (R_i, r_i) of ``work``."""
    for i in range(ints.shape[0]):
        rot, r = joint_transform(ints, reals, i, joint_position(ints, reals, i, q))
        store9(work, i, W_ROT, rot)
        store3(work, i, W_POS, r)


@kernel
def body_poses(ints, reals, q):
    """Return poses[nb, 12]: each body's rotation (row-major) and origin in the root frame."""
    nb = ints.shape[0]
    work = np.empty((nb, NWORK))
    transforms(ints, reals, q, work)
    poses = np.empty((nb, 12))
    world_poses(ints, work, poses)
    return poses
