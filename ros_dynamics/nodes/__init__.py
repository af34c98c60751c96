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
               'cartesian_impedance_controller')


def _exit_while_importing(signum: int, frame) -> None:
    os._exit(0)


if os.path.basename(sys.argv[0]) in EXECUTABLES:
    signal.signal(signal.SIGINT, _exit_while_importing)
    signal.signal(signal.SIGTERM, _exit_while_importing)
