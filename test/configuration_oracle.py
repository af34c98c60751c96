# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
A test oracle: q (+) v in plain numpy and scipy's rotations, one state at a time.

The configuration space's integrate as configuration.py wrote it before the
compiled law (ros_dynamics/kernels/manifold.py) replaced it: an independent
implementation (scipy's quaternions, the left Jacobian of SO(3) as a matrix)
that the compiled one is checked against (Murray, Li and Sastry 1994,
sec. 2.3-2.4).
"""

import numpy as np
from ros_dynamics.multibody.joints import FREE_FLYER, PLANAR, SPHERICAL
from ros_dynamics.multibody.layouts import JOINT_NQ, JTYPE, QINDEX, VINDEX
from scipy.spatial.transform import Rotation


def _left_jacobian(w: np.ndarray) -> np.ndarray:
    """Return V(w) = 1 + (1 - cos t) / t^2 [w] + (t - sin t) / t^3 [w]^2, t = |w| (t > 0)."""
    t = float(np.linalg.norm(w))
    k = np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
    if t == 0.0:
        return np.eye(3)
    return np.eye(3) + (1.0 - np.cos(t)) / t ** 2 * k + (t - np.sin(t)) / t ** 3 * (k @ k)


def _rotation(quaternion: np.ndarray) -> np.ndarray:
    return Rotation.from_quat(quaternion).as_matrix()   # (x, y, z, w), normalised by scipy


def integrate(ints: np.ndarray, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Return q (+) v (nq,) for q (nq,) and v (nv,) of the model whose joints are ``ints``."""
    out = q + 0.0
    for row in ints[ints[:, JOINT_NQ] > 0]:
        kind, i, k = row[JTYPE], row[QINDEX], row[VINDEX]
        if kind == FREE_FLYER:
            rotation, w = _rotation(q[i + 3:i + 7]), v[k + 3:k + 6]
            out[i:i + 3] = q[i:i + 3] + rotation @ _left_jacobian(w) @ v[k:k + 3]
            out[i + 3:i + 7] = (Rotation.from_quat(q[i + 3:i + 7])
                                * Rotation.from_rotvec(w)).as_quat()
        elif kind == SPHERICAL:
            out[i:i + 4] = (Rotation.from_quat(q[i:i + 4])
                            * Rotation.from_rotvec(v[k:k + 3])).as_quat()
        elif kind == PLANAR:
            theta, w = np.arctan2(q[i + 3], q[i + 2]), v[k + 2]
            axis = np.array([0.0, 0.0, w])
            step = _left_jacobian(axis) @ np.array([v[k], v[k + 1], 0.0])
            c, s = np.cos(theta), np.sin(theta)
            out[i:i + 2] = q[i:i + 2] + np.array([[c, -s], [s, c]]) @ step[:2]
            out[i + 2:i + 4] = np.cos(theta + w), np.sin(theta + w)
        else:
            out[i] = q[i] + v[k]
    return out
