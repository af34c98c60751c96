# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The same public calls timed on two commits in one run, to see whether a change slowed them.

    python benchmarks/bench_before_after.py [--base 8b9799e] [--rounds 5] [--skip cold]

The base commit is checked out (``git worktree``) under /tmp with its C extension built in
place (``setup.py build_ext --inplace``); each round runs one fresh child process per
checkout, base and this checkout alternately (load drift hits both), and every child times
the same calls through the public API only (RobotModel, Simulator, rollout), on the same
states: single calls (inverse dynamics, gravity, mass matrix, forward dynamics, Jacobian) on
Panda, UR5 and Talos reduced; batches of 1000 states; 1000 simulator steps; a rollout of 64
x 200 steps; floating-base single calls (solo12, when the base has them). Then start-up in
fresh processes: import, load the Panda, first result with the kernel cache warm; and the
cold compile on an empty cache, in CPU time: each of the base's entry points (with the
kernels it calls), in the base's order, then this checkout's new ones ("every entry point").

Rows: the median over rounds of each child's median CPU time per call (us), the ratio
this / base (above 1: slower) and the range of the rounds' own ratios. Children write and
reuse bytecode (a cache per checkout), as an installed package does. Benchmarks are not
tests: nothing here asserts a time.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CHILD = r"""
import json, os, statistics, sys, time, warnings
import numpy as np
warnings.simplefilter('ignore')
from ros_dynamics import RobotModel
try:
    from ros_dynamics.simulation import Simulator
except ImportError:
    from ros_dynamics.simulation.simulator import Simulator
from ros_dynamics.rollouts import rollout
base, repeats = sys.argv[1], int(sys.argv[2])
out = {}


def timed(name, function, calls):
    for args in calls[:20]:
        function(*args)
    samples = []
    for _ in range(repeats):
        cpu = time.process_time()
        for args in calls:
            function(*args)
        samples.append((time.process_time() - cpu) / len(calls))
    out[name] = statistics.median(samples) * 1e6


def robot_of(path, **keywords):
    return RobotModel.from_urdf_file(os.path.join(base, path), **keywords)


rng = np.random.default_rng(0)
for label, path in (('Panda', 'panda_description/urdf/panda.urdf'),
                    ('UR5', 'ur_description/urdf/ur5_robot.urdf'),
                    ('Talos reduced', 'talos_data/robots/talos_reduced.urdf')):
    robot = robot_of(path)
    n = robot.dof
    q, qd, qdd = (rng.uniform(-1, 1, (16, n)) for _ in range(3))
    tau = robot.inverse_dynamics(q, qd, qdd)
    calls = [(q[k % 16], qd[k % 16], qdd[k % 16]) for k in range(1000)]
    timed(f'{label}: inverse_dynamics', robot.inverse_dynamics, calls)
    timed(f'{label}: gravity_torques', robot.gravity_torques, [(c[0],) for c in calls])
    timed(f'{label}: mass_matrix', robot.mass_matrix, [(c[0],) for c in calls])
    timed(f'{label}: forward_dynamics', robot.forward_dynamics,
          [(q[k % 16], qd[k % 16], tau[k % 16]) for k in range(1000)])
    link = {'Panda': 'panda_hand', 'UR5': 'tool0', 'Talos reduced': 'arm_left_7_link'}[label]
    timed(f'{label}: jacobian', lambda x: robot.jacobian(x, link), [(c[0],) for c in calls])
    Q, QD, QDD = (rng.uniform(-1, 1, (1000, n)) for _ in range(3))
    TAU = robot.inverse_dynamics(Q, QD, QDD)
    for name, function, args in (('inverse_dynamics', robot.inverse_dynamics, (Q, QD, QDD)),
                                 ('mass_matrix', robot.mass_matrix, (Q,)),
                                 ('forward_dynamics', robot.forward_dynamics, (Q, QD, TAU))):
        timed(f'{label}: {name}, batch of 1000 (per state)', function, [args])
        out[f'{label}: {name}, batch of 1000 (per state)'] /= 1000
panda = robot_of('panda_description/urdf/panda.urdf')
sim = Simulator(panda, dt=1e-3)
timed('Panda: Simulator.step(1000) (per step)', sim.step, [(1000,)])
out['Panda: Simulator.step(1000) (per step)'] /= 1000
q0 = np.tile(panda.neutral_configuration() if hasattr(panda, 'neutral_configuration')
             else np.zeros(panda.dof), (64, 1))
controls = np.zeros((64, 200, panda.dof))
timed('Panda: rollout 64 x 200 (per step)',
      lambda: rollout(panda, q0, np.zeros((64, panda.dof)), controls, dt=1e-3), [()])
out['Panda: rollout 64 x 200 (per step)'] /= 64 * 200
try:
    solo = robot_of('solo_description/robots/solo12.urdf', root_joint='floating')
except TypeError:
    solo = None
if solo is not None:
    qs = np.array([solo.random_configuration(rng) for _ in range(16)])
    vs, acc = rng.uniform(-1, 1, (16, solo.nv)), rng.uniform(-1, 1, (16, solo.nv))
    taus = solo.inverse_dynamics(qs, vs, acc)
    calls = [(qs[k % 16], vs[k % 16], acc[k % 16]) for k in range(1000)]
    timed('solo12 (free-flyer): inverse_dynamics', solo.inverse_dynamics, calls)
    timed('solo12 (free-flyer): mass_matrix', solo.mass_matrix, [(c[0],) for c in calls])
    timed('solo12 (free-flyer): forward_dynamics', solo.forward_dynamics,
          [(qs[k % 16], vs[k % 16], taus[k % 16]) for k in range(1000)])
print(json.dumps(out))
"""

STARTUP = r"""
import json, os, sys, time
wall, cpu = time.perf_counter(), time.process_time()
import numpy as np
from ros_dynamics import RobotModel
robot = RobotModel.from_urdf_file(os.path.join(sys.argv[1],
                                               'panda_description/urdf/panda.urdf'))
robot.inverse_dynamics(np.zeros(robot.dof), np.zeros(robot.dof), np.zeros(robot.dof))
print(json.dumps({'start-up, warm cache: import + Panda + first result (wall)':
                  (time.perf_counter() - wall) * 1e6,
                  'start-up, warm cache: import + Panda + first result (CPU)':
                  (time.process_time() - cpu) * 1e6}))
"""

COLD = r"""
import json, sys, time
try:   # the base's first: its package extends its path to an installed ros_dynamics/runtime
    from ros_dynamics import _jit as jit
except ImportError:
    from ros_dynamics.runtime import jit
entries = {entry.__name__: entry for entry in jit.entry_points()}
if sys.argv[1] == 'list':
    print(json.dumps(list(entries)))
    sys.exit()
common = sys.argv[1].split(',')   # the base's entry points, in the base's order
out, shared, every = {}, 0.0, 0.0
for name in common + [name for name in entries if name not in common]:
    start = time.process_time()
    jit.ensure_compiled(entries[name])
    seconds = time.process_time() - start
    every += seconds
    if name in common:
        shared += seconds
        out[f'cold compile: {name} (CPU)'] = seconds * 1e6
out["cold compile: the base's entry points (CPU)"] = shared * 1e6
out['cold compile: every entry point (CPU)'] = every * 1e6
print(json.dumps(out))
"""


def robots_dir() -> str:
    """Return example-robot-data's robots/ directory (as the tests find it)."""
    sys.path.insert(0, os.path.join(ROOT, 'test'))
    from robot_data import example_robot_data_dir   # noqa: I100
    return example_robot_data_dir()


def base_checkout(revision: str) -> str:
    """Return a checkout of ``revision`` with its C extension built in place."""
    sha = subprocess.run(['git', 'rev-parse', '--short', revision], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.strip()
    path = os.path.join(tempfile.gettempdir(), f'ros_dynamics-base-{sha}')
    if not os.path.isdir(path):
        subprocess.run(['git', 'worktree', 'add', '--detach', path, sha], cwd=ROOT, check=True)
        subprocess.run([sys.executable, 'setup.py', '-q', 'build_ext', '--inplace'], cwd=path,
                       check=True, capture_output=True)
    return path


def child(checkout: str, code: str, args: list, cache: str) -> dict:
    """Run ``code`` in a fresh interpreter importing ``checkout``'s package; return its JSON."""
    env = dict(os.environ, PYTHONPATH=checkout, ROS_DYNAMICS_CACHE_DIR=cache,
               ROS_DYNAMICS_PRECOMPILE='0', PYTHONPYCACHEPREFIX=os.path.join(cache, 'pycache'))
    env.pop('PYTHONDONTWRITEBYTECODE', None)   # warm means bytecode cached too, as installed
    result = subprocess.run([sys.executable, '-c', code, *args], cwd=tempfile.gettempdir(),
                            env=env, capture_output=True, text=True, timeout=3600)
    if result.returncode:
        raise RuntimeError(f'{checkout}: {result.stderr[-2000:]}')
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> int:
    """Time both checkouts alternately and print the table (markdown)."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--base', default='8b9799e', help='the commit before the change')
    parser.add_argument('--rounds', type=int, default=5, help='alternated rounds (median)')
    parser.add_argument('--repeats', type=int, default=7, help='repeats inside each child')
    parser.add_argument('--skip', nargs='*', default=[], choices=('calls', 'startup', 'cold'))
    options = parser.parse_args()
    robots = robots_dir()
    checkouts = {'base': base_checkout(options.base), 'this': ROOT}
    caches = {name: tempfile.mkdtemp(prefix=f'rd-cache-{name}-') for name in checkouts}
    samples = {name: {} for name in checkouts}

    def add(name, result):
        for key, value in result.items():
            samples[name].setdefault(key, []).append(value)
    for name, path in checkouts.items():   # fill each checkout's cache (not timed)
        child(path, STARTUP, [robots], caches[name])
    for _ in range(options.rounds):
        for name, path in checkouts.items():
            if 'calls' not in options.skip:
                add(name, child(path, CHILD, [robots, str(options.repeats)], caches[name]))
            if 'startup' not in options.skip:
                add(name, child(path, STARTUP, [robots], caches[name]))
    if 'cold' not in options.skip:   # the base's entry points first, in its order, then ours
        common = ','.join(child(checkouts['base'], COLD, ['list'], caches['base']))
        for _ in range(2):
            for name, path in checkouts.items():
                add(name, child(path, COLD, [common], tempfile.mkdtemp(prefix='rd-cold-')))
    load = os.getloadavg()
    print(f'base {options.base} ({checkouts["base"]}) against this checkout; '
          f'{options.rounds} alternated rounds; load average at the end {load[0]:.2f}')
    print('\n| what | base (us, CPU) | this (us, CPU) | this / base | rounds |'
          '\n|---|---|---|---|---|')
    for key in samples['this']:
        if key not in samples['base']:
            continue
        old = statistics.median(samples['base'][key])
        new = statistics.median(samples['this'][key])
        rounds = [b / a for a, b in zip(samples['base'][key], samples['this'][key])]
        print(f'| {key} | {old:.3f} | {new:.3f} | {new / old:.3f} | '
              f'{min(rounds):.2f}-{max(rounds):.2f} |')
    return 0


if __name__ == '__main__':
    sys.exit(main())
