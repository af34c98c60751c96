# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
``ros-dynamics identify BAG --urdf URDF --out identified.urdf``: a dynamic model from a recording.

Reads ``/joint_states`` (``sensor_msgs/JointState``: position, velocity,
effort) from a ROS 2 bag, MCAP or sqlite3, with the pure-Python ``rosbags``
(no ROS install needed), joints matched by name and resampled onto one time
base; or a CSV with ``time``, ``JOINT.position`` (or ``JOINT``),
``JOINT.velocity`` (optional, for all joints or none) and ``JOINT.effort``.
The last ``--holdout`` fraction of the recording is kept out of the fit.

The fit is ``ros_dynamics.identification.identify``: velocities (when not
recorded) and accelerations from zero-phase low-pass filtered positions
(Butterworth order 4, ``--cutoff``, default 5 Hz), torques and regressor
filtered alike, weighted least squares on the base parameters, then every
body's inertial parameters with a prior toward the URDF's, physically
consistent (Wensing, Kim and Slotine, RA-L 2018) unless ``--no-consistent``,
with viscous and Coulomb friction and an offset per joint unless
``--no-friction``.

Writes the URDF with the identified inertials and friction (``--out``) and
the friction (offset and smooth-sign scale included) and armature per joint
as YAML next to it (``NAME_actuators.yaml``): loaded together, they are the
identified model and reproduce the printed table. Prints per joint the RMS
residual on the fitted data and on the held-out data (both after the same
filtering), with the condition number of the base regressor. ``--report
DIR`` writes held_out.png (measured against predicted torques on the
held-out data) and report.txt.

It stands behind what it writes: a recording with every effort zero (no
torque information) or no joint moving (no excitation) is refused with its
cause; with ``--no-consistent``, an estimate that is not physical (a body
with a negative mass or an impossible inertia, a negative friction or
armature) is printed with an error naming the bodies and joints, nothing is
written, and the exit status is 1.
"""

import argparse
import math
import os
import sys
import warnings

import numpy as np
from ros_dynamics.cli.common import (add_actuators_argument, CLIError, load_model, note, number,
                                     plot_directory, read_text, require_matplotlib, suggestion,
                                     table, with_progress)
from ros_dynamics.cli.excite import positive_number
from ros_dynamics.exceptions import IdentificationError, NonPhysicalEstimateWarning

NAME = 'identify'
HELP = 'identify inertial parameters and friction from a bag or CSV of /joint_states'
FIELDS = ('position', 'velocity', 'effort')


def fraction(text: str) -> float:
    """Parse a fraction in [0, 1) (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'expected a fraction, got {text!r}') from None
    if not (math.isfinite(value) and 0.0 <= value < 1.0):
        raise argparse.ArgumentTypeError(f'expected a fraction in [0, 1), got {text!r}')
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments of ``identify``."""
    parser.add_argument('recording', metavar='BAG',
                        help='a ROS 2 bag (directory or .mcap / .db3) with sensor_msgs/'
                             'JointState, or a .csv (time, JOINT.position, JOINT.velocity, '
                             'JOINT.effort)')
    parser.add_argument('--urdf', required=True,
                        help='the robot description to start from (.urdf)')
    add_actuators_argument(parser)
    parser.add_argument('--topic', default='/joint_states',
                        help='the JointState topic in the bag (default /joint_states)')
    parser.add_argument('--joints', nargs='+', metavar='NAME',
                        help="the recording's names of the robot's joints, in the URDF's "
                             'joint order (default: the URDF names)')
    parser.add_argument('--holdout', type=fraction, default=0.2, metavar='FRACTION',
                        help='the last fraction of the recording kept out of the fit to '
                             'validate it (default 0.2; 0: none)')
    parser.add_argument('--no-consistent', dest='consistent', action='store_false',
                        help='skip the physical consistency constraints (plain least squares '
                             'with the prior; needs no cvxpy)')
    parser.add_argument('--no-friction', dest='friction', action='store_false',
                        help='do not identify joint friction')
    parser.add_argument('--armature', action='store_true',
                        help='also identify a reflected rotor inertia per joint')
    parser.add_argument('--friction-velocity', type=positive_number, default=1e-3,
                        metavar='RAD_S',
                        help='Coulomb smooth-sign scale tanh(qd / v) (rad/s, default 0.001, '
                             "the simulator's)")
    parser.add_argument('--cutoff', type=positive_number, metavar='HZ',
                        help='low-pass cut-off before differentiating (Hz; default 5, at most '
                             '0.4 x Nyquist)')
    parser.add_argument('-o', '--out', required=True, metavar='URDF',
                        help='write the identified URDF here (and NAME_actuators.yaml next '
                             'to it)')
    parser.add_argument('--report', metavar='DIR',
                        help='write held_out.png and report.txt into DIR (the plot needs '
                             "matplotlib: pip install 'ros_dynamics[plot]')")


def actuators_path(out: str) -> str:
    """Return the actuators YAML path next to the URDF ``out``: NAME_actuators.yaml."""
    return os.path.splitext(out)[0] + '_actuators.yaml'


def read_csv_recording(path: str, names: list) -> tuple:
    """Return (t, position, velocity or None, effort) of a CSV recording, columns by ``names``."""
    from ros_dynamics.cli.trajectory_files import csv_columns
    times, columns, _ = csv_columns(path, read_text(path, 'recording'))
    fields = {field: {} for field in FIELDS}
    for column, values in columns.items():
        name, field = column, 'position'
        if column not in names and '.' in column:
            prefix, suffix = column.rsplit('.', 1)
            if suffix in FIELDS:
                name, field = prefix, suffix
            elif suffix == 'acceleration':
                continue   # accelerations come from the filtered positions, as for a bag
        if name not in names:
            raise CLIError(f'{path}: column {column!r} is not a joint of the robot'
                           f'{suggestion(name, names)}; joints: {", ".join(names)}')
        fields[field][name] = values
    for field in ('position', 'effort'):
        missing = [name for name in names if name not in fields[field]]
        if missing:
            raise CLIError(f'{path}: no {field} column for joints '
                           f'{", ".join(map(repr, missing))}; identification needs '
                           f'JOINT.position and JOINT.effort of every joint')
    given = fields['velocity']
    if given and len(given) != len(names):
        absent = [name for name in names if name not in given]
        raise CLIError(f'{path}: velocity given for some joints but not for '
                       f'{", ".join(map(repr, absent))}; give it for every joint or none')
    order = np.argsort(times, kind='stable')
    arrays = [None if not fields[field] else
              np.column_stack([fields[field][name] for name in names])[order]
              for field in FIELDS]
    return (times[order] - times[order][0], *arrays)


def read_recording(args: argparse.Namespace, names: list) -> tuple:
    """Return (t, position, velocity or None, effort) of the bag or CSV, in ``names`` order."""
    path = args.recording
    if path.lower().endswith('.csv') and not os.path.isdir(path):
        return read_csv_recording(path, names)
    from ros_dynamics.identification.bags import read_joint_states
    try:
        from rosbags.highlevel import AnyReaderError
    except ImportError:
        raise CLIError('reading bags needs rosbags: pip install '
                       "'ros_dynamics[identification]' (or pip install rosbags)") from None
    try:
        recording = read_joint_states(path, names, topic=args.topic)
    except AnyReaderError as error:
        raise CLIError(f'{path}: not a readable ROS 2 bag ({error})') from None
    if recording.effort is None:
        raise CLIError(f'{path}: the {args.topic} messages carry no effort; identification '
                       'needs the measured joint torques')
    return recording.t, recording.position, recording.velocity, recording.effort


def rms(values: np.ndarray) -> np.ndarray:
    """Return the per-column root mean square of (N, dof) values."""
    return np.sqrt(np.mean(values ** 2, axis=0))


def report_text(model, result, t, train_rows: int, held) -> str:
    """Return the fit per joint, the fit's figures and the masses before and after as text."""
    rows = []
    for k, joint in enumerate(model.joint_names):
        row = [joint, number(result.residual_rms[k]), number(result.noise_std[k])]
        if held is not None:
            measured, predicted = held[1], held[2]
            error = rms(measured - predicted)[k]
            scale = rms(measured)[k]
            row += [number(error), number(scale),
                    f'{100.0 * error / scale:.1f}' if scale > 0 else '-']
        if result.friction is not None:
            row += [number(result.friction[k, 0]), number(result.friction[k, 1])]
        rows.append(row)
    header = ['joint', 'residual RMS', 'noise sigma']
    if held is not None:
        header += ['held-out RMS', 'held-out torque RMS', 'error %']
    if result.friction is not None:
        header += ['viscous', 'Coulomb']
    period = (t[-1] - t[0]) / max(1, t.shape[0] - 1)
    lines = [f'robot {model.name!r} ({model.dof} dof): fitted {train_rows} samples '
             f'({number(t[train_rows - 1] - t[0])} s at {number(1.0 / period)} Hz)'
             + (f', held out the last {held[0].shape[0]} after filtering'
                if held is not None else ', nothing held out'),
             'filter: ' + (f'{number(result.cutoff)} Hz low-pass (positions, torques, '
                           'regressor)' if result.cutoff is not None else 'none'),
             f'condition number of the base regressor ({result.base.count} base parameters): '
             f'{number(result.condition_number)}',
             'physically consistent: ' + ('yes (enforced)' if result.consistent
                                          else 'NO (not enforced, --no-consistent)'
                                          if result.non_physical
                                          else 'yes (not enforced, --no-consistent)'), '',
             'Fit per joint (torques N m or N; friction N m s/rad and N m; RMS after filtering)',
             table(header, rows, '  '), '',
             'Body masses (kg)',
             table(['body', 'URDF', 'identified'],
                   [[name, number(before), number(after)] for name, before, after in
                    zip(model.body_names, model.inertial_parameters()[:, 0],
                        result.parameters[:, 0])], '  ')]
    return '\n'.join(lines)


def write_text(path: str, text: str) -> None:
    """Write ``text`` to ``path`` (CLIError when it cannot be written)."""
    try:
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        with open(path, 'w', encoding='utf-8') as stream:
            stream.write(text)
    except OSError as error:
        raise CLIError(f'cannot write {path!r}: {error.strerror}') from None


def run(args: argparse.Namespace) -> int:
    """Identify the model from the recording and write it; return the exit status."""
    from ros_dynamics.identification.identify import held_out_torques, identify
    loaded, model = load_model(args.urdf, args.actuators)
    if model.dof == 0:
        raise CLIError(f'{args.urdf}: the robot has no moving joint; nothing to identify')
    names = list(model.joint_names)
    if args.joints is not None:
        if len(args.joints) != model.dof or len(set(args.joints)) != model.dof:
            raise CLIError(f"--joints: expected {model.dof} distinct names (the recording's "
                           f'names of {", ".join(names)}, in that order), got '
                           f'{len(args.joints)}')
        names = list(args.joints)
    if args.report:
        plot_directory(args.report)
    t, q, qd, tau = with_progress(f'reading {args.recording}',
                                  lambda: read_recording(args, names), args.progress,
                                  compiles=False)
    rows = t.shape[0]
    train = rows - int(round(args.holdout * rows))
    fit = slice(0, train)

    def solve():
        with warnings.catch_warnings():   # the non-physical case is reported below, with flags
            warnings.simplefilter('ignore', NonPhysicalEstimateWarning)
            return identify(model, q[fit], None if qd is None else qd[fit], None, tau[fit],
                            t=t[fit], friction=args.friction, armature=args.armature,
                            consistent=args.consistent, cutoff=args.cutoff,
                            friction_velocity=args.friction_velocity)
    try:
        result = with_progress(f'identifying from {train} samples', solve, args.progress)
    except IdentificationError as error:   # no information in the data, or the solver failed
        raise CLIError(error.command_line) from None
    except ImportError as error:
        raise CLIError(getattr(error, 'command_line', str(error))) from None
    except RuntimeError as error:   # any other failure of the solver
        raise CLIError(f'{error}') from None
    held = None
    if train < rows:
        rest = slice(train, rows)
        try:
            held = held_out_torques(result, q[rest], None if qd is None else qd[rest], None,
                                    tau[rest], t=t[rest])
        except ValueError as error:
            raise CLIError(f'the held-out part (the last {args.holdout:g} of the recording, '
                           f'{rows - train} samples): {error}; lower --holdout or record '
                           'longer') from None
    text = report_text(model, result, t, train, held)
    print(text)
    if result.non_physical:
        sys.stdout.flush()   # the table first, then the error on stderr
        raise CLIError(f'the fit without consistency constraints (--no-consistent) is not '
                       f'physical: {"; ".join(result.non_physical)}; nothing written (no URDF '
                       'or actuators file can hold it). Run without --no-consistent for a '
                       'physically consistent fit, or record a richer excitation')
    write_text(args.out, result.to_urdf(loaded.text))
    actuators = actuators_path(args.out)
    write_text(actuators, result.to_actuators_yaml())
    note(f'identified model written to {args.out}, friction and armature to {actuators}')
    if args.report:
        write_text(os.path.join(args.report, 'report.txt'),
                   f'ros-dynamics identify {args.recording} --urdf {args.urdf}\n'
                   f'identified URDF: {args.out}\nactuators: {actuators}\n\n{text}\n')
        written = ['report.txt']
        if held is not None:
            try:
                require_matplotlib()
            except CLIError as error:
                print(f'ros-dynamics: warning: no held_out.png: {error}', file=sys.stderr)
            else:
                from ros_dynamics.cli import plots
                plots.measured_and_predicted(
                    args.report, 'held_out.png', 'held-out data: measured (solid) and '
                    'predicted (dashed) torques, after filtering', held[0] - t[0], held[1],
                    held[2], model.joint_names)
                written.append('held_out.png')
        note(f'report written to {args.report}/ ({", ".join(written)})')
    return 0
