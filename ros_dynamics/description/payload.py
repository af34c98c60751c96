# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Payloads: rigid bodies attached to a link (a gripper, a tool, a grasped object).

A payload is given in the frame of the link it is attached to: mass m (kg),
centre of mass c (m, link frame) and rotational inertia I_c (kg m^2) about
c in the link's axes. It is physically consistent (Wensing, Kim and Slotine,
"Linear Matrix Inequalities for Physically Consistent Inertial Parameter
Identification", RA-L 2017) when m >= 0 and the density-weighted covariance
Sigma = tr(I_c)/2 E - I_c is positive semi-definite: that holds exactly when
I_c is symmetric, its principal moments are >= 0 and each is at most the
sum of the other two (the triangle inequality).

The model adds it to the body that carries the link (links merged through
fixed joints included), as (m, h, ibar) about the body origin by the
parallel-axis theorem: c_b = R c + p, h = m c_b,
ibar = R I_c R^T + m (|c_b|^2 E - c_b c_b^T), with (R, p) the link's pose in
the body frame.

Everything here works on plain Python floats: on 3-vectors and 3x3 matrices
numpy's per-call overhead costs more than the arithmetic, and ``set_payload``
is meant to take microseconds.
"""

import functools
import math
from typing import NamedTuple, Optional

import numpy as np
from ros_dynamics.multibody.joints import aligned_columns, INERTIA_COLUMNS
from ros_dynamics.multibody.layouts import ALIGN_FIRST_MOMENT, ALIGN_R, ALIGNED_LAYOUT


class Payload(NamedTuple):
    """A rigid payload on a link: mass (kg), com (3,) link frame (m), inertia (3, 3) about com."""

    mass: float
    com: np.ndarray
    inertia: np.ndarray


# the inertia of every point mass (read-only, shared)
_NO_INERTIA = np.zeros((3, 3))
_NO_INERTIA.setflags(write=False)


def _floats(value, shape: tuple) -> Optional[list]:
    """
    Return ``value`` as a flat (row-major) list of finite floats of ``shape``, or None.

    Arrays and (nested) lists or tuples of floats and ints are read directly
    (building an array from a few numbers only to read them back costs more
    than the rest of ``set_payload``); anything else goes through numpy.
    """
    kind = type(value)
    values = None
    if kind is np.ndarray:
        if value.shape != shape or value.dtype.kind not in 'biufO':
            return None
        if value.dtype.kind == 'O':
            return _numpy_floats(value, shape)
        values = value.ravel().tolist()
    elif (kind is tuple or kind is list) and len(value) == shape[0]:
        if len(shape) == 1:
            values = value
        elif all((type(row) is tuple or type(row) is list) and len(row) == shape[1]
                 for row in value):
            values = [v for row in value for v in row]
    if values is None:
        return _numpy_floats(value, shape)
    out = []
    for v in values:
        if type(v) is not float:
            if type(v) is not int and type(v) is not bool:
                return _numpy_floats(value, shape)
            try:
                v = float(v)
            except OverflowError:   # an int beyond the float range
                return None
        if v - v != 0.0:   # inf or NaN
            return None
        out.append(v)
    return out


def _numpy_floats(value, shape: tuple) -> Optional[list]:
    """Return ``value`` converted by numpy, a flat list of finite floats of ``shape``, or None."""
    try:
        array = np.asarray(value)
        if array.dtype.kind not in 'biufO':   # text (numpy would parse it), complex, ...
            return None
        array = array.astype(float)
    except (TypeError, ValueError, OverflowError):
        return None
    if array.shape != shape:
        return None
    values = array.ravel().tolist()
    return values if all(map(math.isfinite, values)) else None


def _mass(link: str, mass) -> float:
    """Return ``mass`` (kg) as a float, or raise ValueError naming the link."""
    if type(mass) is not float:
        if isinstance(mass, (str, bytes)):
            mass = None
        try:
            mass = float(mass)
        except OverflowError:   # an int beyond the float range: not finite
            mass = math.inf
        except (TypeError, ValueError):
            raise ValueError(f'payload on link {link!r}: mass must be a number (kg), got '
                             f'{mass!r}') from None
    if not (mass >= 0.0 and mass < math.inf):   # False for NaN too
        raise ValueError(f'payload on link {link!r}: mass must be finite and >= 0 (kg), got '
                         f'{mass!r}')
    return mass


def validated_moments(link: str, inertia) -> Optional[tuple]:
    """
    Return (xx, yy, zz, xy, xz, yz) of a payload's inertia (None: a point mass).

    inertia: None or a finite symmetric 3x3 (kg m^2) that is physically
    consistent (``check_consistent``); otherwise ValueError naming the link
    and the problem.
    """
    if inertia is None:
        return None
    values = _floats(inertia, (3, 3))
    if values is None:
        raise ValueError(f'payload on link {link!r}: inertia must be a finite 3x3 matrix '
                         '(kg m^2, about the centre of mass, link axes) or None for a '
                         'point mass')
    a, d, e, d2, b, f, e2, f2, c = values
    if d != d2 or e != e2 or f != f2:
        asymmetry = max(abs(d - d2), abs(e - e2), abs(f - f2))
        if asymmetry > 1e-9 * max(abs(a), abs(b), abs(c), abs(d), abs(e), abs(f)):
            raise ValueError(f'payload on link {link!r}: inertia must be symmetric '
                             f'(|I - I^T| = {asymmetry:.3g})')
        d, e, f = 0.5 * (d + d2), 0.5 * (e + e2), 0.5 * (f + f2)
    moments = (a, b, c, d, e, f)
    if not is_consistent(moments):
        check_consistent(moments, f'payload on link {link!r}')
    return moments


def validated_payload(link: str, mass, com=(0.0, 0.0, 0.0), inertia=None) -> Payload:
    """
    Return a Payload from user input, or raise ValueError naming the link and the problem.

    mass: finite, >= 0; com: 3 finite numbers; inertia: None (a point mass)
    or a finite symmetric 3x3 with Sigma = tr/2 E - I positive semi-definite
    (non-negative principal moments obeying the triangle inequality). The
    Payload's arrays are read-only.
    """
    return payload_of(*validated_parts(link, mass, com, inertia))


def validated_parts(link: str, mass, com=(0.0, 0.0, 0.0), inertia=None) -> tuple:
    """
    Return (mass, com, moments) as floats, validated as ``validated_payload`` does.

    mass (kg); com: a list of 3 floats (m, link frame); moments: (xx, yy, zz,
    xy, xz, yz) about com in link axes (kg m^2), or None for a point mass.
    """
    mass = _mass(link, mass)
    centre = _floats(com, (3,))
    if centre is None:
        raise ValueError(f'payload on link {link!r}: com must be 3 finite numbers (m, link '
                         f'frame), got {com!r}')
    return mass, centre, validated_moments(link, inertia)


def payload_of(mass: float, centre: list, moments: Optional[tuple]) -> Payload:
    """Return the Payload of validated floats: mass (kg), com (3) (m), moments as validated."""
    com = np.array(centre)
    com.setflags(write=False)
    if moments is None:
        return Payload(mass, com, _NO_INERTIA)
    a, b, c, d, e, f = moments
    inertia = np.array([[a, d, e], [d, b, f], [e, f, c]])
    inertia.setflags(write=False)
    return Payload(mass, com, inertia)


def consistency_tolerance(trace: float) -> float:
    """
    Return how far below zero Sigma's smallest eigenvalue may be (kg m^2) for I of ``trace``.

    1e-12 of tr(Sigma) = tr(I)/2: room for the rounding of the user's numbers.
    """
    return 1e-12 * max(0.5 * trace, 1e-300)


def is_consistent(moments: tuple) -> bool:
    """
    Return True when Sigma = tr(I)/2 E - I has no eigenvalue below -consistency_tolerance.

    moments: (xx, yy, zz, xy, xz, yz) of a symmetric I (kg m^2). Sylvester's
    criterion on the shifted Sigma + tol E (positive definite exactly when
    its leading principal minors are > 0), evaluated stably as the pivots of
    its LDL^T factorisation, d_k = Delta_k / Delta_(k-1) (Golub and Van Loan,
    "Matrix Computations", 4th ed., section 4.2). The computed pivots are exact
    for a matrix within about 1e-15 tr(Sigma) of Sigma + tol E, so the answer
    is that of numpy's eigvalsh(Sigma).min() >= -tol except within that band;
    a thin rod or a flat plate (an eigenvalue of Sigma exactly 0) passes.
    """
    a, b, c, d, e, f = moments
    half = 0.5 * (a + b + c)
    tol = consistency_tolerance(a + b + c)
    # Sigma + tol E = [[p, x, y], [x, q, z], [y, z, r]]
    p, q, r = half - a + tol, half - b + tol, half - c + tol
    x, y, z = -d, -e, -f
    if not p > 0.0:
        return False
    d2 = q - x * x / p
    if not d2 > 0.0:
        return False
    t = z - x * y / p
    return r - y * y / p - t * t / d2 > 0.0


def check_consistent(moments: tuple, what: str) -> None:
    """
    Raise ValueError unless Sigma = tr(I)/2 E - I is positive semi-definite (``is_consistent``).

    moments: (xx, yy, zz, xy, xz, yz) of a symmetric I (kg m^2). The message
    names the problem: a negative principal moment (I not positive
    semi-definite) or one larger than the sum of the other two (the triangle
    inequality), with the principal moments.
    """
    if is_consistent(moments):
        return
    a, b, c, d, e, f = moments
    principal = np.linalg.eigvalsh(np.array([[a, d, e], [d, b, f], [e, f, c]]))
    tol = consistency_tolerance(a + b + c)
    listed = f'principal moments {np.round(principal, 12).tolist()} kg m^2'
    if principal[0] < -tol:
        problem = (f'principal moment {principal[0]:.6g} kg m^2 is negative (the inertia '
                   f'must be positive semi-definite; {listed})')
    elif principal[2] - principal[1] - principal[0] > 2.0 * tol:
        problem = (f'principal moment {principal[2]:.6g} kg m^2 exceeds the sum of the other '
                   f'two, {principal[0] + principal[1]:.6g} (triangle inequality; {listed})')
    else:   # within rounding of the limit
        problem = (f'{listed} must be >= 0 and each at most the sum of the other two '
                   '(triangle inequality)')
    raise ValueError(f'{what}: inertia is not physically consistent: {problem}')


def body_inertia_row(mass: float, com: list, moments: Optional[tuple], offset: list) -> list:
    """
    Return [m, h (3), ibar (xx, yy, zz, xy, xz, yz)] of a payload in its body's frame.

    mass (kg), com (3 floats, link frame, m), moments (xx, yy, zz, xy, xz,
    yz) about com in link axes (kg m^2) or None for a point mass; offset:
    12 floats, the link's pose in the body frame (rotation row-major, then
    position), as ``ModelArrays.link_offset``. The parallel-axis theorem
    (Featherstone, "Rigid Body Dynamics Algorithms", 2008, chapter 2).
    """
    r00, r01, r02, r10, r11, r12, r20, r21, r22, px, py, pz = offset
    m = mass
    x, y, z = com
    cx = r00 * x + r01 * y + r02 * z + px
    cy = r10 * x + r11 * y + r12 * z + py
    cz = r20 * x + r21 * y + r22 * z + pz
    square = cx * cx + cy * cy + cz * cz
    row = [m, m * cx, m * cy, m * cz,
           m * (square - cx * cx), m * (square - cy * cy), m * (square - cz * cz),
           -m * cx * cy, -m * cx * cz, -m * cy * cz]
    if moments is None:
        return row
    ixx, iyy, izz, ixy, ixz, iyz = moments
    # A = R I (rows), then R I R^T
    a00 = r00 * ixx + r01 * ixy + r02 * ixz
    a01 = r00 * ixy + r01 * iyy + r02 * iyz
    a02 = r00 * ixz + r01 * iyz + r02 * izz
    a10 = r10 * ixx + r11 * ixy + r12 * ixz
    a11 = r10 * ixy + r11 * iyy + r12 * iyz
    a12 = r10 * ixz + r11 * iyz + r12 * izz
    a20 = r20 * ixx + r21 * ixy + r22 * ixz
    a21 = r20 * ixy + r21 * iyy + r22 * iyz
    a22 = r20 * ixz + r21 * iyz + r22 * izz
    row[4] += a00 * r00 + a01 * r01 + a02 * r02
    row[5] += a10 * r10 + a11 * r11 + a12 * r12
    row[6] += a20 * r20 + a21 * r21 + a22 * r22
    row[7] += a00 * r10 + a01 * r11 + a02 * r12
    row[8] += a00 * r20 + a01 * r21 + a02 * r22
    row[9] += a10 * r20 + a11 * r21 + a12 * r22
    return row


def with_body_inertia(model: np.ndarray, body: int, inertia: np.ndarray) -> None:
    """
    Write ``body``'s (m, h, ibar) columns ``inertia`` (10,) and their aligned copy.

    For a joint along a coordinate axis A_i is a signed permutation, and
    A_i^T h, A_i^T ibar A_i are entries of h and ibar with signs: picked here
    on plain floats (a payload change stays a few microseconds), equal bit for
    bit to what aligned_columns computes for any A_i.
    """
    model[body, INERTIA_COLUMNS] = inertia
    picks = _signed_permutation(tuple(model[body, ALIGN_R:ALIGN_R + 9].tolist()))
    if picks is None:
        alignment = model[body, ALIGN_R:ALIGN_R + 9].reshape(1, 3, 3)
        turned = aligned_columns(model[body:body + 1], alignment, np.eye(3)[None])
        first = ALIGNED_LAYOUT.columns('FIRST_MOMENT').start   # h, then ibar: 9 columns
        model[body, ALIGN_FIRST_MOMENT:ALIGN_FIRST_MOMENT + 9] = turned[0, first:first + 9]
        return
    _, hx, hy, hz, xx, yy, zz, xy, xz, yz = inertia.tolist()
    h = (hx, hy, hz)
    full = ((xx, xy, xz), (xy, yy, yz), (xz, yz, zz))
    (p0, s0), (p1, s1), (p2, s2) = picks
    model[body, ALIGN_FIRST_MOMENT:ALIGN_FIRST_MOMENT + 9] = (
        s0 * h[p0], s1 * h[p1], s2 * h[p2],
        full[p0][p0], full[p1][p1], full[p2][p2],
        s0 * s1 * full[p0][p1], s0 * s2 * full[p0][p2], s1 * s2 * full[p1][p2])


@functools.lru_cache(maxsize=1024)
def _signed_permutation(alignment: tuple) -> Optional[tuple]:
    """
    Return ((p_i, s_i) for i = 0, 1, 2) with A[p_i, i] = s_i = +-1, or None for another A.

    ``alignment``: A (3, 3) row-major as a tuple of 9 floats; a signed
    permutation has one +-1 in each column and zeros elsewhere.
    """
    picks = []
    for i in range(3):
        column = alignment[i::3]
        rows = [j for j in range(3) if column[j] != 0.0]
        if len(rows) != 1 or abs(column[rows[0]]) != 1.0:
            return None
        picks.append((rows[0], column[rows[0]]))
    return tuple(picks)
