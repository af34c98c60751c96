# Copyright 2026 The ros_dynamics Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
``ros-dynamics simulate URDF --seconds T``: forward dynamics of the robot from a start pose.

Runs ``ros_dynamics.simulation.Simulator`` (ABA, Featherstone "Rigid Body
Dynamics Algorithms" table 7.1, integrated at a fixed step by RK4 or
semi-implicit Euler) with the URDF's damping, Coulomb friction, effort
saturation and position-limit stops, under one of two efforts:

* ``zero``: no actuation, the robot moves under gravity alone (it falls);
* ``gravity``: g(q) at every step (gravity compensation), which holds the
  robot where it starts unless an effort limit saturates.

The states (every step) go to ``--out`` as CSV: ``time``,
``JOINT.position``, ``JOINT.velocity``, ``JOINT.effort`` (the effort
applied after saturation), in the units of the joint (rad or m).
"""

import argparse
import math
import sys
import time

import numpy as np
from ros_dynamics.cli.common import (CLIError, load_robot, note, number, plot_directory,
                                     progress, require_matplotlib, suggestion, table,
                                     with_progress, write_csv)
from ros_dynamics.simulation import INTEGRATORS, SimulationDiverged, Simulator

NAME = 'simulate'
HELP = 'simulate the robot from a start pose (passive or gravity-compensated)'
EFFORTS = ('zero', 'gravity')
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments of ``simulate``."""
    parser.add_argument('urdf', metavar='URDF', help='the robot description (.urdf)')
    parser.add_argument('--seconds', type=positive_seconds, required=True, metavar='T',
                        help='simulated time (s)')
    parser.add_argument('--effort', choices=EFFORTS, default='zero',
                        help='zero: passive, the robot falls under gravity (default); '
                             'gravity: gravity compensation g(q) at every step')
    parser.add_argument('--dt', type=positive_seconds, default=1e-3, metavar='S',
                        help='integration step (s, default 0.001)')
    parser.add_argument('--integrator', choices=INTEGRATORS, default='rk4',
                        help='fixed-step integrator (default rk4)')
    parser.add_argument('--q0', metavar='VALUES',
                        help='start positions: DOF comma-separated values in joint order, or '
                             'JOINT=VALUE pairs (the others 0); default 0 clamped into the '
                             'limits')
    parser.add_argument('-o', '--out', metavar='CSV',
                        help="write the states as CSV ('-' for stdout, then the summary goes "
                             'to stderr)')
    parser.add_argument('--plot', metavar='DIR',
                        help='write positions.png, velocities.png and efforts.png into DIR '
                             "(needs matplotlib: pip install 'ros_dynamics[plot]')")


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


def simulate_states(simulator: Simulator, steps: int, gravity: bool, advance=None) -> tuple:
    """
    Step ``simulator`` ``steps`` times; return (q, qd, effort, s per step).

    q, qd, effort are (steps + 1, dof): row k is the state at t = k dt and
    the effort applied from it (g(q) with ``gravity``, saturated; else zero),
    as ``simulation.simulate`` does.
    ``advance(n)`` is told every n steps done. The time per step is measured
    from the second step on (the first may compile the kernels).
    """
    robot = simulator.robot
    dof = robot.dof
    qs, qds, efforts = (np.empty((steps + 1, dof)) for _ in range(3))
    chunk = max(1, steps // 200)
    start = None
    for k in range(steps + 1):
        if k == 1:
            start = time.perf_counter()
        if gravity:
            simulator.set_effort(robot.gravity_torques(simulator.q))
        qs[k], qds[k], efforts[k] = simulator.q, simulator.qd, simulator.effort
        if k == steps:
            break
        simulator.step()
        if advance is not None and (k + 1) % chunk == 0:
            advance(chunk)
    per_step = (time.perf_counter() - start) / (steps - 1) if steps > 1 else float('nan')
    return qs, qds, efforts, per_step


def run(args: argparse.Namespace) -> int:
    """Simulate ``args.urdf`` and report; return the exit status."""
    loaded = load_robot(args.urdf)
    model = loaded.model
    if model.dof == 0:
        raise CLIError(f'{args.urdf}: the robot has no moving joint; nothing to simulate')
    steps = int(round(args.seconds / args.dt))
    if steps < 1:
        raise CLIError(f'--seconds {args.seconds} is shorter than one step (--dt {args.dt})')
    if (steps + 1) * model.dof * 3 * 8 > MAX_STATE_BYTES:   # q, qd, effort of every step
        raise CLIError(f'--seconds {args.seconds} at --dt {args.dt} is {steps} steps, more than '
                       f'{MAX_STATE_BYTES / 1e9:.0f} GB of states to keep; simulate less or '
                       'use a larger --dt')
    if args.plot:
        require_matplotlib()
        plot_directory(args.plot)
    default = np.clip(np.zeros(model.dof), model.lower, model.upper)
    q0 = default if args.q0 is None else start_positions(args.q0, model.joint_names, default)

    def prepare() -> tuple:
        simulator = Simulator(model, dt=args.dt, integrator=args.integrator, q0=q0)
        return simulator, simulator.energy()

    simulator, energy_start = with_progress('preparing the simulator', prepare, args.progress)
    start = time.perf_counter()
    try:
        qs, qds, efforts, per_step = with_progress(
            'simulating', lambda advance: simulate_states(simulator, steps,
                                                          args.effort == 'gravity', advance),
            args.progress, total=steps, unit='step')
    except SimulationDiverged as error:
        raise CLIError(f'simulation stopped: {error}') from None
    wall = time.perf_counter() - start
    times = np.arange(steps + 1) * args.dt
    stream = sys.stderr if args.out == '-' else sys.stdout
    print(f'robot {model.name!r} ({model.dof} dof): {number(times[-1])} s simulated in '
          f'{steps} steps of {args.dt} s ({args.integrator}), effort {args.effort}; '
          f'{wall:.2f} s wall time, {per_step * 1e6:.1f} us a step after the first '
          f'({args.dt / per_step:.0f} x real time)', file=stream)
    print(f'energy (kinetic + potential + limit stops): {number(energy_start, 6)} J at the '
          f'start, {number(simulator.energy(), 6)} J at the end', file=stream)
    print(file=stream)
    rows = [[name, number(qs[0, k]), number(qs[-1, k]), number(qs[:, k].min()),
             number(qs[:, k].max()), number(np.abs(qds[:, k]).max()),
             number(np.abs(efforts[:, k]).max())]
            for k, name in enumerate(model.joint_names)]
    print(table(['joint', 'start', 'end', 'min', 'max', 'peak |speed|', 'peak |effort|'],
                rows, '  '), file=stream)
    names = model.joint_names
    if args.out:
        header = ['time'] + [f'{n}.{field}' for field in ('position', 'velocity', 'effort')
                             for n in names]
        write_csv(args.out, header, [times] + list(qs.T) + list(qds.T) + list(efforts.T),
                  args.progress)
        if args.out != '-':
            note(f'states written to {args.out}')
    if args.plot:
        from ros_dynamics.cli import plots
        figures = [('positions.png', 'joint positions', 'position (rad or m)', qs,
                    model.lower, model.upper),
                   ('velocities.png', 'joint velocities', 'speed (rad/s or m/s)', qds,
                    -model.velocity_limit, model.velocity_limit),
                   ('efforts.png', f'applied efforts ({args.effort})', 'effort (N m or N)',
                    efforts, -model.effort_limit, model.effort_limit)]
        with progress(len(figures), 'plotting', 'figure', args.progress) as bar:
            for name, title, ylabel, values, lower, upper in figures:
                plots.joint_lines(args.plot, name, title + ' (dashed: URDF limits)', ylabel,
                                  times, values, names, lower, upper)
                bar.update()
        note(f'plots written to {args.plot}/ (positions.png, velocities.png, efforts.png)')
    return 0
