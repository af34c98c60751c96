# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The real-arm recipes: launch/feedforward.launch.py and ``bringup --config`` start the same.

For every recipe (config/feedforward_<recipe>.yaml) and every argument
(namespace, use_sim_time, robot, a robot_description string as a xacro
``Command`` gives it, config), the launch file (its
``generate_launch_description`` over stand-ins of the launch classes, as
test_launch_files.py runs the simulation's) and the bringup's command lines
give each node the same namespace, parameters and remappings. The recipes'
contents: gravity off where the robot compensates it (Franka, UR), a
watchdog between the feedforward and the controller wherever one is fed,
none for Kinova (nothing is fed to its motors).
"""

import os

from bringup_helpers import recipe_commands, RECIPES
import pytest
from ros_dynamics.bringup import (command, load_arguments, load_declaration, resolve_arguments,
                                  section)
from test_launch_files import launch_stand_ins, launched_nodes  # noqa: F401 - a fixture
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
XML = '<robot name="two"><link name="base_link"/></robot>'


def launched(given: dict, launch_file: str = 'feedforward.launch.py') -> dict:
    """Return {node: (namespace, parameters, remappings)} a launch file starts."""
    return launched_nodes(given, launch_file)


def from_command_line(args: list, name: str) -> tuple:
    """Return (namespace, parameters, remappings) of one bringup command line."""
    namespace, values, remappings = '/', {}, {}
    ros = args[args.index('--ros-args') + 1:]
    for flag, value in zip(ros, ros[1:]):
        if flag == '--params-file':
            values.update(section(value, name))
        elif flag == '-p':
            key, _, text = value.partition(':=')
            values[key] = yaml.safe_load(text)
        elif flag == '-r':
            source, _, target = value.partition(':=')
            if source == '__ns':
                namespace = target
            elif source != '__node':
                remappings[source] = target
    return namespace, values, remappings


def brought_up(recipe: str, given: dict) -> dict:
    return {name: from_command_line(args, name)
            for name, (_, args) in recipe_commands(recipe, given).items()}


def test_the_simulation_takes_a_namespace_alike(launch_stand_ins):  # noqa: F811
    """The declaration of make run: namespace:=NS moves every node, alike in both runners."""
    pytest.importorskip('rclpy')
    path = os.path.join(ROOT, 'config', 'bringup.yaml')
    _, nodes = load_declaration(path)
    for given in ({}, {'namespace': 'arm1'}, {'namespace': 'arm1', 'use_sim_time': 'false'}):
        values, extra = resolve_arguments(load_arguments(path), given)
        bringup = {n.name: from_command_line(command(n, values, extra), n.name) for n in nodes}
        launch = launched(given, 'sim_gravity_compensation.launch.py')
        assert launch == bringup, given
        expected = '/arm1' if given else '/'
        assert {ns for ns, _, _ in launch.values()} == {expected}, launch
        simulator = launch['simulator'][1]
        assert simulator['hold_until_command'] is True, 'its /**/simulator section applies'
        assert launch['inverse_dynamics'][2] == {'commands': 'simulator/commands'}


@pytest.mark.parametrize('recipe', RECIPES)
def test_launch_file_and_bringup_start_a_recipe_alike(recipe, launch_stand_ins):  # noqa: F811
    pytest.importorskip('rclpy')   # command() needs the installed executables
    two_r = os.path.join(ROOT, 'urdf', 'planar_2r.urdf')
    cases = [{}, {'namespace': 'left_arm'}, {'namespace': '/robots/left/'},
             {'use_sim_time': 'true'}, {'robot': two_r}, {'robot_description': XML},
             {'namespace': 'arm', 'use_sim_time': 'true', 'kd': '[2.0]'},
             {'config': os.path.join(ROOT, 'config')}]
    for given in cases:
        launch = launched({'recipe': recipe, **given})
        assert launch == brought_up(recipe, given), given
        namespace = {'left_arm': '/left_arm', '/robots/left/': '/robots/left',
                     'arm': '/arm'}.get(given.get('namespace'), '/')
        for name, (node_namespace, parameters, remappings) in launch.items():
            assert node_namespace == namespace, (given, name)
            assert all(not target.startswith('/') for target in remappings.values()), \
                'relative names: the namespace moves them'
        dynamics = launch['inverse_dynamics'][1]
        assert dynamics.get('urdf_path', '') == given.get('robot', ''), given
        assert dynamics['use_sim_time'] is (given.get('use_sim_time') == 'true')
        if 'robot_description' in given:
            assert dynamics['robot_description'] == XML
    with pytest.raises(ValueError, match='recipe'):
        launched({'recipe': 'kuka'})


@pytest.mark.parametrize('recipe', RECIPES)
def test_each_recipe_feeds_what_its_robot_expects(recipe):
    path = os.path.join(ROOT, 'config', f'feedforward_{recipe}_parameters.yaml')
    with open(path, encoding='utf-8') as stream:
        data = yaml.safe_load(stream)
    assert all(key.startswith('/**/') for key in data), 'wildcard keys: any namespace'
    dynamics = data['/**/inverse_dynamics']['ros__parameters']
    commands = recipe_commands(recipe, {})
    if recipe == 'kinova':   # no torque path: nothing is fed, nothing to watch
        assert set(commands) == {'inverse_dynamics'}
        assert dynamics['on_stale'] == 'silent'
        return
    watchdog = data['/**/command_watchdog']['ros__parameters']
    assert set(commands) == {'inverse_dynamics', 'command_watchdog'}
    _, _, remappings = from_command_line(commands['command_watchdog'][1], 'command_watchdog')
    assert remappings == {'commands_in': 'feedforward',
                          'commands_out': 'effort_controller/commands'}
    # stamped commands: the producer's effort_commands (JointState) are what the watchdog takes
    _, _, remappings = from_command_line(commands['inverse_dynamics'][1], 'inverse_dynamics')
    assert remappings['effort_commands'] == 'feedforward', remappings
    assert dynamics['publish_joint_state'] is True and watchdog['stamped'] is True
    assert watchdog['joints'] == dynamics['joints']
    # Franka's and UR's torque interfaces add gravity (and friction) themselves
    compensated = recipe in ('franka', 'ur')
    assert dynamics['include_gravity'] is not compensated
    assert str(dynamics.get('friction_compensation', 'false')) == 'false'
    assert watchdog['size'] == len(dynamics['joints'])
    assert watchdog['on_stale'] == dynamics['on_stale'] == 'ramp'
    assert 0 < watchdog['command_timeout'] <= 0.1


@pytest.mark.ros
@pytest.mark.parametrize('source', ['topic', 'parameter'])
def test_the_recipe_takes_the_description_as_ros_users_give_it(source):
    """
    A namespaced recipe fed its URDF by robot_state_publisher's topic or a string parameter.

    ``topic``: nothing given, the node waits for ``<namespace>/robot_description``
    (published here transient local before the node starts, as
    robot_state_publisher does); ``parameter``: ``robot_description:=<xml>``,
    what a xacro ``Command`` substitution gives. Either way the stream answers
    in the namespace, through the watchdog.
    """
    import time

    import numpy as np
    from rclpy.qos import DurabilityPolicy, QoSProfile, qos_profile_sensor_data
    from ros_dynamics import RobotModel
    from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray, String
    path = os.path.join(ROOT, 'urdf', 'planar_2r.urdf')
    xml = open(path, encoding='utf-8').read()
    namespace = unique_namespace()
    given = {'namespace': namespace, 'joints': '[shoulder, elbow]', 'size': '2'}
    if source == 'parameter':
        given['robot_description'] = xml
    commands = recipe_commands('effort_interface', given)
    expected = RobotModel.from_urdf_file(path).gravity_torques(np.array([0.4, -0.9]))
    with RosClient(namespace) as ros:
        latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        description = ros.node.create_publisher(String, 'robot_description', latched)
        if source == 'topic':
            description.publish(String(data=xml))
        processes = [NodeProcess(executable, namespace) for executable, _ in commands.values()]
        for process, (_, args) in zip(processes, commands.values()):
            process.args = args
        with processes[0], processes[1]:
            received = []
            ros.node.create_subscription(Float64MultiArray, 'effort_controller/commands',
                                         lambda m: received.append(np.array(m.data)), 100)
            states = ros.node.create_publisher(JointState, 'joint_states',
                                               qos_profile_sensor_data)

            def streamed() -> bool:
                message = JointState(name=['shoulder', 'elbow'], position=[0.4, -0.9],
                                     velocity=[0.0, 0.0])
                message.header.stamp = ros.node.get_clock().now().to_msg()
                states.publish(message)
                time.sleep(0.01)
                return sum(1 for c in received if np.allclose(c, expected, atol=1e-9)) >= 5
            try:
                wait_for(streamed, 90.0, 'commands in the namespace')
            except AssertionError as error:
                raise AssertionError(f'{error}: {processes[0].output()}') from None
            output = processes[0].output()
    # g(q) of the streamed state; on a busy machine a state delayed past state_timeout starts
    # the node's ramp: those commands lie between zero and g(q), joint by joint
    fractions = [c / expected for c in received if not np.allclose(c, expected, atol=1e-9)]
    assert all(np.all((f >= -1e-12) & (f <= 1.0 + 1e-12)) and np.ptp(f) < 1e-9
               for f in fractions), received
    origin = 'topic robot_description' if source == 'topic' else 'parameter robot_description'
    assert origin in output, output
