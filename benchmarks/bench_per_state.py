# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
CPU time per state of the core's hot paths, to compare two checkouts run one after the other.

Batches of 1000 states (inverse dynamics, mass matrix) and 200 single calls (gravity,
inverse dynamics) on Panda and Talos reduced from example-robot-data; the best of 15 runs,
``time.process_time``, so another process on the machine changes the figures less than
wall time would. Run it from the checkout to measure (it imports that checkout):
``ROS_DYNAMICS_PRECOMPILE=0 ROS_DYNAMICS_THREADS=1 python benchmarks/bench_per_state.py``.
"""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'test'))

import numpy as np  # noqa: E402
from robot_data import example_urdf  # noqa: E402
from ros_dynamics import RobotModel  # noqa: E402

ROBOTS = ('panda_description/urdf/panda.urdf', 'talos_data/robots/talos_reduced.urdf')


def best_cpu(function, runs: int = 15) -> float:
    """Return the least CPU time (s) of ``runs`` calls of ``function``."""
    best = float('inf')
    for _ in range(runs):
        start = time.process_time()
        function()
        best = min(best, time.process_time() - start)
    return best


def main() -> int:
    """Print the CPU time per state of each path, us."""
    for relative in ROBOTS:
        robot = RobotModel.from_urdf_file(example_urdf(relative), mimic=False)
        rng = np.random.default_rng(0)
        q, qd, qdd = (rng.uniform(-1.0, 1.0, (1000, robot.dof)) for _ in range(3))
        robot.inverse_dynamics(q, qd, qdd)
        robot.mass_matrix(q)
        robot.gravity_torques(q[0])
        cases = (('batch inverse dynamics', 1000, lambda: robot.inverse_dynamics(q, qd, qdd)),
                 ('batch mass matrix', 1000, lambda: robot.mass_matrix(q)),
                 ('single gravity', 200, lambda: [robot.gravity_torques(x) for x in q[:200]]),
                 ('single inverse dynamics', 200,
                  lambda: [robot.inverse_dynamics(a, b, c)
                           for a, b, c in zip(q[:200], qd[:200], qdd[:200])]))
        figures = ', '.join(f'{name} {best_cpu(call) / count * 1e6:.3f}'
                            for name, count, call in cases)
        print(f'{os.path.basename(relative)}: {figures} us per state (CPU, best of 15)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
