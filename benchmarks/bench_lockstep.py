# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The circle through ROS in lockstep under load: repeatability and tracking, run after run.

Not a test: ``scripts/with_ros.sh python benchmarks/bench_lockstep.py --runs 10 --load 1``.
Each run is test/lockstep_circle.py's closed loop (2R arm, Cartesian impedance
controller, simulator_node in lockstep, RK4 at 1 ms, as fast as possible) for
``--seconds`` of sim time (default one revolution, 10 s), with ``--load``
CPU-bound processes beside it. Prints each run's RMS and max tracking error,
its wall time (sim time per wall second), the CPU time of the two nodes and of
this process (the recording client), whether its joint states equal the first
run's to the last bit at every sim time both recorded, and a summary. The
recording client is not part of the loop: on a loaded machine it can miss
states (the simulator's joint_states publisher keeps 10), which the loop does
not; the count of states recorded is printed.
"""

import argparse
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test'))

import conftest  # noqa: E402,F401 - isolated ROS domain, like the tests
from lockstep_circle import run_circle  # noqa: E402
import numpy as np  # noqa: E402


def main() -> None:
    """Run the closed loop ``--runs`` times and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--runs', type=int, default=10)
    parser.add_argument('--seconds', type=float, default=10.0, help='sim time per run')
    parser.add_argument('--load', type=int, default=1, help='CPU-bound processes beside')
    args = parser.parse_args()
    hogs = [subprocess.Popen([sys.executable, '-c', 'while True: pass'])
            for _ in range(args.load)]
    print(f'lockstep circle, {args.seconds} s of sim time per run, {args.load} CPU-bound '
          f'processes beside, {time.strftime("%Y-%m-%d %H:%M")} UTC')
    first, rms_all, same_all, walls = None, [], [], []
    try:
        for k in range(args.runs):
            nodes_cpu = _children_cpu()
            own_cpu = time.process_time()
            run = run_circle(args.seconds)
            nodes_cpu, own_cpu = _children_cpu() - nodes_cpu, time.process_time() - own_cpu
            steps = np.round(run['t'] * 1000.0).astype(int)   # ms of sim time: the state's index
            first = (steps, run['q']) if first is None else first
            rms = float(np.sqrt(np.mean(run['error'] ** 2)))
            common, mine, theirs = np.intersect1d(steps, first[0], return_indices=True)
            same = common.size > 0 and np.array_equal(run['q'][mine], first[1][theirs])
            pauses = run['output'].count('lockstep:')
            rms_all.append(rms)
            same_all.append(same)
            walls.append(run['wall'])
            print(f'run {k + 1:2d}: RMS {rms * 1e3:.4f} mm, max {run["error"].max() * 1e3:.4f} '
                  f'mm, {run["t"].size} of {int(round(args.seconds * 1000)) + 1} states '
                  f'recorded, {run["wall"]:.1f} s wall '
                  f'({args.seconds / run["wall"]:.2f}x real time), CPU {nodes_cpu:.1f} s '
                  f'(both nodes, start-up included) + {own_cpu:.1f} s (client), '
                  f'{common.size} states in common with run 1, equal there: {same}, '
                  f'lockstep pauses {pauses}, load average {os.getloadavg()[0]:.2f}',
                  flush=True)
        rms_all = np.array(rms_all)
        print(f'summary: RMS < 2 mm in {int(np.sum(rms_all < 2e-3))} of {args.runs} runs '
              f'(RMS {rms_all.min() * 1e3:.4f}-{rms_all.max() * 1e3:.4f} mm), equal to run 1 '
              f'where both recorded: {sum(same_all)} of {args.runs}, wall '
              f'{min(walls):.1f}-{max(walls):.1f} s per run ({args.seconds} s of sim time)')
    finally:
        for hog in hogs:
            hog.kill()


def _children_cpu() -> float:
    """Return the user + system CPU time of the reaped child processes (s)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == '__main__':
    main()
