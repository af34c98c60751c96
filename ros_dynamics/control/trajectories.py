# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Task-space reference trajectories for the examples and tests.

``circle`` is the tracking task of Ghosal's 2R example (NPTEL notes: centre
(1.2, 1.2) m, radius 0.2 m, one revolution in 10 s) in any coordinate plane
of the root frame, with the pose, twist and acceleration a controller needs.
"""

from typing import Optional, Sequence

import numpy as np


def circle(t: float, center: Sequence[float], radius: float, period: float,
           plane: Sequence[int] = (0, 2), orientation: Optional[np.ndarray] = None) -> tuple:
    """
    Return (pose 4x4, twist (6,), acceleration (6,)) on a circle at time t (s).

    The point starts at center + radius along the plane's first axis and turns
    toward its second axis (counter-clockwise seen with the first axis right
    and the second up); ``plane`` names the two root-frame axes (0 x, 1 y,
    2 z). The orientation is constant (identity unless given); twist and
    acceleration are [linear; angular] in world axes (m/s, m/s^2).
    """
    if not (radius > 0.0 and period > 0.0):
        raise ValueError(f'radius and period must be > 0, got {radius!r}, {period!r}')
    omega = 2.0 * np.pi / period
    a, b = plane
    c, s = np.cos(omega * t), np.sin(omega * t)
    pose = np.eye(4)
    if orientation is not None:
        pose[:3, :3] = orientation
    pose[:3, 3] = center
    pose[a, 3] += radius * c
    pose[b, 3] += radius * s
    twist, acceleration = np.zeros(6), np.zeros(6)
    twist[a], twist[b] = -radius * omega * s, radius * omega * c
    acceleration[a], acceleration[b] = -radius * omega ** 2 * c, -radius * omega ** 2 * s
    return pose, twist, acceleration


class PoseTrajectory:
    """
    A sampled task-space trajectory evaluated at any time: pose and twist of one frame.

    times: (K,) strictly increasing (s); positions: (K, 3) (m); rotations:
    scipy ``Rotation`` of K orientations; linear: (K, 3) velocities (m/s) or
    None. Positions are cubic Hermite splines through the samples with the
    given velocities (``scipy.interpolate.CubicHermiteSpline``; without
    velocities, a C2 cubic spline whose derivative is the velocity),
    orientations spherical linear interpolation (``Slerp``) with the angular
    velocity of each segment. Before the first sample the first pose is held,
    after the last the last pose, both with zero twist. This is what
    ``trajectory_msgs/MultiDOFJointTrajectory`` carries for one "joint".
    """

    def __init__(self, times, positions, rotations, linear=None) -> None:
        """Check the samples (finite, increasing times) and build the interpolants."""
        from scipy.interpolate import CubicHermiteSpline, CubicSpline
        from scipy.spatial.transform import Slerp
        times = np.asarray(times, dtype=float)
        positions = np.asarray(positions, dtype=float)
        if times.ndim != 1 or times.size < 1 or positions.shape != (times.size, 3):
            raise ValueError(f'expected K times and (K, 3) positions, got {times.shape} and '
                             f'{positions.shape}')
        if len(rotations) != times.size:
            raise ValueError(f'expected {times.size} orientations, got {len(rotations)}')
        if not (np.all(np.isfinite(times)) and np.all(np.isfinite(positions))):
            raise ValueError('times and positions must be finite')
        if np.any(np.diff(times) <= 0.0):
            raise ValueError('times must be strictly increasing')
        self.start, self.end = float(times[0]), float(times[-1])
        self._first = self._pose(rotations[0].as_matrix(), positions[0])
        self._last = self._pose(rotations[-1].as_matrix(), positions[-1])
        self._position = None
        if times.size > 1:
            if linear is None:
                self._position = CubicSpline(times, positions)
            else:
                linear = np.asarray(linear, dtype=float)
                if linear.shape != positions.shape or not np.all(np.isfinite(linear)):
                    raise ValueError(f'linear velocities: expected finite {positions.shape}')
                self._position = CubicHermiteSpline(times, positions, linear)
            self._slerp = Slerp(times, rotations)
            self._times = times
            self._rotations = rotations

    @staticmethod
    def _pose(rotation: np.ndarray, position: np.ndarray) -> np.ndarray:
        pose = np.eye(4)
        pose[:3, :3], pose[:3, 3] = rotation, position
        return pose

    def __call__(self, t: float) -> tuple:
        """Return (pose 4x4 in the root frame, twist (6,) [linear; angular], world axes) at t."""
        if self._position is None or t <= self.start:
            return self._first.copy(), np.zeros(6)
        if t >= self.end:
            return self._last.copy(), np.zeros(6)
        pose = self._pose(self._slerp([t]).as_matrix()[0], self._position(t))
        k = int(np.searchsorted(self._times, t, side='right')) - 1
        step = self._rotations[k + 1] * self._rotations[k].inv()   # world-axes rotation
        angular = step.as_rotvec() / (self._times[k + 1] - self._times[k])
        return pose, np.concatenate([self._position(t, 1), angular])
