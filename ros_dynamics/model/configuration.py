# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The configuration space: the velocity between two q, and q normalised.

The joint model's other half (``joints`` holds the transforms and motion
subspaces): per joint type, ``difference`` is the inverse of q (+) v (the
compiled ``manifold.integrate_into``, the configuration reached from q by the
constant velocity v for unit time): the v with q0 (+) v = q1 (Pinocchio's
``integrate`` and ``difference``).
One-dof joints add; a ball joint moves on SO(3), R exp([w]); a free-flyer on
SE(3), M exp(v) with v its body twist (Murray, Li and Sastry, "A Mathematical
Introduction to Robotic Manipulation", 1994, sec. 2.3-2.4); a planar joint on
SE(2) the same way. Plain numpy, one state at a time (the batched calls loop).
"""

import numpy as np
from ros_dynamics.multibody.joints import FREE_FLYER, PLANAR, SPHERICAL
from ros_dynamics.multibody.layouts import JOINT_NQ, JTYPE, QINDEX, VINDEX

# scipy.spatial.transform.Rotation is imported by the functions using it: imported here it
# cost every `import ros_dynamics` about 60 ms (scipy.spatial), fixed-base robots included.


def _skew(w: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def _left_jacobian(w: np.ndarray, inverse: bool = False) -> np.ndarray:
    """
    Return V(w) (or its inverse): exp of the twist (v, w) moves the origin by V(w) v.

    V = 1 + (1 - cos t) / t^2 [w] + (t - sin t) / t^3 [w]^2 with t = |w|; its
    inverse 1 - [w] / 2 + (1 / t^2 - (1 + cos t) / (2 t sin t)) [w]^2 (series
    below 1e-4 rad).
    """
    t = float(np.linalg.norm(w))
    k = _skew(w)
    if inverse:
        c = 1.0 / 12.0 + t * t / 720.0 if t < 1e-4 else \
            1.0 / (t * t) - (1.0 + np.cos(t)) / (2.0 * t * np.sin(t))
        return np.eye(3) - 0.5 * k + c * (k @ k)
    if t < 1e-4:
        a, b = 0.5 - t * t / 24.0, 1.0 / 6.0 - t * t / 120.0
    else:
        a, b = (1.0 - np.cos(t)) / (t * t), (t - np.sin(t)) / (t ** 3)
    return np.eye(3) + a * k + b * (k @ k)


def _rotation(quaternion: np.ndarray) -> np.ndarray:
    from scipy.spatial.transform import Rotation
    return Rotation.from_quat(quaternion).as_matrix()   # (x, y, z, w), normalised by scipy


def difference(ints: np.ndarray, q0: np.ndarray, q1: np.ndarray, nv: int) -> np.ndarray:
    """Return v (nv,) with q0 (+) v = q1 (the inverse of manifold.integrate_into)."""
    from scipy.spatial.transform import Rotation
    out = np.zeros(nv)
    for row in ints[ints[:, JOINT_NQ] > 0]:
        kind, i, k = row[JTYPE], row[QINDEX], row[VINDEX]
        if kind == FREE_FLYER:
            rotation = _rotation(q0[i + 3:i + 7])
            w = Rotation.from_matrix(rotation.T @ _rotation(q1[i + 3:i + 7])).as_rotvec()
            out[k + 3:k + 6] = w
            out[k:k + 3] = _left_jacobian(w, inverse=True) @ rotation.T @ (q1[i:i + 3]
                                                                           - q0[i:i + 3])
        elif kind == SPHERICAL:
            out[k:k + 3] = (Rotation.from_quat(q0[i:i + 4]).inv()
                            * Rotation.from_quat(q1[i:i + 4])).as_rotvec()
        elif kind == PLANAR:
            theta0, theta1 = np.arctan2(q0[i + 3], q0[i + 2]), np.arctan2(q1[i + 3], q1[i + 2])
            w = np.angle(np.exp(1j * (theta1 - theta0)))
            c, s = np.cos(theta0), np.sin(theta0)
            local = np.array([[c, s], [-s, c]]) @ (q1[i:i + 2] - q0[i:i + 2])
            out[k:k + 2] = (_left_jacobian(np.array([0.0, 0.0, w]), inverse=True)
                            @ np.array([local[0], local[1], 0.0]))[:2]
            out[k + 2] = w
        else:
            out[k] = q1[i] - q0[i]
    return out


def normalized(ints: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Return q with every quaternion and every planar (cos, sin) of unit length."""
    out = q + 0.0
    for row in ints[ints[:, JOINT_NQ] > 0]:
        kind, i = row[JTYPE], row[QINDEX]
        part = {FREE_FLYER: slice(i + 3, i + 7), SPHERICAL: slice(i, i + 4),
                PLANAR: slice(i + 2, i + 4)}.get(int(kind))
        if part is not None:
            norm = np.linalg.norm(out[part])
            if not norm > 0.0:
                raise ValueError(f'q: a zero quaternion or (cos, sin) at entries '
                                 f'{part.start}..{part.stop - 1}')
            out[part] /= norm
    return out
