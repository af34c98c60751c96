# Copyright 2026 The ros_dynamics Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

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

import mujoco  # noqa: E402
from mujoco_models import coordinate_order, mujoco_model  # noqa: E402,I100
from robot_data import example_urdf  # noqa: E402
from ros_dynamics import RobotModel  # noqa: E402
from ros_dynamics.simulation import Simulator  # noqa: E402
from ros_dynamics.urdf import parse_urdf_file  # noqa: E402

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


def main() -> None:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--repeats', type=int, default=7, help='runs per case (best taken)')
    args = parser.parse_args()
    now = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
    print(f'simulation throughput vs MuJoCo {mujoco.__version__}, RK4, dt = 1 ms, {now}, '
          f'{os.cpu_count()} cores')
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


if __name__ == '__main__':
    main()
