# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The ``~/time_optimal_trajectory`` service: a planned path timed as fast as the motors allow.

Request -> core -> response (``srv/TimeOptimalTrajectory.srv``):

* ``request_arguments(model, request)``: the path's positions (joints by name,
  any order) become waypoints (N, dof) in model order, the joints not in the
  path held at the positions of ``hold`` (every one must be there: a held
  pose changes the gravity torques of the others, so none is guessed);
  repeated consecutive waypoints are dropped (the chord-length parameter
  would not advance); the scaling factors (MoveIt's convention: 0 < f <= 1,
  0 means 1) multiply the URDF velocity limits, ``acceleration_limits`` and
  the effort limits (URDF or actuators YAML). Held joints do not move: their
  velocity and acceleration limits do not apply, their effort limits do.
  Waypoints and held positions must lie within the URDF position limits (the
  spline between waypoints is not checked against them).
* ``ros_dynamics.time_optimal_trajectory`` (TOPP-RA, Pham and Pham, IEEE
  T-RO 34(3), 2018) on the node's model: rigid bodies, armature, the
  payloads set on the node and, with ``friction``, the joint friction. The
  motion is certified by the core's dense check (>= 1 kHz) before it is
  answered.
* ``fill_response``: the motion sampled every ``sample_period`` s from 0 to
  the duration (the last point at the duration, at rest: velocities exactly
  0), in ``path.joint_names`` order, ``time_from_start`` strictly increasing
  (whole nanoseconds): what a ros2_control ``joint_trajectory_controller``
  takes as is. Efforts go into ``efforts`` (and into ``points[].effort``
  only with ``effort_feedforward``: a controller without the effort command
  interface refuses a trajectory with efforts, ros2_controllers PR 1200).

Every failure is ``success: false`` with a message naming the request field,
or, for a path no timing can follow, the joint, the limit and the place on the
path (the core's ``InfeasiblePathError``).

Threading: a timing takes milliseconds to a second of CPU, and the node's
executor also runs the feedforward stream, whose stale watchdog lets go of
the arm after ``state_timeout`` without a command. So, as
``~/estimate_payload`` (nodes/payload_estimation.py), the service lives on a
small node of its own (``<node>_time_optimal``) spun in a daemon thread,
under the name ``<node's full name>/time_optimal_trajectory``. The model is
the node's (payload changes during a timing are detected and the timing
redone once).
"""

import atexit
import threading
import traceback
from typing import Callable, NamedTuple, Optional

from builtin_interfaces.msg import Duration
import numpy as np
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from ros_dynamics.nodes.common import guarded, matrix_message, ModelSource
from ros_dynamics.nodes.joint_vectors import JointVectorMap
from ros_dynamics.srv import TimeOptimalTrajectory
from ros_dynamics.time_optimal import time_optimal_trajectory
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

DEFAULT_SAMPLE_PERIOD = 0.01   # s
DEFAULT_GRID_POINTS = 400
MAX_GRID_POINTS = 20000
MAX_POINTS = 100000            # points of an answer (a 100 s motion every 1 ms)
POSITION_SLACK = 1e-9          # rad (m) beyond a URDF position limit taken as rounding
MAX_POSITION = 1e6             # rad (m): continuous joints have no limits, the arithmetic has
# the core's keywords as this service's request fields, for its messages
FIELDS = (('effort_limit x effort_scale', 'effort limit x effort_scaling_factor'),
          ('effort_scale', 'effort_scaling_factor'),
          ('acceleration_limit', 'acceleration_limits x acceleration_scaling_factor'),
          ('velocity_limit', 'velocity limit x velocity_scaling_factor'),
          ('more grid_points', 'more grid_points'),
          ('waypoints: ', 'path.points: '))


class TimingArguments(NamedTuple):
    """A request checked and in the core's terms (model order unless said otherwise)."""

    names: list                # path.joint_names, the answer's order
    index: np.ndarray          # (len(names),) their model indices
    waypoints: np.ndarray      # (N', dof) distinct consecutive waypoints, rad (m)
    owner: np.ndarray          # (N,) the row of waypoints each request point became
    velocity_limit: np.ndarray     # (dof,) rad/s, inf for the held joints
    acceleration_limit: Optional[np.ndarray]   # (dof,) rad/s^2 or None
    effort_scale: float
    sample_period: float       # s
    grid_points: int
    notes: list                # what the answer's message should say


def _factor(value: float, field: str) -> float:
    """Return a scaling factor: 0 < f <= 1, 0 meaning 1 (MoveIt's convention)."""
    factor = float(value)
    if factor == 0.0:
        return 1.0
    if not 0.0 < factor <= 1.0:
        raise ValueError(f'{field}: expected 0 < factor <= 1 (0 = 1), got {factor!r}')
    return factor


def _hold_positions(vectors: JointVectorMap, hold, moved: np.ndarray) -> np.ndarray:
    """Return (dof,) positions: those of ``hold`` for the joints not ``moved``, else NaN."""
    names = list(hold.name)
    if len(hold.position) != len(names):
        raise ValueError(f'hold.position: {len(hold.position)} values for {len(names)} names')
    q = np.full(len(vectors.joint_names), np.nan)
    for k, j in enumerate(vectors.indices(names, 'hold.name', ignore_unknown=True)):
        if j is not None and not moved[j]:
            value = float(hold.position[k])
            if not np.isfinite(value):
                raise ValueError(f'hold.position: joint {names[k]!r} is {value} (must be finite)')
            q[j] = value
    missing = [n for n, m, v in zip(vectors.joint_names, moved, q) if not m and np.isnan(v)]
    if missing:
        raise ValueError(f'hold: the model joints not in path.joint_names are held still at '
                         f'the positions of hold.name/hold.position; missing: '
                         f'{", ".join(map(repr, missing))}')
    return q


def request_arguments(model, request) -> TimingArguments:
    """
    Check a TimeOptimalTrajectory request against ``model`` and return the core's arguments.

    Raises ValueError naming the request field (``path.joint_names``,
    ``path.points[k].positions``, ``hold``, a scaling factor,
    ``acceleration_limits``, ``sample_period``, ``grid_points``).
    """
    vectors = JointVectorMap(model.joint_names)
    names = [str(n) for n in request.path.joint_names]
    if not names:
        raise ValueError('path.joint_names: empty (name the joints the path moves)')
    index = np.array(vectors.indices(names, 'path.joint_names'), dtype=np.intp)
    points = request.path.points
    if len(points) < 2:
        raise ValueError(f'path.points: {len(points)} points; a path needs at least 2')
    rows = np.empty((len(points), len(names)))
    for k, point in enumerate(points):
        if len(point.positions) != len(names):
            raise ValueError(f'path.points[{k}].positions: {len(point.positions)} values for '
                             f'{len(names)} joint names')
        rows[k] = point.positions
        if not np.all(np.isfinite(rows[k])):
            j = int(np.argmin(np.isfinite(rows[k])))
            raise ValueError(f'path.points[{k}].positions: joint {names[j]!r} is {rows[k, j]} '
                             '(must be finite)')
    moved = np.zeros(model.dof, bool)
    moved[index] = True
    held = _hold_positions(vectors, request.hold, moved)
    for field, values, joints in (('path.points[{}].positions', rows, index),
                                  ('hold.position', held[None, ~moved], np.flatnonzero(~moved))):
        lower, upper = model.lower[joints] - POSITION_SLACK, model.upper[joints] + POSITION_SLACK
        outside = (values < lower) | (values > upper) | (np.abs(values) > MAX_POSITION)
        if np.any(outside):
            k, j = (int(v) for v in np.argwhere(outside)[0])
            joint = int(joints[j])
            raise ValueError(f'{field.format(k)}: joint {model.joint_names[joint]!r} at '
                             f'{values[k, j]:.6g} is outside its limits '
                             f'[{model.lower[joint]:.6g}, {model.upper[joint]:.6g}] (URDF)')
    notes = []
    keep = np.concatenate(([True], np.any(np.diff(rows, axis=0) != 0.0, axis=1)))
    if keep.sum() < 2:
        raise ValueError(f'path.points: all {len(points)} waypoints are the same position; '
                         'nothing to time')
    if not keep.all():
        notes.append(f'{int((~keep).sum())} repeated waypoint(s) dropped')
    waypoints = np.tile(np.where(moved, 0.0, held), (int(keep.sum()), 1))
    waypoints[:, index] = rows[keep]
    for j in index:
        for kind, limits in (('velocity', model.velocity_limit), ('effort', model.effort_limit)):
            if not limits[j] > 0.0:
                raise ValueError(f'the URDF (or actuators YAML) gives joint '
                                 f'{model.joint_names[j]!r} the {kind} limit {limits[j]!r}: a '
                                 'path that moves it cannot be timed')
    velocity = np.where(moved, model.velocity_limit, np.inf) * _factor(
        request.velocity_scaling_factor, 'velocity_scaling_factor')
    acceleration_factor = _factor(request.acceleration_scaling_factor,
                                  'acceleration_scaling_factor')
    limits = np.array(request.acceleration_limits, dtype=float)
    acceleration = None
    if limits.size:
        if limits.size not in (1, len(names)):
            raise ValueError(f'acceleration_limits: {limits.size} values; give one per joint '
                             f'of path.joint_names ({len(names)}), one for all, or none')
        if not np.all(limits > 0.0):   # NaN too
            raise ValueError(f'acceleration_limits: must be > 0 (inf for none), got '
                             f'{limits.tolist()}')
        acceleration = np.full(model.dof, np.inf)
        acceleration[index] = limits * acceleration_factor
    elif acceleration_factor != 1.0:
        notes.append('acceleration_scaling_factor unused: no acceleration_limits given (the '
                     'efforts bound the accelerations)')
    period = float(request.sample_period) or DEFAULT_SAMPLE_PERIOD
    if not (np.isfinite(period) and period >= 1e-6):
        raise ValueError(f'sample_period: expected >= 1e-6 s (0 = {DEFAULT_SAMPLE_PERIOD} s), '
                         f'got {request.sample_period!r}')
    grid = int(request.grid_points) or DEFAULT_GRID_POINTS
    if not 2 <= grid <= MAX_GRID_POINTS:
        raise ValueError(f'grid_points: expected 2 to {MAX_GRID_POINTS} (0 = '
                         f'{DEFAULT_GRID_POINTS}), got {grid}')
    return TimingArguments(names, index, waypoints, np.cumsum(keep) - 1, velocity, acceleration,
                           _factor(request.effort_scaling_factor, 'effort_scaling_factor'),
                           period, grid, notes)


def _in_fields(message: str) -> str:
    for keyword, field in FIELDS:
        message = message.replace(keyword, field)
    return message


def time_path(model, arguments: TimingArguments, friction: bool):
    """
    Return the core's TimeOptimalTrajectory for checked ``arguments``.

    A payload set on ``model`` while it runs (another thread: ``~/set_payload``)
    makes it run once more; ValueError (InfeasiblePathError included) and
    RuntimeError carry the core's message in the request's field names.
    """
    for _ in range(2):
        before = repr(model.payloads)
        try:
            trajectory = time_optimal_trajectory(
                model, arguments.waypoints, velocity_limit=arguments.velocity_limit,
                acceleration_limit=arguments.acceleration_limit,
                effort_scale=arguments.effort_scale, friction=friction,
                grid_points=arguments.grid_points)
        except ValueError as error:
            raise ValueError(_in_fields(str(error))) from None
        except RuntimeError as error:
            raise RuntimeError(_in_fields(str(error))) from None
        if repr(model.payloads) == before:
            return trajectory
    raise RuntimeError('the payloads changed twice while the path was being timed; call again')


def sample_times(duration: float, period: float) -> np.ndarray:
    """
    Return the answer's times as int64 nanoseconds: 0, period, ..., and the duration last.

    Strictly increasing (a sample within a nanosecond of the end is left out).
    Raises ValueError when there would be more than MAX_POINTS.
    """
    count = int(np.floor(duration / period + 1e-9)) + 1
    if count + 1 > MAX_POINTS:
        raise ValueError(f'sample_period: {period:g} s gives {count + 1} points over '
                         f'{duration:.6g} s; at most {MAX_POINTS}: raise sample_period')
    ns = np.rint(np.arange(count) * period * 1e9).astype(np.int64)
    end = int(np.rint(duration * 1e9))
    return np.append(ns[ns < end], end) if end > 0 else ns[:1]


def fill_response(response, model, arguments: TimingArguments, trajectory,
                  friction: bool, effort_feedforward: bool):
    """Fill a TimeOptimalTrajectory response from the core's answer (fields: the .srv)."""
    ns = sample_times(trajectory.duration, arguments.sample_period)
    times = np.minimum(ns * 1e-9, trajectory.duration)
    sample = trajectory.sample(times)
    columns = arguments.index
    q, qd, qdd, tau = (np.ascontiguousarray(v[:, columns]) for v in sample)
    qd[-1] = 0.0   # at rest at the end: the time law's last speed is 0 up to rounding
    message = JointTrajectory(joint_names=list(arguments.names))
    points = []
    for k in range(times.size):
        sec, nanosec = divmod(int(ns[k]), 1_000_000_000)
        point = JointTrajectoryPoint(positions=q[k].tolist(), velocities=qd[k].tolist(),
                                     accelerations=qdd[k].tolist(),
                                     time_from_start=Duration(sec=sec, nanosec=nanosec))
        if effort_feedforward:
            point.effort = tau[k].tolist()
        points.append(point)
    message.points = points
    response.trajectory = message
    response.duration = float(trajectory.duration)
    starts = np.array([segment.t_start for segment in trajectory.binding])
    which = np.clip(np.searchsorted(starts, times, side='right') - 1, 0, len(starts) - 1)
    response.binding = [trajectory.binding[int(k)].limit for k in which]
    response.waypoint_times = trajectory.waypoint_times[arguments.owner].tolist()
    response.efforts = matrix_message(tau)
    response.limit_ratios = [float(trajectory.limit_ratios[kind])
                             for kind in ('velocity', 'acceleration', 'effort')]
    response.friction_included = bool(friction)
    armature = bool(model.armature.any())
    response.armature_included = armature
    notes = '; '.join(arguments.notes)
    response.message = (
        f'timed in {trajectory.duration:.6g} s: {times.size} points every '
        f'{arguments.sample_period:g} s; friction {"included" if friction else "not included"}'
        f'; armature {"included" if armature else "zero"}; payloads on '
        f'{sorted(model.payloads) or "no link"}' + (f'; {notes}' if notes else ''))
    return response


def answer(model, request, response, friction: bool):
    """Request -> core -> response, without ROS (raises ValueError/RuntimeError on failure)."""
    arguments = request_arguments(model, request)
    trajectory = time_path(model, arguments, friction)
    return fill_response(response, model, arguments, trajectory, friction,
                         bool(request.effort_feedforward))


class TimeOptimalService:
    """``~/time_optimal_trajectory`` of a node, on its own node and thread (module docstring)."""

    def __init__(self, node: Node, models: ModelSource, friction: Callable[[], bool]) -> None:
        """Create the service; ``friction()`` says whether the node's friction setting is on."""
        self._node, self._models, self._friction = node, models, friction
        self._server = Node(f'{node.get_name()}_time_optimal', namespace=node.get_namespace(),
                            context=node.context, use_global_arguments=False,
                            start_parameter_services=False)
        self._server.create_service(TimeOptimalTrajectory,
                                    f'{node.get_fully_qualified_name()}/time_optimal_trajectory',
                                    self._on_request)
        self._executor = SingleThreadedExecutor(context=node.context)
        self._executor.add_node(self._server)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._spin, daemon=True, name='time_optimal')
        # the way out is known before the thread runs (as in payload_estimation.py)
        node.context.on_shutdown(self.close)
        atexit.register(self._close_at_exit)
        self._thread.start()

    def get_logger(self):
        """Return the owning node's logger (``guarded`` logs unexpected errors there)."""
        return self._node.get_logger()

    def close(self) -> None:
        """Stop the thread and destroy the service's node; closing twice does nothing."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._executor.shutdown(timeout_sec=0.0)
        self._join(timeout=5.0)
        self._server.destroy_node()
        if not self._thread.is_alive():
            atexit.unregister(self._close_at_exit)

    def _close_at_exit(self) -> None:
        """Close, and wait for the thread before the interpreter finalises (PayloadEstimation)."""
        self.close()
        self._join(timeout=None)

    def _join(self, timeout: Optional[float]) -> None:
        if self._thread is threading.current_thread():
            return
        try:
            self._thread.join(timeout)
        except RuntimeError:   # never started
            pass

    def _warm_up(self) -> bool:
        """Time a short path once the model is loaded (the solver's kernels); True when done."""
        model = self._models.model
        if model is None:
            return False
        try:
            rest = np.clip(np.zeros(model.dof), model.lower, model.upper)
            time_optimal_trajectory(model, np.array([rest, rest + 1e-3]), grid_points=20)
        except Exception:  # noqa: B902 - only a warm-up: the first request reports any problem
            pass
        return True

    def _spin(self) -> None:
        context = self._server.context
        warm = False
        while not self._stop.is_set() and context.ok():
            warm = warm or self._warm_up()
            try:
                self._executor.spin_once(timeout_sec=0.1)
            except Exception:  # noqa: B902 - shutting down (or a failed callback: keep serving)
                if self._stop.is_set() or not context.ok():
                    return
                self._node.get_logger().error(f'time_optimal_trajectory: '
                                              f'{traceback.format_exc()}',
                                              throttle_duration_sec=5.0)

    @guarded
    def _on_request(self, request, response):
        model = self._models.require()
        if model.nq != model.nv:
            raise ValueError('the model has a floating or planar base (root_joint): the '
                             'time-optimal timing serves fixed-base robots only')
        return answer(model, request, response, bool(self._friction()))
