# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Batches with external wrenches against the same batches without, in one run.

    make build && scripts/with_ros.sh python benchmarks/bench_batch_wrenches.py [--states N]

Inverse and forward dynamics of N random states of the Panda arm
(urdf/panda_arm.urdf) in one call, with one wrench on the last link and with
none; the wrench's body forces come from a compiled kernel per block of
states (kinematics.body_forces_batch), so the ratio should stay near 1
(a Python loop per state made it ~80x). Wall and CPU time of this process,
best of the repeats; the machine may be shared, so CPU time is the steadier figure.
"""

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)   # measure this checkout
from ros_dynamics import RobotModel  # noqa: E402


def timed(call, repeats: int) -> tuple:
    """Return the best (wall, CPU) seconds of ``repeats`` calls."""
    best = (float('inf'), float('inf'))
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        call()
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--states', type=int, default=100_000)
    parser.add_argument('--repeats', type=int, default=3)
    options = parser.parse_args()
    robot = RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', 'panda_arm.urdf'))
    rng = np.random.default_rng(0)
    q, qd, qdd = (rng.uniform(-1.0, 1.0, (options.states, robot.dof)) for _ in range(3))
    wrench = {robot.link_names[-1]: [1.0, 2.0, 3.0, 0.1, 0.2, 0.3]}
    print(f'Panda arm, {options.states} states per call, best of {options.repeats}\n')
    print('| algorithm | without wrench, wall / CPU s | with a wrench, wall / CPU s '
          '| ratio (CPU) |')
    print('|---|---|---|---|')
    for name in ('inverse_dynamics', 'forward_dynamics'):
        method = getattr(robot, name)
        method(q[:10], qd[:10], qdd[:10], wrench)   # compile or load the kernels
        plain = timed(lambda: method(q, qd, qdd), options.repeats)
        loaded = timed(lambda: method(q, qd, qdd, wrench), options.repeats)
        print(f'| {name} | {plain[0]:.3f} / {plain[1]:.3f} | {loaded[0]:.3f} / {loaded[1]:.3f} '
              f'| {loaded[1] / plain[1]:.2f} |')


if __name__ == '__main__':
    main()
