# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Benchmark the inverse-dynamics node over ROS (not a test: run it with `make bench`).

1. Feedforward latency at 1 kHz: 10 000 JointState messages published on a
   1 ms timer; for each, the time from publication to the arrival of the
   node's command (two DDS hops plus the node's work), and the node's own
   compute time from joint-state arrival to command publication (reported on
   /diagnostics). Target: p99 of the node's part under 0.5 ms.
2. Service round trip: ~/inverse_dynamics of the default arm against a trivial
   std_srvs/Trigger server in its own process, same client, same run, the two
   taking turns in blocks of 50 calls. Target: within 1.2x of the trivial service.
   A third server answers InverseDynamics requests at once without computing
   anything (in the Trigger server's process): its ratio to Trigger is what the
   message types cost rclpy to convert (a JointState request and a response with
   two Float64MultiArrays against two near-empty messages), the floor of the
   first ratio; ours against it is the node's own share.
"""

import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test'))

import conftest  # noqa: E402,F401 - isolated ROS domain, like the tests
from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
import numpy as np  # noqa: E402
import rclpy  # noqa: E402
from rclpy.context import Context  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.node import Node  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from ros_dynamics.srv import InverseDynamics  # noqa: E402
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float64MultiArray  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URDF = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
JOINTS = [f'panda_joint{k}' for k in range(1, 8)]
TRIGGER_SERVER = """
import rclpy
from rclpy.node import Node
from ros_dynamics.srv import InverseDynamics
from std_srvs.srv import Trigger
rclpy.init()
node = Node('trigger_server')
node.create_service(Trigger, '~/trigger', lambda req, res: res)
node.create_service(InverseDynamics, '~/empty_inverse_dynamics', lambda req, res: res)
try:
    rclpy.spin(node)
except BaseException:
    pass
"""


def percentiles(samples_ms) -> str:
    samples = np.asarray(samples_ms)
    return (f'p50 {np.percentile(samples, 50):7.3f} ms  p99 {np.percentile(samples, 99):7.3f} ms'
            f'  max {samples.max():7.3f} ms  (n={samples.size})')


def stream_latency(ros: RosClient, count: int) -> tuple:
    qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
    publisher = ros.node.create_publisher(JointState, 'joint_states', qos)
    sent, received = [], []
    ros.node.create_subscription(Float64MultiArray, 'commands',
                                 lambda m: received.append(time.perf_counter()), qos)
    diagnostics = []
    ros.node.create_subscription(DiagnosticArray, '/diagnostics',
                                 lambda m: diagnostics.append(m), 10)
    wait_for(lambda: publisher.get_subscription_count() > 0, what='subscriber')
    message = JointState(name=JOINTS, position=[0.1, -0.4, 0.1, -2.0, 0.2, 1.6, 0.3],
                         velocity=[0.0] * 7)
    done = threading.Event()

    def tick():
        if len(sent) >= count:
            done.set()
            return
        message.header.stamp = ros.node.get_clock().now().to_msg()
        sent.append(time.perf_counter())
        publisher.publish(message)
    timer = ros.node.create_timer(0.001, tick)
    done.wait(count / 1000.0 * 3 + 30)
    ros.node.destroy_timer(timer)
    deadline = time.monotonic() + 10.0
    while len(received) < len(sent) and time.monotonic() < deadline:
        time.sleep(0.01)
    # FIFO matching of sends and receptions holds only when nothing was lost
    latency = (np.array(received) - np.array(sent)) * 1e3 if len(received) == len(sent) \
        else None
    time.sleep(1.5)   # one more diagnostics period
    values = {v.key: v.value for s in diagnostics[-1].status for v in s.values}
    return latency, values, len(sent), len(received)


def round_trips(namespace: str, services: dict, rounds: int, block: int = 50) -> dict:
    """
    Time service round trips, the services taking turns in blocks of ``block`` calls.

    services: {label: (type, name, request)}. The client is a node of its own spun
    in this thread until each answer arrives (``spin_until_future_complete``: no
    busy loop, no second thread competing for the GIL), the usual way to call a
    service synchronously from rclpy. Interleaving spreads the machine's load drift
    over every service alike. Returns {label: times in ms}.
    """
    context = Context()
    rclpy.init(context=context)
    node = Node(f'bench_client_{os.getpid()}', namespace=namespace, context=context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    try:
        clients = {}
        for label, (service_type, name, request) in services.items():
            client = node.create_client(service_type, name)
            assert client.wait_for_service(timeout_sec=15.0), name
            clients[label] = (client, request)
        times = {label: [] for label in services}
        for _ in range(rounds):
            for label, (client, request) in clients.items():
                for _ in range(block):
                    start = time.perf_counter()
                    future = client.call_async(request)
                    executor.spin_until_future_complete(future, timeout_sec=5.0)
                    times[label].append((time.perf_counter() - start) * 1e3)
                    assert future.result() is not None, f'{label}: no answer in 5 s'
        return {label: np.array(values) for label, values in times.items()}
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown(context=context)


def main() -> None:
    """Run both benchmarks and print the table."""
    namespace = unique_namespace()
    count = int(os.environ.get('BENCH_MESSAGES', '10000'))
    trigger = subprocess.Popen([sys.executable, '-c', TRIGGER_SERVER, '--ros-args', '-r',
                                f'__ns:={namespace}'], start_new_session=True)
    try:
        with NodeProcess('inverse_dynamics_node', namespace,
                         {'urdf_path': URDF, 'state_timeout': 1.0}) as node, \
                RosClient(namespace, threads=1) as ros:
            request = InverseDynamics.Request()
            request.state = JointState(name=JOINTS, position=[0.1] * 7, velocity=[0.2] * 7)
            services = {
                'ours': (InverseDynamics, 'inverse_dynamics/inverse_dynamics', request),
                'trivial': (Trigger, 'trigger_server/trigger', Trigger.Request()),
                'empty': (InverseDynamics, 'trigger_server/empty_inverse_dynamics', request)}
            round_trips(namespace, services, 2)                             # warm up
            latency, diagnostics, sent, received = stream_latency(ros, count)
            times = round_trips(namespace, services, 40)
            ours, trivial, empty = times['ours'], times['trivial'], times['empty']
            assert node.alive()
    finally:
        trigger.terminate()
        trigger.wait(10)
    print(f'inverse_dynamics_node, {os.path.basename(URDF)}, {time.strftime("%Y-%m-%d")}')
    print(f'feedforward at 1 kHz: {sent} joint states sent, {received} commands received')
    if latency is not None:
        print(f'  end to end (publish -> command received, 2 hops): {percentiles(latency)}')
    else:
        print('  end to end: not matched (messages were lost between the processes: the node '
              f'published {diagnostics["published"]}, skipped {diagnostics["skipped_stale"]})')
    print(f'  node only (joint state in -> command out):         '
          f'p50 {float(diagnostics["stream_p50_ms"]):7.3f} ms  '
          f'p99 {float(diagnostics["stream_p99_ms"]):7.3f} ms  '
          f'max {float(diagnostics["stream_max_ms"]):7.3f} ms  '
          f'(last {min(int(diagnostics["stream_count"]), 10000)})')
    print('service round trip, 2000 calls each (spin_until_future_complete), in turns of 50:')
    print(f'  ~/inverse_dynamics: {percentiles(ours)}')
    print(f'  std_srvs/Trigger:   {percentiles(trivial)}')
    print(f'  empty InverseDynamics server (answers at once, same process as Trigger): '
          f'{percentiles(empty)}')
    for label, a, b in (('~/inverse_dynamics / Trigger', ours, trivial),
                        ('empty InverseDynamics / Trigger (the message types alone)', empty,
                         trivial),
                        ('~/inverse_dynamics / empty InverseDynamics (the node alone)', ours,
                         empty)):
        print(f'  ratio {label}: p50 {np.percentile(a, 50) / np.percentile(b, 50):.2f}, '
              f'p99 {np.percentile(a, 99) / np.percentile(b, 99):.2f}')


if __name__ == '__main__':
    main()
