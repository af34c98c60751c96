# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Floating and planar bases against Pinocchio, in one process, on the same states.

    scripts/with_ros.sh python benchmarks/bench_floating_base.py [--repeats 15] [--batch 1000]

Robots of example-robot-data with a free-flyer root (solo12, anymal, talos_reduced:
``root_joint='floating'`` against ``pin.JointModelFreeFlyer()``) and TIAGo with a planar
root (``JointModelPlanar``). Two tables (markdown):

1. single calls through the public API (inverse dynamics, mass matrix, forward dynamics,
   centroidal momentum matrix against ``pin.rnea``, ``pin.crba``, ``pin.aba``,
   ``pin.ccrba``): median wall and CPU time per call over 16 random states, ours and
   Pinocchio's timed alternately (load drift hits both), ratio ours / Pinocchio by CPU;
2. batches of N states in one call against a Python loop over Pinocchio, per state, on the
   default threads and on one (CPU time counts both threads: compare it for the work done).

Benchmarks are not tests: nothing here asserts a time.
"""

import argparse
import datetime
import os
import statistics
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)   # measure this checkout
sys.path.insert(0, os.path.join(ROOT, 'test'))

import numpy as np  # noqa: E402
import pinocchio as pin  # noqa: E402
from ros_dynamics.runtime import batches as runtime  # noqa: E402
from test_floating_base import twin_of  # noqa: E402, I100

ROBOTS = (('solo12', 'solo_description/robots/solo12.urdf', 'floating',
           pin.JointModelFreeFlyer()),
          ('anymal', 'anymal_b_simple_description/robots/anymal.urdf', 'floating',
           pin.JointModelFreeFlyer()),
          ('talos_reduced', 'talos_data/robots/talos_reduced.urdf', 'floating',
           pin.JointModelFreeFlyer()),
          ('tiago (planar)', 'tiago_description/robots/tiago.urdf', 'planar',
           pin.JointModelPlanar()))


def timed(function, calls: list) -> tuple:
    """Return (wall, CPU) seconds per call of ``function`` over ``calls`` (argument tuples)."""
    wall, cpu = time.perf_counter(), time.process_time()
    for args in calls:
        function(*args)
    return ((time.perf_counter() - wall) / len(calls), (time.process_time() - cpu) / len(calls))


def alternated(ours, theirs, mine: list, other: list, repeats: int) -> tuple:
    """Return the medians (wall, CPU) of ours and of theirs, timed alternately."""
    timed(ours, mine[:20])
    timed(theirs, other[:20])
    a, b = [], []
    for _ in range(repeats):
        a.append(timed(ours, mine))
        b.append(timed(theirs, other))
    return tuple(statistics.median(x[k] for x in a) for k in (0, 1)), \
        tuple(statistics.median(x[k] for x in b) for k in (0, 1))


def states(twin, count: int, seed: int) -> tuple:
    """Return ours (q, qd, qdd, tau) and Pinocchio's (q, qd, qdd, tau), (count, n) each."""
    rng = np.random.default_rng(seed)
    ours = [twin.random_state(rng) for _ in range(count)]
    q, qd, qdd = (np.array(x) for x in zip(*ours))
    tau = twin.robot.inverse_dynamics(q, qd, qdd)
    pq = np.array([twin.pin_q(x) for x in q])
    return (q, qd, qdd, tau), (pq, qd, qdd, tau)


def single_rows(twin, label: str, repeats: int, calls: int) -> list:
    """Return rows (robot, nq/nv, algorithm, ours wall, ours CPU, pin wall, pin CPU, ratio)."""
    robot, model, data = twin.robot, twin.model, twin.data
    (q, qd, qdd, tau), (pq, pv, pa, ptau) = states(twin, 16, 0)
    cases = (('inverse_dynamics', robot.inverse_dynamics, (q, qd, qdd),
              lambda a, b, c: pin.rnea(model, data, a, b, c), (pq, pv, pa)),
             ('mass_matrix', robot.mass_matrix, (q,), lambda a: pin.crba(model, data, a), (pq,)),
             ('forward_dynamics', robot.forward_dynamics, (q, qd, tau),
              lambda a, b, c: pin.aba(model, data, a, b, c), (pq, pv, ptau)),
             ('centroidal_momentum_matrix', robot.centroidal_momentum_matrix, (q,),
              lambda a: pin.ccrba(model, data, a, np.zeros(model.nv)), (pq,)))
    rows = []
    for name, ours, ours_args, theirs, theirs_args in cases:
        mine = [tuple(a[k % 16] for a in ours_args) for k in range(calls)]
        other = [tuple(a[k % 16] for a in theirs_args) for k in range(calls)]
        (w1, c1), (w2, c2) = alternated(ours, theirs, mine, other, repeats)
        rows.append((label, f'{robot.nq}/{robot.nv}', name, w1 * 1e6, c1 * 1e6, w2 * 1e6,
                     c2 * 1e6, c1 / c2))
    return rows


def batch_rows(twin, label: str, count: int, repeats: int) -> list:
    """Return rows (robot, algorithm, ours on default threads and one, Pinocchio loop, ratios)."""
    robot, model, data = twin.robot, twin.model, twin.data
    (q, qd, qdd, tau), (pq, pv, pa, ptau) = states(twin, count, 1)

    def loop(function, *arrays):
        def run():
            for k in range(count):
                function(model, data, *(a[k] for a in arrays))
        return run
    cases = (('inverse_dynamics', lambda: robot.inverse_dynamics(q, qd, qdd),
              loop(pin.rnea, pq, pv, pa)),
             ('mass_matrix', lambda: robot.mass_matrix(q), loop(pin.crba, pq)),
             ('forward_dynamics', lambda: robot.forward_dynamics(q, qd, tau),
              loop(pin.aba, pq, pv, ptau)))
    threads = runtime.batch_threads
    rows = []
    for name, ours, theirs in cases:
        start = time.perf_counter()
        while time.perf_counter() - start < 0.3:   # the second core's slow start
            ours()
        (w_par, c_par), (w_pin, c_pin) = alternated(ours, theirs, [()], [()], repeats)
        runtime.batch_threads = 1
        try:
            (w_one, c_one), _ = alternated(ours, theirs, [()], [()], max(3, repeats // 3))
        finally:
            runtime.batch_threads = threads
        per = 1e6 / count
        rows.append((label, name, w_par * per, c_par * per, w_one * per, c_one * per,
                     w_pin * per, c_pin * per, w_pin / w_par, c_pin / c_one))
    return rows


def markdown(header: tuple, rows: list) -> str:
    """Return a markdown table; floats with 2 decimals."""
    lines = ['| ' + ' | '.join(header) + ' |', '|' + '---|' * len(header)]
    for row in rows:
        lines.append('| ' + ' | '.join(f'{x:.2f}' if isinstance(x, float) else str(x)
                                       for x in row) + ' |')
    return '\n'.join(lines)


def main() -> int:
    """Print the two tables."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--repeats', type=int, default=15)
    parser.add_argument('--calls', type=int, default=200)
    parser.add_argument('--batch', type=int, default=1000)
    args = parser.parse_args()
    print(f'Floating bases against Pinocchio {pin.__version__}, '
          f'{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, '
          f'load average {os.getloadavg()[0]:.1f}, threads {runtime.batch_threads}\n')
    twins = []
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for label, relative, root, joint in ROBOTS:
            twins.append((label, twin_of(relative, root, joint)))
    single, batch = [], []
    for label, twin in twins:
        twin.robot.warm_up()
        single += single_rows(twin, label, args.repeats, args.calls)
    print('Single calls, us per call (median of alternated runs)\n')
    print(markdown(('robot', 'nq/nv', 'algorithm', 'ours wall', 'ours CPU', 'Pinocchio wall',
                    'Pinocchio CPU', 'ours / Pinocchio (CPU)'), single))
    for label, twin in twins:
        batch += batch_rows(twin, label, args.batch, args.repeats)
    print(f'\nBatches of {args.batch} states, us per state\n')
    print(markdown(('robot', 'algorithm', 'ours wall', 'ours CPU', 'ours 1 thread wall',
                    'ours 1 thread CPU', 'Pinocchio loop wall', 'Pinocchio loop CPU',
                    'Pinocchio / ours (wall)', 'Pinocchio / ours 1 thread (CPU)'), batch))
    print(f'\nload average after: {os.getloadavg()[0]:.1f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
