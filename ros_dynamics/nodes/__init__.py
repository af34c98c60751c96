# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
ROS 2 nodes of ros_dynamics: thin translations between messages and the core.

Run as a node executable, the process exits 0 at once on SIGINT or SIGTERM
while its modules are still being imported (seconds on a loaded machine:
rclpy, scipy): nothing has started yet that would need stopping. Once
running, ``process.main_for`` takes the signals over.
"""

import os
import signal
import sys

EXECUTABLES = ('inverse_dynamics_node', 'simulator_node', 'operational_space_node',
               'cartesian_impedance_controller', 'command_watchdog')


def _exit_while_importing(signum: int, frame) -> None:
    os._exit(0)


if os.path.basename(sys.argv[0]) in EXECUTABLES:
    signal.signal(signal.SIGINT, _exit_while_importing)
    signal.signal(signal.SIGTERM, _exit_while_importing)
