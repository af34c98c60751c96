# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Benchmark the 1 kHz feedforward stream against the cheapest rclpy node that answers it.

Not a test: run it with ``make bench`` or by hand::

    scripts/with_ros.sh python benchmarks/bench_stream.py --seconds 60 --load 1

A driver (this process) publishes ``sensor_msgs/JointState`` of the Panda arm
on a 1 ms timer and listens for ``std_msgs/Float64MultiArray`` answers. Two
answering processes take turns, each for ``--seconds``:

* **floor**: a relay that does no work: a raw subscription (serialised
  bytes), best effort, keep last 1, answering every message with the same
  pre-serialised command, spun by rclpy's EventsExecutor with ``spin_once``
  in a loop. Nothing that answers through rclpy and Fast DDS costs less.
* **ours**: ``inverse_dynamics_node`` in ``gravity_compensation`` mode
  (its compiled stream armed, nodes/gravity_stream.py);
* **python** (with ``--python-path``): the same node with
  ``ROS_DYNAMICS_COMPILED_STREAM=0``, every message on the Python path, in
  the same rounds (floor, python, ours, taking turns).

For each: states sent, commands received, loss, latency from publication to
the arrival of the answer (each answer matched to the newest state sent
before it, so keep-last semantics are measured as a user sees them:
p50/p99/p99.9/max), and the answering process's CPU time per message
(user + system, from /proc through psutil). The line that matters is
``ours / floor`` CPU per message. ``--load N`` runs N CPU-bound processes
beside the benchmark (a robot computer with perception and planning on it).
"""

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test'))

import conftest  # noqa: E402,F401 - isolated ROS domain, like the tests
from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
import numpy as np  # noqa: E402
import psutil  # noqa: E402
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float64MultiArray  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URDF = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
JOINTS = [f'panda_joint{k}' for k in range(1, 8)]
RELAY = """
import numpy as np
import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.experimental import EventsExecutor
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import serialize_message
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
rclpy.init()
node = Node('floor_relay')
command = serialize_message(Float64MultiArray(data=[0.0] * 7))
publisher = node.create_publisher(Float64MultiArray, 'commands', 10)
node.create_subscription(JointState, 'joint_states', lambda data: publisher.publish(command),
                         QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                                    reliability=ReliabilityPolicy.BEST_EFFORT), raw=True)
executor = EventsExecutor()
executor.add_node(node)
try:
    while rclpy.ok():
        executor.spin_once(timeout_sec=0.1)
except (KeyboardInterrupt, ExternalShutdownException):
    pass
"""


def measure(ros: RosClient, pid: int, seconds: float, warmup: float = 10.0) -> dict:
    """
    Drive the stream for ``seconds`` at 1 kHz; return the counts, latencies and CPU.

    Counting starts ``warmup`` s after the first answer, the stream running
    at 1 kHz meanwhile: a node's start-up work (imports and kernel loading in
    background threads) goes on for seconds after it can answer, and is not
    the cost of a message.
    """
    node = ros.node
    # reliable, keep last 1: matches best-effort and reliable subscriptions alike
    publisher = node.create_publisher(JointState, 'joint_states', 1)
    sent, received, paths = [], [], []
    subscription = node.create_subscription(
        Float64MultiArray, 'commands', lambda m: received.append(time.perf_counter()), 100)
    diagnostics = node.create_subscription(   # the node's stream_path: compiled or python
        DiagnosticArray, '/diagnostics',
        lambda m: paths.extend(v.value for s in m.status for v in s.values
                               if v.key == 'stream_path'), 10)
    wait_for(lambda: publisher.get_subscription_count() > 0, what='the answering process')
    message = JointState(name=JOINTS, position=[0.1, -0.4, 0.1, -2.0, 0.2, 1.6, 0.3],
                         velocity=[0.0] * 7)
    # warm up until answers flow, then count from zero
    deadline = time.monotonic() + 30.0
    while not received and time.monotonic() < deadline:
        message.header.stamp = node.get_clock().now().to_msg()
        publisher.publish(message)
        time.sleep(0.01)
    count = int(seconds * 1000)

    warming = [True]

    def tick():
        if warming[0] or len(sent) < count:
            message.header.stamp = node.get_clock().now().to_msg()
            if not warming[0]:
                sent.append(time.perf_counter())
            publisher.publish(message)
    timer = node.create_timer(0.001, tick)
    time.sleep(warmup)
    received.clear()
    warming[0] = False
    process = psutil.Process(pid)
    cpu_start = sum(process.cpu_times()[:2])
    wall_start = time.perf_counter()
    # a machine too busy for 1 kHz sends fewer states: the figures are then of what was sent
    # (the rate column says so) instead of no figures at all
    deadline = time.monotonic() + seconds * 3 + 30
    while len(sent) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    node.destroy_timer(timer)
    wall = time.perf_counter() - wall_start
    time.sleep(0.5)   # the last answers
    cpu = sum(process.cpu_times()[:2]) - cpu_start
    node.destroy_subscription(subscription)
    node.destroy_subscription(diagnostics)
    node.destroy_publisher(publisher)
    sent_times, answers = np.array(sent), np.array(received)
    newest = np.searchsorted(sent_times, answers, side='right') - 1
    latency = (answers - sent_times[np.maximum(newest, 0)])[newest >= 0] * 1e3
    return {'sent': len(sent_times), 'received': len(answers), 'wall': wall, 'cpu': cpu,
            'latency': latency, 'path': paths[-1] if paths else '-'}


def report(label: str, result: dict) -> None:
    """Print one answering process's figures."""
    latency = result['latency']
    loss = 1.0 - min(result['received'], result['sent']) / result['sent']
    p = (np.percentile(latency, [50, 99, 99.9]) if latency.size else [float('nan')] * 3)
    print(f'{label:6s} sent {result["sent"]:6d}  answered {result["received"]:6d}  '
          f'loss {100 * loss:5.2f} %  rate {result["sent"] / result["wall"]:6.1f} Hz  '
          f'latency p50 {p[0]:.3f}  p99 {p[1]:.3f}  p99.9 {p[2]:.3f}  '
          f'max {latency.max() if latency.size else float("nan"):.3f} ms  '
          f'CPU {1e6 * result["cpu"] / max(result["received"], 1):6.1f} us/message  '
          f'path {result["path"]}')


def main() -> None:
    """Run the floor relay and the node in turn and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--seconds', type=float, default=60.0, help='per answering process')
    parser.add_argument('--load', type=int, default=0,
                        help='CPU-bound processes to run beside the benchmark')
    parser.add_argument('--warmup', type=float, default=10.0,
                        help='s of 1 kHz stream before counting (start-up work is not counted)')
    parser.add_argument('--rounds', type=int, default=1,
                        help='alternate floor and ours this many times')
    parser.add_argument('--python-path', action='store_true',
                        help='also run the node with its compiled stream off, in turn')
    args = parser.parse_args()
    hogs = [subprocess.Popen([sys.executable, '-c', 'while True: pass'])
            for _ in range(args.load)]
    namespace = unique_namespace()
    results = {'floor': [], 'python': [], 'ours': []}
    variants = [('python', {'ROS_DYNAMICS_COMPILED_STREAM': '0'})] if args.python_path else []
    variants.append(('ours', {}))
    try:
        with RosClient(namespace, threads=1) as ros:
            for _ in range(args.rounds):
                relay = subprocess.Popen([sys.executable, '-c', RELAY, '--ros-args', '-r',
                                          f'__ns:={namespace}'], start_new_session=True)
                try:
                    results['floor'].append(measure(ros, relay.pid, args.seconds, args.warmup))
                finally:
                    relay.terminate()
                    relay.wait(10)
                for label, env in variants:
                    with NodeProcess('inverse_dynamics_node', namespace,
                                     {'urdf_path': URDF, 'state_timeout': 1.0},
                                     env=env) as node:
                        pid = node.process.pid
                        results[label].append(measure(ros, pid, args.seconds, args.warmup))
    finally:
        for hog in hogs:
            hog.kill()
    print(f'1 kHz feedforward stream, Panda gravity compensation, '
          f'{time.strftime("%Y-%m-%d %H:%M")} UTC, {args.seconds:.0f} s each, '
          f'{args.load} CPU-bound processes beside, '
          f'load average {os.getloadavg()[0]:.2f}')
    for label in ('floor', 'python', 'ours'):
        for result in results[label]:
            report(label, result)
    floor = np.mean([r['cpu'] / max(r['received'], 1) for r in results['floor']])
    for label in ('python', 'ours') if args.python_path else ('ours',):
        cpu = np.mean([r['cpu'] / max(r['received'], 1) for r in results[label]])
        print(f'CPU per message, {label} / floor: {cpu / floor:.2f}')


if __name__ == '__main__':
    main()
