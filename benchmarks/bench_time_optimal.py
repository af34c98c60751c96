# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Benchmark time_optimal_trajectory against toppra 0.6 + Pinocchio's RNEA (issue 31).

One 7-dof Panda path of 50 waypoints (test_time_optimal.random_path, effort
limits x 0.75, URDF velocity limits), timed by:

- toppra 0.6 with Pinocchio's RNEA as its torque constraint (interpolation
  discretization, seidel), 1000 grid points (the tests' setting) and its own
  default grid;
- ours at 1000 grid points and at the default (400), each with the dense
  certification it always does (>= 1 kHz, >= 10 samples per interval).

Per configuration: median CPU time (time.process_time, all threads of the
process) and wall time over ``--repeats`` interleaved runs, the duration found
and the worst |value| / limit at dense samples (2 kHz, our inverse dynamics).
Then a batch of ``--batch`` different paths (same generator): CPU and wall
per path, ours at the default grid and toppra at 1000 points. Prints the load
average before and after. Benchmarks assert nothing.

``--before COMMIT`` adds the same two of ours from that commit's
ros_dynamics/time_optimal (read with ``git show`` into a temporary package,
imports renamed; the rest of the package is this checkout's), interleaved
with the others: a before/after comparison in one process, under the same
load.

Run: ``.venv/bin/python benchmarks/bench_time_optimal.py`` (needs pin, toppra
and example-robot-data: requirements/test.txt).
"""

import argparse
import atexit
import datetime
import importlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)   # measure this checkout
sys.path.insert(0, os.path.join(ROOT, 'test'))

from ros_dynamics import RobotModel, time_optimal_trajectory  # noqa: E402, I100
from ros_dynamics.time_optimal import SplinePath  # noqa: E402
from test_time_optimal import random_path  # noqa: E402, I100
from toppra_reference import toppra_time, worst_ratios  # noqa: E402

PANDA = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
LOWER = np.array([-2.8, -1.7, -2.8, -3.0, -2.8, 0.0, -2.8])
UPPER = np.array([2.8, 1.7, 2.8, -0.1, 2.8, 3.7, 2.8])


def timed(function) -> tuple:
    """Return (result, cpu s, wall s) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = function()
    return result, time.process_time() - cpu, time.perf_counter() - wall


def time_optimal_at(commit: str, directory: str):
    """Return time_optimal_trajectory of ``commit``'s ros_dynamics/time_optimal (a copy)."""
    package = 'time_optimal_before'
    os.makedirs(os.path.join(directory, package))
    names = subprocess.run(['git', '-C', ROOT, 'ls-tree', '--name-only', f'{commit}:'
                            'ros_dynamics/time_optimal'], check=True, capture_output=True,
                           text=True).stdout.split()
    for name in names:
        if name.endswith('.py'):
            source = subprocess.run(['git', '-C', ROOT, 'show',
                                     f'{commit}:ros_dynamics/time_optimal/{name}'],
                                    check=True, capture_output=True, text=True).stdout
            with open(os.path.join(directory, package, name), 'w') as stream:
                stream.write(source.replace('ros_dynamics.time_optimal.', f'{package}.'))
    sys.path.insert(0, directory)
    return importlib.import_module(f'{package}.parameterization').time_optimal_trajectory


def main() -> None:
    """Run the comparison and the batch; print markdown."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--repeats', type=int, default=15)
    parser.add_argument('--batch', type=int, default=100)
    parser.add_argument('--waypoints', type=int, default=50)
    parser.add_argument('--before', metavar='COMMIT', default=None,
                        help='also time ros_dynamics/time_optimal of this commit')
    arguments = parser.parse_args()
    before = None
    if arguments.before:
        directory = tempfile.mkdtemp(prefix='bench_topt_')
        atexit.register(shutil.rmtree, directory, True)
        before = time_optimal_at(arguments.before, directory)
    robot = RobotModel.from_urdf_file(PANDA)
    effort = robot.effort_limit * 0.75
    velocity = robot.velocity_limit
    rng = np.random.default_rng(2026)

    def path_of(rng):
        while True:    # a path whose static gravity torque fits the limits
            waypoints = random_path(rng, LOWER, UPPER, arguments.waypoints)
            if np.all(np.abs(robot.gravity_torques(waypoints)) < 0.9 * effort):
                return waypoints

    waypoints = path_of(rng)
    parameter = SplinePath(waypoints).path_parameter
    configurations = {
        'toppra + Pinocchio RNEA, 1000 grid points': lambda: toppra_time(
            PANDA, waypoints, parameter, velocity, effort, grid_points=1000),
        'toppra + Pinocchio RNEA, its default grid': lambda: toppra_time(
            PANDA, waypoints, parameter, velocity, effort, grid_points=None),
        'ours, 1000 grid points': lambda: time_optimal_trajectory(
            robot, waypoints, effort_limit=effort, grid_points=1000),
        'ours, default grid (400 points)': lambda: time_optimal_trajectory(
            robot, waypoints, effort_limit=effort)}
    if before is not None:
        configurations[f'ours at {arguments.before}, 1000 grid points'] = lambda: before(
            robot, waypoints, effort_limit=effort, grid_points=1000)
        configurations[f'ours at {arguments.before}, default grid'] = lambda: before(
            robot, waypoints, effort_limit=effort)
    for function in configurations.values():   # warm: compile, import, caches
        function()
    print(f'# bench_time_optimal, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} '
          f'UTC, load average before {os.getloadavg()}')
    samples = {name: ([], []) for name in configurations}
    results = {}
    for _ in range(arguments.repeats):
        for name, function in configurations.items():
            results[name], cpu, wall = timed(function)
            samples[name][0].append(cpu)
            samples[name][1].append(wall)
    print(f'\nPanda, {arguments.waypoints} waypoints, medians of {arguments.repeats} interleaved '
          f'runs\n')
    print('| configuration | CPU ms | wall ms | duration s | worst velocity, effort / limit |')
    print('|---|---|---|---|---|')
    for name, (cpu, wall) in samples.items():
        result = results[name]
        if name.startswith('toppra'):
            duration = result.duration
            ratios = worst_ratios(robot, result.trajectory, velocity, effort, rate=2000.0,
                                  per_interval=20)
        else:
            duration = result.duration
            t = np.linspace(0.0, duration, max(int(duration * 2000), 20 * result.grid.size))
            sample = result.sample(t)
            ratios = {'velocity': float(np.max(np.abs(sample.velocities) / velocity)),
                      'effort': float(np.max(np.abs(sample.efforts) / effort))}
        print(f'| {name} | {1e3 * statistics.median(cpu):.2f} | '
              f'{1e3 * statistics.median(wall):.2f} | {duration:.5f} | '
              f'{ratios["velocity"]:.6f}, {ratios["effort"]:.6f} |')
    reference = statistics.median(samples['toppra + Pinocchio RNEA, 1000 grid points'][0])
    for name in [name for name in configurations if name.startswith('ours')]:
        print(f'\ntoppra (1000 points) CPU / {name} CPU: '
              f'{reference / statistics.median(samples[name][0]):.2f}x')
    paths = [path_of(rng) for _ in range(arguments.batch)]
    print(f'\nBatch of {arguments.batch} different paths, one after the other\n')
    print('| configuration | CPU ms per path | wall ms per path | refused |')
    print('|---|---|---|---|')
    batch = [('ours, default grid', lambda w: time_optimal_trajectory(robot, w,
                                                                      effort_limit=effort)),
             ('toppra + Pinocchio RNEA, 1000 grid points', lambda w: toppra_time(
                 PANDA, w, SplinePath(w).path_parameter, velocity, effort, grid_points=1000))]
    if before is not None:
        batch.insert(1, (f'ours at {arguments.before}, default grid',
                         lambda w: before(robot, w, effort_limit=effort)))
    for name, function in batch:
        refused = 0

        def run():
            nonlocal refused
            for w in paths:
                try:
                    result = function(w)
                    refused += getattr(result, 'duration', 1.0) is None
                except ValueError:
                    refused += 1
        _, cpu, wall = timed(run)
        print(f'| {name} | {1e3 * cpu / len(paths):.2f} | {1e3 * wall / len(paths):.2f} | '
              f'{refused} |')
    print(f'\nload average after {os.getloadavg()}')


if __name__ == '__main__':
    main()
