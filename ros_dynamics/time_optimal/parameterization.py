# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Time-optimal path parameterization under velocity, acceleration and effort limits.

TOPP-RA (Pham and Pham, "A New Approach to Time-Optimal Path Parameterization
Based on Reachability Analysis", IEEE T-RO 34(3), 2018). Along a path q(s),
with x = sdot^2 and u = sddot, joint velocity, acceleration and effort are
qd = q' sqrt(x), qdd = q' u + q'' x and (the second-order form,
Pham and Pham eq. 3; Bobrow, Dubowsky and Gibson 1985)

    tau = a(s) u + b(s) x + c(s) (+ friction(q' sqrt(x))),

with a = M q', b = M q'' + C(q, q') q', c = g, taken from the model's batched
inverse dynamics: c = ID(q, 0, 0), a = ID(q, 0, q') - c,
b = ID(q, q', q'') - c (armature and payloads come with the model).

Discretization. A grid s_0 < ... < s_K; on interval i, u_i is constant and
x(s) = x_i + 2 u_i (s - s_i). Every limit is imposed on (u_i, x(s)) at three
points of each interval: s_i, the midpoint and s_{i+1} (toppra's
"interpolation" scheme, Pham and Pham section VI-A, plus the midpoint), so
each interval is a set of linear inequalities alpha u_i + beta x_i <= gamma,
solved by TOPP-RA's backward and forward passes (``reachability``).

Friction (``friction=True``): the actuators' friction torque with qd = q'
sqrt(x), F = o + sign(q') g(x) with g(x) = b |q'| sqrt(x) + f_c tanh(|q'|
sqrt(x) / v_s), is not linear in x (why toppra cannot take it, toppra issue
92). g is concave and increasing, so it is bounded by lines, each a row of the
same kind as the others: from above by f_c plus the tangent of the viscous part
at a reference x_r, from below by the chords of g through 0, (2 v_s / |q'|)^2,
x_r and 4 x_r (their minimum, i.e. one row per chord) and the constant g(4
x_r); both bounds are exact at x_r. The first solve takes the friction at rest;
then x_r is set to the last solution at every point and the problem re-solved
until the duration changes by less than 1e-7 (at most 30 rounds). Each solve is
feasible for the true friction at its constraint points (the bounds are
conservative) and each keeps the previous one feasible (the bounds are exact
there), so the durations decrease to a fixed point whose rows hold the exact
friction of the returned profile. Measured on a pendulum against its closed
form: the grid error shrinks as h^0.7 with friction (1.4e-3 of the duration at
4001 points), as h without.

Certification. Before returning, the motion is evaluated at >= 1 kHz and
>= 10 samples per grid interval with the same inverse dynamics (and
friction); every velocity, acceleration and effort must be within its limit
(no tolerance), plus in each interval the largest second difference of the
samples / 8, which bounds how far a smooth curve can rise between two samples
(delta^2 max|f''| / 8). Where a sample exceeds one, that limit is lowered at
that interval's three points and its neighbours' midpoints by twice the
excess (four times more for each round in a row that did not shrink the
worst excess) and the problem re-solved (at most 16 rounds, re-checking only the
intervals whose motion changed); a motion that still violates a limit raises
RuntimeError. The spline's knots are put on the grid (its third derivative
jumps there, so the effort has a kink that samples around it would miss).
The samples come from one compiled pass over the spline's cubic pieces; the
efforts at the interior ones from the model's batched RNEA, at each
interval's two ends (grid points) from the rows as a u + b x + c, the same
inverse dynamics exactly (RNEA is affine in qdd and quadratic in qd; measured
difference <= 4e-14 of the limit), which saves 2 of the 10 RNEA per interval.
The solver itself keeps a relative margin of 3e-4 (``MARGIN``) below every
limit (for efforts, of the part of the limit gravity leaves free: a part of
the limit would take most of what is left where gravity nearly saturates it,
4 % on a Panda path at 99.3 %): rounding never produces a violation at a
grid point, and most paths pass the dense check with at most one re-solve.
Measured on 7 random 50-waypoint Panda paths at 1000 points: re-solves 0-2
with 1e-4 instead of 2-4 with 1e-6, CPU 15 ms instead of 25 ms, durations
0.03 % shorter as the re-solves cut less. Then on 20 paths, interleaved
(2026-11-27, one thread): 3e-4 against 1e-4 takes 21 re-solves instead of 33
and 13 % less CPU at 400 points (5.78 against 6.66 ms per path), 9 instead
of 16 and 4 % less at 1000 points, for durations 0.013 % (400) and 0.020 %
(1000) longer on average (at most 0.038 %); 1e-3 saves 18 % at 400 points
for 0.08 % longer.
"""

import numpy as np
from ros_dynamics.exceptions import InfeasiblePathError
from ros_dynamics.time_optimal.certificate import Certificate
from ros_dynamics.time_optimal.path import SplinePath
from ros_dynamics.time_optimal.reachability import solve_profile
from ros_dynamics.time_optimal.trajectory import BindingSegment, TimeOptimalTrajectory

MARGIN = 3e-4            # relative margin kept below every limit by the solver
_FRICTION_TOLERANCE = 1e-7
_FRICTION_ROUNDS = 30
_CERTIFY_ROUNDS = 16
_BINDING_RATIO = 1.0 - 1e-3


def _limit_vector(value, default: np.ndarray, name: str, names: tuple,
                  allow_none_default: bool = True) -> np.ndarray:
    """Return a (dof,) limit array from None (default), a scalar or (dof,); must be > 0."""
    dof = len(names)
    if value is None:
        limit = np.array(default, dtype=float)
        source = 'the model'
    else:
        try:
            limit = np.array(value, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f'{name}: expected a number or ({dof},) numbers, got {value!r}')
        source = name
        if limit.ndim == 0:
            limit = np.full(dof, float(limit))
    if limit.shape != (dof,):
        raise ValueError(f'{name}: expected a number or shape ({dof},) for joints '
                         f'{list(names)}, got shape {limit.shape}')
    for j in range(dof):
        if np.isnan(limit[j]) or limit[j] <= 0.0:
            where = ('the URDF/actuators give' if source == 'the model' else f'{name} gives')
            raise ValueError(f'{name}: {where} joint {names[j]} the limit {limit[j]!r}; limits '
                             f'must be > 0 (inf for none): pass {name}=...')
    return limit


def _nonnegative(value, name: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f'{name}: expected a number >= 0, got {value!r}')
    if not (np.isfinite(number) and number >= 0.0):
        raise ValueError(f'{name}: expected a finite number >= 0, got {value!r}')
    return number


def _grid(path, s0: float, s1: float, count: int) -> np.ndarray:
    """
    Return ``count`` grid points, uniform in s, with the path's breakpoints on the grid.

    A cubic spline's third derivative jumps at its knots, so the effort has a
    kink there that samples on either side would not bound: each breakpoint
    replaces the nearest interior uniform point (the grid keeps its size).
    """
    grid = np.linspace(s0, s1, count)
    breakpoints = np.asarray(getattr(path, 'breakpoints', ()), dtype=float)
    breakpoints = breakpoints[(breakpoints > s0) & (breakpoints < s1)]
    if breakpoints.size and count > 2:
        nearest = np.clip(np.rint((breakpoints - s0) / (s1 - s0) * (count - 1)).astype(np.int64),
                          1, count - 2)
        grid[nearest] = breakpoints
        grid = np.unique(grid)
    return grid


class _Problem:
    """The constraint rows at the 2K+1 points (grid points and midpoints) of one path."""

    def __init__(self, robot, path, grid: np.ndarray, velocity: np.ndarray,
                 acceleration: np.ndarray, effort: np.ndarray, friction: bool) -> None:
        self.robot = robot
        self.path = path
        self.grid = grid
        self.friction = friction
        self.names = tuple(robot.joint_names)
        dof = robot.dof
        points = np.empty(2 * grid.size - 1)
        points[0::2] = grid
        points[1::2] = 0.5 * (grid[:-1] + grid[1:])
        self.points = points
        q, dq, ddq = path.evaluate(points)
        q, dq, ddq = (np.ascontiguousarray(v, dtype=float) for v in (q, dq, ddq))
        if q.shape != (points.size, dof):
            raise ValueError(f'waypoints: the path gives positions of shape {q.shape[1:]}, the '
                             f'robot has {dof} joints {list(self.names)}')
        self.q, self.dq, self.ddq = q, dq, ddq
        zero = np.zeros_like(q)
        self.c = robot.inverse_dynamics(q, zero, zero)
        self.a = robot.inverse_dynamics(q, zero, dq) - self.c
        self.b = robot.inverse_dynamics(q, dq, ddq) - self.c
        self.velocity, self.acceleration, self.effort = velocity, acceleration, effort
        with np.errstate(divide='ignore'):
            ratio = np.where(np.abs(dq) > 0.0, velocity / np.abs(dq), np.inf)
        self.x_velocity = np.min(ratio, axis=1) ** 2          # x <= this at each point
        self.velocity_joint = np.argmin(ratio, axis=1)
        self.effort_cut = np.zeros((points.size, dof))
        self.acceleration_cut = np.zeros((points.size, dof))
        self.velocity_factor = np.ones(points.size)
        self.friction_torque = (robot.friction_torques(zero) if friction
                                else np.zeros_like(q))
        self.x_reference = None       # where the friction bounds are exact (None: at rest)
        # the effort margin is a part of what gravity (and friction at rest) leave free: a
        # margin of the limit would take most of the slack where gravity nearly saturates it
        self.effort_margin = MARGIN * np.maximum(
            effort - np.abs(self.c + self.friction_torque), 0.0)
        if friction:
            actuators = robot.actuators
            if np.any(actuators.sigmoid != 0.0):
                raise ValueError('friction: time_optimal_trajectory takes viscous, Coulomb and '
                                 'offset friction; the actuators set a Gaz sigmoid term, which '
                                 'it does not bound yet (pass friction=False or remove it)')
            if np.any(actuators.viscous < 0.0) or np.any(actuators.coulomb < 0.0):
                raise ValueError('friction: negative viscous or Coulomb coefficients in the '
                                 'actuators (the bounds assume friction opposes motion)')

    def _friction_rows(self) -> tuple:
        """
        Return the friction as lines in x: (tangent slope, offset), (chord slopes, offsets).

        Per point and joint, with w = |q'| and sigma = sign(q'), the friction
        is F(x) = o + sigma g(x), g(x) = b w sqrt(x) + f_c tanh(w sqrt(x) / v_s),
        concave and increasing in x >= 0. f_c plus the tangent of b w sqrt(x)
        at the reference x_r is an upper bound of g for every x; the chords
        through 0, (2 v_s / w)^2, x_r, 4 x_r and the constant g(4 x_r) beyond
        are, as their minimum, a lower bound. Both are exact at x_r (the
        upper one once the Coulomb term has saturated, w sqrt(x_r) >> v_s).
        Shapes (2K+1, dof) and (4, 2K+1, dof).
        """
        actuators = self.robot.actuators
        b, f_c, v_s = actuators.viscous, actuators.coulomb, actuators.friction_velocity
        w = np.abs(self.dq)
        x_r = np.broadcast_to(self.x_reference[:, None], w.shape)

        def g(x):
            root = np.sqrt(x)
            return b * w * root + f_c * np.tanh(w * root / v_s)

        # upper: f_c (tanh <= 1) plus the viscous part's tangent at x_r
        root = np.sqrt(x_r)
        slope = b * w / (2.0 * root)
        tangent = (slope, f_c + b * w * root - slope * x_r)
        with np.errstate(divide='ignore'):
            knee = np.where(w > 0.0, (2.0 * v_s / np.where(w > 0.0, w, 1.0)) ** 2, np.inf)
        knee = np.minimum(knee, 0.5 * x_r)
        points = [np.zeros_like(x_r), knee, x_r, 4.0 * x_r]
        values = [g(x) for x in points]
        slopes, offsets = [], []
        for k in range(3):
            chord = (values[k + 1] - values[k]) / (points[k + 1] - points[k])
            slopes.append(chord)
            offsets.append(values[k] - chord * points[k])
        slopes.append(np.zeros_like(x_r))
        offsets.append(values[3])
        return tangent, (np.array(slopes), np.array(offsets))

    def rows(self) -> tuple:
        """
        Build the constraint rows: lo <= a u + b x + c <= hi, each (2K+1, R).

        Columns: effort (two-sided; with friction one tangent row and four
        chord rows per joint, one-sided), acceleration, velocity. Sets
        ``row_names`` [(joint, kind)] per column.
        """
        dof = self.robot.dof
        n = self.points.size
        scale = 1.0 - MARGIN
        effort = self.effort - self.effort_margin - self.effort_cut
        acceleration = self.acceleration * scale - self.acceleration_cut
        blocks_a, blocks_b, blocks_c, blocks_lo, blocks_hi = [], [], [], [], []
        inf = np.full((n, dof), np.inf)
        if not self.friction or self.x_reference is None:
            blocks_a.append(self.a)
            blocks_b.append(self.b)
            blocks_c.append(self.c + self.friction_torque)
            blocks_lo.append(-effort)
            blocks_hi.append(effort)
            effort_rows = 1
        else:
            offset = self.robot.actuators.offset
            sigma = np.sign(self.dq)
            upper = sigma >= 0.0
            (t_slope, t_offset), (c_slopes, c_offsets) = self._friction_rows()
            # the tangent bounds sigma g from above where sigma >= 0, from below where < 0
            blocks_a.append(self.a)
            blocks_b.append(self.b + sigma * t_slope)
            blocks_c.append(self.c + offset + sigma * t_offset)
            blocks_lo.append(np.where(upper, -inf, -effort))
            blocks_hi.append(np.where(upper, effort, inf))
            for k in range(c_slopes.shape[0]):
                blocks_a.append(self.a)
                blocks_b.append(self.b + sigma * c_slopes[k])
                blocks_c.append(self.c + offset + sigma * c_offsets[k])
                blocks_lo.append(np.where(upper, -effort, -inf))
                blocks_hi.append(np.where(upper, inf, effort))
            effort_rows = 1 + c_slopes.shape[0]
        blocks_a.append(self.dq)
        blocks_b.append(self.ddq)
        blocks_c.append(np.zeros((n, dof)))
        blocks_lo.append(-acceleration)
        blocks_hi.append(acceleration)
        velocity = self.x_velocity * scale * scale * self.velocity_factor
        blocks_a.append(np.zeros((n, 1)))
        blocks_b.append(np.ones((n, 1)))
        blocks_c.append(np.zeros((n, 1)))
        blocks_lo.append(np.full((n, 1), -np.inf))
        blocks_hi.append(velocity[:, None])
        self.row_names = ([(name, 'effort') for _ in range(effort_rows) for name in self.names]
                          + [(name, 'acceleration') for name in self.names]
                          + [(None, 'velocity')])
        return tuple(np.ascontiguousarray(np.concatenate(blocks, axis=1))
                     for blocks in (blocks_a, blocks_b, blocks_c, blocks_lo, blocks_hi))

    def point_values(self, x: np.ndarray) -> np.ndarray:
        """Return x (2K+1,) at the points for grid x (K+1,) (x is linear in s per interval)."""
        x_points = np.empty(self.points.size)
        x_points[0::2] = x
        x_points[1::2] = 0.5 * (x[:-1] + x[1:])
        return x_points

    def label(self, s: float) -> str:
        if isinstance(self.path, SplinePath):
            return f's = {s:.4g} ({self.path.waypoint_label(s)})'
        return f's = {s:.4g}'


def _check_static(problem: _Problem) -> None:
    """Refuse a path whose effort at rest alone exceeds a limit somewhere (message per joint)."""
    static = problem.c + problem.friction_torque
    ratio = np.abs(static) / problem.effort
    worst = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    if ratio[worst] > 1.0 - MARGIN:
        p, j = int(worst[0]), int(worst[1])
        name = problem.names[j]
        what = 'gravity torque' if not problem.friction else 'gravity and friction torque'
        raise InfeasiblePathError(
            f'{name} needs {abs(static[p, j]):.4g} N m of {what} alone at '
            f'{problem.label(problem.points[p])}, above its effort limit '
            f'{problem.effort[j]:.4g} N m (effort_limit x effort_scale)',
            joint=name, limit='effort', s=float(problem.points[p]))


def _row_name(problem: _Problem, r: int) -> tuple:
    return problem.row_names[r]


def _explain_stage(problem: _Problem, stage: int, k_lo: np.ndarray, k_hi: np.ndarray,
                   rows: tuple) -> InfeasiblePathError:
    """Name the two limits that leave no path acceleration at ``stage`` at the slowest speed."""
    a_rows, b_rows, c_rows, lo_rows, hi_rows = rows
    s = problem.grid
    h = s[stage + 1] - s[stage]
    x = 0.0   # the slowest speed
    upper, lower = (np.inf, None), (-np.inf, None)
    for k in range(3):
        p = 2 * stage + k
        for r in range(c_rows.shape[1]):
            a = a_rows[p, r] + k * h * b_rows[p, r]
            offset = b_rows[p, r] * x + c_rows[p, r]
            if a == 0.0:
                continue
            bounds = sorted(((hi_rows[p, r] - offset) / a, (lo_rows[p, r] - offset) / a))
            if bounds[1] < upper[0]:
                upper = (bounds[1], (p, r))
            if bounds[0] > lower[0]:
                lower = (bounds[0], (p, r))
    place = problem.label(s[stage])
    if upper[1] is None or lower[1] is None or upper[0] >= lower[0]:
        return InfeasiblePathError(
            f'no timing of the path meets the limits at {place}: the limits there and '
            f'further along (down to the end velocity) cannot all be met at any path speed; '
            f'lower end_velocity, or raise the limits', s=float(s[stage]))
    joint_hi, kind_hi = _row_name(problem, upper[1][1])
    joint_lo, kind_lo = _row_name(problem, lower[1][1])
    return InfeasiblePathError(
        f'no timing of the path meets the limits at {place}, even at vanishing speed: the '
        f'{kind_hi} limit of {joint_hi} needs path acceleration <= {upper[0]:.4g} while the '
        f'{kind_lo} limit of {joint_lo} needs >= {lower[0]:.4g}',
        joint=joint_hi, limit=kind_hi, s=float(s[stage]))


def _binding(problem: _Problem, x: np.ndarray, u: np.ndarray, times: np.ndarray) -> list:
    """Return BindingSegments: per grid interval the limit nearest to its bound (3 points)."""
    dof = problem.robot.dof
    h = np.diff(problem.grid)
    best_ratio = np.full(u.size, -1.0)
    best_label = np.zeros(u.size, dtype=np.int64)
    for k in range(3):
        p = np.arange(u.size) * 2 + k
        xp = x[:-1] + k * h * u
        qd_ratio = np.sqrt(np.maximum(xp, 0.0) / problem.x_velocity[p])
        qdd = problem.dq[p] * u[:, None] + problem.ddq[p] * xp[:, None]
        tau = (problem.a[p] * u[:, None] + problem.b[p] * xp[:, None] + problem.c[p]
               + problem.friction_torque[p])
        ratios = np.concatenate((np.abs(tau) / problem.effort,
                                 np.abs(qdd) / problem.acceleration, qd_ratio[:, None]), axis=1)
        row = np.argmax(ratios, axis=1)
        ratio = ratios[np.arange(u.size), row]
        # the velocity row is labelled by its joint: code it as 2 dof + joint
        row = np.where(row == 2 * dof, 2 * dof + problem.velocity_joint[p], row)
        better = ratio > best_ratio
        best_ratio = np.where(better, ratio, best_ratio)
        best_label = np.where(better, row, best_label)
    code = np.where(best_ratio < _BINDING_RATIO, -1, best_label)
    ends = np.concatenate((np.flatnonzero(np.diff(code)) + 1, [u.size]))
    starts = np.concatenate(([0], ends[:-1]))
    grid = problem.grid
    segments = []
    for start, end in zip(starts, ends):
        r = int(code[start])
        if r < 0:
            label = 'none'
        elif r >= 2 * dof:
            label = f'velocity {problem.names[r - 2 * dof]}'
        elif r >= dof:
            label = f'acceleration {problem.names[r - dof]}'
        else:
            label = f'effort {problem.names[r]}'
        segments.append(BindingSegment(float(grid[start]), float(grid[end]),
                                       float(times[start]), float(times[end]), label))
    return segments


def time_optimal_trajectory(robot, waypoints, *, path_parameter=None, velocity_limit=None,
                            acceleration_limit=None, effort_limit=None,
                            effort_scale: float = 1.0, friction: bool = False,
                            start_velocity: float = 0.0, end_velocity: float = 0.0,
                            grid_points: int = 400) -> TimeOptimalTrajectory:
    """
    Return the fastest timing of a path that respects velocity, acceleration and effort limits.

    TOPP-RA (Pham and Pham, IEEE T-RO 34(3), 2018) on the model's full
    inverse dynamics (rigid bodies, armature, payloads set on ``robot``, and
    with ``friction=True`` the actuators' joint friction), certified by a
    dense check before it is returned (module docstring).

    robot: a RobotModel. waypoints: (N, dof) joint positions (rad, m for
    prismatic) in ``robot.joint_names`` order, interpolated by a not-a-knot
    cubic spline over ``path_parameter`` (N,) (default: cumulative
    joint-space chord length); or a path object (``domain``, ``dof``,
    ``evaluate(s)``, path.py), then ``path_parameter`` must be None.
    velocity_limit (rad/s), acceleration_limit (rad/s^2), effort_limit (N m):
    a number or (dof,), > 0, inf for none; defaults: the URDF's velocity
    limits, no acceleration limit, ``robot.effort_limit`` (URDF and actuators
    YAML). effort_scale: multiplies the effort limits (0 < scale).
    start_velocity, end_velocity: path speed sdot at the ends (path
    parameter units per second, >= 0). grid_points: number of grid points
    (>= 2), uniform in s.

    Returns a TimeOptimalTrajectory (trajectory.py). Raises
    InfeasiblePathError when no timing meets the limits (naming the joint,
    the limit and the path position), ValueError on bad arguments (naming
    the keyword), RuntimeError if the dense check still fails after the
    bounded re-solves (a bug: never a violating trajectory).
    """
    is_path = hasattr(waypoints, 'evaluate') and hasattr(waypoints, 'domain')
    if path_parameter is None and is_path:
        path = waypoints
    elif hasattr(waypoints, 'evaluate'):
        raise ValueError('path_parameter: must be None when waypoints is a path object')
    else:
        path = SplinePath(waypoints, path_parameter)
    if getattr(path, 'dof', robot.dof) != robot.dof:
        raise ValueError(f'waypoints: {path.dof} columns, the robot has {robot.dof} joints '
                         f'{list(robot.joint_names)}')
    if isinstance(grid_points, (bool, np.bool_)) or not isinstance(grid_points,
                                                                   (int, np.integer)):
        raise ValueError(f'grid_points: expected an integer >= 2, got {grid_points!r}')
    if grid_points < 2:
        raise ValueError(f'grid_points: expected an integer >= 2, got {grid_points!r}')
    if friction is not True and friction is not False:
        raise ValueError(f'friction: expected True or False, got {friction!r}')
    names = tuple(robot.joint_names)
    velocity = _limit_vector(velocity_limit, robot.velocity_limit, 'velocity_limit', names)
    acceleration = _limit_vector(acceleration_limit, np.full(robot.dof, np.inf),
                                 'acceleration_limit', names)
    scale = _nonnegative(effort_scale, 'effort_scale')
    if scale <= 0.0:
        raise ValueError(f'effort_scale: expected a number > 0, got {effort_scale!r}')
    effort = _limit_vector(effort_limit, robot.effort_limit, 'effort_limit', names) * scale
    x_start = _nonnegative(start_velocity, 'start_velocity') ** 2
    x_end = _nonnegative(end_velocity, 'end_velocity') ** 2
    s0, s1 = (float(v) for v in path.domain)
    if not (np.isfinite(s0) and np.isfinite(s1) and s1 > s0):
        raise ValueError(f'waypoints: the path domain must be finite with s_end > s_start, got '
                         f'{path.domain}')
    grid = _grid(path, s0, s1, int(grid_points))
    problem = _Problem(robot, path, grid, velocity, acceleration, effort, friction)
    _check_static(problem)
    for end, x_boundary, p in (('start_velocity', x_start, 0),
                               ('end_velocity', x_end, problem.points.size - 1)):
        if x_boundary > problem.x_velocity[p] * (1.0 - MARGIN) ** 2:
            joint = names[problem.velocity_joint[p]]
            raise InfeasiblePathError(
                f'{end}: path speed {np.sqrt(x_boundary):.4g} moves {joint} faster than its '
                f'velocity limit {velocity[problem.velocity_joint[p]]:.4g} at '
                f'{problem.label(problem.points[p])}; at most '
                f'{np.sqrt(problem.x_velocity[p]) * (1.0 - MARGIN):.6g}',
                joint=joint, limit='velocity', s=float(problem.points[p]))
    rounds = 0
    friction_rounds = 0
    certificate = Certificate(problem)
    duration = None
    while True:
        rows = problem.rows()
        k_lo, k_hi, x, u, status, stage = solve_profile(grid, *rows, x_start, x_end)
        if status == 1:
            error = _explain_stage(problem, stage, k_lo, k_hi, rows)
            if rounds:
                error.args = (f'{error.args[0]} (after {rounds} re-solves that lowered the '
                              f'limits where the motion between grid points exceeded them; '
                              f'more grid_points may find a timing)',)
            raise error
        if status == 2:
            raise InfeasiblePathError(
                f'start_velocity: path speed {np.sqrt(x_start):.4g} at {problem.label(s0)} is '
                f'outside the speeds [{np.sqrt(k_lo[0]):.4g}, {np.sqrt(k_hi[0]):.4g}] from which '
                f'the limits can still be met along the path (braking in time)',
                limit='start_velocity', s=s0)
        if not np.all(np.isfinite(u)) or not np.all(np.isfinite(x)):
            raise ValueError('velocity_limit, acceleration_limit, effort_limit: no finite limit '
                             'bounds the path speed (give at least one)')
        moving = np.sqrt(x[:-1]) + np.sqrt(x[1:])
        if np.any(moving <= 0.0):
            i = int(np.flatnonzero(moving <= 0.0)[0])
            raise InfeasiblePathError(
                f'the limits force the path to stop at {problem.label(grid[i])}: no motion '
                f'along it reaches the end', s=float(grid[i]))
        trajectory = TimeOptimalTrajectory(robot, path, grid, x, u, friction, [])
        times = trajectory.grid_times
        if friction:
            x_points = problem.point_values(x)
            problem.friction_torque = robot.friction_torques(
                problem.dq * np.sqrt(np.maximum(x_points, 0.0))[:, None])
            change = np.inf if duration is None else abs(times[-1] / duration - 1.0)
            duration = times[-1]
            if friction_rounds < _FRICTION_ROUNDS and (problem.x_reference is None
                                                       or change > _FRICTION_TOLERANCE):
                # bounds exact at this profile (a floor keeps the tangents finite at rest)
                problem.x_reference = np.maximum(x_points, 1e-9 * max(x_points.max(), 1e-9))
                friction_rounds += 1
                continue
        checked = int(np.maximum(9, np.ceil(np.diff(times) * 1e3)).sum()) + times.size
        if checked > 1_000_000:   # held at once (~300 MB): a limit scaled to ~0 must not swap
            raise ValueError(f'the timed motion lasts {times[-1]:.6g} s: its dense check needs '
                             f'{checked} > 1000000 samples; raise velocity_limit, '
                             'acceleration_limit or effort_scale')
        if certificate.check(trajectory, x):
            trajectory.binding = _binding(problem, x, u, trajectory.grid_times)
            trajectory.speed_limit = np.sqrt(np.minimum(k_hi, problem.x_velocity[0::2]))
            trajectory.velocity_limit = velocity
            trajectory.acceleration_limit = acceleration
            trajectory.effort_limit = effort
            trajectory.friction_rounds = friction_rounds
            trajectory.certify_rounds = rounds
            return trajectory
        rounds += 1
        if rounds > _CERTIFY_ROUNDS:
            raise RuntimeError(
                f'time_optimal_trajectory: the dense check still finds a limit exceeded after '
                f'{_CERTIFY_ROUNDS} re-solves (worst |value|/limit: {trajectory.limit_ratios}); '
                f'this is a bug, please report it with the path')
