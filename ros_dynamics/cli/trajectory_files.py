# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Joint trajectories from files: CSV tables and ``trajectory_msgs/JointTrajectory`` YAML.

CSV: a header row, then one row per point, comma-separated; blank lines and
lines starting with ``#`` are skipped. Columns, in any order:

* ``time``: seconds, finite and strictly increasing (any start);
* ``JOINT`` or ``JOINT.position``: rad (m for prismatic joints), one column
  for every independent joint of the URDF (mimic followers are not columns);
* ``JOINT.velocity`` (rad/s or m/s) and ``JOINT.acceleration`` (rad/s^2 or
  m/s^2): optional, but for all joints or none.

YAML: one ``trajectory_msgs/JointTrajectory`` as ``ros2 topic echo --once``
prints it (``joint_names``, ``points`` with ``positions``, ``velocities``,
``accelerations``, ``time_from_start: {sec, nanosec}``), or a mapping
holding it under ``trajectory`` (a ``FollowJointTrajectory`` goal); the
trailing ``---`` is allowed, ``header`` and ``effort`` are ignored. Empty velocity or
acceleration lists mean "not given", for all points or none.

Missing derivatives come from a not-a-knot cubic spline in time (de Boor, "A
Practical Guide to Splines", ch. IV; scipy's ``CubicSpline``): velocities and
accelerations as the first and second derivatives of the spline through the
positions, or, when velocities are given, accelerations as the derivative of
the spline through the velocities. This is exact for positions cubic in time
(quartic when velocities are given).
"""

from dataclasses import dataclass
import math
import os
from typing import Callable, Optional, Sequence

import numpy as np
from ros_dynamics.cli.common import CLIError, read_text, suggestion
from scipy.interpolate import CubicSpline
import yaml

FIELDS = ('position', 'velocity', 'acceleration')
FORMATS = ('csv', 'yaml')
PLURAL = {'position': 'positions', 'velocity': 'velocities', 'acceleration': 'accelerations'}


@dataclass
class Trajectory:
    """Sampled joint trajectory in model order: times (N,) s; q, qd, qdd (N, dof)."""

    times: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    derived: tuple   # the fields computed from the spline, e.g. ('velocity', 'acceleration')


def trajectory_format(path: str, requested: Optional[str] = None) -> str:
    """Return 'csv' or 'yaml' from ``requested`` or the file extension."""
    if requested:
        return requested
    extension = os.path.splitext(path)[1].lstrip('.').lower()
    if extension == 'csv':
        return 'csv'
    if extension in ('yaml', 'yml'):
        return 'yaml'
    raise CLIError(f'trajectory {path!r}: cannot tell the format from the extension '
                   f'{extension!r}; name it .csv or .yaml, or pass --format csv|yaml')


def read_trajectory(path: str, joint_names: Sequence[str], mimic_names: Sequence[str] = (),
                    file_format: Optional[str] = None) -> Trajectory:
    """
    Read a trajectory file for a robot whose coordinates are ``joint_names``.

    ``mimic_names``: the robot's mimic followers, named in the error when a
    file gives one of them. Raises CLIError naming the file, line or point and
    column of any problem.
    """
    file_format = trajectory_format(path, file_format)
    text = read_text(path, 'trajectory file')
    if file_format == 'csv':
        times, columns, where = csv_columns(path, text)
    else:
        times, columns, where = _yaml_columns(path, text)
    return _assemble(path, times, columns, where, tuple(joint_names), tuple(mimic_names))


# ---------------------------------------------------------------------- CSV
def csv_columns(path: str, text: str) -> tuple:
    """
    Return (times, {column name: values}, where) of a CSV trajectory, lines checked.

    ``where(k)`` names the line of point k for messages.
    """
    lines = [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1)]
    lines = [(number, line) for number, line in lines if line and not line.startswith('#')]
    if not lines:
        raise CLIError(f'{path}: empty; expected a header row (time,JOINT,...) and data rows')
    header_line, header_text = lines[0]
    header = [name.strip().strip('"').strip() for name in header_text.split(',')]
    for k, name in enumerate(header):
        if not name:
            raise CLIError(f'{path}:{header_line}: column {k + 1} of the header has no name')
        if header.count(name) > 1:
            raise CLIError(f'{path}:{header_line}: column {name!r} appears twice in the header')
    if 'time' not in header:
        separator = ' (columns are separated by commas, not semicolons or tabs)' \
            if len(header) == 1 and (';' in header_text or '\t' in header_text) else ''
        raise CLIError(f"{path}:{header_line}: no 'time' column in the header "
                       f'{header_text!r}{separator}; the first row must name the columns: '
                       'time,JOINT,... (see ros-dynamics torques --help)')
    rows = lines[1:]
    if not rows:
        raise CLIError(f'{path}: no data rows after the header')
    try:
        data = np.loadtxt([line for _, line in rows], delimiter=',', ndmin=2, dtype=float)
    except ValueError:
        data = None
    if data is None or data.shape[1] != len(header) or not np.all(np.isfinite(data)):
        _raise_bad_cell(path, header, rows)
    times = data[:, header.index('time')]
    columns = {name: data[:, k] for k, name in enumerate(header) if name != 'time'}
    return times, columns, lambda k: f'line {rows[k][0]}'


def _raise_bad_cell(path: str, header: list, rows: list) -> None:
    """Find the first row or cell np.loadtxt refused and raise CLIError pointing at it."""
    for number, line in rows:
        cells = [cell.strip() for cell in line.split(',')]
        if len(cells) != len(header):
            raise CLIError(f'{path}:{number}: {len(cells)} values for {len(header)} columns')
        for name, cell in zip(header, cells):
            try:
                value = float(cell)
            except ValueError:
                raise CLIError(f'{path}:{number}: column {name!r}: {cell!r} is not a '
                               'number') from None
            if not math.isfinite(value):
                raise CLIError(f'{path}:{number}: column {name!r}: {cell!r} (values must be '
                               'finite)')
    raise CLIError(f'{path}: cannot read the data rows as numbers')   # pragma: no cover


# ---------------------------------------------------------------------- YAML
def _yaml_columns(path: str, text: str) -> tuple:
    """Return (times, {column name: values}, where) of a JointTrajectory YAML message."""
    try:
        documents = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as error:
        mark = getattr(error, 'problem_mark', None)
        where = f':{mark.line + 1}' if mark is not None else ''
        problem = getattr(error, 'problem', None) or 'invalid YAML'
        raise CLIError(f'{path}{where}: not valid YAML: {problem}') from None
    if len(documents) != 1:
        raise CLIError(f'{path}: holds {len(documents)} YAML documents; expected one '
                       'JointTrajectory message (ros2 topic echo --once TOPIC > file.yaml)')
    message = documents[0]
    if isinstance(message, dict) and isinstance(message.get('trajectory'), dict):
        message = message['trajectory']   # a FollowJointTrajectory goal holding one
    if not isinstance(message, dict) or 'joint_names' not in message \
            or 'points' not in message:
        raise CLIError(f'{path}: not a trajectory_msgs/JointTrajectory message (expected the '
                       'keys joint_names and points)')
    names = message['joint_names']
    points = message['points']
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise CLIError(f'{path}: joint_names: expected a list of joint names')
    for name in names:
        if names.count(name) > 1:
            raise CLIError(f'{path}: joint_names: joint {name!r} appears twice')
    if not isinstance(points, list) or not points:
        raise CLIError(f'{path}: points: expected a non-empty list of JointTrajectoryPoint')
    times = np.empty(len(points))
    values = {field: [] for field in FIELDS}
    for k, point in enumerate(points):
        if not isinstance(point, dict):
            raise CLIError(f'{path}: points[{k}]: expected a JointTrajectoryPoint mapping')
        times[k] = _duration(path, point.get('time_from_start'), k)
        for field in FIELDS:
            key = PLURAL[field]
            values[field].append(_numbers(path, point.get(key, []), f'points[{k}].{key}',
                                          len(names), required=field == 'position'))
    columns = {}
    for field in FIELDS:
        given = [v is not None for v in values[field]]
        if not any(given):
            continue
        if not all(given):
            k = given.index(False)
            raise CLIError(f'{path}: points[{k}] has no {field} values while other points '
                           f'have them; give {field}s for every point or for none')
        array = np.array(values[field])
        for j, name in enumerate(names):
            columns[name if field == 'position' else f'{name}.{field}'] = array[:, j]
    return times, columns, lambda k: f'points[{k}]'


def _duration(path: str, value, k: int) -> float:
    """Return a builtin_interfaces/Duration {sec, nanosec} in s."""
    where = f'{path}: points[{k}].time_from_start'
    if not isinstance(value, dict) or not {'sec', 'nanosec'} <= set(value):
        raise CLIError(f'{where}: expected {{sec: S, nanosec: N}}')
    sec, nanosec = value['sec'], value['nanosec']
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (sec, nanosec)):
        raise CLIError(f'{where}: sec and nanosec must be integers, got {sec!r}, {nanosec!r}')
    return sec + nanosec * 1e-9


def _numbers(path: str, values, what: str, count: int, required: bool) -> Optional[list]:
    """Return a list of ``count`` finite floats, or None for an empty optional list."""
    if values is None or values == []:
        if required:
            raise CLIError(f'{path}: {what}: empty; every point needs positions')
        return None
    if not isinstance(values, list) or len(values) != count:
        size = len(values) if isinstance(values, list) else 'not a list'
        raise CLIError(f'{path}: {what}: expected {count} values (one per joint name), '
                       f'got {size}')
    out = []
    for j, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            raise CLIError(f'{path}: {what}[{j}]: {value!r} is not a finite number')
        out.append(float(value))
    return out


# ---------------------------------------------------------------------- model order
def _assemble(path: str, times: np.ndarray, columns: dict, where: Callable,
              joint_names: tuple, mimic_names: tuple) -> Trajectory:
    """Check the columns against the model, order them, derive what is missing."""
    fields = {field: {} for field in FIELDS}
    for column, values in columns.items():
        name, field = column, 'position'
        if column not in joint_names and '.' in column:
            prefix, suffix = column.rsplit('.', 1)
            if suffix in FIELDS:
                name, field = prefix, suffix
        if name not in joint_names:
            if name in mimic_names:
                raise CLIError(f'{path}: column {column!r}: joint {name!r} is a mimic follower '
                               '(it moves with its leader); drop the column')
            raise CLIError(f'{path}: column {column!r} is not a joint of the robot'
                           f'{suggestion(name, joint_names)}; joints: {", ".join(joint_names)}')
        if name in fields[field]:
            raise CLIError(f'{path}: joint {name!r} has two {field} columns')
        fields[field][name] = values
    missing = [name for name in joint_names if name not in fields['position']]
    if missing:
        raise CLIError(f'{path}: missing position columns for joints '
                       f'{", ".join(map(repr, missing))}; the trajectory must give every '
                       f'joint of the robot: {", ".join(joint_names)}')
    for field in FIELDS[1:]:
        given = fields[field]
        if given and len(given) != len(joint_names):
            absent = [name for name in joint_names if name not in given]
            raise CLIError(f'{path}: {field} given for some joints but not for '
                           f'{", ".join(map(repr, absent))}; give it for every joint or none')
    _check_times(path, times, where)
    q, qd, qdd = (np.column_stack([fields[field][name] for name in joint_names])
                  if fields[field] and joint_names else None for field in FIELDS)
    dof = len(joint_names)
    if dof == 0:
        zero = np.zeros((times.shape[0], 0))
        return Trajectory(times, zero, zero, zero, ())
    derived = tuple(field for field, array in zip(FIELDS[1:], (qd, qdd)) if array is None)
    if derived and times.shape[0] < 2:
        raise CLIError(f'{path}: one point and no {" or ".join(derived)}: give them, or at '
                       'least two points to differentiate the positions')
    if qd is None:
        spline = CubicSpline(times, q, axis=0)
        qd = spline(times, 1)
        if qdd is None:
            qdd = spline(times, 2)
    elif qdd is None:
        qdd = CubicSpline(times, qd, axis=0)(times, 1)
    return Trajectory(times, q, qd, qdd, derived)


def _check_times(path: str, times: np.ndarray, where: Callable) -> None:
    """Raise CLIError unless times increase strictly (they were checked finite)."""
    steps = np.diff(times)
    if np.any(steps <= 0.0):
        k = int(np.argmax(steps <= 0.0)) + 1
        raise CLIError(f'{path}: {where(k)}: time {times[k]:.9g} s does not come after '
                       f'{times[k - 1]:.9g} s ({where(k - 1)}); time must increase strictly')
