# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Simulation throughput against MuJoCo, side by side in one process.

    scripts/with_ros.sh python benchmarks/bench_sim_throughput.py [--repeats 7]

1. One step from Python: ``Simulator.step()`` against ``mujoco.mj_step`` on
   the same URDF (example-robot-data's Panda, UR5, Talos reduced; meshes
   dropped, every joint a coordinate, RK4 at 1 ms, contacts, limits, damping
   and friction off; test/mujoco_models.py), each called once per step from
   a Python loop of 1000 steps from the same initial state; and our
   ``Simulator.step(1000)`` (one call) for the block cost. Wall and CPU
   (process) time per step, the best of ``--repeats`` runs, and the ratio
   ours / MuJoCo (target <= 1).
2. Many simulations in one call: ``ros_dynamics.rollouts.rollout`` against
   ``mujoco.rollout.rollout`` on the Panda, B = 256 rollouts of 1000 steps
   from random states under random joint efforts (MuJoCo: as qfrc_applied),
   both on ``--threads`` threads (default: the cores). Time per state-step
   (wall / (B steps)) and the ratio MuJoCo / ours (target >= 2). Then the
   floor of a step on both sides: one forward-dynamics evaluation, our ABA
   against MuJoCo's mj_forward (Panda and Talos reduced), CPU time.
3. Closed chains (ROS-free, no MuJoCo peer): ``Simulator(closures=...)``
   at 1 ms RK4 on Ghosal's four-bar (urdf/four_bar.urdf,
   config/four_bar_loops.yaml; from theta1 = 0.01 rad under Ghosal's
   1.96 N m) and the Delta robot (urdf/delta_rl5.urdf, config/delta_loops.yaml;
   2 % above its holding torques, the platform rises), 1000 steps from
   Python one ``step()`` at a time and in one ``step(1000)``: wall and CPU
   time per step and the real-time factor dt / (time per step) (targets:
   four-bar >= 20x, Delta >= 10x). ``--only closed`` runs this part alone.
4. Scale-out on Dask (ros_dynamics/rollouts/scale_out.py), ``--dask`` only: rollouts
   (Panda, B = 256 x 1000 steps) and trajectory torques (UR5, 200
   trajectories of 5000 samples) on a LocalCluster of 2 single-threaded
   worker processes (loopback) against the same call in this process on
   one thread; and the per-chunk overhead (the time of a chunk of one
   sample, which is all task round trip), to size chunks by.

The machine may be shared: the CPU time is the steadier figure, and the
ratios come from interleaved runs so both sides see the same load.
"""

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'test'))

from mujoco import rollout as mujoco_rollout  # noqa: E402,I100
import mujoco  # noqa: E402,I100
from mujoco_models import coordinate_order, mujoco_model  # noqa: E402,I100
from robot_data import example_urdf  # noqa: E402
from ros_dynamics import RobotModel  # noqa: E402
from ros_dynamics.description.urdf import parse_urdf_file  # noqa: E402
from ros_dynamics.rollouts import rollout  # noqa: E402
from ros_dynamics.simulation.simulator import Simulator  # noqa: E402

ROBOTS = [('Panda', 'panda_description/urdf/panda.urdf'),
          ('UR5', 'ur_description/urdf/ur5_robot.urdf'),
          ('Talos reduced', 'talos_data/robots/talos_reduced.urdf')]
STEPS = 1000


def timed(run, repeats: int) -> tuple:
    """Return the best (wall, CPU) seconds of ``run()`` over ``repeats`` runs."""
    wall, cpu = np.inf, np.inf
    for _ in range(repeats):
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        run()
        wall = min(wall, time.perf_counter() - start_wall)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu


def step_times(path: str, repeats: int) -> dict:
    """Return per-step (wall, CPU) seconds: MuJoCo, ours step by step, ours in one block."""
    robot = RobotModel(parse_urdf_file(path), mimic=False)
    model = mujoco_model(path, dt=1e-3)
    data = mujoco.MjData(model)
    order = coordinate_order(model, robot.joint_names)
    rng = np.random.default_rng(0)
    q0, qd0 = rng.uniform(-0.1, 0.1, robot.dof), rng.uniform(-0.1, 0.1, robot.dof)
    sim = Simulator(robot, dt=1e-3, q0=q0, qd0=qd0, damping=False, friction=False,
                    limits=False)
    sim.step(10)   # compile / load the kernels

    def run_mujoco():
        mujoco.mj_resetData(model, data)
        data.qpos[order], data.qvel[order] = q0, qd0
        step = mujoco.mj_step
        for _ in range(STEPS):
            step(model, data)

    def run_ours():
        sim.reset()
        step = sim.step
        for _ in range(STEPS):
            step()

    def run_block():
        sim.reset()
        sim.step(STEPS)

    results = {'mujoco': (np.inf, np.inf), 'ours': (np.inf, np.inf), 'block': (np.inf, np.inf)}
    for _ in range(repeats):   # interleaved, so that both see the same load
        for name, run in (('mujoco', run_mujoco), ('ours', run_ours), ('block', run_block)):
            wall, cpu = timed(run, 1)
            results[name] = (min(results[name][0], wall / STEPS),
                             min(results[name][1], cpu / STEPS))
    return results


def rollout_times(path: str, batch: int, steps: int, threads: int, repeats: int) -> dict:
    """Return (wall, CPU) seconds per state-step of mujoco.rollout and ours, and the error."""
    robot = RobotModel(parse_urdf_file(path), mimic=False)
    model = mujoco_model(path, dt=1e-3)
    order = coordinate_order(model, robot.joint_names)
    rng = np.random.default_rng(1)
    q0 = rng.uniform(-0.3, 0.3, (batch, robot.dof))
    qd0 = rng.uniform(-0.3, 0.3, (batch, robot.dof))
    effort = rng.uniform(-2.0, 2.0, (batch, steps, robot.dof))
    options = {'damping': False, 'friction': False, 'limits': False}
    datas = [mujoco.MjData(model) for _ in range(threads)]
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    initial = np.zeros((batch, mujoco.mj_stateSize(model, spec)))
    for b in range(batch):
        data = datas[0]
        mujoco.mj_resetData(model, data)
        data.qpos[order], data.qvel[order] = q0[b], qd0[b]
        mujoco.mj_getState(model, data, initial[b], spec)
    control = np.zeros((batch, steps, model.nv))
    control[:, :, order] = effort

    def run_mujoco():
        return mujoco_rollout.rollout(model, datas, initial, control,
                                      control_spec=mujoco.mjtState.mjSTATE_QFRC_APPLIED)

    def run_ours():
        return rollout(robot, q0, qd0, effort, dt=1e-3, threads=threads, **options)

    ours_q = run_ours()[0]   # compile / warm up, and compare the final states
    state = run_mujoco()[0]
    qpos = 1 + np.arange(model.nq)   # FULLPHYSICS: time, qpos, qvel, ...
    error = np.max(np.abs(state[:, -1, qpos[order]] - ours_q[:, -1]))
    count = batch * steps
    results = {'mujoco': (np.inf, np.inf), 'ours': (np.inf, np.inf)}
    for _ in range(repeats):   # interleaved, so that both see the same load
        for name, run in (('mujoco', run_mujoco), ('ours', run_ours)):
            wall, cpu = timed(run, 1)
            results[name] = (min(results[name][0], wall / count),
                             min(results[name][1], cpu / count))
    results['error'] = error
    return results


def evaluation_times(path: str, repeats: int) -> dict:
    """
    Return CPU seconds of one forward-dynamics evaluation: our ABA and MuJoCo's mj_forward.

    An RK4 step is four of them on both sides (MuJoCo's RK4 calls its forward
    pass once per stage), so 4x these is each step's floor. Ours: the batch
    kernel over 2000 states, per state; MuJoCo: mj_forward 2000 times from
    Python (about 0.3 us of each is the Python call).
    """
    robot = RobotModel(parse_urdf_file(path), mimic=False)
    model = mujoco_model(path, dt=1e-3)
    data = mujoco.MjData(model)
    rng = np.random.default_rng(2)
    q, qd, tau = (rng.uniform(-0.3, 0.3, (2000, robot.dof)) for _ in range(3))
    robot.forward_dynamics(q, qd, tau)
    forward = mujoco.mj_forward

    def run_mujoco():
        for _ in range(2000):
            forward(model, data)

    results = {'mujoco': np.inf, 'ours': np.inf}
    for _ in range(repeats):
        for name, run in (('mujoco', run_mujoco),
                          ('ours', lambda: robot.forward_dynamics(q, qd, tau))):
            results[name] = min(results[name], timed(run, 1)[1] / 2000)
    return results


def closed_chain_times(name: str, repeats: int) -> dict:
    """Return per-step (wall, CPU) seconds of a closed chain: step by step, and in one block."""
    from ros_dynamics.simulation.closed_chain import ClosedChain
    urdf, loops = {'four-bar': ('four_bar.urdf', 'four_bar_loops.yaml'),
                   'Delta': ('delta_rl5.urdf', 'delta_loops.yaml')}[name]
    robot = RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', urdf))
    chain = ClosedChain.from_yaml(robot, os.path.join(ROOT, 'config', loops))
    effort = np.zeros(robot.dof)
    if name == 'four-bar':
        q0 = np.array([0.01, 0.0, 0.0])
        effort[0] = 1.96
    else:
        q0 = delta_platform_configuration((0.05, -0.1, -1.0))
        effort[chain.actuated] = 1.02 * chain.inverse_dynamics(
            q0, np.zeros(robot.dof), np.zeros(robot.dof))[0]
    sim = Simulator(robot, dt=1e-3, q0=q0, closures=chain, damping=False, friction=False,
                    limits=False)
    sim.set_effort(effort)
    sim.step(10)   # compile / load the kernels

    def run_steps():
        sim.reset()
        step = sim.step
        for _ in range(STEPS):
            step()

    def run_block():
        sim.reset()
        sim.step(STEPS)

    results = {'steps': (np.inf, np.inf), 'block': (np.inf, np.inf)}
    for _ in range(repeats):
        for key, run in (('steps', run_steps), ('block', run_block)):
            wall, cpu = timed(run, 1)
            results[key] = (min(results[key][0], wall / STEPS), min(results[key][1], cpu / STEPS))
    return results


def delta_platform_configuration(platform) -> np.ndarray:
    """Return the Delta robot's joint positions with its platform at ``platform`` (m)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        'delta_robot_example', os.path.join(ROOT, 'examples', 'delta_robot.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.assembled(platform)


def dask_times(batch: int, steps: int) -> dict:
    """Return the wall seconds of the local and 2-worker paths, and the per-chunk overhead."""
    import distributed
    from ros_dynamics.rollouts.scale_out import distributed_rollout, trajectory_torques
    panda = RobotModel(parse_urdf_file(example_urdf(ROBOTS[0][1])), mimic=False)
    ur5 = RobotModel(parse_urdf_file(example_urdf(ROBOTS[1][1])))
    rng = np.random.default_rng(2)
    q0 = rng.uniform(-0.3, 0.3, (batch, panda.dof))
    effort = rng.uniform(-2.0, 2.0, (steps, panda.dof))
    options = {'damping': False, 'friction': False, 'limits': False}
    states = [rng.uniform(-1.0, 1.0, (200, 5000, ur5.dof)) for _ in range(3)]
    out = {}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host='127.0.0.1', dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            jobs = {
                'rollouts': (lambda: rollout(panda, q0, q0 * 0.0, effort, threads=1, **options),
                             lambda: distributed_rollout(panda, q0, q0 * 0.0, effort,
                                                         scheduler=client, chunk=batch // 2,
                                                         **options)),
                'trajectory torques': (
                    lambda: ur5.inverse_dynamics(*(x.reshape(-1, ur5.dof) for x in states)),
                    lambda: trajectory_torques(ur5, *states, scheduler=client, chunk=100))}
            for name, (local, remote) in jobs.items():
                remote()   # workers compile / load the kernels
                start = time.perf_counter()
                local()
                local_wall = time.perf_counter() - start
                start = time.perf_counter()
                remote()
                out[name] = (local_wall, time.perf_counter() - start)
            small = [x[:64, :1] for x in states]
            trajectory_torques(ur5, *small, scheduler=client, chunk=1)
            start = time.perf_counter()
            trajectory_torques(ur5, *small, scheduler=client, chunk=1)
            out['chunk'] = (time.perf_counter() - start) / 64
    return out


def closed_chains(repeats: int) -> None:
    """Print the closed chains' times per step and real-time factors (part 3)."""
    print('\n3. closed chains, RK4 at 1 ms (us per step, best of runs; RTF = 1 ms / step time)')
    print(f'{"chain":10} {"step wall":>10} {"step CPU":>9} {"RTF (CPU)":>10} {"block wall":>11} '
          f'{"block CPU":>10} {"RTF (CPU)":>10}')
    for name in ('four-bar', 'Delta'):
        r = closed_chain_times(name, repeats)
        print(f'{name:10} {r["steps"][0] * 1e6:10.2f} {r["steps"][1] * 1e6:9.2f} '
              f'{1e-3 / r["steps"][1]:10.1f} {r["block"][0] * 1e6:11.2f} '
              f'{r["block"][1] * 1e6:10.2f} {1e-3 / r["block"][1]:10.1f}', flush=True)


def main() -> None:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--repeats', type=int, default=7, help='runs per case (best taken)')
    parser.add_argument('--threads', type=int, default=os.cpu_count(),
                        help='threads of both rollouts (default: the cores)')
    parser.add_argument('--batch', type=int, default=256, help='rollouts (default 256)')
    parser.add_argument('--steps', type=int, default=1000, help='steps each (default 1000)')
    parser.add_argument('--dask', action='store_true', help='also time the Dask scale-out')
    parser.add_argument('--only', choices=('closed',), help='run only this part')
    args = parser.parse_args()
    now = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
    print(f'simulation throughput vs MuJoCo {mujoco.__version__}, RK4, dt = 1 ms, {now}, '
          f'{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}')
    if args.only == 'closed':
        closed_chains(args.repeats)
        return
    print('\n1. one step from Python (us per step, best of runs; ratio = ours / MuJoCo)')
    print(f'{"robot":15} {"dof":>4} {"MuJoCo wall":>12} {"ours wall":>10} {"ratio":>6} '
          f'{"MuJoCo CPU":>11} {"ours CPU":>9} {"ratio":>6} {"block CPU":>10}')
    for label, relative in ROBOTS:
        path = example_urdf(relative)
        dof = RobotModel(parse_urdf_file(path), mimic=False).dof
        r = step_times(path, args.repeats)
        print(f'{label:15} {dof:4d} {r["mujoco"][0] * 1e6:12.2f} {r["ours"][0] * 1e6:10.2f} '
              f'{r["ours"][0] / r["mujoco"][0]:6.2f} {r["mujoco"][1] * 1e6:11.2f} '
              f'{r["ours"][1] * 1e6:9.2f} {r["ours"][1] / r["mujoco"][1]:6.2f} '
              f'{r["block"][1] * 1e6:10.2f}', flush=True)

    print(f'\n2. rollouts, Panda, B = {args.batch}, {args.steps} steps, {args.threads} threads '
          '(us per state-step, best of runs; ratio = MuJoCo / ours)')
    r = rollout_times(example_urdf(ROBOTS[0][1]), args.batch, args.steps, args.threads,
                      max(1, args.repeats // 2))
    print(f'{"":15} {"MuJoCo wall":>12} {"ours wall":>10} {"ratio":>6} {"MuJoCo CPU":>11} '
          f'{"ours CPU":>9} {"ratio":>6} {"max |dq| at end":>16}')
    print(f'{"rollout":15} {r["mujoco"][0] * 1e6:12.3f} {r["ours"][0] * 1e6:10.3f} '
          f'{r["mujoco"][0] / r["ours"][0]:6.2f} {r["mujoco"][1] * 1e6:11.3f} '
          f'{r["ours"][1] * 1e6:9.3f} {r["mujoco"][1] / r["ours"][1]:6.2f} '
          f'{r["error"]:16.1e}', flush=True)
    print('\n   one forward-dynamics evaluation, CPU us (an RK4 step is four on both sides)')
    for label, relative in (ROBOTS[0], ROBOTS[2]):
        e = evaluation_times(example_urdf(relative), args.repeats)
        print(f'   {label:15} MuJoCo mj_forward {e["mujoco"] * 1e6:7.2f}   ours ABA '
              f'{e["ours"] * 1e6:7.2f}', flush=True)
    closed_chains(args.repeats)
    if not args.dask:
        return
    print('\n4. Dask: 2 worker processes (LocalCluster, loopback) vs this process, 1 thread')
    d = dask_times(args.batch, args.steps)
    for name in ('rollouts', 'trajectory torques'):
        local, remote = d[name]
        print(f'{name:20} local {local:7.2f} s   2 workers {remote:7.2f} s   speed-up '
              f'{local / remote:5.2f}x')
    print(f'per-chunk overhead (64 chunks of one sample): {d["chunk"] * 1e3:.1f} ms a chunk')


if __name__ == '__main__':
    main()
