# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Geometric paths q(s) for time-optimal parameterization.

A path maps the path parameter s in [s_start, s_end] to joint positions
q(s) (rad, m for prismatic) and gives q'(s) = dq/ds and q''(s) = d2q/ds2.
``SplinePath`` is the cubic spline through waypoints (scipy ``CubicSpline``,
not-a-knot ends: the same as toppra's ``SplineInterpolator``). Any object
with the attributes ``domain`` ((s_start, s_end)) and ``dof`` and a method
``evaluate(s) -> (q, dq, ddq)`` (each (M, dof) for s of shape (M,)) can be
used instead; an optional ``breakpoints`` (array of s) names where the path
is not smooth, so that they are put on the grid.
"""

from typing import Optional

import numpy as np
from scipy.interpolate import CubicSpline


class SplinePath:
    """
    The not-a-knot cubic spline q(s) through waypoints (N, dof) at path parameters (N,).

    path_parameter None: the cumulative joint-space chord length,
    s_0 = 0, s_k = s_{k-1} + ||q_k - q_{k-1}||_2 (rad, or m for prismatic
    joints, mixed as numbers). Waypoints are passed through exactly.
    """

    def __init__(self, waypoints, path_parameter=None) -> None:
        """Check and fit; raises ValueError naming ``waypoints`` or ``path_parameter``."""
        try:
            points = np.array(waypoints, dtype=float)
        except (TypeError, ValueError) as error:
            raise ValueError(f'waypoints: expected an (N, dof) array of numbers ({error})')
        if points.ndim != 2 or points.shape[0] < 2 or points.shape[1] < 1:
            raise ValueError(f'waypoints: expected an (N, dof) array with N >= 2, got shape '
                             f'{points.shape}')
        if not np.all(np.isfinite(points)):
            row = int(np.argwhere(~np.isfinite(points))[0, 0])
            raise ValueError(f'waypoints: row {row} is not finite: {points[row].tolist()}')
        if path_parameter is None:
            steps = np.linalg.norm(np.diff(points, axis=0), axis=1)
            repeated = np.flatnonzero(steps == 0.0)
            if repeated.size:
                k = int(repeated[0])
                raise ValueError(f'waypoints: rows {k} and {k + 1} are equal, so the chord-'
                                 f'length path parameter does not advance; remove the '
                                 f'repeated waypoint or give path_parameter')
            parameter = np.concatenate(([0.0], np.cumsum(steps)))
        else:
            try:
                parameter = np.array(path_parameter, dtype=float)
            except (TypeError, ValueError) as error:
                raise ValueError(f'path_parameter: expected ({points.shape[0]},) numbers '
                                 f'({error})')
            if parameter.shape != (points.shape[0],):
                raise ValueError(f'path_parameter: expected shape ({points.shape[0]},) (one per '
                                 f'waypoint), got {parameter.shape}')
            if not np.all(np.isfinite(parameter)) or np.any(np.diff(parameter) <= 0.0):
                raise ValueError('path_parameter: must be finite and strictly increasing')
        self.waypoints = points
        self.path_parameter = parameter
        self.dof = points.shape[1]
        self.domain = (float(parameter[0]), float(parameter[-1]))
        self.breakpoints = parameter     # the knots, where the third derivative jumps
        self._spline = CubicSpline(parameter, points, axis=0, bc_type='not-a-knot')
        self._first = self._spline.derivative(1)
        self._second = self._spline.derivative(2)
        self._knots = np.ascontiguousarray(self._spline.x, dtype=float)
        self._coefficients = np.ascontiguousarray(self._spline.c, dtype=float)
        self._knots.setflags(write=False)
        self._coefficients.setflags(write=False)

    @property
    def polynomial(self) -> tuple:
        """
        Return the spline's pieces (knots (N,), coefficients (4, N-1, dof)), read-only.

        On [knots[k], knots[k+1]], q(s) = sum_m coefficients[m, k] (s - knots[k])^(3-m)
        (scipy ``PPoly`` layout); the compiled dense check evaluates q, q', q'' from them.
        """
        return self._knots, self._coefficients

    def evaluate(self, s) -> tuple:
        """Return q(s), q'(s), q''(s), each (M, dof), for s (M,) inside ``domain``."""
        s = np.asarray(s, dtype=float)
        return self._spline(s), self._first(s), self._second(s)

    def waypoint_label(self, s: float) -> Optional[str]:
        """Return e.g. 'waypoint 3 of 7' or 'between waypoints 3 and 4 of 7' (1-based) for s."""
        n = self.path_parameter.size
        k = int(np.argmin(np.abs(self.path_parameter - s)))
        span = self.domain[1] - self.domain[0]
        if abs(self.path_parameter[k] - s) <= 1e-9 * span:
            return f'waypoint {k + 1} of {n}'
        k = int(np.searchsorted(self.path_parameter, s)) - 1
        k = min(max(k, 0), n - 2)
        return f'between waypoints {k + 1} and {k + 2} of {n}'
