# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
A numpy twin of the closed-chain law, the test oracle of the compiled one (loop_closures.py).

ClosedChain (closed_chain.py) computes phi, Jc, Jcdot qd and the KKT forward
dynamics with the compiled kernels the simulator's closed-chain step uses.
This module writes the same law out again from RobotModel's public
per-link kinematics (link_pose, jacobian, jacobian_dot_qd) and numpy's
dense solve (Ghosal's NPTEL notes, module 6; Baumgarte 1972), so that the
tests can hold the compiled law against an independent reading of it:

    M qdd + b = tau + Jc^T lambda,    Jc qdd = -Jcdot qd - 2 alpha Jc qd - beta^2 phi.
"""

from typing import Mapping, Optional

import numpy as np
from ros_dynamics.control.impedance import rotation_error
from ros_dynamics.simulation.closed_chain import ClosedChain


def _skew(a: np.ndarray) -> np.ndarray:
    """Return [a]x, the matrix with [a]x b = a x b."""
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def terms(chain: ClosedChain, q, qd=None) -> tuple:
    """
    Return (phi (m,), Jc (m, n), Jcdot qd (m,) or None) of the chain's closures at (q, qd).

    A frame p = o + R offset of a link with origin velocity v_o, angular
    velocity w and classical accelerations (a_o, alpha) at qdd = 0 has
    v_p = v_o + w x r and a_p = a_o + alpha x r + w x (w x r), r = R offset.
    Orientation rows: phi is the rotation vector of R_a R_b^T, its rate the
    relative angular velocity w_a - w_b, its acceleration alpha_a - alpha_b.
    """
    robot = chain.robot
    q = np.asarray(q, dtype=float)
    phis, jacs, biases = [], [], []
    for c in chain.closures:
        sides = []
        for link, offset, rotation in ((c.link_a, c.offset_a, c.rotation_a),
                                       (c.link_b, c.offset_b, c.rotation_b)):
            pose, jac = robot.link_pose(q, link), robot.jacobian(q, link)
            arm = pose[:3, :3] @ offset
            frame_jac = np.vstack([jac[:3] - _skew(arm) @ jac[3:], jac[3:]])
            acc = None
            if qd is not None:
                classical = robot.jacobian_dot_qd(q, qd, link)
                w, alpha = jac[3:] @ qd, classical[3:]
                acc = np.concatenate([classical[:3] + np.cross(alpha, arm)
                                      + np.cross(w, np.cross(w, arm)), alpha])
            sides.append((pose[:3, 3] + arm, pose[:3, :3] @ rotation, frame_jac, acc))
        (point_a, rot_a, jac_a, acc_a), (point_b, rot_b, jac_b, acc_b) = sides
        rows = list(c.rows)
        phis.append(np.concatenate([point_a - point_b, rotation_error(rot_a, rot_b)])[rows])
        jacs.append(jac_a[rows] - jac_b[rows])
        if qd is not None:
            biases.append(acc_a[rows] - acc_b[rows])
    return (np.concatenate(phis), np.vstack(jacs),
            None if qd is None else np.concatenate(biases))


def forward_dynamics(chain: ClosedChain, q, qd, tau, alpha: float = 0.0, beta: float = 0.0,
                     external_wrenches: Optional[Mapping] = None) -> tuple:
    """Return (qdd (n,), lambda (m,)): the KKT system by numpy's dense solve (LAPACK dgesv)."""
    robot = chain.robot
    q, qd, tau = (np.asarray(x, dtype=float) for x in (q, qd, tau))
    mass = robot.mass_matrix(q)
    bias = robot.inverse_dynamics(q, qd, np.zeros(robot.dof), external_wrenches)
    phi, jac, jdot_qd = terms(chain, q, qd)
    rhs = -jdot_qd - 2.0 * alpha * (jac @ qd) - beta ** 2 * phi
    n, m = robot.dof, chain.m
    kkt = np.zeros((n + m, n + m))
    kkt[:n, :n], kkt[:n, n:], kkt[n:, :n] = mass, -jac.T, jac
    solution = np.linalg.solve(kkt, np.concatenate([tau - bias, rhs]))
    return solution[:n], solution[n:]
