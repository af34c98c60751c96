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

"""
Spatial algebra on scalar tuples, compiled (Featherstone 2008, ch. 2).

A 3-vector is a tuple ``(x, y, z)``; a 3x3 matrix a row-major 9-tuple; a
symmetric 3x3 matrix a 6-tuple ``(xx, yy, zz, xy, xz, yz)``. A spatial
motion vector is the pair ``(w, v)`` (angular; linear), a spatial force the
pair ``(n, f)`` (moment; force), both expressed at the origin of the frame
they are written in. Working on tuples keeps every kernel free of
allocations: numba keeps them in registers.

A coordinate transform between a parent frame P and a child frame C is
``(R, r)``: R rotates child coordinates into parent coordinates and r is the
child origin in parent coordinates, so Featherstone's ``E = R^T`` and
``X = [E 0; -E r^x E]`` (eq. 2.24).
"""

import math

from ros_dynamics._jit import kernel


@kernel
def add(a, b):
    """Return a + b."""
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@kernel
def sub(a, b):
    """Return a - b."""
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@kernel
def scale(s, a):
    """Return s a."""
    return (s * a[0], s * a[1], s * a[2])


@kernel
def dot(a, b):
    """Return a . b."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@kernel
def cross(a, b):
    """Return a x b."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@kernel
def mat_vec(m, a):
    """Return M a."""
    return (m[0] * a[0] + m[1] * a[1] + m[2] * a[2],
            m[3] * a[0] + m[4] * a[1] + m[5] * a[2],
            m[6] * a[0] + m[7] * a[1] + m[8] * a[2])


@kernel
def mat_t_vec(m, a):
    """Return M^T a."""
    return (m[0] * a[0] + m[3] * a[1] + m[6] * a[2],
            m[1] * a[0] + m[4] * a[1] + m[7] * a[2],
            m[2] * a[0] + m[5] * a[1] + m[8] * a[2])


@kernel
def mat_mat(a, b):
    """Return A B."""
    return (a[0] * b[0] + a[1] * b[3] + a[2] * b[6],
            a[0] * b[1] + a[1] * b[4] + a[2] * b[7],
            a[0] * b[2] + a[1] * b[5] + a[2] * b[8],
            a[3] * b[0] + a[4] * b[3] + a[5] * b[6],
            a[3] * b[1] + a[4] * b[4] + a[5] * b[7],
            a[3] * b[2] + a[4] * b[5] + a[5] * b[8],
            a[6] * b[0] + a[7] * b[3] + a[8] * b[6],
            a[6] * b[1] + a[7] * b[4] + a[8] * b[7],
            a[6] * b[2] + a[7] * b[5] + a[8] * b[8])


@kernel
def mat_t(m):
    """Return M^T."""
    return (m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8])


@kernel
def mat_add(a, b):
    """Return A + B (3x3)."""
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4],
            a[5] + b[5], a[6] + b[6], a[7] + b[7], a[8] + b[8])


@kernel
def outer(a, b):
    """Return a b^T."""
    return (a[0] * b[0], a[0] * b[1], a[0] * b[2],
            a[1] * b[0], a[1] * b[1], a[1] * b[2],
            a[2] * b[0], a[2] * b[1], a[2] * b[2])


@kernel
def mat_scale(s, m):
    """Return s M (3x3)."""
    return (s * m[0], s * m[1], s * m[2], s * m[3], s * m[4],
            s * m[5], s * m[6], s * m[7], s * m[8])


@kernel
def skew(a):
    """Return the 3x3 matrix a^x with a^x b = a x b."""
    return (0.0, -a[2], a[1], a[2], 0.0, -a[0], -a[1], a[0], 0.0)


@kernel
def sym_vec(s, a):
    """Return S a for a symmetric S stored as (xx, yy, zz, xy, xz, yz)."""
    return (s[0] * a[0] + s[3] * a[1] + s[4] * a[2],
            s[3] * a[0] + s[1] * a[1] + s[5] * a[2],
            s[4] * a[0] + s[5] * a[1] + s[2] * a[2])


@kernel
def axis_rotation(a, angle):
    """Return the rotation by ``angle`` about the unit axis ``a`` (Rodrigues)."""
    c = math.cos(angle)
    s = math.sin(angle)
    t = 1.0 - c
    return (t * a[0] * a[0] + c, t * a[0] * a[1] - s * a[2], t * a[0] * a[2] + s * a[1],
            t * a[0] * a[1] + s * a[2], t * a[1] * a[1] + c, t * a[1] * a[2] - s * a[0],
            t * a[0] * a[2] - s * a[1], t * a[1] * a[2] + s * a[0], t * a[2] * a[2] + c)


@kernel
def motion_to_child(rot, r, w, v):
    """Return X (w, v): a motion vector from parent to child coordinates (eq. 2.24)."""
    return mat_t_vec(rot, w), mat_t_vec(rot, sub(v, cross(r, w)))


@kernel
def force_to_parent(rot, r, n, f):
    """Return X^* (n, f): a force from child to parent coordinates (eq. 2.25)."""
    fp = mat_vec(rot, f)
    return add(mat_vec(rot, n), cross(r, fp)), fp


@kernel
def cross_motion(w, v, mw, mv):
    """Return (w, v) x (mw, mv), the spatial motion cross product (eq. 2.31)."""
    return cross(w, mw), add(cross(w, mv), cross(v, mw))


@kernel
def cross_force(w, v, n, f):
    """Return (w, v) x* (n, f), the spatial force cross product (eq. 2.32)."""
    return add(cross(w, n), cross(v, f)), cross(w, f)


@kernel
def rigid_inertia_times(m, h, ibar, w, v):
    """
    Return I (w, v) for a rigid-body inertia (mass m, h = m c, ibar about the origin).

    Featherstone eq. 2.63: I = [ibar, h^x; (h^x)^T, m 1].
    """
    return add(sym_vec(ibar, w), cross(h, v)), sub(scale(m, v), cross(h, w))


@kernel
def rigid_inertia_to_parent(rot, r, m, h, ibar):
    """
    Return (h, ibar) of a rigid-body inertia moved from child to parent coordinates.

    Computes X^T I X (Featherstone eq. 2.66) for I = (m, h, ibar): rotate
    (h' = R h, I' = R ibar R^T), then shift the reference point by r:
    h_p = h' + m r, I_p = I' - (r h'^T + h' r^T - 2 (r . h') 1) - m (r r^T - |r|^2 1).
    The mass is unchanged. Symmetric matrices are 6-tuples.
    """
    hp = mat_vec(rot, h)
    full = (ibar[0], ibar[3], ibar[4], ibar[3], ibar[1], ibar[5], ibar[4], ibar[5], ibar[2])
    ir = mat_mat(mat_mat(rot, full), mat_t(rot))
    rh = dot(r, hp)
    rr = dot(r, r)
    xx = ir[0] - 2.0 * (r[0] * hp[0] - rh) - m * (r[0] * r[0] - rr)
    yy = ir[4] - 2.0 * (r[1] * hp[1] - rh) - m * (r[1] * r[1] - rr)
    zz = ir[8] - 2.0 * (r[2] * hp[2] - rh) - m * (r[2] * r[2] - rr)
    xy = ir[1] - (r[0] * hp[1] + hp[0] * r[1]) - m * r[0] * r[1]
    xz = ir[2] - (r[0] * hp[2] + hp[0] * r[2]) - m * r[0] * r[2]
    yz = ir[5] - (r[1] * hp[2] + hp[1] * r[2]) - m * r[1] * r[2]
    return add(hp, scale(m, r)), (xx, yy, zz, xy, xz, yz)


@kernel
def load3(array, i, col):
    """Return array[i, col:col + 3] as a tuple."""
    return (array[i, col], array[i, col + 1], array[i, col + 2])


@kernel
def load6(array, i, col):
    """Return array[i, col:col + 6] as a tuple."""
    return (array[i, col], array[i, col + 1], array[i, col + 2],
            array[i, col + 3], array[i, col + 4], array[i, col + 5])


@kernel
def load9(array, i, col):
    """Return array[i, col:col + 9] as a tuple."""
    return (array[i, col], array[i, col + 1], array[i, col + 2],
            array[i, col + 3], array[i, col + 4], array[i, col + 5],
            array[i, col + 6], array[i, col + 7], array[i, col + 8])


@kernel
def store3(array, i, col, a):
    """Write the 3-tuple a into array[i, col:col + 3]."""
    array[i, col] = a[0]
    array[i, col + 1] = a[1]
    array[i, col + 2] = a[2]


@kernel
def store6(array, i, col, a):
    """Write the 6-tuple a into array[i, col:col + 6]."""
    for k in range(6):
        array[i, col + k] = a[k]


@kernel
def store9(array, i, col, a):
    """Write the 9-tuple a into array[i, col:col + 9]."""
    for k in range(9):
        array[i, col + k] = a[k]


@kernel
def articulated_times(a, b, c, w, v):
    """Return IA (w, v) for an articulated inertia IA = [A B; B^T C] (3x3 blocks)."""
    return add(mat_vec(a, w), mat_vec(b, v)), add(mat_t_vec(b, w), mat_vec(c, v))


@kernel
def articulated_to_parent(rot, r, a, b, c):
    """
    Return the blocks of X^T IA X, an articulated inertia moved to parent coordinates.

    With A1 = R A R^T (likewise B1, C1) and r^x the cross-product matrix of r:
    A_p = A1 - B1 r^x + r^x B1^T - r^x C1 r^x,  B_p = B1 + r^x C1,  C_p = C1.
    For a rigid body (A = ibar, B = h^x, C = m 1) this is eq. 2.66.
    """
    rot_t = mat_t(rot)
    a1 = mat_mat(mat_mat(rot, a), rot_t)
    b1 = mat_mat(mat_mat(rot, b), rot_t)
    c1 = mat_mat(mat_mat(rot, c), rot_t)
    rx = skew(r)
    b1_rx = mat_mat(b1, rx)
    rx_c1 = mat_mat(rx, c1)
    # r^x B1^T = -(B1 r^x)^T since (r^x)^T = -r^x
    ap = mat_add(a1, mat_scale(-1.0, mat_add(mat_add(b1_rx, mat_t(b1_rx)), mat_mat(rx_c1, rx))))
    return ap, mat_add(b1, rx_c1), c1
