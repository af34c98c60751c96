# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Ground contact against MuJoCo: one step of solo12 standing on four feet, and rollouts.

    scripts/with_ros.sh python benchmarks/bench_ground_contact.py [--repeats 7] [--batch 64]

The scene on both sides (test/test_ground_contact.py's): solo12 of example-robot-data on a
floating base, 1 cm spheres at the four feet on the plane z = 0, friction 0.8, 1 ms steps,
joint limits, damping and friction off. It is settled first (2 s under joint PD from 0.3 m,
in our simulator), then both start from that state.

1. One step from Python: ``Simulator(ground=...).step()`` against ``mujoco.mj_step``
   (MuJoCo's Euler, elliptic cones, its default soft contacts; and with its no-slip
   solver, 20 iterations, the setting that matches our rigid contacts in the tests), 1000
   steps holding the settled state's PD torques, ``set_effort`` / ``qfrc_applied`` then
   the step in each iteration; and ``step(1000)`` in one call. Wall and CPU time per
   step, best of ``--repeats``, the ratio ours / MuJoCo (target <= 1.5).
2. Rollouts: ``rollout(robot, ..., ground=...)`` against ``mujoco.rollout.rollout``,
   ``--batch`` rollouts of 1000 steps from the settled state with random joint velocities
   (+-0.5 rad/s) under the joint PD (kp 5 N m/rad, kd 0.1 N m s/rad) towards the standing
   posture plus random offsets (+-0.1 rad, one per rollout and joint): ``rollout``'s kp,
   kd and q_ref against MuJoCo's position actuators (kp, kv) with those controls; both on
   ``--threads`` threads; time per state-step.
3. Where our step's time goes: the Python per step (``set_effort`` and ``step()`` against
   ``step(1000)``'s per-step time), M by CRBA and b by RNEA (the batch kernels, per
   state), and the rest of the compiled step (the contact rows, the Cholesky factor of M,
   Y = L^-1 J^T, the Delassus matrix, Gauss-Seidel, the substitutions, the integration).

Benchmarks are not tests: nothing here asserts a time. The load average is printed with
the results.
"""

import argparse
import datetime
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)   # measure this checkout
sys.path.insert(0, os.path.join(ROOT, 'test'))

from mujoco import rollout as mujoco_rollout  # noqa: E402,I100
import mujoco  # noqa: E402,I100
from mujoco_models import mujoco_ground_model  # noqa: E402,I100
from robot_data import example_urdf  # noqa: E402,I100
from ros_dynamics.contacts.ground import ContactPoint, Ground  # noqa: E402,I100
from ros_dynamics.rollouts import rollout  # noqa: E402
from ros_dynamics.simulation.simulator import Simulator  # noqa: E402
from test_ground_contact import (FEET, FOOT_RADIUS, joint_pd, KD, KP,  # noqa: E402,I100
                                 solo12)

STEPS = 1000
OPTIONS = {'damping': False, 'friction': False, 'limits': False}


def timed(function) -> tuple:
    """Return the (wall, CPU) seconds of one call of ``function``."""
    wall, cpu = time.perf_counter(), time.process_time()
    function()
    return time.perf_counter() - wall, time.process_time() - cpu


def scene() -> tuple:
    """Return (robot, ground, q_ref, settled q, settled v, holding torques (nv,))."""
    robot, q0 = solo12()
    ground = Ground([ContactPoint(f, radius=FOOT_RADIUS) for f in FEET], friction=0.8)
    sim = Simulator(robot, q0=q0, ground=ground, **OPTIONS)
    for _ in range(2000):
        sim.set_effort(joint_pd(q0, sim.q, sim.qd))
        sim.step()
    return robot, ground, q0, sim.q.copy(), sim.qd.copy(), joint_pd(q0, sim.q, sim.qd)


def mujoco_scene(robot, q, v, noslip: int, pd=None):
    """Return MuJoCo's model and data of the scene at (q, v) (pd: position actuators)."""
    model = mujoco_ground_model(example_urdf('solo_description/robots/solo12.urdf'), FEET,
                                FOOT_RADIUS, 0.8, 1e-3, noslip=noslip, pd=pd)
    data = mujoco.MjData(model)
    data.qpos[:], data.qvel[:] = robot.to_mujoco(q, v)
    return model, data


def step_times(repeats: int) -> dict:
    """Return per-step (wall, CPU) seconds of each side, and the feet touching at the end."""
    robot, ground, _, q, v, torque = scene()
    sim = Simulator(robot, q0=q, qd0=v, ground=ground, **OPTIONS)
    sim.set_effort(torque)
    sim.step(10)
    sides = {}

    def run_ours():
        sim.reset()
        step, set_effort = sim.step, sim.set_effort
        for _ in range(STEPS):
            set_effort(torque)
            step()

    def run_block():
        sim.reset()
        sim.set_effort(torque)
        sim.step(STEPS)

    sides['ours'], sides['ours, step(1000)'] = run_ours, run_block
    for noslip in (0, 20):
        model, data = mujoco_scene(robot, q, v, noslip)
        start = (data.qpos.copy(), data.qvel.copy())

        def run_mujoco(model=model, data=data, start=start):
            mujoco.mj_resetData(model, data)
            data.qpos[:], data.qvel[:] = start
            step = mujoco.mj_step
            for _ in range(STEPS):
                data.qfrc_applied[6:] = torque[6:]
                step(model, data)
        sides[f'mj_step (no-slip {noslip})'] = run_mujoco
    results = {name: (np.inf, np.inf) for name in sides}
    for _ in range(repeats):   # interleaved, so that all see the same load
        for name, run in sides.items():
            wall, cpu = timed(run)
            results[name] = (min(results[name][0], wall / STEPS),
                             min(results[name][1], cpu / STEPS))
    run_ours()
    results['touching'] = int(np.count_nonzero(sim.contact_forces[:, 2] > 0.0))
    return results


def rollout_times(batch: int, threads: int, repeats: int) -> dict:
    """Return (wall, CPU) seconds per state-step of mujoco.rollout and ours."""
    robot, ground, q_stand, q, v, _ = scene()
    rng = np.random.default_rng(3)
    qd0 = np.tile(v, (batch, 1))
    qd0[:, 6:] += rng.uniform(-0.5, 0.5, (batch, 12))
    q_ref = np.tile(q_stand, (batch, STEPS, 1))
    q_ref[:, :, 7:] += rng.uniform(-0.1, 0.1, (batch, 1, 12))
    model, _ = mujoco_scene(robot, q, v, 0, pd=(KP, KD))
    datas = [mujoco.MjData(model) for _ in range(threads)]
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    initial = np.zeros((batch, mujoco.mj_stateSize(model, spec)))
    data = datas[0]
    for b in range(batch):
        mujoco.mj_resetData(model, data)
        data.qpos[:], data.qvel[:] = robot.to_mujoco(q, qd0[b])
        mujoco.mj_getState(model, data, initial[b], spec)
    control = np.ascontiguousarray(q_ref[:, :, 7:])   # the actuators in our joint order
    gains = [np.diag(np.r_[np.zeros(6), np.full(12, gain)]) for gain in (KP, KD)]

    def run_mujoco():
        return mujoco_rollout.rollout(model, datas, initial, control)

    def run_ours():
        return rollout(robot, np.tile(q, (batch, 1)), qd0, steps=STEPS, kp=gains[0],
                       kd=gains[1], q_ref=q_ref, threads=threads, ground=ground, **OPTIONS)

    ours = run_ours()[0]
    theirs = run_mujoco()[0]
    count = batch * STEPS
    results = {'mujoco.rollout': (np.inf, np.inf), 'rollout': (np.inf, np.inf)}
    for _ in range(repeats):
        for name, run in (('mujoco.rollout', run_mujoco), ('rollout', run_ours)):
            wall, cpu = timed(run)
            results[name] = (min(results[name][0], wall / count),
                             min(results[name][1], cpu / count))
    results['height'] = (float(np.mean(ours[:, -1, 2])), float(np.mean(theirs[:, -1, 3])))
    return results


def parts(repeats: int) -> dict:
    """Return CPU seconds per state of CRBA and RNEA (batch kernels) at the settled state."""
    robot, _, _, q, v, _ = scene()
    qs, vs = np.tile(q, (2000, 1)), np.tile(v, (2000, 1))
    robot.mass_matrix(qs)
    robot.bias_torques(qs, vs)
    best = {'M (CRBA)': np.inf, 'b (RNEA)': np.inf}
    for _ in range(repeats):
        best['M (CRBA)'] = min(best['M (CRBA)'], timed(lambda: robot.mass_matrix(qs))[1] / 2000)
        best['b (RNEA)'] = min(best['b (RNEA)'],
                               timed(lambda: robot.bias_torques(qs, vs))[1] / 2000)
    return best


def main() -> None:
    """Run the benchmarks and print markdown tables."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[1])
    parser.add_argument('--repeats', type=int, default=7)
    parser.add_argument('--batch', type=int, default=64)
    parser.add_argument('--threads', type=int, default=os.cpu_count())
    args = parser.parse_args()
    os.environ.setdefault('ROS_DYNAMICS_THREADS', str(args.threads))
    print(f'{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, mujoco '
          f'{mujoco.__version__}, {os.cpu_count()} cores, load {os.getloadavg()}')
    steps = step_times(args.repeats)
    print('\n| solo12, 4 feet on the ground, 1 ms | wall us/step | CPU us/step '
          '| ours / it (CPU) |')
    print('|---|---|---|---|')
    ours = steps['ours'][1]
    for name, value in steps.items():
        if name == 'touching':
            continue
        wall, cpu = value
        print(f'| {name} | {wall * 1e6:.2f} | {cpu * 1e6:.2f} | {ours / cpu:.2f} |')
    print(f'(feet touching after 1000 steps: {steps["touching"]}; load {os.getloadavg()})')
    rolls = rollout_times(args.batch, args.threads, max(2, args.repeats // 2))
    print(f'\n| {args.batch} rollouts x {STEPS} steps, {args.threads} threads '
          '| wall us/state-step | CPU us/state-step |')
    print('|---|---|---|')
    for name in ('mujoco.rollout', 'rollout'):
        wall, cpu = rolls[name]
        print(f'| {name} | {wall * 1e6:.2f} | {cpu * 1e6:.2f} |')
    print(f'(mean final base height: ours {rolls["height"][0]:.4f} m, MuJoCo '
          f'{rolls["height"][1]:.4f} m; load {os.getloadavg()})')
    split = parts(args.repeats)
    block = steps['ours, step(1000)'][1]
    print('\n| part of our step from Python | CPU us |')
    print('|---|---|')
    print(f'| Python: set_effort and step() per step | {(ours - block) * 1e6:.2f} |')
    for name, cpu in split.items():
        print(f'| {name} | {cpu * 1e6:.2f} |')
    print('| the rest: contact rows, Cholesky, L^-1 J^T, Delassus, Gauss-Seidel, substitutions, '
          f'integration | {(block - sum(split.values())) * 1e6:.2f} |')


if __name__ == '__main__':
    main()
