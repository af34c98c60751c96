# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
``ros-dynamics torques URDF TRAJECTORY``: joint efforts along a trajectory, and actuator sizing.

The efforts are inverse dynamics, tau = M(q) qdd + C(q, qd) qd + g(q) (RNEA,
Featherstone "Rigid Body Dynamics Algorithms" table 5.1), at every point of
the trajectory in one batched call; the report per joint (peak and RMS
effort, peak speed, peak mechanical power |tau qd|, and every point beyond
the URDF effort or velocity limit) is ``ros_dynamics.control.actuator_report``.
``--actuators YAML`` loads actuator parameters into the model (gear ratios,
rotor inertia or armature, friction; ``ros_dynamics.actuators``): the
armature's torque I_a qdd is then part of the efforts. Without ``--friction``
the efforts exclude joint friction and damping: they are what the links and
rotors need, before transmission losses; with it they add the model's joint
friction tau_f(qd) (the URDF's ``<dynamics>`` or the YAML's friction, e.g.
Gaz et al., RA-L 2019), which is what the motors must deliver.

``--scheduler`` computes the efforts on Dask (``ros_dynamics.rollouts.scale_out``):
the trajectory's points split into chunks of ``--chunk`` points, each an
inverse-dynamics batch on a worker, gathered in order; the output is the
same as without it.
"""

import argparse
import functools
import sys

import numpy as np
from ros_dynamics.cli import trajectory_files
from ros_dynamics.cli.common import (add_actuators_argument, add_scheduler_arguments, CLIError,
                                     load_model, note, number, plot_directory, progress,
                                     require_dask, require_matplotlib, table, with_progress,
                                     write_csv)
from ros_dynamics.cli.trajectory_files import FORMATS, PLURAL, read_trajectory
from ros_dynamics.control.actuator_report import trajectory_efforts

NAME = 'torques'
HELP = 'joint efforts and the actuator report along a trajectory (CSV or JointTrajectory YAML)'
# exit status of --strict when a limit is exceeded (1 and 2 are errors and usage errors)
LIMITS_EXCEEDED = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments of ``torques``."""
    parser.add_argument('urdf', metavar='URDF', help='the robot description (.urdf)')
    parser.add_argument('trajectory', metavar='TRAJECTORY',
                        help='the trajectory: .csv or .yaml (format below)')
    parser.add_argument('--format', choices=FORMATS,
                        help='the trajectory format (default: from the extension)')
    parser.add_argument('-o', '--out', metavar='CSV',
                        help="write the efforts as CSV: time,JOINT.effort,... ('-' for stdout, "
                             'then the report goes to stderr)')
    parser.add_argument('--plot', metavar='DIR',
                        help='write torques.png, power.png and limits.png into DIR '
                             "(needs matplotlib: pip install 'ros_dynamics[plot]')")
    parser.add_argument('--strict', action='store_true',
                        help=f'exit with status {LIMITS_EXCEEDED} when an effort or velocity '
                             'limit is exceeded')
    add_actuators_argument(parser)
    parser.add_argument('--friction', action='store_true',
                        help="add the joint friction at the trajectory's velocities (the URDF's "
                             "<dynamics> or the --actuators YAML's friction)")
    add_scheduler_arguments(parser, 'trajectory points', 20000)
    parser.epilog = 'Trajectory files:\n' + _indented(trajectory_files.__doc__.replace('``', ''))
    parser.formatter_class = argparse.RawDescriptionHelpFormatter


def _indented(text: str) -> str:
    lines = text.strip('\n').splitlines()[2:]   # the format description, without the title
    return '\n'.join('  ' + line if line.strip() else '' for line in lines)


def _use(peak: float, limit: float) -> str:
    """Return peak / limit in % for a finite positive limit, else '-'."""
    return f'{100.0 * peak / limit:.1f}' if np.isfinite(limit) and limit > 0.0 else '-'


def report_text(reports: list, violations: list) -> str:
    """Return the actuator report and the limit violations as aligned tables."""
    rows = [[r.joint, number(r.peak_effort), number(r.effort_limit),
             _use(r.peak_effort, r.effort_limit), number(r.rms_effort),
             number(r.peak_velocity), number(r.velocity_limit),
             _use(r.peak_velocity, r.velocity_limit), number(r.peak_power)]
            for r in reports]
    lines = ['Actuator report (efforts N m or N, speeds rad/s or m/s, power W)',
             table(['joint', 'peak |effort|', 'limit', 'use %', 'RMS effort', 'peak |speed|',
                    'limit', 'use %', 'peak power'], rows, '  '), '']
    if not violations:
        lines.append('Limits: every point within the URDF effort and velocity limits')
        return '\n'.join(lines)
    groups = {}
    for v in violations:
        groups.setdefault((v.joint, v.kind), []).append(v)
    rows = []
    for (joint, kind), items in groups.items():
        worst = max(items, key=lambda v: abs(v.value))
        rows.append([joint, kind, len(items), number(items[0].time), number(worst.value),
                     number(worst.limit)])
    lines.append(f'Limits exceeded at {len(violations)} point-joint pairs')
    lines.append(table(['joint', 'limit', 'points', 'first at (s)', 'worst', 'limit value'],
                       rows, '  '))
    return '\n'.join(lines)


def run(args: argparse.Namespace) -> int:
    """Compute and report the efforts of ``args.trajectory``; return the exit status."""
    _, model = load_model(args.urdf, args.actuators)
    if model.dof == 0:
        raise CLIError(f'{args.urdf}: the robot has no moving joint; no efforts to compute')
    mimic = [n for n in model.all_joint_names if n not in model.joint_names]
    trajectory = with_progress(
        f'reading {args.trajectory}',
        lambda: read_trajectory(args.trajectory, model.joint_names, mimic, args.format),
        args.progress, compiles=False)
    if args.plot:
        require_matplotlib()
        plot_directory(args.plot)
    inverse_dynamics = None   # in this process: robot.inverse_dynamics
    if args.scheduler is not None:
        require_dask()
        from ros_dynamics.rollouts.scale_out import trajectory_torques
        inverse_dynamics = functools.partial(
            trajectory_torques, model, scheduler=args.scheduler, chunk=args.chunk,
            timeout=args.scheduler_timeout)
    t, q, qd, qdd = trajectory.times, trajectory.q, trajectory.qd, trajectory.qdd
    efforts, reports, violations = with_progress(
        'computing efforts',
        lambda: trajectory_efforts(model, t, q, qd, qdd, friction=args.friction,
                                   inverse_dynamics=inverse_dynamics),
        args.progress)
    stream = sys.stderr if args.out == '-' else sys.stdout
    print(f'robot {model.name!r} ({model.dof} dof), trajectory {args.trajectory}: '
          f'{t.shape[0]} points, {number(t[0])} to {number(t[-1])} s', file=stream)
    terms = ['rigid bodies'] + (['armature'] if np.any(model.armature > 0.0) else []) \
        + (['joint friction'] if args.friction else [])
    print(f'efforts: {", ".join(terms)}', file=stream)
    if trajectory.derived:
        derived = ' and '.join(PLURAL[field] for field in trajectory.derived)
        print(f'{derived}: from a cubic spline '
              'through the ' + ('velocities' if trajectory.derived == ('acceleration',)
                                else 'positions'), file=stream)
    print(file=stream)
    print(report_text(reports, violations), file=stream)
    if args.out:
        write_csv(args.out, ['time'] + [f'{n}.effort' for n in model.joint_names],
                  [t] + list(efforts.T), args.progress)
        if args.out != '-':
            note(f'efforts written to {args.out}')
    if args.plot:
        from ros_dynamics.cli import plots
        names = model.joint_names
        figures = [
            lambda: plots.joint_lines(args.plot, 'torques.png', 'joint efforts (dashed: URDF '
                                      'limits)', 'effort (N m or N)', t, efforts, names,
                                      -model.effort_limit, model.effort_limit),
            lambda: plots.joint_lines(args.plot, 'power.png', 'mechanical power tau * qd',
                                      'power (W)', t, efforts * qd, names),
            lambda: plots.limit_use(args.plot, t, efforts, qd, names, model.effort_limit,
                                    model.velocity_limit)]
        with progress(len(figures), 'plotting', 'figure', args.progress) as bar:
            for figure in figures:
                figure()
                bar.update()
        note(f'plots written to {args.plot}/ (torques.png, power.png, limits.png)')
    return LIMITS_EXCEEDED if args.strict and violations else 0
