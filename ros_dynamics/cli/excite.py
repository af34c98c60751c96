# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
``ros-dynamics excite --urdf URDF --duration T --out CSV``: a motion for identification.

Runs ``ros_dynamics.identification.excitation_trajectory``: a finite Fourier
series per joint (Swevers et al., IEEE Trans. Robotics and Automation 13(5),
1997, eq. 3) whose coefficients minimise the condition number of the base
regressor along the motion, within the URDF position and velocity limits and
an acceleration limit (all shrunk by a 10 % margin), starting and ending at
rest. Run it on the arm, record /joint_states, then ``ros-dynamics identify``.

The CSV (``--out``) is the trajectory format ``torques`` reads: ``time``,
``JOINT.position``, ``JOINT.velocity``, ``JOINT.acceleration`` at ``--rate``
Hz (the series' exact derivatives). ``--yaml`` writes the same points as one
``trajectory_msgs/JointTrajectory`` (as ``ros2 topic echo`` prints it);
``--plot DIR`` writes excitation.png: positions, velocities and
accelerations with their limits (dashed).
"""

import argparse
import math
import sys

import numpy as np
from ros_dynamics.cli.common import (CLIError, load_robot, note, number, plot_directory,
                                     require_matplotlib, table, with_progress, write_csv)
from ros_dynamics.cli.simulate import positive_seconds

NAME = 'excite'
HELP = 'an excitation trajectory for identification (CSV, JointTrajectory YAML, plot)'


def positive_number(text: str) -> float:
    """Parse a positive, finite number (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'expected a number, got {text!r}') from None
    if not (math.isfinite(value) and value > 0.0):
        raise argparse.ArgumentTypeError(f'expected a positive number, got {text!r}')
    return value


def count(minimum: int):
    """Return an argparse type parsing an integer >= ``minimum``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f'expected an integer, got {text!r}') from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f'expected an integer >= {minimum}, got {value}')
        return value
    return parse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments of ``excite``."""
    parser.add_argument('--urdf', required=True, help='the robot description (.urdf)')
    parser.add_argument('--duration', type=positive_seconds, required=True, metavar='T',
                        help='length of the motion (s); a whole number of periods')
    parser.add_argument('--harmonics', type=count(2), default=5, metavar='L',
                        help='harmonics of the base frequency per joint (default 5)')
    parser.add_argument('--base-frequency', type=positive_number, metavar='HZ',
                        help='base frequency (Hz; default 1 / duration: one period), rounded '
                             'so that the duration holds a whole number of periods')
    parser.add_argument('--acceleration-limit', type=positive_number, metavar='RAD_S2',
                        help='acceleration limit of every joint (rad/s^2 or m/s^2; URDF has '
                             'none; default 5)')
    parser.add_argument('--iterations', type=count(0), default=30, metavar='N',
                        help='optimiser (SLSQP) iterations (default 30; 0 keeps the random '
                             'start, within the limits)')
    parser.add_argument('--seed', type=int, default=0,
                        help='seed of the random start (default 0)')
    parser.add_argument('--rate', type=positive_number, default=100.0, metavar='HZ',
                        help='sample rate of the CSV and YAML points (Hz, default 100)')
    parser.add_argument('-o', '--out', required=True, metavar='CSV',
                        help="write the trajectory as CSV ('-' for stdout, then the summary "
                             'goes to stderr)')
    parser.add_argument('--yaml', metavar='FILE',
                        help='also write it as a trajectory_msgs/JointTrajectory YAML')
    parser.add_argument('--plot', metavar='DIR',
                        help='write excitation.png into DIR (needs matplotlib: '
                             "pip install 'ros_dynamics[plot]')")


def summary_text(model, trajectory, q, qd, qdd, acceleration_limit: float) -> str:
    """Return the condition number and per-joint ranges against the limits as text."""
    rows = []
    for k, joint in enumerate(model.joint_names):
        rows.append([joint, number(q[:, k].min()), number(q[:, k].max()),
                     number(model.lower[k]), number(model.upper[k]),
                     number(np.abs(qd[:, k]).max()), number(model.velocity_limit[k]),
                     number(np.abs(qdd[:, k]).max()), number(acceleration_limit)])
    return '\n'.join([
        f'robot {model.name!r} ({model.dof} dof): {trajectory.a.shape[1]} harmonics of '
        f'{number(trajectory.base_frequency)} Hz over {number(trajectory.duration)} s',
        f'condition number of the base regressor (columns scaled to unit norm): '
        f'{number(trajectory.condition_number)}', '',
        'Motion against the limits (rad, rad/s, rad/s^2; m for prismatic joints)',
        table(['joint', 'min q', 'max q', 'lower', 'upper', 'peak |qd|', 'limit',
               'peak |qdd|', 'limit'], rows, '  ')])


def run(args: argparse.Namespace) -> int:
    """Optimise the excitation and write it; return the exit status."""
    from ros_dynamics.identification.excitation import (DEFAULT_ACCELERATION_LIMIT,
                                                        excitation_trajectory)
    loaded = load_robot(args.urdf)
    model = loaded.model
    if model.dof == 0:
        raise CLIError(f'{args.urdf}: the robot has no moving joint; nothing to excite')
    if args.plot:
        require_matplotlib()
        plot_directory(args.plot)
    acceleration = args.acceleration_limit or DEFAULT_ACCELERATION_LIMIT
    trajectory = with_progress(
        f'optimising the excitation ({args.iterations} iterations)',
        lambda: excitation_trajectory(model, args.duration, harmonics=args.harmonics,
                                      base_frequency=args.base_frequency,
                                      acceleration_limit=acceleration, seed=args.seed,
                                      maxiter=args.iterations), args.progress)
    t = trajectory.times(args.rate)
    q, qd, qdd = trajectory.sample(t)
    stream = sys.stderr if args.out == '-' else sys.stdout
    print(summary_text(model, trajectory, q, qd, qdd, acceleration), file=stream)
    names = model.joint_names
    write_csv(args.out, ['time'] + [f'{n}.{field}' for field in
                                    ('position', 'velocity', 'acceleration') for n in names],
              [t] + list(q.T) + list(qd.T) + list(qdd.T), args.progress)
    if args.out != '-':
        note(f'trajectory written to {args.out} ({t.shape[0]} points at '
             f'{number(args.rate)} Hz)')
    if args.yaml:
        try:
            trajectory.to_yaml(args.yaml, args.rate)
        except OSError as error:
            raise CLIError(f'cannot write {args.yaml!r}: {error.strerror}') from None
        note(f'JointTrajectory written to {args.yaml}')
    if args.plot:
        from ros_dynamics.cli import plots
        limits = (np.column_stack([model.lower, model.upper]), model.velocity_limit,
                  np.full(model.dof, acceleration))
        path = plots.joint_panels(
            args.plot, 'excitation.png', 'excitation trajectory (dashed: limits)', t,
            (q, qd, qdd), ('position (rad)', 'velocity (rad/s)', 'acceleration (rad/s^2)'),
            names, limits)
        note(f'plot written to {path}')
    return 0
