# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Benchmark the inverse-dynamics node's joint-state callback alone, called in a tight loop.

Not a test: run it by hand::

    scripts/with_ros.sh python benchmarks/bench_stream_callback.py --calls 20000

One node in this process (Panda arm, gravity compensation, its real
``commands`` publisher, nobody subscribed) takes the same serialised
JointState ``--calls`` times per block, restamped each time, through
``_on_joint_state_bytes``: blocks of the Python path
(``ROS_DYNAMICS_COMPILED_STREAM=0``, nothing armed) and of the compiled
stream (nodes/gravity_stream.py) taking turns. Printed: CPU time of the
calling thread (``time.thread_time``) and wall time per call, best and
median over the blocks. Hot caches: a lower bound on what a call costs
between DDS messages in the running node (benchmarks/bench_stream.py).
"""

import argparse
import os
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test'))

import conftest  # noqa: E402,F401 - isolated ROS domain, like the tests
import numpy as np  # noqa: E402
import rclpy  # noqa: E402
from rclpy.serialization import serialize_message  # noqa: E402
from ros_dynamics.kernels.stream import gravity_command  # noqa: E402
from ros_dynamics.nodes.inverse_dynamics_node import InverseDynamicsNode  # noqa: E402
from ros_dynamics.runtime.jit import ensure_compiled  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URDF = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
JOINTS = [f'panda_joint{k}' for k in range(1, 8)]
_STAMP = struct.Struct('<iI')


def block(node: InverseDynamicsNode, template: bytes, calls: int) -> tuple:
    """Return (thread CPU s, wall s) of ``calls`` callbacks, each message stamped now."""
    messages = []
    for _ in range(calls):   # restamped outside the timed loop
        data = bytearray(template)
        _STAMP.pack_into(data, 4, *divmod(time.time_ns(), 1_000_000_000))
        messages.append(bytes(data))
    callback = node._on_joint_state_bytes
    cpu, wall = time.thread_time(), time.perf_counter()
    for data in messages:
        callback(data)
    return time.thread_time() - cpu, time.perf_counter() - wall


def main() -> None:
    """Alternate blocks of the Python path and the compiled stream; print per-call figures."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--calls', type=int, default=20000, help='callbacks per block')
    parser.add_argument('--blocks', type=int, default=5, help='blocks of each path')
    args = parser.parse_args()
    ensure_compiled(gravity_command)
    rclpy.init(args=['--ros-args', '-p', f'urdf_path:={URDF}', '-p', 'state_timeout:=5.0'])
    node = InverseDynamicsNode()
    try:
        message = JointState(name=JOINTS, position=[0.1, -0.4, 0.1, -2.0, 0.2, 1.6, 0.3],
                             velocity=[0.0] * 7)
        template = serialize_message(message)
        published = node._published
        figures = {'python': [], 'compiled': []}
        for _ in range(args.blocks):
            for label, switch in (('python', '0'), ('compiled', '1')):
                os.environ['ROS_DYNAMICS_COMPILED_STREAM'] = switch
                node._configure(node._models.model, node._joints, node._kp, node._kd)
                block(node, template, 3)   # arms the compiled stream (switch 1)
                armed = node._feedforward.compiled is not None
                assert armed == (switch == '1'), 'the compiled stream did not arm'
                figures[label].append(block(node, template, args.calls))
        calls = args.blocks * (2 * args.calls + 6)
        assert node._published - published == calls, 'every callback must publish'
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    print(f'joint-state callback, Panda arm gravity compensation, {args.calls} calls per block, '
          f'{args.blocks} blocks each, {time.strftime("%Y-%m-%d %H:%M")} UTC, '
          f'load average {os.getloadavg()[0]:.2f}')
    for label, samples in figures.items():
        cpu = np.array([c for c, _ in samples]) / args.calls * 1e6
        wall = np.array([w for _, w in samples]) / args.calls * 1e6
        print(f'{label:8s} thread CPU per call best {cpu.min():6.2f}  median {np.median(cpu):6.2f}'
              f' us   wall best {wall.min():6.2f}  median {np.median(wall):6.2f} us')
    python = np.median([c for c, _ in figures['python']])
    compiled = np.median([c for c, _ in figures['compiled']])
    print(f'compiled / python thread CPU per call: {compiled / python:.2f}')


if __name__ == '__main__':
    main()
