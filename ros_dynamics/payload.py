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
"""

import math
from typing import NamedTuple, Optional

import numpy as np


class Payload(NamedTuple):
    """A rigid payload on a link: mass (kg), com (3,) link frame (m), inertia (3, 3) about com."""

    mass: float
    com: np.ndarray
    inertia: np.ndarray


def _consistency_tolerance(trace: float) -> float:
    return 1e-12 * max(trace, 1e-300)


def _floats(value, shape: tuple) -> Optional[list]:
    """Return ``value`` as a flat list of finite floats of ``shape``, or None."""
    if isinstance(value, (str, bytes)):
        return None
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    if array.shape != shape:
        return None
    values = array.ravel().tolist()
    return values if all(map(math.isfinite, values)) else None


def validated_payload(link: str, mass, com=(0.0, 0.0, 0.0), inertia=None) -> Payload:
    """
    Return a Payload from user input, or raise ValueError naming the link and the problem.

    mass: finite, >= 0; com: 3 finite numbers; inertia: None (a point mass)
    or a finite symmetric 3x3 with Sigma = tr/2 E - I positive semi-definite
    (non-negative principal moments obeying the triangle inequality).
    """
    if isinstance(mass, (str, bytes)):
        mass = None
    try:
        mass = float(mass)
    except (TypeError, ValueError):
        raise ValueError(f'payload on link {link!r}: mass must be a number (kg), got '
                         f'{mass!r}') from None
    if not (math.isfinite(mass) and mass >= 0.0):
        raise ValueError(f'payload on link {link!r}: mass must be finite and >= 0 (kg), got '
                         f'{mass!r}')
    centre = _floats(com, (3,))
    if centre is None:
        raise ValueError(f'payload on link {link!r}: com must be 3 finite numbers (m, link '
                         f'frame), got {com!r}')
    if inertia is None:
        matrix = np.zeros((3, 3))
    else:
        values = _floats(inertia, (3, 3))
        if values is None:
            raise ValueError(f'payload on link {link!r}: inertia must be a finite 3x3 matrix '
                             '(kg m^2, about the centre of mass, link axes) or None for a '
                             'point mass')
        a, d, e, d2, b, f, e2, f2, c = values
        asymmetry = max(abs(d - d2), abs(e - e2), abs(f - f2))
        if asymmetry > 1e-9 * max(abs(a), abs(b), abs(c), abs(d), abs(e), abs(f)):
            raise ValueError(f'payload on link {link!r}: inertia must be symmetric '
                             f'(|I - I^T| = {asymmetry:.3g})')
        d, e, f = 0.5 * (d + d2), 0.5 * (e + e2), 0.5 * (f + f2)
        check_consistent((a, b, c, d, e, f), f'payload on link {link!r}')
        matrix = np.array([[a, d, e], [d, b, f], [e, f, c]])
    centre = np.array(centre)
    centre.setflags(write=False)
    matrix.setflags(write=False)
    return Payload(mass, centre, matrix)


def check_consistent(moments: tuple, what: str) -> None:
    """
    Raise ValueError unless Sigma = tr(I)/2 E - I is positive semi-definite.

    moments: (xx, yy, zz, xy, xz, yz) of a symmetric I (kg m^2). All principal
    minors of Sigma >= 0 (to a tolerance relative to the trace).
    """
    a, b, c, d, e, f = moments
    half = 0.5 * (a + b + c)
    sa, sb, sc = half - a, half - b, half - c   # Sigma = half E - I
    x, y, z = -d, -e, -f                         # its off-diagonal xy, xz, yz
    tol = _consistency_tolerance(half)
    minors = (sa, sb, sc, sa * sb - x * x, sa * sc - y * y, sb * sc - z * z,
              sa * (sb * sc - z * z) - x * (x * sc - z * y) + y * (x * z - sb * y))
    limits = (tol, tol, tol, tol * half, tol * half, tol * half, tol * half * half)
    if any(m < -limit for m, limit in zip(minors, limits)):
        moments = np.linalg.eigvalsh(np.array([[a, d, e], [d, b, f], [e, f, c]]))
        raise ValueError(
            f'{what}: inertia is not physically consistent: principal moments '
            f'{np.round(moments, 12).tolist()} kg m^2 must be >= 0 and each at most the sum '
            'of the other two (triangle inequality)')


def body_inertia_row(payload: Payload, offset: np.ndarray) -> list:
    """
    Return [m, h (3), ibar (xx, yy, zz, xy, xz, yz)] of a payload in its body's frame.

    offset: (12,) the link's pose in the body frame (rotation row-major, then
    position), as ``ModelArrays.link_offset``. Written out in floats: on
    3-vectors, numpy's per-call overhead costs more than the arithmetic.
    """
    r00, r01, r02, r10, r11, r12, r20, r21, r22, px, py, pz = offset.tolist()
    m = payload.mass
    x, y, z = payload.com.tolist()
    cx = r00 * x + r01 * y + r02 * z + px
    cy = r10 * x + r11 * y + r12 * z + py
    cz = r20 * x + r21 * y + r22 * z + pz
    (ixx, ixy, ixz), (_, iyy, iyz), (_, _, izz) = payload.inertia.tolist()
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
    square = cx * cx + cy * cy + cz * cz
    return [m, m * cx, m * cy, m * cz,
            a00 * r00 + a01 * r01 + a02 * r02 + m * (square - cx * cx),
            a10 * r10 + a11 * r11 + a12 * r12 + m * (square - cy * cy),
            a20 * r20 + a21 * r21 + a22 * r22 + m * (square - cz * cz),
            a00 * r10 + a01 * r11 + a02 * r12 - m * cx * cy,
            a00 * r20 + a01 * r21 + a02 * r22 - m * cx * cz,
            a10 * r20 + a11 * r21 + a12 * r22 - m * cy * cz]
