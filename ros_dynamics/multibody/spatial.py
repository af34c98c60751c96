# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

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

from ros_dynamics.runtime.jit import kernel


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
def dot3(a, i, b, j):
    """Return a[i:i + 3] . b[j:j + 3] (rows of row-major 9-tuples)."""
    return a[i] * b[j] + a[i + 1] * b[j + 1] + a[i + 2] * b[j + 2]


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
def motion_to_parent(rot, r, w, v):
    """Return X^-1 (w, v): a motion vector from child to parent coordinates (eq. 2.24 inverted)."""
    wp = mat_vec(rot, w)
    return wp, add(mat_vec(rot, v), cross(r, wp))


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
    a = mat_mat(rot, full)   # R ibar; I' = (R ibar) R^T, its six distinct entries only
    ir = (dot3(a, 0, rot, 0), dot3(a, 0, rot, 3), dot3(a, 0, rot, 6), 0.0,
          dot3(a, 3, rot, 3), dot3(a, 3, rot, 6), 0.0, 0.0, dot3(a, 6, rot, 6))
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
    array[i, col], array[i, col + 1], array[i, col + 2] = a[0], a[1], a[2]
    array[i, col + 3], array[i, col + 4], array[i, col + 5] = a[3], a[4], a[5]


@kernel
def store9(array, i, col, a):
    """
    Write the 9-tuple a into array[i, col:col + 9].

    Element by element (no loop over k): a may mix floats and Lanes (_lanes.py),
    which a loop index cannot pick from.
    """
    array[i, col], array[i, col + 1], array[i, col + 2] = a[0], a[1], a[2]
    array[i, col + 3], array[i, col + 4], array[i, col + 5] = a[3], a[4], a[5]
    array[i, col + 6], array[i, col + 7], array[i, col + 8] = a[6], a[7], a[8]


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


@kernel
def projected_inertia_z(a, b, c, uw, uv, s):
    """
    Return the blocks of IA + s U U^T, s = -1 / D, for U = IA (e_z, 0) and D = U_z.

    Then (IA + s U U^T) (e_z, 0) = 0, and the entries this makes zero (the
    third row and column of the angular block, the third row of B) are set
    to exactly zero instead of computed as rounding residues.
    """
    x0, x1 = s * uw[0], s * uw[1]
    a01 = a[1] + x0 * uw[1]
    return ((a[0] + x0 * uw[0], a01, 0.0, a01, a[4] + x1 * uw[1], 0.0, 0.0, 0.0, 0.0),
            (b[0] + x0 * uv[0], b[1] + x0 * uv[1], b[2] + x0 * uv[2],
             b[3] + x1 * uv[0], b[4] + x1 * uv[1], b[5] + x1 * uv[2], 0.0, 0.0, 0.0),
            mat_add(c, outer(scale(s, uv), uv)))


@kernel
def articulated_times_z(a, b, c, w, v):
    """
    Return IA (w, v) for IA as projected_inertia_z leaves it and w_z = v_z = 0.

    (The velocity-product term c_i of a revolute joint about z, c_i = v_i x
    (e_z qd_i, 0), has no z components.)
    """
    return ((a[0] * w[0] + a[1] * w[1] + b[0] * v[0] + b[1] * v[1],
             a[1] * w[0] + a[4] * w[1] + b[3] * v[0] + b[4] * v[1], 0.0),
            (b[0] * w[0] + b[3] * w[1] + c[0] * v[0] + c[1] * v[1],
             b[1] * w[0] + b[4] * w[1] + c[3] * v[0] + c[4] * v[1],
             b[2] * w[0] + b[5] * w[1] + c[6] * v[0] + c[7] * v[1]))


@kernel
def articulated_to_parent_z(rot, r, a, b, c):
    """
    Return articulated_to_parent(rot, r, a, b, c) for IA with IA (e_z, 0) = 0.

    Reads only the entries that can be nonzero: a's top-left 2x2 block
    (a[0], a[1], a[4]), b's first two rows and c (symmetric). This is the
    structure of IA_i - U_i U_i^T / D_i after a revolute joint about z with no
    armature (Featherstone 2008, sec. 7.3: that inertia does not resist the
    joint's own motion), and it takes about two thirds of the products of
    the general transform. Symmetric results are built from their upper
    triangles.
    """
    c0, s0 = (rot[0], rot[3], rot[6]), (rot[1], rot[4], rot[7])   # the first two columns of R
    # A1 = R2 A2 R2^T (R2: those columns, A2 the 2x2 block)
    m0 = add(scale(a[0], c0), scale(a[1], s0))
    m1 = add(scale(a[1], c0), scale(a[4], s0))
    a1 = (m0[0] * c0[0] + m1[0] * s0[0], m0[0] * c0[1] + m1[0] * s0[1],
          m0[0] * c0[2] + m1[0] * s0[2], m0[1] * c0[1] + m1[1] * s0[1],
          m0[1] * c0[2] + m1[1] * s0[2], m0[2] * c0[2] + m1[2] * s0[2])
    # B1 = (R2 B2) R^T
    n0 = add(scale(b[0], c0), scale(b[3], s0))   # the columns of R2 B2
    n1 = add(scale(b[1], c0), scale(b[4], s0))
    n2 = add(scale(b[2], c0), scale(b[5], s0))
    rows = ((rot[0], rot[1], rot[2]), (rot[3], rot[4], rot[5]), (rot[6], rot[7], rot[8]))
    b1 = (dot((n0[0], n1[0], n2[0]), rows[0]), dot((n0[0], n1[0], n2[0]), rows[1]),
          dot((n0[0], n1[0], n2[0]), rows[2]),
          dot((n0[1], n1[1], n2[1]), rows[0]), dot((n0[1], n1[1], n2[1]), rows[1]),
          dot((n0[1], n1[1], n2[1]), rows[2]),
          dot((n0[2], n1[2], n2[2]), rows[0]), dot((n0[2], n1[2], n2[2]), rows[1]),
          dot((n0[2], n1[2], n2[2]), rows[2]))
    # C1 = R C R^T, upper triangle
    p0 = mat_vec(c, rows[0])   # (R C)^T's columns: C R^T = (C r_0, C r_1, C r_2)
    p1 = mat_vec(c, rows[1])
    p2 = mat_vec(c, rows[2])
    c1 = (dot(rows[0], p0), dot(rows[0], p1), dot(rows[0], p2),
          dot(rows[1], p1), dot(rows[1], p2), dot(rows[2], p2))
    c1 = (c1[0], c1[1], c1[2], c1[1], c1[3], c1[4], c1[2], c1[4], c1[5])
    return articulated_shift(r, a1, b1, c1)


@kernel
def articulated_shift(r, a1, b1, c1):
    """
    Return the blocks of an articulated inertia [A1 B1; B1^T C1] moved to the point -r.

    The second step of articulated_to_parent, with A1 the upper triangle
    (xx, xy, xz, yy, yz, zz) and B1, C1 full: A_p = A1 - B1 r^x + r^x B1^T -
    r^x C1 r^x, B_p = B1 + r^x C1, C_p = C1.
    """
    # E = r^x C1 (columns r x C1[:, j]); F = B1 r^x (rows B1[i, :] x r); G = E r^x (symmetric)
    e0 = cross(r, (c1[0], c1[3], c1[6]))
    e1 = cross(r, (c1[1], c1[4], c1[7]))
    e2 = cross(r, (c1[2], c1[5], c1[8]))
    f0 = cross((b1[0], b1[1], b1[2]), r)
    f1 = cross((b1[3], b1[4], b1[5]), r)
    f2 = cross((b1[6], b1[7], b1[8]), r)
    g0 = cross((e0[0], e1[0], e2[0]), r)
    g1 = cross((e0[1], e1[1], e2[1]), r)
    g2 = cross((e0[2], e1[2], e2[2]), r)
    xx = a1[0] - 2.0 * f0[0] - g0[0]
    xy = a1[1] - f0[1] - f1[0] - g0[1]
    xz = a1[2] - f0[2] - f2[0] - g0[2]
    yy = a1[3] - 2.0 * f1[1] - g1[1]
    yz = a1[4] - f1[2] - f2[1] - g1[2]
    zz = a1[5] - 2.0 * f2[2] - g2[2]
    bp = (b1[0] + e0[0], b1[1] + e1[0], b1[2] + e2[0],
          b1[3] + e0[1], b1[4] + e1[1], b1[5] + e2[1],
          b1[6] + e0[2], b1[7] + e1[2], b1[8] + e2[2])
    return (xx, xy, xz, xy, yy, yz, xz, yz, zz), bp, c1


@kernel
def projected_inertia_prismatic_z(a, b, c, uw, uv, s):
    """
    Return the blocks of IA + s U U^T, s = -1 / D, for U = IA (0, e_z) and D = U_z (linear).

    Then (IA + s U U^T) (0, e_z) = 0: the third column of B and the third row
    and column of C are set to exactly zero.
    """
    y0, y1 = s * uv[0], s * uv[1]
    c01 = c[1] + y0 * uv[1]
    return (mat_add(a, outer(scale(s, uw), uw)),
            (b[0] + s * uw[0] * uv[0], b[1] + s * uw[0] * uv[1], 0.0,
             b[3] + s * uw[1] * uv[0], b[4] + s * uw[1] * uv[1], 0.0,
             b[6] + s * uw[2] * uv[0], b[7] + s * uw[2] * uv[1], 0.0),
            (c[0] + y0 * uv[0], c01, 0.0, c01, c[4] + y1 * uv[1], 0.0, 0.0, 0.0, 0.0))


@kernel
def articulated_times_prismatic_z(a, b, c, w, v):
    """Return IA (0, v) for IA as projected_inertia_prismatic_z leaves it and v_z = 0."""
    return ((b[0] * v[0] + b[1] * v[1], b[3] * v[0] + b[4] * v[1], b[6] * v[0] + b[7] * v[1]),
            (c[0] * v[0] + c[1] * v[1], c[1] * v[0] + c[4] * v[1], 0.0))


@kernel
def articulated_to_parent_prismatic_z(rot, r, a, b, c):
    """
    Return articulated_to_parent(rot, r, a, b, c) for IA with IA (0, e_z) = 0.

    Reads a (symmetric), b's first two columns and c's top-left 2x2 block: the
    structure of IA_i - U_i U_i^T / D_i after a prismatic joint along z with
    no armature.
    """
    c0, s0 = (rot[0], rot[3], rot[6]), (rot[1], rot[4], rot[7])   # the first two columns of R
    rows = ((rot[0], rot[1], rot[2]), (rot[3], rot[4], rot[5]), (rot[6], rot[7], rot[8]))
    p0 = mat_vec(a, rows[0])   # A1 = R A R^T, upper triangle
    p1 = mat_vec(a, rows[1])
    p2 = mat_vec(a, rows[2])
    a1 = (dot(rows[0], p0), dot(rows[0], p1), dot(rows[0], p2),
          dot(rows[1], p1), dot(rows[1], p2), dot(rows[2], p2))
    # B R^T = B2 R2^T (B2: B's first two columns), then B1 = R (B2 R2^T)
    q0 = (b[0] * c0[0] + b[1] * s0[0], b[3] * c0[0] + b[4] * s0[0], b[6] * c0[0] + b[7] * s0[0])
    q1 = (b[0] * c0[1] + b[1] * s0[1], b[3] * c0[1] + b[4] * s0[1], b[6] * c0[1] + b[7] * s0[1])
    q2 = (b[0] * c0[2] + b[1] * s0[2], b[3] * c0[2] + b[4] * s0[2], b[6] * c0[2] + b[7] * s0[2])
    b1 = (dot(rows[0], q0), dot(rows[0], q1), dot(rows[0], q2),
          dot(rows[1], q0), dot(rows[1], q1), dot(rows[1], q2),
          dot(rows[2], q0), dot(rows[2], q1), dot(rows[2], q2))
    m0 = add(scale(c[0], c0), scale(c[1], s0))   # C1 = R2 C2 R2^T
    m1 = add(scale(c[1], c0), scale(c[4], s0))
    xx, xy, xz = (m0[0] * c0[0] + m1[0] * s0[0], m0[0] * c0[1] + m1[0] * s0[1],
                  m0[0] * c0[2] + m1[0] * s0[2])
    yy, yz = m0[1] * c0[1] + m1[1] * s0[1], m0[1] * c0[2] + m1[1] * s0[2]
    zz = m0[2] * c0[2] + m1[2] * s0[2]
    return articulated_shift(r, a1, b1, (xx, xy, xz, xy, yy, yz, xz, yz, zz))
