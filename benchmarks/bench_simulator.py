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
Simulator benchmark: steps per second as fast as possible, and /joint_states jitter at 1 kHz.

    make build && scripts/with_ros.sh python benchmarks/bench_simulator.py [--seconds 10]

1. Steps per second, RK4 at dt = 1 ms, for Ghosal's 2R arm
   (urdf/planar_2r.urdf), the default arm (urdf/panda_arm.urdf) and Talos
   reduced (example-robot-data): the ROS-free core alone (``Simulator.step``
   in this process, an effort applied), then the installed ``simulator_node``
   with ``real_time_factor: 0`` publishing ``/clock`` every step and
   ``/joint_states`` at 500 Hz of sim time, measured by a subscriber in this
   process from the sim-time stamps it receives. Targets: default
   arm >= 20x real time, Talos reduced >= 5x.
2. ``/joint_states`` at 1 kHz (``publish_rate: 1000``, real time): arrival
   intervals at a subscriber, p50 / p99 / max.
"""

import argparse
import glob
import os
import sys
import threading
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'test'))

import conftest  # noqa: E402,F401,I100 - isolated ROS domain before rclpy is imported
import rclpy  # noqa: E402,I100
from rclpy.context import Context  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from ros_dynamics import RobotModel  # noqa: E402
from ros_dynamics.simulation import Simulator  # noqa: E402
from ros_helpers import NodeProcess, unique_namespace, wait_for  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402


class Subscriber:
    """A lean joint_states subscriber: own context, SingleThreadedExecutor in a thread."""

    def __init__(self, namespace: str, callback) -> None:
        self.context = Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node('bench_subscriber', namespace=namespace,
                                      context=self.context)
        self.node.create_subscription(JointState, 'joint_states', callback, 1000)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.thread.start()

    def _spin(self) -> None:
        while self.context.ok():
            try:
                self.executor.spin_once(timeout_sec=0.05)
            except Exception:  # noqa: B902 - shutting down
                return

    def close(self) -> None:
        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
        rclpy.try_shutdown(context=self.context)
        self.thread.join(timeout=5.0)


def talos_reduced() -> str:
    """Return Talos reduced's URDF from example-robot-data under sys.prefix, or ''."""
    pattern = os.path.join(sys.prefix, '**', 'cmeel.prefix', 'share', 'example-robot-data',
                           'robots', 'talos_data', 'robots', 'talos_reduced.urdf')
    found = glob.glob(pattern, recursive=True)
    return found[0] if found else ''


def core_steps_per_second(urdf: str, seconds: float) -> float:
    """Time Simulator.step (RK4, 1 ms) in this process, holding effort = g(q0)."""
    robot = RobotModel.from_urdf_file(urdf)
    simulator = Simulator(robot, dt=1e-3)
    simulator.set_effort(robot.gravity_torques(simulator.q))
    simulator.step(200)                               # compile / warm up
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        simulator.step(100)
        steps += 100
    return steps / (time.perf_counter() - start)


def stamp(message: JointState) -> float:
    return message.header.stamp.sec + message.header.stamp.nanosec * 1e-9


def node_rate(urdf: str, seconds: float) -> dict:
    """Run simulator_node as fast as possible; measure sim time per wall time from its stamps."""
    ns = unique_namespace()
    arrivals = []
    client = Subscriber(ns, lambda m: arrivals.append((time.perf_counter(), stamp(m))))
    process = NodeProcess('simulator_node', ns,
                          {'urdf_path': urdf, 'real_time_factor': 0.0, 'publish_rate': 500.0,
                           'publish_clock': True, 'command_timeout': 0.0},
                          remappings={'/clock': f'{ns}/clock',
                                      '/diagnostics': f'{ns}/diagnostics'})
    try:
        with process:
            wait_for(lambda: len(arrivals) > 0, timeout=60.0, what='the first joint state')
            begin = time.perf_counter() + 1.0             # skip the first second
            wait_for(lambda: arrivals[-1][0] > begin + seconds, timeout=seconds + 30.0,
                     what='the measurement window')
            window = [a for a in arrivals if a[0] >= begin]
    finally:
        client.close()
    wall = window[-1][0] - window[0][0]
    sim = window[-1][1] - window[0][1]
    return {'rtf': sim / wall, 'steps_per_s': sim / wall / 1e-3,
            'states_per_wall_s': (len(window) - 1) / wall,
            'states_per_sim_s': (len(window) - 1) / sim}


def jitter(urdf: str, seconds: float) -> dict:
    """Arrival intervals of /joint_states at 1 kHz, real time."""
    ns = unique_namespace()
    arrivals = []
    client = Subscriber(ns, lambda m: arrivals.append(time.perf_counter()))
    process = NodeProcess('simulator_node', ns,
                          {'urdf_path': urdf, 'real_time_factor': 1.0, 'publish_rate': 1000.0,
                           'publish_clock': True},
                          remappings={'/clock': f'{ns}/clock',
                                      '/diagnostics': f'{ns}/diagnostics'})
    try:
        with process:
            wait_for(lambda: len(arrivals) > 0, timeout=60.0, what='the first joint state')
            begin = time.perf_counter() + 1.0
            wait_for(lambda: arrivals[-1] > begin + seconds, timeout=seconds + 30.0,
                     what='the measurement window')
            window = np.array([a for a in arrivals if a >= begin])
    finally:
        client.close()
    intervals = np.diff(window) * 1e3
    return {'rate': (len(window) - 1) / (window[-1] - window[0]),
            'p50': np.percentile(intervals, 50), 'p99': np.percentile(intervals, 99),
            'max': intervals.max()}


def main() -> None:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--seconds', type=float, default=10.0,
                        help='measurement window per case, s of wall time (default 10)')
    args = parser.parse_args()
    robots = [("2R (Ghosal's example)", os.path.join(ROOT, 'urdf', 'planar_2r.urdf'), None),
              ('Panda (default arm)', os.path.join(ROOT, 'urdf', 'panda_arm.urdf'), 20.0),
              ('Talos reduced', talos_reduced(), 5.0)]
    now = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
    print(f'simulator benchmark, RK4, dt = 1 ms, {now}')
    print(f'{"robot":22} {"dof":>4} {"core steps/s":>13} {"core RTF":>9} '
          f'{"node steps/s":>13} {"node RTF":>9} {"target":>7} {"js/wall s":>10} '
          f'{"js/sim s":>9}')
    for label, urdf, target in robots:
        if not urdf:
            print(f'{label:22} example-robot-data not found under {sys.prefix}: skipped')
            continue
        dof = RobotModel.from_urdf_file(urdf).dof
        core = core_steps_per_second(urdf, min(args.seconds, 5.0))
        node = node_rate(urdf, args.seconds)
        verdict = '' if target is None else (
            f'{">=" if node["rtf"] >= target else "<"}{target:g}x')
        print(f'{label:22} {dof:4d} {core:13.0f} {core * 1e-3:8.1f}x {node["steps_per_s"]:13.0f} '
              f'{node["rtf"]:8.1f}x {verdict:>7} {node["states_per_wall_s"]:10.0f} '
              f'{node["states_per_sim_s"]:9.0f}', flush=True)
    result = jitter(robots[1][1], args.seconds)
    print(f'\n/joint_states at publish_rate 1000 Hz, real time, Panda: received '
          f'{result["rate"]:.1f} Hz; interval p50 {result["p50"]:.3f} ms, '
          f'p99 {result["p99"]:.3f} ms, max {result["max"]:.3f} ms')


if __name__ == '__main__':
    main()
