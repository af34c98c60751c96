# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Feedforward torques for a real arm under ros2_control (docs/recipes/).

    ros2 launch ros_dynamics feedforward.launch.py recipe:=ur
    ros2 launch ros_dynamics feedforward.launch.py recipe:=franka namespace:=left_arm
    ros2 launch ros_dynamics feedforward.launch.py recipe:=effort_interface use_sim_time:=true \
        robot_description:="$(xacro arm.urdf.xacro)"

``recipe`` (effort_interface, franka, ur, kinova) selects the declaration
config/feedforward_<recipe>.yaml, the same file ``bringup --config`` starts:
its nodes (inverse_dynamics_node, and the command_watchdog between it and
the effort controller's ``effort_controller/commands``), its arguments
(``namespace``, ``use_sim_time``, ``robot``, ``config``) and each node's
parameters (``ros_dynamics.bringup.node_parameters``: files, then the
overrides, then any other ``name:=value`` to every node, e.g. a
``robot_description`` string). Without ``robot`` or ``robot_description``
the nodes take the URDF from the ``robot_description`` topic of
robot_state_publisher (transient local), in the namespace.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch_ros.actions import Node
from ros_dynamics.bringup import (load_arguments, load_declaration, namespace, node_parameters,
                                  parameter_value, resolve_arguments)

RECIPES = ['effort_interface', 'franka', 'ur', 'kinova']


def declaration_of(recipe: str) -> str:
    """Return the path of a recipe's declaration in the installed share directory."""
    return os.path.join(get_package_share_directory('ros_dynamics'), 'config',
                        f'feedforward_{recipe}.yaml')


def launch_nodes(context) -> list:
    """Return one Node action per node of the recipe's declaration, for the arguments given."""
    given = dict(context.launch_configurations)
    declaration = declaration_of(given.pop('recipe'))
    _, nodes = load_declaration(declaration)
    values, extra = resolve_arguments(load_arguments(declaration), given)
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
    """Declare ``recipe`` and the declarations' arguments, then start the recipe's nodes."""
    actions = [DeclareLaunchArgument('recipe', default_value='effort_interface',
                                     choices=RECIPES,
                                     description='the arm: docs/recipes/<recipe>.md')]
    actions += [DeclareLaunchArgument(a.name, default_value=a.default, description=a.description,
                                      **({'choices': a.choices} if a.choices else {}))
                for a in load_arguments(declaration_of('effort_interface'))]
    return LaunchDescription(actions + [OpaqueFunction(function=launch_nodes)])
