# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
``ros-dynamics simulate URDF --seconds T``: forward dynamics of the robot from a start pose.

Runs ``ros_dynamics.simulation.simulator.Simulator`` (ABA, Featherstone "Rigid Body
Dynamics Algorithms" table 7.1, integrated at a fixed step by RK4 or
semi-implicit Euler) with the URDF's damping, Coulomb friction (or those of
``--actuators``), effort saturation and position-limit stops, under one of
these efforts:

* ``--effort zero``: no actuation, the robot moves under gravity alone (it
  falls);
* ``--effort gravity``: g(q) at every step (gravity compensation), which
  holds the robot where it starts unless an effort limit saturates;
* ``--follow TRAJECTORY``: the robot tracks a joint trajectory, a CSV or
  ``trajectory_msgs/JointTrajectory`` YAML as ``torques`` reads it (what
  ``excite`` writes), from its first point (unless ``--q0``), for its
  duration (unless ``--seconds``; after its end the last point is held).
  The reference (q_r, qd_r, qdd_r) is interpolated linearly between the
  file's points; the controller runs every step on the simulated state:

  - ``--controller computed-torque`` (default): tau = ID(q, qd, qdd_r +
    Kp (q_r - q) + Kd (qd_r - qd)) + friction(qd), the model's own inverse
    dynamics and friction (Craig, "Introduction to Robotics", 3rd ed.,
    ch. 10, model-based partitioned control), so every joint's error obeys
    e'' + Kd e' + Kp e = 0; ``--gains KP,KD`` in 1/s^2 and 1/s, default
    400,40 (a natural frequency of 20 rad/s, critically damped);
  - ``--controller pd``: tau = g(q) + Kp (q_r - q) + Kd (qd_r - qd), PD with
    gravity compensation (Takegaki and Arimoto, ASME J. Dyn. Sys. Meas.
    Control 103(2), 1981); ``--gains KP,KD`` in N m/rad and N m s/rad (N/m,
    N s/m for prismatic joints), the same for every joint; default: the
    computed-torque gains scaled per joint by its diagonal of M(q) at the
    start (Kp_j = 400 M_jj, Kd_j = 40 M_jj).

  Then ``excite -> simulate --follow -> identify`` makes identification
  data from the command line (docs/identification.md).

The states (every step) go to ``--out`` as CSV: ``time``,
``JOINT.position``, ``JOINT.velocity``, ``JOINT.effort`` (the effort
applied after saturation), in the units of the joint (rad or m): the
recording format ``identify`` reads.

``--root-joint floating`` (or ``planar``) puts a free-flyer (planar) joint
between the world and the URDF's root link, as a legged robot or a mobile
base needs (docs/simulator_floating_base.md): the base flies free (no
contacts yet), ``--q0`` sets the actuated joints (the base starts at the
origin, unrotated), the table lists the actuated joints and a line the
base, and the CSV's base columns are ``root_joint.x.position`` ... (x, y,
z, qx, qy, qz, qw; planar x, y, cos, sin) and ``root_joint.vx.velocity``
... (vx, vy, vz, wx, wy, wz in the base frame; planar vx, vy, wz), the
base's effort columns a wrench on it in its frame. ``--follow`` takes
fixed-base robots only.
"""

import argparse
import math
import sys
import time

import numpy as np
from ros_dynamics.cli.common import (add_actuators_argument, CLIError, load_model, note, number,
                                     plot_directory, progress, require_matplotlib, suggestion,
                                     table, warn, with_progress, write_csv)
from ros_dynamics.cli.trajectory_files import FORMATS, read_trajectory
from ros_dynamics.simulation.simulator import INTEGRATORS, SimulationDiverged, Simulator

NAME = 'simulate'
HELP = ('simulate the robot from a start pose (passive, gravity-compensated, or following '
        'a trajectory)')
EFFORTS = ('zero', 'gravity')
CONTROLLERS = ('computed-torque', 'pd')
# computed torque: a natural frequency of 20 rad/s, critically damped (1/s^2, 1/s)
DEFAULT_GAINS = (400.0, 40.0)
MAX_STATE_BYTES = 2e9   # every step's state is kept in memory for the output


def positive_seconds(text: str) -> float:
    """Parse a positive, finite duration in s (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'expected a number of seconds, got {text!r}') \
            from None
    if not (math.isfinite(value) and value > 0.0):
        raise argparse.ArgumentTypeError(f'expected a positive number of seconds, got {text!r}')
    return value


# the coordinates of a multi-dof joint by its number of positions: free-flyer, planar, and a
# ball joint (Pinocchio's order, docs/conventions.md)
BASE_PARTS = {7: (('x', 'y', 'z', 'qx', 'qy', 'qz', 'qw'), ('vx', 'vy', 'vz', 'wx', 'wy', 'wz')),
              4: (('x', 'y', 'cos', 'sin'), ('vx', 'vy', 'wz')),
              'ball': (('qx', 'qy', 'qz', 'qw'), ('wx', 'wy', 'wz'))}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments of ``simulate``."""
    parser.add_argument('urdf', metavar='URDF', help='the robot description (.urdf)')
    add_actuators_argument(parser)
    parser.add_argument('--seconds', type=positive_seconds, metavar='T',
                        help='simulated time (s); required unless --follow (default: the '
                             "trajectory's duration)")
    parser.set_defaults(usage=parser)   # for the checks argparse cannot express
    efforts = parser.add_mutually_exclusive_group()
    efforts.add_argument('--effort', choices=EFFORTS,
                         help='zero: passive, the robot falls under gravity (default); '
                              'gravity: gravity compensation g(q) at every step')
    efforts.add_argument('--follow', metavar='TRAJECTORY',
                         help='track this joint trajectory (CSV or JointTrajectory YAML, as '
                              'torques reads; e.g. what excite writes) and record the efforts '
                              'applied: data for identify')
    parser.add_argument('--format', choices=FORMATS,
                        help='the format of --follow (default: from its extension)')
    parser.add_argument('--controller', choices=CONTROLLERS,
                        help='with --follow: computed-torque (default), tau = ID(q, qd, '
                             'qdd_r + Kp e + Kd de) + friction(qd); or pd, tau = g(q) + Kp e '
                             '+ Kd de')
    parser.add_argument('--gains', type=gains, metavar='KP,KD',
                        help='with --follow: the controller gains, the same for every joint; '
                             'computed-torque in 1/s^2,1/s (default 400,40); pd in N m/rad,'
                             "N m s/rad (default 400,40 times each joint's M_jj at the "
                             'start)')
    parser.add_argument('--dt', type=positive_seconds, default=1e-3, metavar='S',
                        help='integration step (s, default 0.001)')
    parser.add_argument('--integrator', choices=INTEGRATORS, default='rk4',
                        help='fixed-step integrator (default rk4)')
    parser.add_argument('--root-joint', choices=('floating', 'planar'),
                        help="a free-flyer or planar joint between the world and the URDF's "
                             'root link (a legged robot, a mobile base): the base flies free')
    parser.add_argument('--q0', metavar='VALUES',
                        help='start positions: a comma-separated value per joint (none for a '
                             'base), or JOINT=VALUE pairs (the others 0); default 0 clamped '
                             'into the limits')
    parser.add_argument('-o', '--out', metavar='CSV',
                        help="write the states as CSV ('-' for stdout, then the summary goes "
                             'to stderr)')
    parser.add_argument('--plot', metavar='DIR',
                        help='write positions.png, velocities.png and efforts.png into DIR '
                             "(needs matplotlib: pip install 'ros_dynamics[plot]')")


def gains(text: str) -> tuple:
    """Parse ``--gains KP,KD``: two finite numbers >= 0, KP > 0 (argparse type)."""
    try:
        values = tuple(float(part) for part in text.split(','))
    except ValueError:
        values = ()
    if len(values) != 2 or not all(math.isfinite(v) and v >= 0.0 for v in values) \
            or values[0] == 0.0:
        raise argparse.ArgumentTypeError(f'expected KP,KD: two numbers, KP > 0 and KD >= 0, '
                                         f'got {text!r}')
    return values


def start_positions(text: str, joint_names: tuple, default: np.ndarray) -> np.ndarray:
    """Parse ``--q0``: values in joint order, or JOINT=VALUE pairs over ``default``."""
    items = [item.strip() for item in text.split(',') if item.strip()]
    q0 = default.copy()
    if all('=' not in item for item in items):
        if len(items) != len(joint_names):
            raise CLIError(f'--q0: {len(items)} values for {len(joint_names)} joints '
                           f'({", ".join(joint_names)}); give one per joint or JOINT=VALUE '
                           'pairs')
        pairs = list(zip(joint_names, items))
    else:
        pairs = [tuple(part.strip() for part in item.split('=', 1)) for item in items]
        if any(len(pair) != 2 for pair in pairs):
            raise CLIError(f'--q0: expected JOINT=VALUE pairs, got {text!r}')
    for name, value in pairs:
        if name not in joint_names:
            raise CLIError(f'--q0: {name!r} is not a joint of the robot'
                           f'{suggestion(name, joint_names)}; joints: {", ".join(joint_names)}')
        try:
            q0[joint_names.index(name)] = float(value)
        except ValueError:
            raise CLIError(f'--q0: {name}: {value!r} is not a number') from None
        if not math.isfinite(q0[joint_names.index(name)]):
            raise CLIError(f'--q0: {name}: {value!r} is not finite')
    return q0


def actuated_joints(model) -> tuple:
    """Return the one-dof joints' names and their indices in q and in qd (index arrays)."""
    names = [n for n in model.joint_names
             if model.v_slice(n).stop - model.v_slice(n).start == 1]
    return (names, np.array([model.q_slice(n).start for n in names], dtype=int),
            np.array([model.v_slice(n).start for n in names], dtype=int))


def coordinate_labels(model) -> tuple:
    """Return the CSV labels of q's (nq) and of qd's (nv) coordinates: joints and base parts."""
    q_labels, v_labels = [], []
    for name in model.joint_names:
        size = model.q_slice(name).stop - model.q_slice(name).start
        if size == 1:
            q_labels.append(name)
            v_labels.append(name)
            continue
        part = model.q_slice(name)
        ball = size == 4 and model.neutral_configuration()[part][3] == 1.0   # (qx, .., qw)
        q_parts, v_parts = BASE_PARTS['ball' if ball else size]
        q_labels += [f'{name}.{part}' for part in q_parts]
        v_labels += [f'{name}.{part}' for part in v_parts]
    return q_labels, v_labels


def simulate_states(simulator: Simulator, steps: int, control=None, advance=None) -> tuple:
    """
    Step ``simulator`` ``steps`` times; return (q, qd, effort, s per step).

    q (steps + 1, nq), qd and effort (steps + 1, nv): row k is the state at t = k dt and
    the effort applied from it (``control(t, q, qd)``, saturated, held over
    the step; zero without ``control``), as ``simulation.simulate`` does.
    ``advance(n)`` is told every n steps done. The time per step is measured
    from the second step on (the first may compile the kernels).
    """
    robot = simulator.robot
    dof = robot.dof
    qs, qds, efforts = (np.empty((steps + 1, size)) for size in (robot.nq, dof, dof))
    chunk = max(1, steps // 200)
    start = None
    for k in range(steps + 1):
        if k == 1:
            start = time.perf_counter()
        if control is not None:
            simulator.set_effort(control(k * simulator.dt, simulator.q, simulator.qd))
        qs[k], qds[k], efforts[k] = simulator.q, simulator.qd, simulator.effort
        if k == steps:
            break
        simulator.step()
        if advance is not None and (k + 1) % chunk == 0:
            advance(chunk)
    per_step = (time.perf_counter() - start) / (steps - 1) if steps > 1 else float('nan')
    return qs, qds, efforts, per_step


class Follower:
    """
    The efforts that track a sampled reference: computed torque or PD with gravity compensation.

    ``times`` (N,) s from 0; ``q``, ``qd``, ``qdd`` (N, dof) the reference,
    interpolated linearly between samples and held at the last one;
    ``kp``, ``kd`` (dof,) as the module docstring says for ``controller``.
    """

    def __init__(self, model, times: np.ndarray, q: np.ndarray, qd: np.ndarray,
                 qdd: np.ndarray, controller: str, kp: np.ndarray, kd: np.ndarray) -> None:
        self.model, self.times, self.reference = model, times, (q, qd, qdd)
        self.controller, self.kp, self.kd = controller, kp, kd

    def sample(self, t: float) -> tuple:
        """Return (q_r, qd_r, qdd_r) at time t (s); after the end, the last point at rest."""
        if t >= self.times[-1]:
            return self.reference[0][-1], np.zeros(self.model.dof), np.zeros(self.model.dof)
        k = int(np.searchsorted(self.times, t, side='right')) - 1
        k = min(max(k, 0), self.times.shape[0] - 2)
        w = (t - self.times[k]) / (self.times[k + 1] - self.times[k])
        return tuple((1.0 - w) * values[k] + w * values[k + 1] for values in self.reference)

    def effort(self, t: float, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        """Return the command at time t (s) in state q, qd: N m or N, shape (dof,)."""
        q_r, qd_r, qdd_r = self.sample(t)
        if self.controller == 'pd':
            return (self.model.gravity_torques(q) + self.kp * (q_r - q)
                    + self.kd * (qd_r - qd))
        command = qdd_r + self.kp * (q_r - q) + self.kd * (qd_r - qd)
        return self.model.inverse_dynamics(q, qd, command, friction=True)


def follower(args: argparse.Namespace, model) -> Follower:
    """Return the Follower of ``--follow`` (with ``--controller``, ``--gains``) for ``model``."""
    mimic = [n for n in model.all_joint_names if n not in model.joint_names]
    trajectory = read_trajectory(args.follow, model.joint_names, mimic, args.format)
    times = trajectory.times - trajectory.times[0]
    controller = args.controller or 'computed-torque'
    kp, kd = (np.full(model.dof, g) for g in (args.gains or DEFAULT_GAINS))
    if controller == 'pd' and args.gains is None:   # M at the start: --q0, else the first point
        q0 = trajectory.q[0] if args.q0 is None else start_positions(
            args.q0, model.joint_names, trajectory.q[0])
        diagonal = np.diag(model.mass_matrix(q0))
        kp, kd = kp * diagonal, kd * diagonal
    return Follower(model, times, trajectory.q, trajectory.qd, trajectory.qdd, controller,
                    kp, kd)


def check_options(args: argparse.Namespace) -> None:
    """Exit 2 with a usage error for options that need ``--follow`` or ``--seconds``."""
    if args.follow is not None:
        return
    for flag, value in (('--controller', args.controller), ('--gains', args.gains),
                        ('--format', args.format)):
        if value is not None:
            args.usage.error(f'{flag} applies to --follow TRAJECTORY only')
    if args.seconds is None:
        args.usage.error('--seconds T is required (unless --follow TRAJECTORY, which lasts '
                         'as long as the trajectory)')


def run(args: argparse.Namespace) -> int:
    """Simulate ``args.urdf`` and report; return the exit status."""
    check_options(args)
    _, model = load_model(args.urdf, args.actuators, args.root_joint)
    if model.dof == 0:
        raise CLIError(f'{args.urdf}: the robot has no moving joint; nothing to simulate')
    if args.follow is not None and model.nq != model.nv:
        raise CLIError('--follow: the trajectory files hold one column per joint; a floating '
                       'or planar base (--root-joint) is not followed')
    names, qi, vi = actuated_joints(model)
    default = model.neutral_configuration()
    default[qi] = np.clip(default[qi], model.lower[qi], model.upper[qi])
    tracking = None
    if args.follow is not None:
        tracking = with_progress(f'reading {args.follow}', lambda: follower(args, model),
                                 args.progress)
        if args.seconds is None:
            args.seconds = float(tracking.times[-1])
            if args.seconds <= 0.0:
                raise CLIError(f'{args.follow}: the trajectory has one point (no duration); '
                               'give --seconds')
        default = tracking.reference[0][0]
        effort = f'following {args.follow} ({tracking.controller})'
    else:
        effort = args.effort or 'zero'
    steps = int(round(args.seconds / args.dt))
    if steps < 1:
        raise CLIError(f'--seconds {args.seconds} is shorter than one step (--dt {args.dt})')
    if (steps + 1) * (model.nq + 2 * model.dof) * 8 > MAX_STATE_BYTES:   # q, qd, effort
        raise CLIError(f'--seconds {args.seconds} at --dt {args.dt} is {steps} steps, more than '
                       f'{MAX_STATE_BYTES / 1e9:.0f} GB of states to keep; simulate less or '
                       'use a larger --dt')
    if args.plot:
        require_matplotlib()
        plot_directory(args.plot)
    q0 = default.copy()
    if args.q0 is not None:
        q0[qi] = start_positions(args.q0, tuple(names), default[qi])
    qd0 = None if tracking is None or args.q0 is not None else tracking.reference[1][0]

    def prepare() -> tuple:
        simulator = Simulator(model, dt=args.dt, integrator=args.integrator, q0=q0, qd0=qd0)
        return simulator, simulator.energy()

    simulator, energy_start = with_progress('preparing the simulator', prepare, args.progress)
    start = time.perf_counter()
    control = tracking.effort if tracking is not None else (
        (lambda t, q, qd: model.gravity_torques(q)) if effort == 'gravity' else None)
    try:
        qs, qds, efforts, per_step = with_progress(
            'simulating', lambda advance: simulate_states(simulator, steps, control, advance),
            args.progress, total=steps, unit='step')
    except SimulationDiverged as error:
        raise CLIError(f'simulation stopped: {error}') from None
    wall = time.perf_counter() - start
    times = np.arange(steps + 1) * args.dt
    stream = sys.stderr if args.out == '-' else sys.stdout
    print(f'robot {model.name!r} ({model.dof} dof): {number(times[-1])} s simulated in '
          f'{steps} steps of {args.dt} s ({args.integrator}), effort {effort}; '
          f'{wall:.2f} s wall time, {per_step * 1e6:.1f} us a step after the first '
          f'({args.dt / per_step:.0f} x real time)', file=stream)
    print(f'energy (kinetic + potential + limit stops): {number(energy_start, 6)} J at the '
          f'start, {number(simulator.energy(), 6)} J at the end', file=stream)
    if model.nq != model.dof:
        base = model.joint_names[0]
        part = model.q_slice(base)
        print(f'base {base!r} ({args.root_joint or "from the URDF"}): position '
              f'{", ".join(number(x) for x in qs[0, part][:3])} m at the start, '
              f'{", ".join(number(x) for x in qs[-1, part][:3])} at the end', file=stream)
    print(file=stream)
    rows = [[name, number(qs[0, i]), number(qs[-1, i]), number(qs[:, i].min()),
             number(qs[:, i].max()), number(np.abs(qds[:, k]).max()),
             number(np.abs(efforts[:, k]).max())]
            for name, i, k in zip(names, qi, vi)]
    header = ['joint', 'start', 'end', 'min', 'max', 'peak |speed|', 'peak |effort|']
    if tracking is not None:
        error = qs - np.array([tracking.sample(t)[0] for t in times])
        for row, column in zip(rows, error.T):
            row += [number(np.sqrt(np.mean(column ** 2))), number(np.abs(column).max())]
        header += ['RMS error', 'peak |error|']
        saturated = [name for k, name in enumerate(model.joint_names)
                     if np.any(np.abs(efforts[:, k]) >= model.effort_limit[k])]
    print(table(header, rows, '  '), file=stream)
    if tracking is not None and saturated:
        warn(f'the effort limit saturated on {", ".join(saturated)}: the robot could not '
             'follow the trajectory there (lower --gains or slow the trajectory down)')
    if args.out:
        q_labels, v_labels = coordinate_labels(model)
        header = (['time'] + [f'{n}.position' for n in q_labels]
                  + [f'{n}.{field}' for field in ('velocity', 'effort') for n in v_labels])
        write_csv(args.out, header, [times] + list(qs.T) + list(qds.T) + list(efforts.T),
                  args.progress)
        if args.out != '-':
            note(f'states written to {args.out}')
    if args.plot:
        from ros_dynamics.cli import plots
        figures = [('positions.png', 'joint positions', 'position (rad or m)', qs[:, qi],
                    model.lower[qi], model.upper[qi]),
                   ('velocities.png', 'joint velocities', 'speed (rad/s or m/s)', qds[:, vi],
                    -model.velocity_limit[vi], model.velocity_limit[vi]),
                   ('efforts.png', f'applied efforts ({effort})', 'effort (N m or N)',
                    efforts[:, vi], -model.effort_limit[vi], model.effort_limit[vi])]
        with progress(len(figures), 'plotting', 'figure', args.progress) as bar:
            for name, title, ylabel, values, lower, upper in figures:
                plots.joint_lines(args.plot, name, title + ' (dashed: URDF limits)', ylabel,
                                  times, values, names, lower, upper)
                bar.update()
        note(f'plots written to {args.plot}/ (positions.png, velocities.png, efforts.png)')
    return 0
