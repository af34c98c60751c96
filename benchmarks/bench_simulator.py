# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Simulator benchmark: the node's CPU per step against the core's, and /joint_states jitter.

    make build && scripts/with_ros.sh python benchmarks/bench_simulator.py [--seconds 10]
        [--clock-periods 0.001,0] [--load]

1. Steps per second and CPU per step, RK4 at dt = 1 ms, unforced (the energy
   health check runs every step), for Ghosal's 2R arm (urdf/planar_2r.urdf),
   the default arm (urdf/panda_arm.urdf) and Talos reduced
   (example-robot-data): the ROS-free core alone (``Simulator.step(100)`` in
   this process, same parameters and initial state as the node's, CPU time of
   its thread), then the installed ``simulator_node`` with
   ``real_time_factor: 0`` and ``/joint_states`` at 500 per wall second, for
   each ``clock_period`` asked for (0 = ``/clock`` after every step, the
   former behaviour). The node's rate comes from the sim-time stamps a
   subscriber in this process receives, its CPU from ``/proc/<pid>/stat``
   (user + system time of all its threads) over the same window. Targets:
   node CPU per step <= 1.5x the core's; default arm >= 20x real time per
   CPU-second of the node, Talos reduced >= 5x (wall).
2. ``/joint_states`` at 1 kHz (``publish_rate: 1000``, real time): arrival
   intervals at a subscriber, p50 / p99 / max.

The machine is shared (2 cores, other work running): the wall figures move
with the load, CPU per step much less. ``--load`` runs a CPU-bound process
beside (the competing-load option). The load average is printed.
"""

import argparse
import glob
import os
import subprocess
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
from ros_dynamics.simulation.simulator import Simulator  # noqa: E402
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


def core_rate(urdf: str, seconds: float) -> dict:
    """
    Time Simulator.step(100) (RK4, 1 ms) in this process: steps per wall s, CPU s per step.

    The node's defaults (damping, friction, limits, friction_velocity 1e-3 rad/s),
    its initial state (zeros clamped into the limits) and no effort, so the
    energy check runs every step as in the node's run.
    """
    robot = RobotModel.from_urdf_file(urdf)
    simulator = Simulator(robot, dt=1e-3, friction_velocity=1e-3)
    simulator.step(200)                               # compile / warm up
    steps, start, cpu = 0, time.perf_counter(), time.thread_time()
    while time.perf_counter() - start < seconds:
        simulator.step(100)
        steps += 100
    wall, cpu = time.perf_counter() - start, time.thread_time() - cpu
    return {'steps_per_s': steps / wall, 'cpu_per_step': cpu / steps}


def process_cpu(pid: int) -> float:
    """Return user + system CPU seconds of process ``pid`` (all its threads), from /proc."""
    with open(f'/proc/{pid}/stat') as stream:
        fields = stream.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def load_average() -> str:
    """Return the 1-minute load average, formatted."""
    return '{:.2f}'.format(os.getloadavg()[0])


def stamp(message: JointState) -> float:
    return message.header.stamp.sec + message.header.stamp.nanosec * 1e-9


def node_rate(urdf: str, seconds: float, clock_period: float) -> dict:
    """
    Run simulator_node as fast as possible: sim time per wall s and CPU s per step.

    The window runs from the first joint state received after a 1 s warm-up
    to the first one after ``seconds`` more; the node's CPU is read at each.
    """
    ns = unique_namespace()
    arrivals = []
    client = Subscriber(ns, lambda m: arrivals.append((time.perf_counter(), stamp(m))))
    process = NodeProcess('simulator_node', ns,
                          {'urdf_path': urdf, 'real_time_factor': 0.0, 'publish_rate': 500.0,
                           'publish_clock': True, 'clock_period': clock_period,
                           'command_timeout': 0.0},
                          remappings={'/clock': f'{ns}/clock',
                                      '/diagnostics': f'{ns}/diagnostics'})
    try:
        with process:
            pid = process.process.pid
            wait_for(lambda: len(arrivals) > 0, timeout=60.0, what='the first joint state')
            time.sleep(1.0)                                # skip the first second
            first = len(arrivals)
            wait_for(lambda: len(arrivals) > first, timeout=30.0, what='a joint state')
            cpu0, first = process_cpu(pid), arrivals[first]
            end = first[0] + seconds
            wait_for(lambda: arrivals[-1][0] > end, timeout=seconds + 30.0,
                     what='the measurement window')
            cpu1, last = process_cpu(pid), arrivals[-1]
            window = [a for a in arrivals if first[0] <= a[0] <= last[0]]
    finally:
        client.close()
    wall = last[0] - first[0]
    sim = last[1] - first[1]
    steps = sim / 1e-3
    cpu = cpu1 - cpu0
    return {'rtf': sim / wall, 'steps_per_s': steps / wall, 'cpu_per_step': cpu / steps,
            'rtf_per_cpu_s': sim / cpu, 'cpu_share': cpu / wall,
            'states_per_wall_s': (len(window) - 1) / wall}


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
    parser.add_argument('--clock-periods', default='0.001',
                        help='comma-separated clock_period values for the node (s; 0 = /clock '
                             'after every step); default 0.001, the node default')
    parser.add_argument('--load', action='store_true',
                        help='run a CPU-bound process beside (competing load)')
    parser.add_argument('--robots', default='2r,panda,talos',
                        help='comma-separated subset of 2r, panda, talos')
    args = parser.parse_args()
    periods = [float(p) for p in args.clock_periods.split(',')]
    robots = [('2r', "2R (Ghosal's example)", os.path.join(ROOT, 'urdf', 'planar_2r.urdf'),
               None),
              ('panda', 'Panda (default arm)', os.path.join(ROOT, 'urdf', 'panda_arm.urdf'),
               20.0),
              ('talos', 'Talos reduced', talos_reduced(), 5.0)]
    robots = [r for r in robots if r[0] in args.robots.split(',')]
    hog = (subprocess.Popen([sys.executable, '-c', 'while True: pass'])
           if args.load else None)
    try:
        now = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
        print(f'simulator benchmark, RK4, dt = 1 ms, unforced, {now}, load average '
              f'{load_average()}{", a CPU-bound process beside" if hog else ""} (a shared '
              f'{os.cpu_count()}-core machine)')
        print(f'{"robot":22} {"dof":>3} {"clock":>6} {"core st/s":>10} {"core us":>8} '
              f'{"node st/s":>10} {"node us":>8} {"ratio":>6} {"RTF":>6} {"RTF/cpu":>8} '
              f'{"target":>7} {"cpu%":>5} {"js/wall s":>9}')
        for _, label, urdf, target in robots:
            if not urdf:
                print(f'{label:22} example-robot-data not found under {sys.prefix}: skipped')
                continue
            dof = RobotModel.from_urdf_file(urdf).dof
            before = core_rate(urdf, min(args.seconds, 5.0))
            for period in periods:
                node = node_rate(urdf, args.seconds, period)
                # the core again right after: the load drifts, the ratio takes the mean of the
                # core runs just before and just after the node's
                after = core_rate(urdf, min(args.seconds, 5.0))
                core = {key: 0.5 * (before[key] + after[key]) for key in before}
                before = after
                ratio = node['cpu_per_step'] / core['cpu_per_step']
                verdict = '' if target is None else (
                    f'{">=" if node["rtf_per_cpu_s"] >= target else "<"}{target:g}x')
                print(f'{label:22} {dof:3d} {period * 1e3:4g}ms {core["steps_per_s"]:10.0f} '
                      f'{core["cpu_per_step"] * 1e6:8.2f} {node["steps_per_s"]:10.0f} '
                      f'{node["cpu_per_step"] * 1e6:8.2f} {ratio:5.2f}x {node["rtf"]:5.1f}x '
                      f'{node["rtf_per_cpu_s"]:7.1f}x {verdict:>7} '
                      f'{node["cpu_share"] * 100:5.0f} {node["states_per_wall_s"]:9.0f}',
                      flush=True)
        print("(us = CPU us per step: the core thread's (mean of the runs just before and "
              "after the node's), the node process's; ratio = node / core, target <= 1.5x; "
              'RTF = sim s per wall s; RTF/cpu = sim s per CPU s of the node; load average now '
              f'{load_average()})')
        if 'panda' in args.robots.split(','):
            result = jitter(os.path.join(ROOT, 'urdf', 'panda_arm.urdf'), args.seconds)
            print(f'\n/joint_states at publish_rate 1000 Hz, real time, Panda: received '
                  f'{result["rate"]:.1f} Hz; interval p50 {result["p50"]:.3f} ms, '
                  f'p99 {result["p99"]:.3f} ms, max {result["max"]:.3f} ms')
    finally:
        if hog is not None:
            hog.kill()
            hog.wait()


if __name__ == '__main__':
    main()
