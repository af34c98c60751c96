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

"""Joint models and the flat layout of the model arrays the kernels read.

A model reaches the kernels as two arrays built once at load time:
``ints[nb, 3]`` (parent body, joint type, index of the independent
coordinate) and ``reals[nb, NREAL]`` (tree transform, axis, inertia, mimic
map), one row per moving body, parents before children. Body ``-1`` is the
fixed root. Body i's joint coordinate is ``q_i = G_i q[k_i] + o_i``
(G = 1, o = 0 unless the joint mimics another), so mimic joints need no
special case in the recursions beyond this map (Featherstone 2008, sec. 3.5,
with the joint models of table 4.1).
"""

from ros_dynamics._jit import kernel
from ros_dynamics.spatial import add, axis_rotation, load3, load9, mat_mat, mat_vec, scale

REVOLUTE = 0
PRISMATIC = 1

# ints columns
PARENT = 0
JTYPE = 1
QINDEX = 2
NINT = 3

# reals columns
TREE_R = 0      # 9: rotation of the joint frame at q = 0 in parent-body coordinates
TREE_P = 9      # 3: origin of the joint frame in parent-body coordinates (m)
AXIS = 12       # 3: unit joint axis in the body frame
MASS = 15       # 1: body mass (kg), fixed children merged
FIRST_MOMENT = 16   # 3: h = m c (kg m), c the centre of mass in body coordinates
IBAR = 19       # 6: rotational inertia about the body origin (xx, yy, zz, xy, xz, yz)
MIMIC_GAIN = 25     # 1: G
MIMIC_OFFSET = 26   # 1: o
NREAL = 27


@kernel
def joint_position(ints, reals, i, q):
    """Return q_i = G_i q[k_i] + o_i, the coordinate of body i's joint."""
    return reals[i, MIMIC_GAIN] * q[ints[i, QINDEX]] + reals[i, MIMIC_OFFSET]


@kernel
def joint_rate(ints, reals, i, qd):
    """Return qd_i = G_i qd[k_i] (also used for accelerations)."""
    return reals[i, MIMIC_GAIN] * qd[ints[i, QINDEX]]


@kernel
def joint_transform(ints, reals, i, qi):
    """Return (R, r): body i's frame in its parent body's frame at joint coordinate qi.

    Revolute: R = R_tree Rot(axis, qi), r = p_tree. Prismatic: R = R_tree,
    r = p_tree + R_tree axis qi (URDF: the child frame moves along the axis
    expressed in the joint frame).
    """
    tree_r = load9(reals, i, TREE_R)
    tree_p = load3(reals, i, TREE_P)
    axis = load3(reals, i, AXIS)
    if ints[i, JTYPE] == REVOLUTE:
        return mat_mat(tree_r, axis_rotation(axis, qi)), tree_p
    return tree_r, add(tree_p, scale(qi, mat_vec(tree_r, axis)))


@kernel
def motion_subspace(ints, reals, i):
    """Return S_i = (angular, linear) of body i's joint in body coordinates (table 4.1)."""
    axis = load3(reals, i, AXIS)
    zero = (0.0, 0.0, 0.0)
    if ints[i, JTYPE] == REVOLUTE:
        return axis, zero
    return zero, axis


@kernel
def rigid_inertia(reals, i):
    """Return (m, h, ibar) of body i in body coordinates."""
    return (reals[i, MASS], load3(reals, i, FIRST_MOMENT),
            (reals[i, IBAR], reals[i, IBAR + 1], reals[i, IBAR + 2],
             reals[i, IBAR + 3], reals[i, IBAR + 4], reals[i, IBAR + 5]))
