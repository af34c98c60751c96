# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0


"""
Benchmark the real-arm model terms: armature, joint friction, payloads.

Prints (markdown) for the Panda arm of ``urdf/panda_arm.urdf`` (7 dof):

1. single calls through the public API on the plain model and on the same
   arm with armature on every joint, the Gaz et al. friction of
   ``config/panda_actuators.yaml`` and a payload at ``panda_hand_tcp``,
   timed alternately in one process (median us, ratio real / plain), plus
   ``inverse_dynamics(..., friction=True)`` against ``friction=False``;
2. the same for batches of N states in one call (us per state);
3. the cost of ``set_payload``, ``clear_payload``, setting ``armature``,
   and of the first call after a change (it binds the new packed model),
   each as a user calls it (arguments built once);
4. with ``--baseline DIR`` (another checkout, e.g. main, with its C
   extension built): the plain model's single calls, batches and model
   changes in that checkout and in this one, each in fresh subprocesses
   run alternately, i.e. what the armature and friction columns cost a
   model that does not use them, and what a change costs in either.

Wall time (perf_counter) and CPU time (process_time, all threads of the
process) are both given. Run: ``python benchmarks/bench_real_arm.py``.
Benchmarks are not tests: nothing here asserts a time.
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PANDA = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
ACTUATORS = os.path.join(ROOT, 'config', 'panda_actuators.yaml')
ARMATURE = (0.30, 0.30, 0.20, 0.20, 0.10, 0.10, 0.10)   # kg m^2, typical reflected rotors
ALGORITHMS = ('inverse_dynamics', 'gravity_torques', 'mass_matrix', 'forward_dynamics',
              'kinetic_energy', 'operational_space')


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


def states(dof: int, count: int, seed: int = 0) -> tuple:
    """Return random positions, velocities and accelerations, each (count, dof)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    q = rng.uniform(-1.0, 1.0, (count, dof))
    q[:, 3] = rng.uniform(-2.5, -0.5, count)   # panda_joint4 within its limits
    return q, rng.uniform(-1.0, 1.0, (count, dof)), rng.uniform(-1.0, 1.0, (count, dof))


def calls_of(robot, q, qd, qdd, batch: bool) -> dict:
    """Return {algorithm: (function, argument tuples)} for single states or one batch."""
    tau = robot.inverse_dynamics(q, qd, qdd)
    rows = [slice(None)] if batch else range(q.shape[0])
    out = {
        'inverse_dynamics': (robot.inverse_dynamics, [(q[k], qd[k], qdd[k]) for k in rows]),
        'gravity_torques': (robot.gravity_torques, [(q[k],) for k in rows]),
        'mass_matrix': (robot.mass_matrix, [(q[k],) for k in rows]),
        'forward_dynamics': (robot.forward_dynamics, [(q[k], qd[k], tau[k]) for k in rows]),
    }
    if not batch:
        out['kinetic_energy'] = (robot.kinetic_energy, [(q[k], qd[k]) for k in rows])
        out['operational_space'] = (lambda a, b: robot.operational_space(a, b, 'panda_hand_tcp'),
                                    [(q[k], qd[k]) for k in rows])
    return out


def timed(function, arguments: list, loops: int) -> tuple:
    """Return (wall, cpu) seconds per call of ``function`` over ``arguments``, ``loops`` times."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(loops):
        for args in arguments:
            function(*args)
    count = loops * len(arguments)
    return (time.perf_counter() - wall) / count, (time.process_time() - cpu) / count


def alternate(first, second, repeats: int, loops: int) -> tuple:
    """Time two (function, arguments) alternately; return medians (wall1, cpu1, wall2, cpu2)."""
    timed(*first, 1)
    timed(*second, 1)
    samples = [timed(*first, loops) + timed(*second, loops) for _ in range(repeats)]
    return tuple(statistics.median(s[k] for s in samples) for k in range(4))


def real_arm(robot_class):
    """Return the Panda with armature, the Gaz et al. friction and a 1.5 kg payload."""
    import numpy as np
    robot = robot_class.from_urdf_file(PANDA, actuators=ACTUATORS)
    robot.armature = np.array(ARMATURE)
    robot.set_payload('panda_hand_tcp', 1.5, (0.0, 0.01, 0.05), np.diag([4e-3, 5e-3, 3e-3]))
    return robot


def features_tables(repeats: int, count: int) -> None:
    """Print tables 1-3."""
    from ros_dynamics import RobotModel
    plain, real = RobotModel.from_urdf_file(PANDA), real_arm(RobotModel)
    q, qd, qdd = states(plain.dof, 16)
    for robot in (plain, real):
        robot.warm_up()
        robot.kinetic_energy(q[0], qd[0])
    print('## Single calls (us): plain Panda vs armature + friction + payload\n')
    print('| algorithm | plain wall | plain CPU | real wall | real CPU | ratio (wall) |')
    print('|---|---|---|---|---|---|')
    single_plain, single_real = calls_of(plain, q, qd, qdd, False), calls_of(real, q, qd, qdd,
                                                                             False)
    for name in ALGORITHMS:
        loops = 5 if name == 'operational_space' else 100
        w1, c1, w2, c2 = alternate(single_plain[name], single_real[name], repeats, loops)
        print(f'| {name} | {w1 * 1e6:.3f} | {c1 * 1e6:.3f} | {w2 * 1e6:.3f} | {c2 * 1e6:.3f} '
              f'| {w2 / w1:.3f} |')
    args = [(q[k], qd[k], qdd[k]) for k in range(16)]
    w1, c1, w2, c2 = alternate((real.inverse_dynamics, args),
                               (lambda a, b, c: real.inverse_dynamics(a, b, c, friction=True),
                                args), repeats, 100)
    print(f'| inverse_dynamics, friction=True vs False (real) | {w1 * 1e6:.3f} | '
          f'{c1 * 1e6:.3f} | {w2 * 1e6:.3f} | {c2 * 1e6:.3f} | {w2 / w1:.3f} |')
    w1, c1, w2, c2 = alternate((real.inverse_dynamics, args),
                               (real.friction_torques, [(b,) for _, b, _ in args]), repeats, 100)
    print(f'| friction_torques alone (vs ID) | {w1 * 1e6:.3f} | {c1 * 1e6:.3f} | '
          f'{w2 * 1e6:.3f} | {c2 * 1e6:.3f} | {w2 / w1:.3f} |')
    print()
    print(f'## Batches of {count} states in one call (us per state)\n')
    print('| algorithm | plain wall | plain CPU | real wall | real CPU | ratio (wall) |')
    print('|---|---|---|---|---|---|')
    bq, bqd, bqdd = states(plain.dof, count, seed=1)
    batch_plain = calls_of(plain, bq, bqd, bqdd, True)
    batch_real = calls_of(real, bq, bqd, bqdd, True)
    loops = max(1, 20000 // count)
    for name in batch_plain:
        w1, c1, w2, c2 = alternate(batch_plain[name], batch_real[name], repeats, loops)
        print(f'| {name} | {w1 / count * 1e6:.3f} | {c1 / count * 1e6:.3f} | '
              f'{w2 / count * 1e6:.3f} | {c2 / count * 1e6:.3f} | {w2 / w1:.3f} |')
    w1, c1, w2, c2 = alternate(
        (real.inverse_dynamics, [(bq, bqd, bqdd)]),
        (lambda a, b, c: real.inverse_dynamics(a, b, c, friction=True), [(bq, bqd, bqdd)]),
        repeats, loops)
    print(f'| inverse_dynamics, friction=True vs False (real) | {w1 / count * 1e6:.3f} | '
          f'{c1 / count * 1e6:.3f} | {w2 / count * 1e6:.3f} | {c2 / count * 1e6:.3f} | '
          f'{w2 / w1:.3f} |')
    print()
    print('## Changing the model (us per change)\n')
    print(f'Medians of {CHANGE_SAMPLES_PER_REPEAT * repeats} samples of 200 changes, and the '
          'least CPU time of them (the sample least disturbed by other processes on a shared '
          'machine).\n')
    print('| operation | wall | CPU | CPU, min |')
    print('|---|---|---|---|')
    for label, (wall, cpu, least) in change_timings(real, q[0], repeats).items():
        print(f'| {label} | {wall:.2f} | {cpu:.2f} | {least:.2f} |')
    print()


def change_cases(robot, q) -> tuple:
    """
    Return (label, function) for each model change timed on ``robot`` at state ``q``.

    Each function makes the calls a user makes, with its arguments built
    once (an armature array, an inertia), so that what is timed is the
    change, not numpy's constructors.
    """
    import numpy as np
    inertia = np.diag([4e-3, 5e-3, 3e-3])
    armature = np.array(ARMATURE)
    return (
        ('set_payload (link, m, com, 3x3 inertia)',
         lambda: robot.set_payload('panda_hand_tcp', 1.5, (0.0, 0.01, 0.05), inertia)),
        ('set_payload (point mass)', lambda: robot.set_payload('panda_hand_tcp', 1.5)),
        ('set_payload + clear_payload', lambda: (robot.set_payload('panda_link7', 0.5),
                                                 robot.clear_payload('panda_link7'))),
        ('armature = (7,) array', lambda: setattr(robot, 'armature', armature)),
        ('set_payload + first gravity_torques after it (binds the new model)',
         lambda: (robot.set_payload('panda_hand_tcp', 1.5), robot.gravity_torques(q))),
        ('gravity_torques alone (steady state)', lambda: robot.gravity_torques(q)),
    )


CHANGE_SAMPLES_PER_REPEAT = 5


def change_timings(robot, q, repeats: int) -> dict:
    """Return {label: (wall us, CPU us, least CPU us)} of ``change_cases``, medians."""
    out = {}
    for label, function in change_cases(robot, q):
        samples = [timed(function, [()], 200)
                   for _ in range(CHANGE_SAMPLES_PER_REPEAT * repeats)]
        out[label] = (statistics.median(s[0] for s in samples) * 1e6,
                      statistics.median(s[1] for s in samples) * 1e6,
                      min(s[1] for s in samples) * 1e6)
    return out


def plain_timings(repeats: int, count: int) -> dict:
    """Return {algorithm: (wall us, CPU us)} of the plain Panda: calls, batches, changes."""
    from ros_dynamics import RobotModel
    robot = RobotModel.from_urdf_file(PANDA)
    robot.warm_up()
    q, qd, qdd = states(robot.dof, 16)
    robot.kinetic_energy(q[0], qd[0])   # compiled (or loaded) before timing
    bq, bqd, bqdd = states(robot.dof, count, seed=1)
    out = {}
    for name, call in calls_of(robot, q, qd, qdd, False).items():
        loops = 5 if name == 'operational_space' else 100
        samples = [timed(*call, loops) for _ in range(repeats)]
        out[name] = [statistics.median(s[k] for s in samples) * 1e6 for k in range(2)]
    for name, call in calls_of(robot, bq, bqd, bqdd, True).items():
        loops = max(1, 20000 // count)
        samples = [timed(*call, loops) for _ in range(repeats)]
        out[f'{name} (batch)'] = [statistics.median(s[k] for s in samples) * 1e6 / count
                                  for k in range(2)]
    for label, (wall, cpu, _) in change_timings(robot, q[0], repeats).items():
        out[label] = [wall, cpu]
    return out


def baseline_table(baseline: str, repeats: int, count: int, rounds: int) -> None:
    """Print table 4: the plain model in ``baseline`` and here, fresh processes, alternately."""
    results = {'baseline': [], 'this': []}
    for _ in range(rounds):
        for label, root in (('baseline', baseline), ('this', ROOT)):
            path = os.pathsep.join([root] + [p for p in [os.environ.get('PYTHONPATH')] if p])
            env = dict(os.environ, PYTHONPATH=path, ROS_DYNAMICS_PRECOMPILE='0')
            output = subprocess.run(
                [sys.executable, os.path.abspath(__file__), '--plain-json',
                 '--repeats', str(repeats), '--states', str(count)],
                env=env, cwd=root, capture_output=True, text=True, check=True).stdout
            results[label].append(json.loads(output.strip().splitlines()[-1]))
    print(f'## Plain model: {baseline} vs this checkout (us; medians of {rounds} '
          'alternating fresh processes)\n')
    print('| algorithm | baseline wall | this wall | baseline CPU | this CPU | ratio (CPU) |')
    print('|---|---|---|---|---|---|')
    for name in results['this'][0]:
        a, b = (statistics.median(r[name][0] for r in results[k]) for k in ('baseline', 'this'))
        c, d = (statistics.median(r[name][1] for r in results[k]) for k in ('baseline', 'this'))
        print(f'| {name} | {a:.3f} | {b:.3f} | {c:.3f} | {d:.3f} | {d / c:.3f} |')
    print()


def main() -> int:
    """Run the benchmarks and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--repeats', type=int, default=15, help='timing repeats (median)')
    parser.add_argument('--states', type=int, default=1000, help='states per batch')
    parser.add_argument('--baseline', help='another checkout to compare the plain model with')
    parser.add_argument('--rounds', type=int, default=3, help='alternating rounds (baseline)')
    parser.add_argument('--plain-json', action='store_true', help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.plain_json:   # a child of --baseline: measure whatever ros_dynamics imports
        print(json.dumps(plain_timings(options.repeats, options.states)))
        return 0
    sys.path.insert(0, ROOT)
    import numba
    import numpy as np
    print('# ros_dynamics real-arm benchmark')
    print(f'{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {cpu_model()}, '
          f'{os.cpu_count()} cores; Python {platform.python_version()}, numpy {np.__version__}, '
          f'numba {numba.__version__}\n')
    features_tables(options.repeats, options.states)
    if options.baseline:
        baseline_table(os.path.abspath(options.baseline), options.repeats, options.states,
                       options.rounds)
    return 0


if __name__ == '__main__':
    sys.exit(main())
