# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Benchmark the ros_dynamics core against Pinocchio, in one process, on the same states.

Prints four tables (markdown) with the CPU model and the date:

1. single calls through the public API on Panda, UR5 and Talos reduced
   (example-robot-data): our median time per call, Pinocchio's median for the
   same states measured in the same run (interleaved, so load drift hits both),
   and the ratio ours / Pinocchio;
2. batches of N states (N, dof) in one call against a Python loop over
   Pinocchio, per state, on all threads (``ROS_DYNAMICS_THREADS``, default: numba's
   thread count, i.e. the cores) and on one;
3. RNEA and ABA on generated serial chains of 10, 100 and 1000 joints, time
   per joint;
4. start-up in fresh subprocesses: import + load the Panda URDF + first
   result, then every kernel, with an empty cache (cold), a filled one (warm),
   and from a read-only copy of the package without any writable cache
   directory (compiles in memory).

Run: ``make bench`` or ``python benchmarks/bench_core.py`` (Pinocchio and
example-robot-data are benchmark/test-only dependencies). Benchmarks are not
tests: nothing here asserts a time.
"""

import argparse
import datetime
import glob
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)   # measure this checkout
sys.path.insert(0, HERE)

from chains import serial_chain_urdf  # noqa: E402, I100
from ros_dynamics import RobotModel  # noqa: E402
from ros_dynamics.runtime import batches as runtime  # noqa: E402

try:
    import pinocchio as pin  # noqa: E402
except ImportError:   # pragma: no cover - a benchmark-only dependency
    sys.exit('bench_core.py needs Pinocchio: pip install pin example-robot-data')

PIN_MAX_JOINTS = 100
ROBOTS = (   # label, URDF relative to example-robot-data/robots, follow mimic tags, task link
    ('Panda', 'panda_description/urdf/panda.urdf', False, 'panda_hand'),
    ('Panda mimic', 'panda_description/urdf/panda.urdf', True, 'panda_hand'),
    ('UR5', 'ur_description/urdf/ur5_robot.urdf', True, 'tool0'),
    ('Talos reduced', 'talos_data/robots/talos_reduced.urdf', True, 'arm_left_7_link'),
)


def cpu_model() -> str:
    """Return the CPU model name from /proc/cpuinfo (or platform's guess)."""
    try:
        with open('/proc/cpuinfo') as cpuinfo:
            for line in cpuinfo:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or 'unknown CPU'


def robots_dir() -> str:
    """Return example-robot-data's robots/ directory in this interpreter's prefix."""
    for root in [sys.prefix] + [p for p in sys.path if p.endswith('site-packages')]:
        hits = glob.glob(os.path.join(root, '**', 'cmeel.prefix', 'share',
                                      'example-robot-data', 'robots'), recursive=True)
        if hits:
            return hits[0]
    sys.exit('example-robot-data is not installed (pip install example-robot-data)')


def interleaved(ours, theirs, calls_ours: list, calls_theirs: list, repeats: int) -> tuple:
    """Return the median seconds per call of ``ours`` and ``theirs``, timed alternately."""
    def once(function, calls):
        start = time.perf_counter()
        for args in calls:
            function(*args)
        return (time.perf_counter() - start) / len(calls)
    once(ours, calls_ours[:50])
    if theirs is not None:
        once(theirs, calls_theirs[:50])
    mine, other = [], []
    for _ in range(repeats):
        mine.append(once(ours, calls_ours))
        if theirs is not None:
            other.append(once(theirs, calls_theirs))
    return statistics.median(mine), statistics.median(other) if other else float('nan')


class Pair:
    """Our model and Pinocchio's for one URDF, with maps between their coordinates."""

    def __init__(self, path: str, mimic: bool) -> None:
        """Load both models; Pinocchio's as its default (every mimic joint independent)."""
        self.robot = RobotModel.from_urdf_file(path, mimic=mimic)
        self.model = pin.buildModelFromUrdf(path)
        self.data = self.model.createData()
        names = list(self.robot.all_joint_names)
        robot = self.robot
        # full (Pinocchio) coordinates from ours: q_full = G q + o, qd_full = G qd
        self.expand = np.zeros((self.model.nv, robot.dof))
        self.offset = np.zeros(self.model.nq)
        for body, name in enumerate(names):
            joint = self.model.getJointId(name)
            index = self.model.joints[joint].idx_v
            self.expand[index, robot._ints[body, 2]] = robot._reals[body, 25]
            self.offset[self.model.joints[joint].idx_q] = robot._reals[body, 26]

    def states(self, count: int, seed: int = 0) -> tuple:
        """Return ours (q, qd, qdd_or_tau) and Pinocchio's for ``count`` random states."""
        rng = np.random.default_rng(seed)
        dof = self.robot.dof
        q, qd, qdd = (rng.uniform(-1.0, 1.0, (count, dof)) for _ in range(3))
        tau = self.robot.inverse_dynamics(q, qd, qdd)
        pq, pv, pa = q @ self.expand.T + self.offset, qd @ self.expand.T, qdd @ self.expand.T
        ptau = np.array([pin.rnea(self.model, self.data, *s) for s in zip(pq, pv, pa)])
        return (q, qd, qdd, tau), (pq, pv, pa, ptau)


def single_table(base: str, repeats: int, calls: int) -> list:
    """Return rows (robot, dof, algorithm, ours us, Pinocchio us, ratio) of single calls."""
    rows = []
    for label, relative, mimic, link in ROBOTS:
        pair = Pair(os.path.join(base, relative), mimic)
        robot, model, data = pair.robot, pair.model, pair.data
        (q, qd, qdd, tau), (pq, pv, pa, ptau) = pair.states(16)
        frame = model.getFrameId(link)
        cases = (
            ('inverse_dynamics', robot.inverse_dynamics, (q, qd, qdd),
             lambda a, b, c: pin.rnea(model, data, a, b, c), (pq, pv, pa)),
            ('gravity_torques', robot.gravity_torques, (q,),
             lambda a: pin.computeGeneralizedGravity(model, data, a), (pq,)),
            ('mass_matrix', robot.mass_matrix, (q,),
             lambda a: pin.crba(model, data, a), (pq,)),
            ('forward_dynamics', robot.forward_dynamics, (q, qd, tau),
             lambda a, b, c: pin.aba(model, data, a, b, c), (pq, pv, ptau)),
            ('jacobian', lambda a: robot.jacobian(a, link), (q,),
             lambda a: pin.computeFrameJacobian(model, data, a, frame,
                                                pin.LOCAL_WORLD_ALIGNED), (pq,)),
            ('operational_space', lambda a, b: robot.operational_space(a, b, link), (q, qd),
             None, (pq, pv)),
        )
        for name, ours, ours_args, theirs, theirs_args in cases:
            n = calls if name != 'operational_space' else max(calls // 20, 20)
            mine = [tuple(a[k % 16] for a in ours_args) for k in range(n)]
            other = [tuple(a[k % 16] for a in theirs_args) for k in range(n)]
            t_ours, t_pin = interleaved(ours, theirs, mine, other, repeats)
            rows.append((label, f'{robot.dof}/{model.nv}', name, t_ours * 1e6, t_pin * 1e6,
                         t_ours / t_pin))
    return rows


def batch_table(base: str, count: int, repeats: int) -> list:
    """Return rows (robot, algorithm, ours 2 threads, ours 1 thread, Pinocchio loop, speedup)."""
    rows = []
    threads = runtime.batch_threads
    for label, relative, mimic, _ in ROBOTS:
        pair = Pair(os.path.join(base, relative), mimic)
        robot, model, data = pair.robot, pair.model, pair.data
        (q, qd, qdd, tau), (pq, pv, pa, ptau) = pair.states(count, seed=1)

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
        for name, ours, theirs in cases:
            # warm up for 0.3 s: on these VMs the second core runs the first ~100 ms of a
            # parallel load at about half speed (measured: 3.7 -> 2.0 us per Talos state
            # after ~30 batch calls, pinned thread or not)
            start = time.perf_counter()
            while time.perf_counter() - start < 0.3:
                ours()
            t_par, t_pin = interleaved(ours, theirs, [()], [()], repeats)
            runtime.batch_threads = 1
            try:
                t_one, _ = interleaved(ours, None, [()], [()], repeats)
            finally:
                runtime.batch_threads = threads
            rows.append((label, name, t_par / count * 1e6, t_one / count * 1e6,
                         t_pin / count * 1e6, t_pin / t_par))
    return rows


def scaling_table(repeats: int) -> list:
    """Return rows (joints, algorithm, ours us and ns/joint, Pinocchio us and ns/joint)."""
    rows = []
    for joints in (10, 100, 1000):
        xml = serial_chain_urdf(joints)
        robot = RobotModel.from_urdf_string(xml)
        # Pinocchio's Data grows superlinearly with a serial chain's length (0.6 GB at 200
        # joints, 4 GB at 400 on this machine): it is only timed up to 100 joints
        with_pin = joints <= PIN_MAX_JOINTS
        model = pin.buildModelFromXML(xml if with_pin else serial_chain_urdf(1))
        data = model.createData()
        rng = np.random.default_rng(joints)
        states = [tuple(rng.uniform(-1.0, 1.0, joints) for _ in range(3)) for _ in range(8)]
        calls = max(20, 20000 // joints)
        for name, ours, theirs in (('inverse_dynamics', robot.inverse_dynamics,
                                    lambda a, b, c: pin.rnea(model, data, a, b, c)),
                                   ('forward_dynamics', robot.forward_dynamics,
                                    lambda a, b, c: pin.aba(model, data, a, b, c))):
            args = [states[k % 8] for k in range(calls)]
            t_ours, t_pin = interleaved(ours, theirs if with_pin else None, args, args, repeats)
            rows.append((joints, name, t_ours * 1e6, t_ours / joints * 1e9,
                         t_pin * 1e6, t_pin / joints * 1e9, batch_per_state(ours, joints)))
    return rows


def batch_per_state(function, joints: int, states: int = 200) -> float:
    """
    Return the time per state (s) of one (states, joints) batch call on one thread.

    The algorithm's own cost: the Python call and argument checks, fixed per
    call, are spread over the batch.
    """
    rng = np.random.default_rng(joints + 1)
    q, qd, x = (rng.uniform(-1.0, 1.0, (states, joints)) for _ in range(3))
    saved = runtime.batch_threads
    runtime.batch_threads = 1
    try:
        function(q, qd, x)
        best = float('inf')
        for _ in range(5):
            start = time.perf_counter()
            function(q, qd, x)
            best = min(best, time.perf_counter() - start)
    finally:
        runtime.batch_threads = saved
    return best / states


STARTUP_CHILD = r"""
import json, sys, time
start = time.perf_counter()
if {memory!r}:
    import tempfile
    tempfile.tempdir = '/dev/null'   # an unwritable temporary directory (even for root)
import numpy as np
from ros_dynamics import RobotModel
import ros_dynamics
from ros_dynamics.runtime import jit as _jit
imported = time.perf_counter()
robot = RobotModel.from_urdf_file({path!r})
loaded = time.perf_counter()
q = np.full(robot.dof, 0.1)
robot.inverse_dynamics(q, q, q)
first = time.perf_counter()
robot.gravity_torques(q); robot.mass_matrix(q); robot.forward_dynamics(q, q, q)
robot.jacobian(q, 'panda_hand'); robot.operational_space(q, q, 'panda_hand')
core = time.perf_counter()
batch = np.tile(q, (4, 1))
robot.inverse_dynamics(batch, batch, batch); robot.mass_matrix(batch)
robot.forward_dynamics(batch, batch, batch)
robot.coriolis_matrix(q, q); robot.kinetic_energy(q, q); robot.potential_energy(q)
robot.link_pose(q, 'panda_hand'); robot.jacobian_dot_qd(q, q, 'panda_hand')
robot.inverse_dynamics(q, q, q, external_wrenches={{'panda_hand': [1, 0, 0, 0, 0, 0]}})
done = time.perf_counter()
if _jit.CACHE_DIR is not None:   # let the background warmer finish, then load its kernels
    import os
    while os.path.exists(os.path.join(_jit.CACHE_DIR, 'warming.lock')):
        time.sleep(0.01)
_jit.warm_cache()                # every entry point of the package (the simulator's too)
every = time.perf_counter()
print(json.dumps(dict(imported=imported - start, first=first - start, core=core - start,
                      all=done - start, every=every - start, cache=_jit.CACHE_DIR,
                      package=ros_dynamics.__file__)))
"""


def run_child(path: str, env: dict, package_root: str, memory: bool = False) -> dict:
    """Run the start-up script in a fresh interpreter and return its timings."""
    env = dict(env, PYTHONPATH=package_root)
    code = STARTUP_CHILD.format(path=path, memory=memory)
    start = time.perf_counter()
    # cwd: the package root, so that `python -c` (cwd first on sys.path) imports that copy
    result = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True,
                            text=True, check=False, cwd=package_root)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f'start-up child failed:\n{result.stderr}')
    timings = json.loads(result.stdout.strip().splitlines()[-1])
    timings['wall'] = wall
    return timings


def startup_table(base: str) -> list:
    """Return rows (scenario, cache dir, import s, first result s, core s, all s, process s)."""
    path = os.path.join(base, 'panda_description/urdf/panda.urdf')
    env = {k: v for k, v in os.environ.items()
           if k not in ('ROS_DYNAMICS_CACHE_DIR', 'PYTHONPATH')}
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        cache = os.path.join(scratch, 'cache')
        fresh = dict(env, ROS_DYNAMICS_CACHE_DIR=cache)
        rows.append(('cold (empty cache)', run_child(path, fresh, ROOT)))
        rows.append(('warm', run_child(path, fresh, ROOT)))
        # a read-only install: a copy of the package without write permission, HOME
        # unwritable, no ROS_DYNAMICS_CACHE_DIR / XDG_CACHE_HOME: the cache falls back to
        # $TMPDIR/ros_dynamics-<uid>, and with no writable temporary directory either
        # the kernels compile in memory
        install = os.path.join(scratch, 'install')
        shutil.copytree(os.path.join(ROOT, 'ros_dynamics'),
                        os.path.join(install, 'ros_dynamics'),
                        ignore=shutil.ignore_patterns('__pycache__', 'nodes'))
        for directory, _, files in os.walk(install):
            for name in files:
                os.chmod(os.path.join(directory, name), 0o444)
            os.chmod(directory, 0o555)
        tmp = os.path.join(scratch, 'tmp')
        os.mkdir(tmp)
        readonly = {k: v for k, v in env.items() if k != 'XDG_CACHE_HOME'}
        readonly.update(HOME='/dev/null', TMPDIR=tmp)
        rows.append(('read-only install, cold', run_child(path, readonly, install)))
        rows.append(('read-only install, warm', run_child(path, readonly, install)))
        rows.append(('nothing writable (in memory)',
                     run_child(path, readonly, install, memory=True)))
        for directory, _, _ in os.walk(install):
            os.chmod(directory, 0o755)
    return rows


def markdown(header: tuple, rows: list, formats: tuple) -> str:
    """Return a markdown table."""
    lines = ['| ' + ' | '.join(header) + ' |', '|' + '|'.join('---' for _ in header) + '|']
    for row in rows:
        cells = ('-' if isinstance(v, float) and v != v else f.format(v)   # NaN: not measured
                 for f, v in zip(formats, row))
        lines.append('| ' + ' | '.join(cells) + ' |')
    return '\n'.join(lines)


def main() -> int:
    """Run the benchmarks selected on the command line and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--repeats', type=int, default=15, help='timing repeats (median)')
    parser.add_argument('--calls', type=int, default=2000, help='calls per single-call repeat')
    parser.add_argument('--states', type=int, default=1000, help='states per batch')
    parser.add_argument('--skip', nargs='*', default=[],
                        choices=('single', 'batch', 'scaling', 'startup'))
    options = parser.parse_args()
    base = robots_dir()
    print('# ros_dynamics core benchmark')
    print(f'{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {cpu_model()}, '
          f'{os.cpu_count()} cores; Python {platform.python_version()}, numpy {np.__version__}, '
          f'numba {numba.__version__}, batches on {runtime.batch_threads} threads, '
          f'Pinocchio {pin.__version__}')
    print('Times are medians over repeats; ratio = ours / Pinocchio (lower is better). '
          "'dof' is ours/Pinocchio's nv ('Panda mimic' follows the finger's mimic tag; "
          'Pinocchio treats it as independent and runs its states expanded).\n')
    if 'single' not in options.skip:
        print('## Single call through the public API (us)\n')
        rows = single_table(base, options.repeats, options.calls)
        print(markdown(('robot', 'dof', 'algorithm', 'ours', 'Pinocchio', 'ratio'), rows,
                       ('{}', '{}', '{}', '{:.2f}', '{:.2f}', '{:.2f}')))
        print()
    if 'batch' not in options.skip:
        print(f'## Batch of {options.states} states (N, dof) in one call, us per state\n')
        rows = batch_table(base, options.states, max(3, options.repeats // 3))
        print(markdown(('robot', 'algorithm', 'ours (all threads)', 'ours (1 thread)',
                        'Pinocchio loop', 'speedup'), rows,
                       ('{}', '{}', '{:.3f}', '{:.3f}', '{:.3f}', '{:.1f}x')))
        print()
    if 'scaling' not in options.skip:
        print('## Serial chains (benchmarks/chains.py), single call\n')
        rows = scaling_table(max(3, options.repeats // 3))
        print(markdown(('joints', 'algorithm', 'ours us', 'ours ns/joint', 'Pinocchio us',
                        'Pinocchio ns/joint', 'ours in a batch, ns/joint'),
                       [row[:6] + (row[6] / row[0] * 1e9,) for row in rows],
                       ('{}', '{}', '{:.2f}', '{:.1f}', '{:.2f}', '{:.1f}', '{:.1f}')))
        print(f'\n(Pinocchio is not timed above {PIN_MAX_JOINTS} joints: its Data for a '
              'serial chain needs gigabytes from a few hundred joints on.)')
        for name in ('inverse_dynamics', 'forward_dynamics'):
            per_joint = [r[3] for r in rows if r[1] == name]
            batched = [r[6] / r[0] for r in rows if r[1] == name]
            print(f'\n{name}: ours max/min time per joint over 10-1000 joints = '
                  f'{max(per_joint) / min(per_joint):.2f} single calls, '
                  f'{max(batched) / min(batched):.2f} per state of a batch (200 states, 1 '
                  'thread: the algorithm without the per-call Python cost)')
        print()
    if 'startup' not in options.skip:
        print('## Start-up (Panda, fresh process; seconds since the start of the process)\n')
        rows = startup_table(base)
        print(markdown(('scenario', 'import', 'first result', 'core kernels', 'all kernels',
                        'every kernel', 'process', 'cache directory'),
                       [(name, t['imported'], t['first'], t['core'], t['all'], t['every'],
                         t['wall'], t['cache'] or 'none (in memory)') for name, t in rows],
                       ('{}', '{:.2f}', '{:.2f}', '{:.2f}', '{:.2f}', '{:.2f}', '{:.2f}',
                        '{}')))
        print('\nfirst result: import + load URDF + inverse_dynamics; core kernels: + gravity, '
              'M, forward dynamics, Jacobian, operational space; all kernels: + batches, '
              'Coriolis, energies, poses, dJ/dt qd, external wrenches (every kernel a Panda '
              'uses); every kernel: + every other entry point of the package (the simulator step, '
              'ABA for models without mimic joints) compiled or loaded in this process, '
              'after the background warmer has finished.')
    return 0


if __name__ == '__main__':
    sys.exit(main())
