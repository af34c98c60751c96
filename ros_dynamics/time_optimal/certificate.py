# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The dense check that certifies a timed motion before it is returned.

The motion is sampled at >= 1 kHz and >= 10 samples per grid interval and
every velocity, acceleration and effort (the model's inverse dynamics, with
friction when asked) is compared with its limit, plus in each interval the
largest second difference of the samples / 8, which bounds how far a smooth
curve can rise between two samples. Where a sample exceeds a limit, that
limit is lowered around the interval for the next solve (``parameterization``).
"""

import numba
import numpy as np
from ros_dynamics.time_optimal.trajectory import TimeOptimalTrajectory


@numba.njit(cache=True)
def worst_ratios(value, starts, inverse_limit):
    """
    Return per run of samples [starts[k], starts[k+1]) the bound of |value| / limit, (runs, dof).

    The bound is the largest sample plus the largest second difference / 8:
    between two samples delta apart a smooth f exceeds the larger one by at
    most delta^2 max|f''| / 8, and delta^2 f'' is the second difference.
    """
    runs = starts.size - 1
    out = np.zeros((runs, value.shape[1]))
    for k in range(runs):
        for j in range(value.shape[1]):
            peak = 0.0
            curvature = 0.0
            for m in range(starts[k], starts[k + 1]):
                peak = max(peak, abs(value[m, j]))
                if starts[k] < m < starts[k + 1] - 1:
                    curvature = max(curvature, abs(value[m + 1, j] - 2.0 * value[m, j]
                                                   + value[m - 1, j]))
            out[k, j] = (peak + curvature / 8.0) * inverse_limit[j]
    return out


class Certificate:
    """The dense check, kept per grid interval so a re-solve re-checks only what changed."""

    def __init__(self, problem) -> None:
        """Start a check of ``problem`` (parameterization's stage rows, limits and robot)."""
        self.problem = problem
        self.worst = np.zeros((problem.grid.size - 1, 3, problem.robot.dof))
        self.x = None
        self.samples = 0
        self.previous = np.inf   # the worst ratio of the last failed check
        self.stalled = 0         # failed checks in a row whose worst ratio did not shrink

    def _efforts(self, intervals: np.ndarray, starts: np.ndarray, q: np.ndarray,
                 qd: np.ndarray, qdd: np.ndarray, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        """
        Return the efforts (samples, dof) at the dense samples of ``intervals``.

        Interior samples: the model's inverse dynamics (batched RNEA, plus
        friction). Each interval's first and last samples lie on grid points
        s_i, s_{i+1}, where the constraint rows already hold the same inverse
        dynamics as a u + b x + c (exact: RNEA is affine in qdd and quadratic
        in qd, Pham and Pham eq. 3), so those take it from the rows with
        u = u_i and x = x_i, x_{i+1} (plus friction at the sampled qd).
        """
        problem = self.problem
        first = starts[:-1]
        last = starts[1:] - 1
        interior = np.ones(q.shape[0], dtype=bool)
        interior[first] = False
        interior[last] = False
        tau = np.empty(q.shape)
        tau[interior] = problem.robot.inverse_dynamics(q[interior], qd[interior], qdd[interior],
                                                       friction=problem.friction)
        u_i = u[intervals][:, None]
        for rows, p, x_p in ((first, 2 * intervals, x[intervals]),
                             (last, 2 * intervals + 2, x[intervals + 1])):
            tau[rows] = problem.a[p] * u_i + problem.b[p] * x_p[:, None] + problem.c[p]
            if problem.friction:
                tau[rows] += problem.robot.friction_torques(qd[rows])
        return tau

    def check(self, trajectory: TimeOptimalTrajectory, x: np.ndarray) -> bool:
        """Check every limit at the dense samples; on violation lower those limits (False)."""
        problem = self.problem
        if self.x is None:
            intervals = np.arange(x.size - 1)
        else:
            intervals = np.flatnonzero((x[:-1] != self.x[:-1]) | (x[1:] != self.x[1:]))
        self.x = x.copy()
        if intervals.size:
            starts, q, qd, qdd = trajectory.dense_states(intervals)
            tau = self._efforts(intervals, starts, q, qd, qdd, x, trajectory.path_acceleration)
            for kind, (value, limit) in enumerate(((qd, problem.velocity),
                                                   (qdd, problem.acceleration),
                                                   (tau, problem.effort))):
                self.worst[intervals, kind] = worst_ratios(value, starts, 1.0 / limit)
            self.samples += q.shape[0]
        worst = self.worst
        trajectory.limit_ratios = {kind: float(worst[:, k].max()) if worst.size else 0.0
                                   for k, kind in enumerate(('velocity', 'acceleration',
                                                             'effort'))}
        trajectory.samples_checked = self.samples
        trajectory.interval_ratios = worst.max(axis=2)
        if worst.size == 0 or worst.max() <= 1.0:
            return True
        # the interval's three points and the neighbours' midpoints (violations move over);
        # where a cut did not shrink the worst excess (it left the profile there unchanged:
        # e.g. the steep Coulomb sign at a velocity reversal between grid points) the next
        # cut is four times larger, until the limit binds and the motion there slows
        self.stalled = self.stalled + 1 if worst.max() >= self.previous else 0
        self.previous = worst.max()
        growth = 4.0 ** self.stalled
        for i, j in zip(*np.nonzero(worst[:, 0] > 1.0)):
            problem.velocity_factor[max(2 * i - 1, 0):2 * i + 4] *= (
                0.999 / worst[i, 0, j] ** 2) ** growth
        for kind, limit, cut in ((1, problem.acceleration, problem.acceleration_cut),
                                 (2, problem.effort, problem.effort_cut)):
            for i, j in zip(*np.nonzero(worst[:, kind] > 1.0)):
                cut[max(2 * i - 1, 0):2 * i + 4, j] += (2.0 * growth * (worst[i, kind, j] - 1.0)
                                                        * limit[j])
        return False
