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
The launch file and `make run` come from one declaration, naming only what exists.

The ROS 2 launch system is not installable here, so the launch file is
checked by reading it: it must take its nodes from config/bringup.yaml through
``ros_dynamics.bringup.load_declaration`` and name no executable itself; and
by running ``generate_launch_description`` over stand-ins of the launch
classes that only record their arguments, whose parameters are then resolved
in launch's order (files, then dictionaries) to the values each node gets.
"""

import ast
import importlib.util
import os
import re
import sys
import types

import pytest
from ros_dynamics.bringup import (
    clock_warnings, command, kick_velocities, load_declaration, NodeDeclaration)
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def console_scripts() -> set:
    """Return the node executables CMakeLists.txt installs (its ROS_DYNAMICS_NODES list)."""
    text = open(os.path.join(ROOT, 'CMakeLists.txt'), encoding='utf-8').read()
    match = re.search(r'set\(ROS_DYNAMICS_NODES\s(.*?)\)', text, re.S)
    if not match:
        raise AssertionError('CMakeLists.txt has no ROS_DYNAMICS_NODES list')
    return set(re.findall(r'"([A-Za-z_]+)=', match.group(1)))


def test_bringup_names_installed_executables_and_existing_files():
    robot, nodes = load_declaration(os.path.join(ROOT, 'config', 'bringup.yaml'))
    assert os.path.isfile(robot)
    scripts = console_scripts()
    assert nodes
    for node in nodes:
        assert node.executable in scripts, f'{node.executable} is not a console script'
        for path in node.parameters:
            assert os.path.isfile(path), path
            with open(path, encoding='utf-8') as stream:
                assert f'{node.name}:' in stream.read(), f'{path} has no section {node.name}'


def test_launch_file_reads_the_same_declaration():
    directory = os.path.join(ROOT, 'launch')
    files = [f for f in os.listdir(directory) if f.endswith('.launch.py')]
    assert files
    for name in files:
        source = open(os.path.join(directory, name), encoding='utf-8').read()
        tree = ast.parse(source)
        functions = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert 'generate_launch_description' in functions
        called = {getattr(n.func, 'id', getattr(n.func, 'attr', ''))
                  for n in ast.walk(tree) if isinstance(n, ast.Call)}
        assert {'load_declaration', 'DeclareLaunchArgument', 'Node'} <= called
        arguments = {n.args[0].value for n in ast.walk(tree) if isinstance(n, ast.Call)
                     and getattr(n.func, 'id', '') == 'DeclareLaunchArgument'}
        assert {'robot', 'config'} <= arguments
        assert 'use_sim_time' not in arguments, 'the clock of each node is in bringup.yaml'
        strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
        assert not strings & console_scripts(), 'executables must come from bringup.yaml'


def test_missing_executable_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(tmp_path))
    try:
        command(NodeDeclaration('no_such_node', 'x'), 'robot.urdf', [])
    except FileNotFoundError as error:
        assert 'ros_dynamics/no_such_node is not installed' in str(error)
    else:
        raise AssertionError('a missing executable must be an error')


def section(path: str, node: str) -> dict:
    with open(path, encoding='utf-8') as stream:
        data = yaml.safe_load(stream) or {}
    out = {}
    for key in ('/**', node, f'/{node}'):
        out.update((data.get(key) or {}).get('ros__parameters', {}))
    return out


def bringup_parameters(args: list, node: str) -> dict:
    """Return the parameters a node gets from its command line: files, then -p, in order."""
    values = {}
    ros = args[args.index('--ros-args') + 1:]
    for flag, value in zip(ros, ros[1:]):
        if flag == '--params-file':
            values.update(section(value, node))
        elif flag == '-p':
            name, _, text = value.partition(':=')
            values[name] = yaml.safe_load(text)
    return values


class Recorded:
    """A stand-in for a launch class: records what it was built with."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


@pytest.fixture
def launch_stand_ins(monkeypatch):
    modules = {}
    for name in ('launch', 'launch.actions', 'launch.substitutions', 'launch_ros',
                 'launch_ros.actions', 'ament_index_python', 'ament_index_python.packages'):
        modules[name] = types.ModuleType(name)
        monkeypatch.setitem(sys.modules, name, modules[name])
    modules['launch'].LaunchDescription = list
    modules['launch.actions'].DeclareLaunchArgument = Recorded
    modules['launch.substitutions'].LaunchConfiguration = Recorded
    modules['launch.substitutions'].PathJoinSubstitution = Recorded
    modules['launch_ros.actions'].Node = Recorded
    modules['ament_index_python.packages'].get_package_share_directory = lambda package: ROOT


def launch_parameters(node_action, defaults: dict) -> dict:
    """Return what launch_ros gives a Node: each file, then each dictionary, in order."""
    values = {}
    for entry in node_action.kwargs['parameters']:
        if isinstance(entry, Recorded):   # PathJoinSubstitution([config, file name])
            directory, name = entry.args[0]
            directory = defaults[directory.args[0]] if isinstance(directory, Recorded) \
                else directory
            values.update(section(os.path.join(directory, name), node_action.kwargs['name']))
        else:
            values.update({k: defaults[v.args[0]] if isinstance(v, Recorded) else v
                           for k, v in entry.items()})
    return values


def test_launch_file_and_bringup_give_each_node_the_declared_clock(launch_stand_ins):
    """The compensator follows the simulator's clock; a default must not override it."""
    _, nodes = load_declaration(os.path.join(ROOT, 'config', 'bringup.yaml'))
    declared = {n.name: n.use_sim_time for n in nodes}
    assert declared == {'simulator': False, 'inverse_dynamics': True}
    path = os.path.join(ROOT, 'launch', 'sim_gravity_compensation.launch.py')
    spec = importlib.util.spec_from_file_location('sim_gravity_compensation_launch', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    actions = module.generate_launch_description()
    defaults = {a.args[0]: a.kwargs['default_value'] for a in actions
                if 'default_value' in a.kwargs}
    launched = {a.kwargs['name']: launch_parameters(a, defaults) for a in actions
                if 'executable' in a.kwargs}
    assert set(launched) == set(declared)
    for name, use_sim_time in declared.items():
        assert launched[name].get('use_sim_time') in (use_sim_time, str(use_sim_time).lower()), \
            (name, launched[name])
        assert launched[name]['urdf_path'] == defaults['robot']
    for node in nodes:
        if os.environ.get('AMENT_PREFIX_PATH') is None:
            continue
        try:
            args = command(node, 'robot.urdf', [])
        except FileNotFoundError:   # not built: the launch file is checked all the same
            continue
        assert bringup_parameters(args, node.name)['use_sim_time'] is node.use_sim_time


def test_bringup_warns_when_a_global_clock_breaks_the_declaration():
    _, nodes = load_declaration(os.path.join(ROOT, 'config', 'bringup.yaml'))
    assert clock_warnings(nodes, ['mode:=x']) == []
    (warning,) = clock_warnings(nodes, ['use_sim_time:=false'])
    assert 'inverse_dynamics' in warning and 'stale' in warning
    (warning,) = clock_warnings(nodes, ['use_sim_time:=true'])
    assert 'simulator' in warning


def test_bringup_kick_takes_joint_velocities_and_names_a_bad_one():
    assert kick_velocities('panda_joint1=0.5, panda_joint4=-0.25') == {
        'panda_joint1': 0.5, 'panda_joint4': -0.25}
    for bad in ('panda_joint1', 'panda_joint1=fast', '=0.5', 'panda_joint1=nan', ','):
        with pytest.raises(ValueError, match='--kick'):
            kick_velocities(bad)
