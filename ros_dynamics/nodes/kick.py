# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Push a simulated arm: set joint velocities through a simulator node's ``~/set_state``.

The bringup's ``--kick JOINT=VELOCITY`` (``ros_dynamics.bringup``) calls
``kick`` in a thread of its own, so the launcher stays free of rclpy until a
kick is asked for.
"""

import time

import rclpy
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.signals import SignalHandlerOptions
from ros_dynamics.srv import SetJointState


def kick(service: str, velocities: dict, after: float, stopping: list) -> None:
    """
    Set joint velocities through the simulator's ``~/set_state`` ``after`` s after it serves.

    Runs in a thread of the bringup with an rclpy context of its own (no
    signal handlers: Ctrl-C stays the bringup's); prints the simulator's answer.
    """
    context = Context()
    rclpy.init(context=context, signal_handler_options=SignalHandlerOptions.NO)
    node = rclpy.create_node('bringup_kick', context=context)
    try:
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        client = node.create_client(SetJointState, service)
        while not stopping and not client.wait_for_service(timeout_sec=0.2):
            pass
        due = time.monotonic() + after   # counted from the simulator serving
        while not stopping and time.monotonic() < due:
            time.sleep(0.05)
        if stopping:
            return
        future = client.call_async(SetJointState.Request(
            name=list(velocities), velocity=list(velocities.values())))
        executor.spin_until_future_complete(future, timeout_sec=10.0)
        answer = future.result()
        print(f'[bringup] kick {velocities} rad/s: '
              + (answer.message if answer is not None else 'no answer within 10 s'),
              flush=True)
    finally:
        node.destroy_node()
        rclpy.try_shutdown(context=context)
