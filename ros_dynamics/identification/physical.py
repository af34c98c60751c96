# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Physical consistency of inertial parameters: the pseudo-inertia matrix.

A body's ten parameters phi = [m, h, I_xx, I_xy, I_yy, I_xz, I_yz, I_zz]
(h = m c, I about the body origin) are those of a real mass distribution if
and only if its pseudo-inertia

    J(phi) = [[Sigma, h], [h^T, m]],   Sigma = 1/2 tr(I) 1 - I,

the second moment of the density, is positive semi-definite (Wensing, Kim
and Slotine, "Linear matrix inequalities for physically consistent inertial
parameter identification", IEEE RA-L 3(1), 2018 (2017 online), Theorem 1):
mass non-negative and the inertia about the centre of mass obeying the
triangle inequalities. J is linear in phi, J = sum_k phi_k B_k, which makes
"J(phi) >= 0" a linear matrix inequality.
"""

import numpy as np

# J(phi) = sum_k phi[k] PSEUDO_INERTIA_BASIS[k]
PSEUDO_INERTIA_BASIS = np.zeros((10, 4, 4))
PSEUDO_INERTIA_BASIS[0, 3, 3] = 1.0
for _k in range(3):
    PSEUDO_INERTIA_BASIS[1 + _k, _k, 3] = PSEUDO_INERTIA_BASIS[1 + _k, 3, _k] = 1.0
for _k, (_a, _b) in zip((4, 5, 6, 7, 8, 9), ((0, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2))):
    if _a == _b:   # 1/2 I_aa 1 - I_aa e_a e_a^T on the 3 x 3 block
        PSEUDO_INERTIA_BASIS[_k, :3, :3] = 0.5 * np.eye(3)
        PSEUDO_INERTIA_BASIS[_k, _a, _a] = -0.5
    else:
        PSEUDO_INERTIA_BASIS[_k, _a, _b] = PSEUDO_INERTIA_BASIS[_k, _b, _a] = -1.0
PSEUDO_INERTIA_BASIS.setflags(write=False)


def pseudo_inertia(parameters) -> np.ndarray:
    """Return J (..., 4, 4) for inertial parameters (..., 10) (kg, kg m, kg m^2 -> kg m^2)."""
    return np.tensordot(np.asarray(parameters, dtype=float), PSEUDO_INERTIA_BASIS, axes=1)


def consistency_margin(parameters) -> np.ndarray:
    """
    Return the smallest eigenvalue of each body's pseudo-inertia, (nb,) from (nb, 10).

    Non-negative for physically consistent parameters (kg m^2; for a point mass 0).
    """
    return np.linalg.eigvalsh(pseudo_inertia(np.reshape(parameters, (-1, 10))))[:, 0]


def is_physically_consistent(parameters, tolerance: float = 1e-9) -> bool:
    """
    Return True when every body's pseudo-inertia is positive semi-definite.

    ``tolerance`` is relative to the largest eigenvalue of each J (solver accuracy).
    """
    j = pseudo_inertia(np.reshape(parameters, (-1, 10)))
    eigenvalues = np.linalg.eigvalsh(j)
    return bool(np.all(eigenvalues[:, 0] >= -tolerance * np.maximum(eigenvalues[:, -1], 1e-12)))
