# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Operational-space (task-space) dynamics of a link (Khatib 1987).

For a task Jacobian J (m x n) the task-space equations of motion are
Lambda(q) xdd + mu(q, qd) + p(q) = F with

    Lambda = (J M^-1 J^T)^-1,        J_bar = M^-1 J^T Lambda,
    mu = J_bar^T c - Lambda Jdot qd,  p = J_bar^T g,   N = 1 - J_bar J,

c = C(q, qd) qd the Coriolis and centrifugal torques and g the gravity
torques, and a joint torque tau = J^T F + N^T tau0 produces the task force F
without disturbing it by the null-space torque tau0 (dynamically consistent).

Degenerate tasks (rank J < m, fewer than m directions reachable, or a
near-singular configuration) are detected from the eigenvalues s of
Lambda^-1: when s_min <= ``singular_threshold`` s_max the result is flagged
``degenerate`` and Lambda is the damped inverse V diag(s / (s^2 + l^2)) V^T
with l = ``damping`` s_max (Lambda ~ (Lambda^-1)^-1 in well-conditioned
directions, 0 in unreachable ones); then J J_bar is no longer the identity.
Select task rows with ``axes`` (e.g. (0, 1) for x, y of a planar arm) to keep
a lower-dimensional task regular.
"""

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from ros_dynamics.kernels import aba
from ros_dynamics.runtime.batches import as_array
from ros_dynamics.runtime.jit import ensure_compiled


@dataclass(frozen=True)
class OperationalSpace:
    """
    Task-space quantities of one link at one state.

    Rows follow ``axes`` of [linear; angular].
    """

    link: str
    frame: str
    axes: tuple
    pose: np.ndarray          # 4x4 pose of the link in the root frame
    J: np.ndarray             # (m, n)
    jdot_qd: np.ndarray       # (m,)
    Lambda: np.ndarray        # (m, m) task-space inertia
    J_bar: np.ndarray         # (n, m) dynamically consistent generalised inverse
    N: np.ndarray             # (n, n) null-space projector, tau = J^T F + N^T tau0
    mu: np.ndarray            # (m,) task-space Coriolis and centrifugal force
    p: np.ndarray             # (m,) task-space gravity force
    eigenvalues: np.ndarray   # eigenvalues of Lambda^-1, ascending
    degenerate: bool
    regularization: str       # '' when Lambda is the exact inverse

    def task_force(self, acceleration: Sequence[float]) -> np.ndarray:
        """Return F = Lambda a + mu + p for a task acceleration a (m,)."""
        a = as_array(acceleration, 'acceleration')
        if a.shape != self.mu.shape or not np.all(np.isfinite(a)):
            raise ValueError(f'acceleration: expected {self.mu.shape[0]} finite numbers, '
                             f'got {acceleration!r}')
        return self.Lambda @ a + self.mu + self.p

    def joint_torque(self, force: Sequence[float],
                     null_space_torque: Optional[Sequence[float]] = None) -> np.ndarray:
        """Return tau = J^T F + N^T tau0 (tau0 defaults to zero)."""
        f = as_array(force, 'force')
        if f.shape != self.mu.shape or not np.all(np.isfinite(f)):
            raise ValueError(f'force: expected {self.mu.shape[0]} finite numbers, got {force!r}')
        tau = self.J.T @ f
        if null_space_torque is not None:
            tau0 = as_array(null_space_torque, 'null_space_torque')
            if tau0.shape != (self.N.shape[0],) or not np.all(np.isfinite(tau0)):
                raise ValueError(f'null_space_torque: expected {self.N.shape[0]} finite '
                                 f'numbers, got {null_space_torque!r}')
            tau = tau + self.N.T @ tau0
        return tau


def _task_axes(axes: Optional[Sequence[int]]) -> tuple:
    if axes is None:
        return tuple(range(6))
    try:
        chosen = tuple(int(a) for a in axes)
    except (TypeError, ValueError):
        raise ValueError(f'axes: expected indices in 0..5, got {axes!r}') from None
    if not chosen or len(set(chosen)) != len(chosen) or not all(0 <= a < 6 for a in chosen):
        raise ValueError(f'axes: expected distinct indices in 0..5 (0-2 linear x, y, z; '
                         f'3-5 angular), got {axes!r}')
    return chosen


def solve_mass_rows(robot, mass: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """
    Return M^-1 applied to each row of ``rows`` (m, nv), by one Cholesky factor of M (nv, nv).

    ``mass`` is ``robot.mass_matrix(q)``; a dense Cholesky factor (aba.solve_mass_rows).
    Raises SingularMassMatrixError naming the joint when M is not positive definite.
    """
    ensure_compiled(aba.solve_mass_rows)
    out = np.empty(rows.shape)
    singular = aba.solve_mass_rows(robot.packed, mass, np.ascontiguousarray(rows),
                                   np.empty(mass.shape), out)
    if singular >= 0:
        raise robot.singular_mass_error(singular, coordinate=True)
    return out


def operational_space(robot, q, qd, link: str, frame: str = 'world_aligned',
                      axes: Optional[Sequence[int]] = None,
                      reference_link: Optional[str] = None,
                      singular_threshold: float = 1e-6,
                      damping: float = 1e-3) -> OperationalSpace:
    """
    Return the operational-space quantities of ``link`` at (q, qd).

    frame: as ``RobotModel.jacobian`` ('world_aligned' by default: origin at
    the link, root axes). reference_link: express the task in the axes of
    this link instead of the root's; it must be rigidly attached to the root
    (so that Jdot qd stays exact). Units: Lambda kg (kg m^2 for rotations),
    mu and p N (N m). Raises SingularMassMatrixError if M is singular.
    """
    chosen = _task_axes(axes)
    if not (singular_threshold >= 0.0 and damping > 0.0):
        raise ValueError('singular_threshold must be >= 0 and damping > 0, got '
                         f'{singular_threshold!r}, {damping!r}')
    jac = robot.jacobian(q, link, frame)
    jdot_qd = robot.jacobian_dot_qd(q, qd, link, frame)
    pose = robot.link_pose(q, link)
    if reference_link is not None:
        if robot.link_attachment(reference_link)[0] != -1:
            raise ValueError(f'reference_link {reference_link!r} moves with the joints; '
                             'it must be rigidly attached to the root link')
        rot = robot.link_pose(q, reference_link)[:3, :3].T
        jac = np.vstack([rot @ jac[:3], rot @ jac[3:]])
        jdot_qd = np.concatenate([rot @ jdot_qd[:3], rot @ jdot_qd[3:]])
    jac, jdot_qd = jac[list(chosen)], jdot_qd[list(chosen)]
    mass = robot.mass_matrix(q)
    gravity = robot.gravity_torques(q)
    coriolis = robot.bias_torques(q, qd) - gravity
    m_inv_jt = solve_mass_rows(robot, mass, jac).T
    lambda_inv = jac @ m_inv_jt
    lambda_inv = 0.5 * (lambda_inv + lambda_inv.T)
    eigenvalues, vectors = np.linalg.eigh(lambda_inv)
    s_max = max(float(eigenvalues[-1]), 0.0)
    degenerate = s_max == 0.0 or eigenvalues[0] <= singular_threshold * s_max
    if degenerate:
        damp = damping * s_max if s_max > 0.0 else damping
        inverse = np.clip(eigenvalues, 0.0, None) / (eigenvalues ** 2 + damp ** 2)
        regularization = (f'damped inverse of Lambda^-1, l = {damp:.3g} '
                          f'(eigenvalue ratio {eigenvalues[0] / s_max if s_max else 0.0:.3g} '
                          f'<= {singular_threshold:g})')
    else:
        inverse = 1.0 / eigenvalues
        regularization = ''
    task_inertia = (vectors * inverse) @ vectors.T
    j_bar = m_inv_jt @ task_inertia
    null = np.eye(robot.dof) - j_bar @ jac
    with np.errstate(all='ignore'):
        mu = j_bar.T @ coriolis - task_inertia @ jdot_qd
    if not (np.all(np.isfinite(mu)) and np.all(np.isfinite(task_inertia))):
        raise ValueError('operational_space: the result overflowed (inputs too large?): '
                         'Lambda or mu is not finite; are q and qd of sane magnitude?')
    return OperationalSpace(link, frame, chosen, pose, jac, jdot_qd, task_inertia, j_bar, null,
                            mu, j_bar.T @ gravity, eigenvalues, bool(degenerate),
                            regularization)
