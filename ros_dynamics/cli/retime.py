# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
``ros-dynamics retime URDF PATH -o timed.csv``: the fastest timing of a path the motors can do.

The positions of PATH (CSV or JointTrajectory YAML, as ``torques`` reads;
its times and derivatives are ignored) are the waypoints of a not-a-knot
cubic spline over their joint-space chord length, timed by
``ros_dynamics.time_optimal_trajectory``: TOPP-RA (Pham and Pham, IEEE T-RO
34(3), 2018) under the URDF's velocity limits, the effort limits (URDF or
``--actuators`` YAML, times ``--effort-scale``), an optional acceleration
limit, on the model's full inverse dynamics (armature, ``--payload``, and
with ``--friction`` the joint friction). The motion is checked at >= 1 kHz
and >= 10 points per grid interval before it is written; a path no timing can
follow is refused with the joint, the limit and the position.

``-o`` writes time, JOINT.position, JOINT.velocity, JOINT.acceleration every
``--period`` seconds (a trajectory ``torques`` reads back); ``--plot DIR``
writes phase.png (path speed against path position with the limit curve)
and efforts.png (efforts against their limits).
"""

import argparse
import sys

import numpy as np
from ros_dynamics.cli.common import (add_actuators_argument, CLIError, load_model, note, number,
                                     plot_directory, require_matplotlib, table, with_progress,
                                     write_csv)
from ros_dynamics.cli.trajectory_files import FORMATS, read_trajectory

NAME = 'retime'
HELP = 'the time-optimal timing of a path under effort, velocity and acceleration limits'
# the keywords of time_optimal_trajectory as this command's flags, for its messages
FLAGS = {'effort_limit x effort_scale': '--effort-scale', 'effort_scale': '--effort-scale',
         'acceleration_limit': '--acceleration-limit', 'grid_points': '--grid-points',
         'velocity_limit': 'the URDF velocity limit', 'effort_limit': 'the effort limit',
         'more grid_points': 'more --grid-points', 'waypoints: ': 'PATH: '}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments of ``retime``."""
    parser.add_argument('urdf', metavar='URDF', help='the robot description (.urdf)')
    parser.add_argument('path', metavar='PATH',
                        help='the path: .csv or .yaml with positions (times are ignored)')
    parser.add_argument('--format', choices=FORMATS,
                        help='the path file format (default: from the extension)')
    parser.add_argument('-o', '--out', metavar='CSV',
                        help="write the timed trajectory as CSV ('-' for stdout, then the "
                             'report goes to stderr)')
    parser.add_argument('--period', type=float, default=0.001, metavar='S',
                        help='sample period of the written trajectory (default 0.001 s)')
    add_actuators_argument(parser)
    parser.add_argument('--payload', action='append', default=[], metavar='LINK:MASS[:X,Y,Z]',
                        help='a point-mass payload on LINK (kg, centre in the link frame, m); '
                             'repeatable')
    parser.add_argument('--friction', action='store_true',
                        help="include the joint friction (viscous, Coulomb; the URDF's "
                             '<dynamics> or the --actuators YAML)')
    parser.add_argument('--effort-scale', type=float, default=1.0, metavar='F',
                        help='use F times the effort limits (default 1)')
    parser.add_argument('--acceleration-limit', type=float, metavar='A',
                        help='a joint acceleration limit for every joint (rad/s^2; default none)')
    parser.add_argument('--grid-points', type=int, default=400, metavar='N',
                        help='grid points along the path (default 400)')
    parser.add_argument('--plot', metavar='DIR',
                        help='write phase.png and efforts.png into DIR (needs matplotlib)')
    parser.epilog = 'Path files: as for ros-dynamics torques (see its --help).'


def _payload(model, text: str) -> None:
    parts = text.split(':')
    try:
        if len(parts) not in (2, 3):
            raise ValueError
        link, mass = parts[0], float(parts[1])
        com = tuple(float(v) for v in parts[2].split(',')) if len(parts) == 3 else (0.0,) * 3
        if len(com) != 3:
            raise ValueError
    except ValueError:
        raise CLIError(f'--payload {text!r}: expected LINK:MASS or LINK:MASS:X,Y,Z') from None
    try:
        model.set_payload(link, mass, com=com)
    except ValueError as error:
        raise CLIError(f'--payload {text!r}: {error}') from None


def _as_flags(message: str) -> str:
    for keyword, flag in FLAGS.items():
        message = message.replace(keyword, flag)
    return message


def run(args: argparse.Namespace) -> int:
    """Time ``args.path`` and write and report it; return the exit status."""
    from ros_dynamics.time_optimal import time_optimal_trajectory
    _, model = load_model(args.urdf, args.actuators)
    if model.dof == 0:
        raise CLIError(f'{args.urdf}: the robot has no moving joint; nothing to time')
    if not (args.period > 0.0 and np.isfinite(args.period)):
        raise CLIError(f'--period: expected a positive number of seconds, got {args.period}')
    for text in args.payload:
        _payload(model, text)
    mimic = [n for n in model.all_joint_names if n not in model.joint_names]
    waypoints = read_trajectory(args.path, model.joint_names, mimic, args.format).q
    if args.plot:
        require_matplotlib()
        plot_directory(args.plot)
    try:
        trajectory = with_progress(
            'timing the path', lambda: time_optimal_trajectory(
                model, waypoints, effort_scale=args.effort_scale, friction=args.friction,
                acceleration_limit=args.acceleration_limit, grid_points=args.grid_points),
            args.progress)
    except ValueError as error:
        raise CLIError(f'{args.path}: {_as_flags(str(error))}') from None
    stream = sys.stderr if args.out == '-' else sys.stdout
    print(f'robot {model.name!r} ({model.dof} dof), path {args.path}: {waypoints.shape[0]} '
          f'waypoints, timed in {number(trajectory.duration)} s', file=stream)
    terms = ['rigid bodies'] + (['armature'] if np.any(model.armature > 0.0) else []) \
        + (['payload'] if model.payloads else []) + (['joint friction'] if args.friction else [])
    print(f'efforts: {", ".join(terms)}; checked at {trajectory.samples_checked} times; '
          f'largest |value| / limit: ' + ', '.join(
              f'{kind} {number(ratio)}' for kind, ratio in trajectory.limit_ratios.items()),
          file=stream)
    rows = [[number(b.t_start), number(b.t_end), number(b.s_start), number(b.s_end), b.limit]
            for b in trajectory.binding]
    print('\nBinding limits (s: path parameter, joint-space chord length)', file=stream)
    print(table(['from (s)', 'to (s)', 'from s', 'to s', 'limit'], rows, '  '), file=stream)
    count = int(np.floor(trajectory.duration / args.period + 1e-9)) + 1
    times = np.arange(count) * args.period
    if times[-1] < trajectory.duration:
        times = np.append(times, trajectory.duration)
    if args.out:
        sample = trajectory.sample(times)
        names = model.joint_names
        header = (['time'] + [f'{n}.position' for n in names] + [f'{n}.velocity' for n in names]
                  + [f'{n}.acceleration' for n in names])
        write_csv(args.out, header, [times] + list(sample.positions.T)
                  + list(sample.velocities.T) + list(sample.accelerations.T), args.progress)
        if args.out != '-':
            note(f'timed trajectory written to {args.out}')
    if args.plot:
        _plots(args.plot, model, trajectory, times)
        note(f'plots written to {args.plot}/ (phase.png, efforts.png)')
    return 0


def _plots(directory: str, model, trajectory, times: np.ndarray) -> None:
    import os

    import matplotlib.pyplot as plt
    from ros_dynamics.cli import plots
    figure, ax = plt.subplots(figsize=(9, 4), layout='constrained')
    ax.plot(trajectory.grid, trajectory.path_velocity, label='timed: path speed')
    ax.plot(trajectory.grid, trajectory.speed_limit, '--', label='limit curve: the fastest '
            'speed from which the rest of the path can be followed')
    ax.set_xlabel('path parameter s (joint-space chord length)')
    ax.set_ylabel('path speed ds/dt (1/s)')
    ax.set_title('phase plane')
    ax.grid(True, alpha=0.3)
    ax.set_ylim(0.0, 1.2 * float(np.max(trajectory.path_velocity)) + 1e-9)
    ax.legend(loc='best', fontsize='small')
    figure.savefig(os.path.join(directory, 'phase.png'), dpi=110, bbox_inches='tight')
    plt.close(figure)
    efforts = trajectory.sample(times).efforts
    limit = trajectory.effort_limit
    plots.joint_lines(directory, 'efforts.png', 'efforts of the timed path (dashed: the limits '
                      'used)', 'effort (N m or N)', times, efforts, model.joint_names, -limit,
                      limit)
