# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Benchmark the joint torque regressor against Pinocchio's, in one process, on the same states.

Panda arm (example-robot-data's panda.urdf, mimic tags ignored: 9 joints):
a batch of N states in one call (all threads, ``ROS_DYNAMICS_THREADS``, and
one thread) against a Python loop over ``pin.computeJointTorqueRegressor``,
per state; wall and CPU time, medians over repeats. Not a test: nothing here
asserts a time.

Run: ``python benchmarks/bench_identification.py [--states 1000 --repeats 9]``.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, 'test'))

import pinocchio as pin  # noqa: E402, I100
from robot_data import example_urdf  # noqa: E402
from ros_dynamics import RobotModel  # noqa: E402
from ros_dynamics.runtime import batches as runtime  # noqa: E402


def timed(function, repeats: int) -> tuple:
    """Return the median (wall, cpu) seconds of ``function()`` over ``repeats`` runs."""
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        function()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    """Print the regressor table (markdown)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--states', type=int, default=1000)
    parser.add_argument('--repeats', type=int, default=9)
    args = parser.parse_args()
    path = example_urdf('panda_description/urdf/panda.urdf')
    robot = RobotModel.from_urdf_file(path, mimic=False)
    model = pin.buildModelFromUrdf(path)
    data = model.createData()
    rng = np.random.default_rng(0)
    q, qd, qdd = (rng.uniform(-1.0, 1.0, (args.states, robot.dof)) for _ in range(3))
    robot.regressor(q[:2], qd[:2], qdd[:2])   # compile / load from the cache
    for q0, v0, a0 in zip(q[:3], qd[:3], qdd[:3]):
        pin.computeJointTorqueRegressor(model, data, q0, v0, a0)

    def pinocchio_loop():
        for k in range(args.states):
            pin.computeJointTorqueRegressor(model, data, q[k], qd[k], qdd[k])

    rows = []
    for label, threads in (('all threads', runtime.batch_threads), ('1 thread', 1)):
        saved = runtime.batch_threads
        runtime.batch_threads = threads
        try:
            ours = timed(lambda: robot.regressor(q, qd, qdd), args.repeats)
        finally:
            runtime.batch_threads = saved
        reference = timed(pinocchio_loop, args.repeats)
        rows.append((label, ours, reference))
    n = args.states
    single = timed(lambda: [robot.regressor(q[k], qd[k], qdd[k]) for k in range(n)],
                   args.repeats)
    print(f'Regressor, Panda ({robot.dof} joints), batch of {n} states; machine shared\n')
    print('| threads | ours wall us/state | ours CPU us/state | Pinocchio loop wall '
          '| Pinocchio loop CPU | ratio ours / Pinocchio (wall) | (CPU) |')
    print('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
    for label, (wall, cpu), (pin_wall, pin_cpu) in rows:
        print(f'| {label} | {wall / n * 1e6:.2f} | {cpu / n * 1e6:.2f} | '
              f'{pin_wall / n * 1e6:.2f} | {pin_cpu / n * 1e6:.2f} | {wall / pin_wall:.2f} | '
              f'{cpu / pin_cpu:.2f} |')
    print(f'\nOne state at a time through robot.regressor: {single[0] / n * 1e6:.2f} us wall, '
          f'{single[1] / n * 1e6:.2f} us CPU per call')


if __name__ == '__main__':
    main()
