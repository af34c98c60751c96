# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Soak the 1 kHz feedforward stream: the Panda's gravity compensation for minutes on end.

    scripts/with_ros.sh python benchmarks/soak_feedforward.py --minutes 10

The installed ``inverse_dynamics_node`` (urdf/panda_arm.urdf, mode
gravity_compensation) gets a ``JointState`` every 1 ms (a slow random walk
of the 7 joints) and answers each with a command. Every command is checked
against the core's g(q) of the state it answers (matched in order; a state
without an answer counts as lost), and per minute the script prints the
messages in and out, lost ones (states without an answer: the node's
subscription keeps the last 10 when it falls behind), zero commands (the
node letting go after stale input, ``on_stale: zero``), the latency from
publication to the command's arrival (p50 / p99 / max: two DDS hops and the
node's work), and the node's resident memory (RSS, psutil) and CPU time.
At the end it fits RSS against time over every minute after the first
(warm-up) and says whether the growth extrapolates below 10 MB per hour.
Exit code 1 if it does not, if a command was wrong, or if the node died.
"""

import argparse
import collections
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test'))

import conftest  # noqa: E402,F401 - isolated ROS domain, like the tests
import numpy as np  # noqa: E402
import psutil  # noqa: E402
from rclpy.qos import QoSProfile, ReliabilityPolicy  # noqa: E402
from ros_dynamics import RobotModel  # noqa: E402
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float64MultiArray  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URDF = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
GROWTH_LIMIT_MB_PER_HOUR = 10.0


class Soak:
    """Publish states on a 1 ms timer; match each command with the state it answers."""

    def __init__(self, ros: RosClient, robot: RobotModel, period: float) -> None:
        """Create the publisher, the subscription and the timer."""
        qos = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
        self.robot, self.ros = robot, ros
        self.publisher = ros.node.create_publisher(JointState, 'joint_states', qos)
        ros.node.create_subscription(Float64MultiArray, 'commands', self._on_command, qos)
        wait_for(lambda: self.publisher.get_subscription_count() > 0, 60.0, 'the node')
        wait_for(lambda: ros.node.count_publishers('commands') > 0, 60.0, 'commands')
        self.rng = np.random.default_rng(7)
        self.q = np.array([0.1, -0.4, 0.1, -2.0, 0.2, 1.6, 0.3])
        self.pending = collections.deque()   # (send time, expected command)
        self.sent = self.received = self.lost = self.wrong = self.zeros = 0
        self.latencies = []
        self.message = JointState(name=list(robot.joint_names))
        self.timer = ros.node.create_timer(period, self._tick)

    def _tick(self) -> None:
        self.q = np.clip(self.q + self.rng.normal(0.0, 1e-3, self.q.size), self.robot.lower,
                         self.robot.upper)
        self.message.position = self.q.tolist()
        self.message.header.stamp = self.ros.node.get_clock().now().to_msg()
        expected = np.clip(self.robot.gravity_torques(self.q), -self.robot.effort_limit,
                           self.robot.effort_limit)
        self.pending.append((time.perf_counter(), expected))
        self.publisher.publish(self.message)
        self.sent += 1

    def _on_command(self, message: Float64MultiArray) -> None:
        now = time.perf_counter()
        command = np.asarray(message.data)
        if not np.any(command):   # the node let go once after stale input (on_stale: zero)
            self.zeros += 1
            return
        while self.pending:
            sent, expected = self.pending.popleft()
            if np.allclose(command, expected, rtol=0.0, atol=1e-9):
                self.received += 1
                self.latencies.append((now - sent) * 1e3)
                return
            self.lost += 1          # a state that got no answer
        self.wrong += 1             # a command that answers no state sent

    def minute(self) -> dict:
        """Return this minute's counters and reset them."""
        out = {'in': self.sent, 'out': self.received, 'lost': self.lost, 'wrong': self.wrong,
               'zeros': self.zeros, 'latency': np.array(self.latencies)}
        self.sent = self.received = self.lost = self.wrong = self.zeros = 0
        self.latencies = []
        return out


def main(argv=None) -> int:
    """Run the soak and print the per-minute table and the RSS verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--minutes', type=float, default=10.0, help='duration (default 10)')
    parser.add_argument('--rate', type=float, default=1000.0, help='joint states per s')
    args = parser.parse_args(argv)
    robot = RobotModel.from_urdf_file(URDF)
    namespace = unique_namespace()
    print(f'soak: {args.minutes:g} min of {args.rate:g} Hz joint states to inverse_dynamics_node '
          f'({robot.name}, gravity compensation); machine shared, {os.cpu_count()} cores',
          flush=True)
    with NodeProcess('inverse_dynamics_node', namespace,
                     {'urdf_path': URDF, 'state_timeout': 0.5}) as node, \
            RosClient(namespace, threads=1) as ros:
        wait_for(lambda: "loaded 'panda_arm'" in node.output(), 120.0, 'the model loaded')
        process = psutil.Process(node.process.pid)
        soak = Soak(ros, robot, 1.0 / args.rate)
        rows = []
        start = time.monotonic()
        cpu0 = sum(process.cpu_times()[:2])
        print(' min |     in |    out |  lost | zero | wrong | latency p50 / p99 / max ms | '
              'RSS MB | node CPU s', flush=True)
        for k in range(1, int(np.ceil(args.minutes)) + 1):
            end = start + min(k, args.minutes) * 60.0
            while time.monotonic() < end and node.alive():
                time.sleep(0.2)
            if not node.alive():
                print(f'the node died:\n{node.output()}')
                return 1
            counts = soak.minute()
            rss = process.memory_info().rss / 2**20
            cpu = sum(process.cpu_times()[:2])
            lat = counts['latency']
            p = (np.percentile(lat, [50, 99]).tolist() + [lat.max()]) if lat.size else [np.nan] * 3
            rows.append((time.monotonic() - start, rss))
            print(f'{k:4d} | {counts["in"]:6d} | {counts["out"]:6d} | {counts["lost"]:5d} | '
                  f'{counts["zeros"]:4d} | {counts["wrong"]:5d} | '
                  f'{p[0]:8.3f} / {p[1]:7.3f} / {p[2]:7.2f} | '
                  f'{rss:6.1f} | {cpu - cpu0:6.1f}', flush=True)
            cpu0 = cpu
            if counts['wrong']:
                print('a command did not match the core')
                return 1
        ros.node.destroy_timer(soak.timer)
    times, rss = np.array(rows).T
    if times.size >= 3:   # the first minute is warm-up (allocations, caches)
        slope = np.polyfit(times[1:], rss[1:], 1)[0] * 3600.0
    elif times.size == 2:
        slope = (rss[1] - rss[0]) / (times[1] - times[0]) * 3600.0
    else:
        print('RSS growth: run at least 2 minutes to extrapolate')
        return 0
    verdict = 'below' if slope < GROWTH_LIMIT_MB_PER_HOUR else 'NOT below'
    print(f'RSS growth {slope:+.2f} MB/hour (fit over minutes 2..{times.size}), {verdict} '
          f'{GROWTH_LIMIT_MB_PER_HOUR:g} MB/hour')
    return 0 if slope < GROWTH_LIMIT_MB_PER_HOUR else 1


if __name__ == '__main__':
    sys.exit(main())
