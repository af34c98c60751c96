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
Simulated arm under gravity compensation (the main job of `make run`).

    ros2 launch ros_dynamics sim_gravity_compensation.launch.py robot:=/path/arm.urdf

The node list comes from config/bringup.yaml, the same declaration
``ros_dynamics.bringup`` (make run) starts, so the two cannot drift. Each
node's ``use_sim_time`` comes from that declaration too, after its parameter
files: the simulator makes the clock, the other nodes follow it (a launch
argument overriding it for every node made the compensator find every
simulated joint state stale and send nothing).
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from ros_dynamics.bringup import load_declaration


def generate_launch_description():
    """Declare the arguments and one Node action per entry of config/bringup.yaml."""
    share = get_package_share_directory('ros_dynamics')
    default_robot, nodes = load_declaration(os.path.join(share, 'config', 'bringup.yaml'))
    robot = LaunchConfiguration('robot')
    config = LaunchConfiguration('config')
    actions = [
        DeclareLaunchArgument('robot', default_value=default_robot,
                              description='URDF file of the arm'),
        DeclareLaunchArgument('config', default_value=os.path.join(share, 'config'),
                              description='directory holding the nodes parameter files'),
    ]
    for node in nodes:
        files = [PathJoinSubstitution([config, os.path.basename(p)]) for p in node.parameters]
        actions.append(Node(
            package='ros_dynamics', executable=node.executable, name=node.name,
            parameters=files + [{'urdf_path': robot, 'use_sim_time': node.use_sim_time}],
            remappings=list(node.remappings.items()), output='screen'))
    return LaunchDescription(actions)
