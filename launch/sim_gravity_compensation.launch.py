# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Simulated arm under gravity compensation (the main job of `make run`).

    ros2 launch ros_dynamics sim_gravity_compensation.launch.py robot:=/path/arm.urdf
    ros2 launch ros_dynamics sim_gravity_compensation.launch.py use_sim_time:=false
    ros2 launch ros_dynamics sim_gravity_compensation.launch.py namespace:=arm1

The arguments and the node list come from config/bringup.yaml, the same
declaration ``ros_dynamics.bringup`` (make run) starts, and each node's
parameters from the same function (``node_parameters``: its files, then
``urdf_path``, its declared ``use_sim_time``, the parameters it takes from
launch arguments, then any other ``name:=value`` given, to every node), so
``bringup ARGS`` and ``ros2 launch ... ARGS`` start the nodes with the same
parameters. ``use_sim_time`` sets both sides of the clock: the nodes follow
the simulator's /clock (true) or all run on the wall clock with the
simulator stamping its joint states with it (false).
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch_ros.actions import Node
from ros_dynamics.bringup import (load_arguments, load_declaration, namespace, node_parameters,
                                  parameter_value, resolve_arguments)


def launch_nodes(context, declaration: str) -> list:
    """Return one Node action per entry of the declaration, for the arguments given."""
    _, nodes = load_declaration(declaration)
    values, extra = resolve_arguments(load_arguments(declaration),
                                      dict(context.launch_configurations))
    actions = []
    for node in nodes:
        files, overrides = node_parameters(node, values, extra)
        actions.append(Node(
            package='ros_dynamics', executable=node.executable, name=node.name,
            namespace=namespace(values['namespace']) if values.get('namespace') else '',
            parameters=files + [{k: parameter_value(v) for k, v in overrides.items()}],
            remappings=list(node.remappings.items()), output='screen'))
    return actions


def generate_launch_description():
    """Declare the arguments of config/bringup.yaml and start its nodes."""
    declaration = os.path.join(get_package_share_directory('ros_dynamics'), 'config',
                               'bringup.yaml')
    actions = [DeclareLaunchArgument(a.name, default_value=a.default, description=a.description,
                                     **({'choices': a.choices} if a.choices else {}))
               for a in load_arguments(declaration)]
    return LaunchDescription(actions + [OpaqueFunction(function=launch_nodes,
                                                       args=[declaration])])
