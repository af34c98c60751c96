# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Benchmark the contact-consistent inverse dynamics over ROS (not a test: run it with `make bench`).

solo12 (example-robot-data) standing on four point feet (mu 0.7) in one
``inverse_dynamics_node`` with ``contacts`` set:

1. Service round trips of ``~/contact_inverse_dynamics`` (four feet, the QP)
   and of ``~/inverse_dynamics`` (the same state, RNEA) taking turns in blocks
   of 50 calls (bench_inverse_dynamics_node.round_trips), wall time; and the
   node's CPU time per call (its /proc/<pid>/stat utime + stime over a block
   of calls of one service).
2. The stream: joint_states + odometry pairs published at 500 Hz; the node's
   compute time per message from /diagnostics (stream_p50_ms, stream_p99_ms:
   from arrival to the command's publication, the contact QP included) and
   its CPU time per message.

Prints the load average next to the figures (the machine may be shared).
"""

import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'test'))
sys.path.insert(0, HERE)

from bench_inverse_dynamics_node import percentiles, round_trips  # noqa: E402
import conftest  # noqa: E402,F401 - isolated ROS domain, like the tests
from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402
from robot_data import example_urdf  # noqa: E402
from ros_dynamics.msg import ContactSpec  # noqa: E402
from ros_dynamics.srv import ContactInverseDynamics, InverseDynamics  # noqa: E402
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

SOLO = example_urdf('solo_description/robots/solo12.urdf')
FEET = ('FL_FOOT', 'FR_FOOT', 'HL_FOOT', 'HR_FOOT')
JOINTS = [f'{leg}_{joint}' for leg in ('FL', 'FR', 'HL', 'HR') for joint in ('HAA', 'HFE', 'KFE')]
STANDING = [0.1, 0.8, -1.6, -0.1, 0.8, -1.6, 0.1, -0.8, 1.6, -0.1, -0.8, 1.6]   # solo.srdf
HEIGHT = 0.235


def cpu_seconds(pid: int) -> float:
    """Return a process's user + system CPU time (s) from /proc."""
    with open(f'/proc/{pid}/stat') as stream:
        fields = stream.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def requests() -> dict:
    """Return the two services' requests of solo12 standing."""
    state = JointState(name=JOINTS, position=STANDING, velocity=[0.0] * 12)
    contact = ContactInverseDynamics.Request(
        state=state, contacts=[ContactSpec(frame=f, kind='point', friction=0.7) for f in FEET])
    contact.base_pose.position.z = HEIGHT
    rnea = InverseDynamics.Request(state=state)
    rnea.base_pose.position.z = HEIGHT
    return {'contact_inverse_dynamics': (ContactInverseDynamics,
                                         'inverse_dynamics/contact_inverse_dynamics', contact),
            'inverse_dynamics': (InverseDynamics, 'inverse_dynamics/inverse_dynamics', rnea)}


def stream(ros: RosClient, pid: int, count: int) -> tuple:
    """Publish ``count`` states at 500 Hz; return (diagnostics values, node CPU s/message)."""
    states = ros.node.create_publisher(JointState, 'joint_states', 10)
    odometry = ros.node.create_publisher(Odometry, 'odom', 10)
    diagnostics = []
    ros.node.create_subscription(DiagnosticArray, '/diagnostics', diagnostics.append, 10)
    state = JointState(name=JOINTS, position=STANDING, velocity=[0.0] * 12)
    odom = Odometry()
    odom.pose.pose.position.z = HEIGHT
    sent, done = [0], threading.Event()

    def tick():
        if sent[0] >= count:
            done.set()
            return
        odometry.publish(odom)
        states.publish(state)
        sent[0] += 1
    wait_for(lambda: states.get_subscription_count() > 0, what='the stream')
    start = cpu_seconds(pid)
    timer = ros.node.create_timer(0.002, tick)
    done.wait(count / 500.0 * 3 + 30)
    ros.node.destroy_timer(timer)
    time.sleep(1.5)   # the last diagnostics
    cpu = (cpu_seconds(pid) - start) / count
    values = {v.key: v.value for s in diagnostics[-1].status for v in s.values}
    return values, cpu


def main() -> None:
    """Run both parts and print the figures."""
    namespace = unique_namespace()
    calls = int(os.environ.get('BENCH_CALLS', '500'))
    parameters = {'urdf_path': SOLO, 'root_joint': 'floating', 'contacts': list(FEET),
                  'state_timeout': 1.0, 'clamp_effort': False}
    with NodeProcess('inverse_dynamics_node', namespace, parameters) as node, \
            RosClient(namespace, threads=1) as ros:
        services = requests()
        round_trips(namespace, services, 2, block=10)   # warm up (first calls, clients)
        times = round_trips(namespace, services, max(1, calls // 50))
        print(f'load average {os.getloadavg()}')
        for label, samples in times.items():
            print(f'{label:26s} round trip {percentiles(samples)}')
        for label, service in services.items():
            start = cpu_seconds(node.process.pid)
            round_trips(namespace, {label: service}, max(1, calls // 50))
            used = (cpu_seconds(node.process.pid) - start) / (50 * max(1, calls // 50))
            print(f'{label:26s} node CPU per call {used * 1e3:.3f} ms')
        values, cpu = stream(ros, node.process.pid, 2 * calls)
        print(f'load average {os.getloadavg()}')
        print(f'stream with 4 contacts: published {values.get("published")}, compute p50 '
              f'{values.get("stream_p50_ms")} ms p99 {values.get("stream_p99_ms")} ms, '
              f'node CPU per message {cpu * 1e3:.3f} ms, limited '
              f'{values.get("contact_limited")} of {values.get("contact_answers")}')


if __name__ == '__main__':
    main()
