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
``ros_dynamics.bringup.load_declaration`` and name no executable itself.
"""

import ast
import os
import re

from ros_dynamics.bringup import command, load_declaration, NodeDeclaration

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
        assert {'robot', 'use_sim_time', 'config'} <= arguments
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
