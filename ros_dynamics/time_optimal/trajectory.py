# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The answer of ``time_optimal_trajectory``: a timed path.

The time law is the one of TOPP-RA (Pham and Pham, IEEE T-RO 34(3), 2018,
section III): on each grid interval [s_i, s_{i+1}] the path acceleration
u_i = sddot is constant, so x = sdot^2 is linear in s,
x(s) = x_i + 2 u_i (s - s_i), and the interval lasts
t_{i+1} - t_i = 2 (s_{i+1} - s_i) / (sdot_i + sdot_{i+1}). Joint motion by the
chain rule: qd = q'(s) sdot, qdd = q'(s) sddot + q''(s) sdot^2.
"""

from typing import NamedTuple

import numba
import numpy as np


class TrajectorySample(NamedTuple):
    """Joint positions, velocities, accelerations, efforts at M times, each (M, dof)."""

    positions: np.ndarray
    velocities: np.ndarray
    accelerations: np.ndarray
    efforts: np.ndarray


class BindingSegment(NamedTuple):
    """A part of the path [s_start, s_end] (times [t_start, t_end], s) and the limit that binds."""

    s_start: float
    s_end: float
    t_start: float
    t_end: float
    limit: str


@numba.njit(cache=True, nogil=True)
def _dense_spline_states(grid, grid_times, velocity, acceleration, duration, intervals,
                         per_interval, rate, knots, coefficients):
    """
    Return starts (M+1,) and q, qd, qdd (samples, dof) at the dense times of ``intervals``.

    The same times as ``dense_times`` and the same time law as ``path_state``
    (s, sdot, sddot), then the chain rule qd = q' sdot, qdd = q' sddot + q''
    sdot^2 with q, q', q'' from the cubic pieces (knots (N,), coefficients
    (4, N-1, dof), scipy PPoly layout) by Horner's rule. Interval k's samples
    are rows starts[k]:starts[k+1].
    """
    count = intervals.size
    steps = np.empty(count, np.int64)
    starts = np.empty(count + 1, np.int64)
    starts[0] = 0
    for k in range(count):
        i = intervals[k]
        steps[k] = max(per_interval - 1, int(np.ceil((grid_times[i + 1] - grid_times[i]) * rate)))
        starts[k + 1] = starts[k] + steps[k] + 1
    dof = coefficients.shape[2]
    total = starts[count]
    q = np.empty((total, dof))
    qd = np.empty((total, dof))
    qdd = np.empty((total, dof))
    pieces = knots.size - 1
    for k in range(count):
        i = intervals[k]
        t0 = grid_times[i]
        step = (grid_times[i + 1] - t0) / steps[k]
        v0 = velocity[i]
        u = acceleration[i]
        for m in range(steps[k] + 1):
            row = starts[k] + m
            t = min(max(t0 + step * m, 0.0), duration)
            tau = t - t0
            s = max(min(grid[i] + v0 * tau + 0.5 * u * tau * tau, grid[i + 1]), grid[i])
            sdot = max(v0 + u * tau, 0.0)
            j = np.searchsorted(knots, s, side='right') - 1
            j = min(max(j, 0), pieces - 1)
            d = s - knots[j]
            for c in range(dof):
                c0 = coefficients[0, j, c]
                c1 = coefficients[1, j, c]
                c2 = coefficients[2, j, c]
                c3 = coefficients[3, j, c]
                first = (3.0 * c0 * d + 2.0 * c1) * d + c2
                second = 6.0 * c0 * d + 2.0 * c1
                q[row, c] = ((c0 * d + c1) * d + c2) * d + c3
                qd[row, c] = first * sdot
                qdd[row, c] = first * u + second * (sdot * sdot)
    return starts, q, qd, qdd


class TimeOptimalTrajectory:
    """
    A path timed by ``time_optimal_trajectory``.

    Attributes: ``duration`` (s); ``grid`` (K+1,) path parameters s_i;
    ``grid_times`` (K+1,) t_i (s); ``path_velocity`` (K+1,) sdot_i;
    ``path_acceleration`` (K,) sddot per interval; ``waypoint_times``
    (N,) the times the waypoints are passed (spline paths; None for a
    user path); ``binding`` a list of BindingSegment: which limit binds on
    each part of the path ('effort panda_joint2', 'velocity ...',
    'acceleration ...', or 'none' where the path speed is set by a limit
    further along, i.e. braking ahead of it or limited by the end velocity);
    ``limit_ratios`` {'velocity', 'acceleration', 'effort'}: the largest
    |value| / limit over the dense certification samples (<= 1);
    ``interval_ratios`` (K, 3) the same per grid interval (columns velocity,
    acceleration, effort; the check's bound: largest sample + second
    difference / 8); ``samples_checked`` how many times that check evaluated; ``friction`` whether
    efforts include joint friction; ``speed_limit`` (K+1,) the limit curve: the
    fastest path speed at each grid point from which the rest of the path can
    still be followed (the controllable sets of TOPP-RA, capped by the velocity
    limits); ``velocity_limit``, ``acceleration_limit``, ``effort_limit`` (dof,)
    the limits it was timed under (effort: times effort_scale).
    """

    def __init__(self, robot, path, grid: np.ndarray, x: np.ndarray, u: np.ndarray,
                 friction: bool, binding: list) -> None:
        """Build from the solved grid (internal: use ``time_optimal_trajectory``)."""
        self._robot = robot
        self.path = path
        self.friction = friction
        self.grid = grid
        self.path_velocity = np.sqrt(np.maximum(x, 0.0))
        self.path_acceleration = u
        dt = 2.0 * np.diff(grid) / (self.path_velocity[:-1] + self.path_velocity[1:])
        self.grid_times = np.concatenate(([0.0], np.cumsum(dt)))
        self.duration = float(self.grid_times[-1])
        self.binding = binding
        self.limit_ratios = {}
        self.interval_ratios = np.zeros((grid.size - 1, 3))
        self.samples_checked = 0
        parameter = getattr(path, 'path_parameter', None)
        self.waypoint_times = None if parameter is None else self.time_at(parameter)

    def time_at(self, s) -> np.ndarray:
        """Return the times (s) the path parameters s (M,) are reached (the time law inverted)."""
        s = np.clip(np.asarray(s, dtype=float), self.grid[0], self.grid[-1])
        i = np.clip(np.searchsorted(self.grid, s, side='right') - 1, 0, self.grid.size - 2)
        v0, u = self.path_velocity[i], self.path_acceleration[i]
        v = np.sqrt(np.maximum(v0 * v0 + 2.0 * u * (s - self.grid[i]), 0.0))
        denominator = v0 + v
        step = np.where(denominator > 0.0, 2.0 * (s - self.grid[i]) / np.where(
            denominator > 0.0, denominator, 1.0), 0.0)
        return self.grid_times[i] + step

    def path_state(self, t, intervals=None) -> tuple:
        """
        Return s, sdot, sddot at times t (M,) in [0, duration] (s; each (M,)).

        intervals: the grid interval of each time (M,) (default: found from t;
        a time on a grid point belongs to the interval it starts).
        """
        t = np.atleast_1d(np.asarray(t, dtype=float))
        if t.ndim != 1 or not np.all(np.isfinite(t)):
            raise ValueError('t: expected finite times (M,) in seconds')
        slack = 1e-9 * max(self.duration, 1.0)
        if t.size and (t.min() < -slack or t.max() > self.duration + slack):
            raise ValueError(f't: times must lie in [0, duration = {self.duration:.6g} s], got '
                             f'[{t.min():.6g}, {t.max():.6g}]')
        t = np.clip(t, 0.0, self.duration)
        if intervals is None:
            i = np.clip(np.searchsorted(self.grid_times, t, side='right') - 1, 0,
                        self.grid.size - 2)
        else:
            i = np.asarray(intervals)
        tau = t - self.grid_times[i]
        v0, u = self.path_velocity[i], self.path_acceleration[i]
        s = np.minimum(self.grid[i] + v0 * tau + 0.5 * u * tau * tau, self.grid[i + 1])
        sdot = np.maximum(v0 + u * tau, 0.0)
        return np.maximum(s, self.grid[i]), sdot, u.copy()

    def sample(self, t, intervals=None) -> TrajectorySample:
        """
        Return positions, velocities, accelerations, efforts at times t (M,) (s), each (M, dof).

        Units: rad, rad/s, rad/s^2, N m (m, m/s, m/s^2, N for prismatic
        joints). Efforts are the model's inverse dynamics (armature and the
        payloads set on the robot now), plus joint friction if the trajectory
        was timed with ``friction=True``. intervals: as ``path_state``.
        """
        s, sdot, sddot = self.path_state(t, intervals)
        q, dq, ddq = self.path.evaluate(s)
        qd = dq * sdot[:, None]
        qdd = dq * sddot[:, None] + ddq * (sdot * sdot)[:, None]
        tau = self._robot.inverse_dynamics(q, qd, qdd, friction=self.friction)
        return TrajectorySample(q, qd, qdd, tau)

    def dense_times(self, intervals=None, per_interval: int = 10, rate: float = 1000.0) -> tuple:
        """
        Return the certification times (M,) and their grid interval (M,).

        Each interval i of ``intervals`` (default: all) gets
        n_i = max(per_interval - 1, ceil(rate (t_{i+1} - t_i))) equal steps, both
        ends included: >= ``per_interval`` samples per interval and >= ``rate`` Hz.
        """
        if intervals is None:
            intervals = np.arange(self.grid.size - 1)
        dt = self.grid_times[intervals + 1] - self.grid_times[intervals]
        steps = np.maximum(per_interval - 1, np.ceil(dt * rate).astype(np.int64))
        counts = steps + 1
        owner = np.repeat(intervals, counts)
        offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        step = np.repeat(dt / steps, counts)
        times = np.repeat(self.grid_times[intervals], counts) + step * offsets
        return np.minimum(times, self.duration), owner

    def dense_states(self, intervals: np.ndarray, per_interval: int = 10,
                     rate: float = 1000.0) -> tuple:
        """
        Return starts (M+1,) and joint q, qd, qdd (samples, dof) at ``dense_times(intervals)``.

        Interval intervals[k]'s samples are rows starts[k]:starts[k+1]. For a
        ``SplinePath`` one compiled pass evaluates its cubic pieces; any other
        path goes through ``path_state`` and its ``evaluate``.
        """
        intervals = np.ascontiguousarray(intervals, dtype=np.int64)
        polynomial = getattr(self.path, 'polynomial', None)
        if polynomial is not None:
            knots, coefficients = polynomial
            return _dense_spline_states(self.grid, self.grid_times, self.path_velocity,
                                        self.path_acceleration, self.duration, intervals,
                                        int(per_interval), float(rate), knots, coefficients)
        times, owner = self.dense_times(intervals, per_interval, rate)
        s, sdot, sddot = self.path_state(times, owner)
        q, dq, ddq = self.path.evaluate(s)
        counts = np.bincount(np.searchsorted(intervals, owner), minlength=intervals.size)
        starts = np.concatenate(([0], np.cumsum(counts)))
        return (starts, q, dq * sdot[:, None],
                dq * sddot[:, None] + ddq * (sdot * sdot)[:, None])

    def __repr__(self) -> str:
        return (f'TimeOptimalTrajectory(duration={self.duration:.6g} s, '
                f'{self.grid.size - 1} grid intervals)')
