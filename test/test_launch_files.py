# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The launch file and `make run` come from one declaration, naming only what exists.

The ROS 2 launch system is not installable here, so the launch file is
checked by reading it: it must take its arguments and nodes from
config/bringup.yaml through ``ros_dynamics.bringup`` and name no executable
itself; and by running ``generate_launch_description`` over stand-ins of the
launch classes that only record their arguments (its ``OpaqueFunction`` run
with the launch configurations ``ros2 launch`` would hold: the declared
defaults, then the arguments given), whose parameters are then resolved in
launch's order (files, then dictionaries) and compared, for every argument,
with what the bringup's command line gives each node. One real bringup with
``use_sim_time:=false`` streams commands (it sent none: every state stale).
"""

import ast
import functools
import importlib.util
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import types

import pytest
from ros_dynamics.bringup import (
    clock_warnings, command, effective_parameters, kick_velocities, load_arguments,
    load_declaration, main, NodeDeclaration, resolve_arguments, section)
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECLARATIONS = [os.path.join(ROOT, 'config', name)
                for name in ('bringup.yaml', 'payload_demo.yaml')]


def console_scripts() -> set:
    """Return the node executables CMakeLists.txt installs (its ROS_DYNAMICS_NODES list)."""
    text = open(os.path.join(ROOT, 'CMakeLists.txt'), encoding='utf-8').read()
    match = re.search(r'set\(ROS_DYNAMICS_NODES\s(.*?)\)', text, re.S)
    if not match:
        raise AssertionError('CMakeLists.txt has no ROS_DYNAMICS_NODES list')
    return set(re.findall(r'"([A-Za-z_]+)=', match.group(1)))


@pytest.mark.parametrize('path', DECLARATIONS, ids=os.path.basename)
def test_bringup_names_installed_executables_and_existing_files(path):
    robot, nodes = load_declaration(path)
    assert os.path.isfile(robot)
    scripts = console_scripts()
    assert nodes
    for node in nodes:
        assert node.executable in scripts, f'{node.executable} is not a console script'
        for parameters in node.parameters:
            assert os.path.isfile(parameters), parameters
            with open(parameters, encoding='utf-8') as stream:
                assert f'{node.name}:' in stream.read(), f'{parameters} has no section'


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
        assert {'load_declaration', 'load_arguments', 'resolve_arguments', 'node_parameters',
                'DeclareLaunchArgument', 'Node'} <= called
        # feedforward.launch.py's recipe:= picks the declaration (bringup's --config)
        literal = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
                   and getattr(n.func, 'id', '') == 'DeclareLaunchArgument'
                   and n.args and isinstance(n.args[0], ast.Constant)
                   and (name, n.args[0].value) != ('feedforward.launch.py', 'recipe')]
        assert not literal, 'the launch arguments come from the declaration'
        strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
        assert not strings & console_scripts(), 'executables must come from bringup.yaml'


def test_missing_executable_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(tmp_path))
    values = {'robot': 'robot.urdf', 'config': str(tmp_path)}
    with pytest.raises(FileNotFoundError, match='ros_dynamics/no_such_node is not installed'):
        command(NodeDeclaration('no_such_node', 'x'), values, {})


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
    for action in ('DeclareLaunchArgument', 'OpaqueFunction'):
        setattr(modules['launch.actions'], action, Recorded)
    modules['launch.substitutions'].LaunchConfiguration = Recorded
    modules['launch.substitutions'].PathJoinSubstitution = Recorded
    modules['launch_ros.actions'].Node = Recorded
    modules['ament_index_python.packages'].get_package_share_directory = lambda package: ROOT


def launched_nodes(given: dict, launch_file: str = 'sim_gravity_compensation.launch.py') -> dict:
    """
    Return {node: (namespace, parameters, remappings)} a launch file starts for ``name:=value``.

    The launch configurations are the declared defaults overridden by the
    arguments given (what ``ros2 launch`` holds when the OpaqueFunction runs);
    each node's parameters resolve in launch_ros' order: files, then dictionaries.
    """
    path = os.path.join(ROOT, 'launch', launch_file)
    spec = importlib.util.spec_from_file_location(launch_file.split('.')[0], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    actions = module.generate_launch_description()
    arguments = [a for a in actions if 'default_value' in a.kwargs]
    for argument in arguments:
        choices = argument.kwargs.get('choices')
        value = given.get(argument.args[0], argument.kwargs['default_value'])
        if choices is not None and value not in choices:   # launch refuses it
            raise ValueError(f'{argument.args[0]}:={value}: not one of {choices}')
    context = types.SimpleNamespace(launch_configurations={
        **{a.args[0]: a.kwargs['default_value'] for a in arguments}, **given})
    (opaque,) = [a for a in actions if 'function' in a.kwargs]
    out = {}
    for node in opaque.kwargs['function'](context, *opaque.kwargs.get('args', [])):
        values = {}
        for entry in node.kwargs['parameters']:
            if isinstance(entry, str):
                values.update(section(entry, node.kwargs['name']))
            else:
                values.update(entry)
        out[node.kwargs['name']] = (node.kwargs.get('namespace') or '/', values,
                                    dict(node.kwargs.get('remappings') or []))
    return out


def launched(given: dict) -> dict:
    """Return {node: parameters} the simulation's launch file gives for ``name:=value``."""
    return {name: values for name, (_, values, _) in launched_nodes(given).items()}


def bringup_launched(given: dict, path: str = DECLARATIONS[0]) -> dict:
    """Return {node: parameters} the bringup's command lines give for ``name:=value``."""
    _, nodes = load_declaration(path)
    values, extra = resolve_arguments(load_arguments(path), given)
    return {node.name: bringup_parameters(command(node, values, extra), node.name)
            for node in nodes}


def other_config(tmp_path) -> str:
    """Return a copy of config/ whose inverse_dynamics.yaml sets kd 3.0."""
    directory = tmp_path / 'config'
    shutil.copytree(os.path.join(ROOT, 'config'), directory)
    text = (directory / 'inverse_dynamics.yaml').read_text()
    (directory / 'inverse_dynamics.yaml').write_text(text.replace('kd: [0.0]', 'kd: [3.0]'))
    return str(directory)


def test_launch_file_and_bringup_give_the_nodes_the_same_parameters(launch_stand_ins,
                                                                    tmp_path):
    """For every argument, each alone and together: the same parameters, node by node."""
    pytest.importorskip('rclpy')   # command() needs the installed executables
    config = other_config(tmp_path)
    cases = [{}, {'use_sim_time': 'true'}, {'use_sim_time': 'false'}, {'kd': '[2.0]'},
             {'robot': os.path.join(ROOT, 'urdf', 'planar_2r.urdf')}, {'config': config},
             {'use_sim_time': 'false', 'kd': '[2.0]', 'config': config,
              'on_stale': 'zero'}]
    for given in cases:
        launch, bringup = launched(given), bringup_launched(given)
        assert launch == bringup, given
        assert set(launch) == {'simulator', 'inverse_dynamics'}
        clock = given.get('use_sim_time', 'true') == 'true'
        assert launch['inverse_dynamics']['use_sim_time'] is clock, given
        assert launch['simulator']['use_sim_time'] is False   # it makes the clock
        assert launch['simulator']['sim_time_stamps'] is clock, given
        assert launch['inverse_dynamics']['urdf_path'] == given.get(
            'robot', os.path.join(ROOT, 'urdf', 'panda_arm.urdf'))
        kd = {'[2.0]': [2.0]}.get(given.get('kd'), [3.0] if 'config' in given else [0.0])
        assert launch['inverse_dynamics']['kd'] == kd, given
    for bad in ({'use_sim_time': 'maybe'}, {'use_sim_time': 'True'}):
        with pytest.raises(ValueError, match='use_sim_time'):
            launched(bad)
        with pytest.raises(ValueError, match='use_sim_time:=.*expected one of true, false'):
            bringup_launched(bad)


def test_bringup_warns_only_when_clocks_differ(capsys):
    for path in DECLARATIONS:
        _, nodes = load_declaration(path)
        arguments = load_arguments(path)
        for given in ({}, {'use_sim_time': 'true'}, {'use_sim_time': 'false'}, {'mode': 'x'}):
            assert clock_warnings(nodes, *resolve_arguments(arguments, given)) == [], given
        (warning,) = clock_warnings(nodes, *resolve_arguments(arguments,
                                                              {'sim_time_stamps': 'false'}))
        assert 'inverse_dynamics runs with use_sim_time true' in warning
        assert 'stale' in warning
    # a declaration without the argument: use_sim_time:=X goes to every node, as before
    bare = tmp_declaration()
    _, nodes = load_declaration(bare)
    arguments = load_arguments(bare)
    values, extra = resolve_arguments(arguments, {'use_sim_time': 'false'})
    assert effective_parameters(nodes[1], values, extra)['use_sim_time'] is False
    (warning,) = clock_warnings(nodes, values, extra)
    assert 'inverse_dynamics' in warning and 'simulated' in warning
    assert clock_warnings(nodes, *resolve_arguments(arguments, {'use_sim_time': 'true'})) == []
    # bringup --help's own example
    with pytest.raises(SystemExit):
        main(['--help'])
    example = re.search(r'example: bringup (.*?) \(', capsys.readouterr().out.replace('\n', ' '))
    given = dict(item.split(':=') for item in example.group(1).split())
    assert given
    _, nodes = load_declaration(DECLARATIONS[0])
    assert clock_warnings(nodes, *resolve_arguments(load_arguments(DECLARATIONS[0]),
                                                    given)) == []


def tmp_declaration() -> str:
    """Return config/bringup.yaml without its arguments (old style: clocks fixed per node)."""
    with open(DECLARATIONS[0], encoding='utf-8') as stream:
        data = yaml.safe_load(stream)
    data.pop('arguments')
    for node in data['nodes']:
        node.pop('arguments', None)
    data['nodes'][1]['use_sim_time'] = True
    handle = tempfile.NamedTemporaryFile('w', suffix='.yaml', dir=os.path.join(ROOT, 'config'),
                                         delete=False)
    with handle:
        yaml.safe_dump(data, handle)
    return handle.name


@pytest.fixture(autouse=True)
def _remove_tmp_declarations():
    yield
    for name in os.listdir(os.path.join(ROOT, 'config')):
        if name.startswith('tmp') and name.endswith('.yaml'):
            os.remove(os.path.join(ROOT, 'config', name))


def test_bringup_refuses_a_malformed_argument(capsys):
    assert main(['use_sim_time:=maybe']) == 1
    assert main(['kd=2']) == 1
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 2, errors
    assert errors[0].startswith('[bringup] error: use_sim_time:=maybe: expected one of true, '
                                'false'), errors
    assert errors[1] == "[bringup] error: expected name:=value, got 'kd=2'", errors
    assert main(['config:=/no/such/directory']) == 1
    (error,) = capsys.readouterr().err.splitlines()
    assert error == ('[bringup] error: config:=/no/such/directory: no parameter file '
                     'simulator.yaml for simulator'), error


def test_bringup_kick_takes_joint_velocities_and_names_a_bad_one():
    assert kick_velocities('panda_joint1=0.5, panda_joint4=-0.25') == {
        'panda_joint1': 0.5, 'panda_joint4': -0.25}
    for bad in ('panda_joint1', 'panda_joint1=fast', '=0.5', 'panda_joint1=nan', ','):
        with pytest.raises(ValueError, match='--kick'):
            kick_velocities(bad)


ROS_OWN = {'/rosout', '/parameter_events', '/diagnostics'}   # every node's, by convention


def root_topics(node) -> dict:
    """Return {topic: (publishers, subscriptions)} of the root namespace, ROS's own left out."""
    out = {}
    for topic, _ in node.get_topic_names_and_types():
        if topic.count('/') == 1 and topic not in ROS_OWN:
            out[topic] = (node.count_publishers(topic), node.count_subscribers(topic))
    return out


@pytest.mark.ros
@pytest.mark.parametrize('clock', ['true', 'false'])
def test_bringup_streams_with_no_unused_root_topic(clock):
    """
    ``bringup use_sim_time:=X``: the compensator answers the simulated arm's states.

    With ``false`` it sent no command before (the simulator stamped sim time,
    the compensator read the wall clock: every state stale, the arm fell).
    Every root-namespace topic of the graph has a publisher and a subscriber
    besides this test's (``/payload``, ``/reference``, ``/effort_commands``
    existed unused), and there is no clock warning.
    """
    from ros_helpers import RosClient, wait_for
    from std_msgs.msg import Float64MultiArray
    log = tempfile.NamedTemporaryFile(suffix='.log', delete=False).name
    with open(log, 'w') as stream:
        bringup = subprocess.Popen([sys.executable, '-m', 'ros_dynamics.bringup',
                                    f'use_sim_time:={clock}'], cwd=ROOT, stdout=stream,
                                   stderr=subprocess.STDOUT, start_new_session=True,
                                   env=dict(os.environ, PYTHONUNBUFFERED='1'))
    output = functools.partial(pathlib.Path(log).read_text, errors='replace')
    try:
        with RosClient('/') as ros:
            wait_for(lambda: 'first command received' in output() or bringup.poll() is not None,
                     120.0, 'the first command')
            assert bringup.poll() is None, output()
            commands = []
            ros.node.create_subscription(Float64MultiArray, '/simulator/commands',
                                         commands.append, 100)
            wait_for(lambda: len(commands) >= 250 or bringup.poll() is not None, 30.0,
                     '250 commands')
            assert len(commands[-1].data) == 7
            expected = {'/joint_states'} | ({'/clock'} if clock == 'true' else set())
            seen = []

            def every_topic_used() -> bool:   # discovery reaches this node in its own time
                seen[:] = [root_topics(ros.node)]
                return set(seen[0]) == expected and all(
                    publishers >= 1 and subscriptions >= 1
                    for publishers, subscriptions in seen[0].values())
            try:
                wait_for(every_topic_used, 30.0, 'the graph')
            except AssertionError:
                raise AssertionError(f'root-namespace topics {seen[0]}, expected {expected} '
                                     'each with a publisher and a subscriber') from None
        bringup.send_signal(signal.SIGINT)
        code = bringup.wait(timeout=30.0)
    finally:
        if bringup.poll() is None:   # SIGINT first: the bringup stops its nodes (own sessions)
            bringup.send_signal(signal.SIGINT)
            try:
                bringup.wait(timeout=30.0)
            except subprocess.TimeoutExpired:
                os.killpg(bringup.pid, signal.SIGKILL)
                bringup.wait()
    text = output()
    assert code == 0, text
    assert 'warning' not in text and 'Traceback' not in text, text


@pytest.mark.ros
def test_every_joint_states_consumer_takes_sensor_data_qos():
    """Best effort (matches a best-effort driver and reliable publishers alike), in every node."""
    from rclpy.qos import ReliabilityPolicy
    from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
    namespace = unique_namespace()
    two_r = os.path.join(ROOT, 'urdf', 'planar_2r.urdf')
    with NodeProcess('inverse_dynamics_node', namespace, {'urdf_path': two_r}) as dynamics, \
            NodeProcess('cartesian_impedance_controller', namespace,
                        {'urdf_path': two_r, 'link': 'tool'}) as impedance, \
            RosClient(namespace) as ros:
        topic = f'{namespace}/joint_states'
        wait_for(lambda: len(ros.node.get_subscriptions_info_by_topic(topic)) == 2, 60.0,
                 'both subscriptions')
        for info in ros.node.get_subscriptions_info_by_topic(topic):
            assert info.qos_profile.reliability == ReliabilityPolicy.BEST_EFFORT, \
                (info.node_name, info.qos_profile)
        assert dynamics.alive() and impedance.alive(), dynamics.output() + impedance.output()
