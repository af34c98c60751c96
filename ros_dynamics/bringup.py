# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Start the nodes of config/bringup.yaml without the ROS 2 launch system.

The launch system (``ros2 launch``) cannot be installed here, so ``make run``
uses this runner; ``launch/sim_gravity_compensation.launch.py`` reads the
same declaration (``load_declaration``) for users with a full ROS 2 install.
Both take the same ``name:=value`` arguments and give each node the same
parameters (``node_parameters``): the declared launch arguments (``robot``,
``config``, and the declaration's own, e.g. ``use_sim_time``, which sets the
compensator's clock and the simulator's stamps together), and any other
``name:=value`` as a parameter of every node (e.g. ``kd:=[2.0]``). A clock
warning is printed only when a node's ``use_sim_time`` really differs from
the clock of the simulator's stamps (``clock_warnings``).
Each node runs as its installed executable in its own process session; on
Ctrl-C (SIGINT) or SIGTERM every node gets SIGINT, then its process group
is killed if it has not exited within a timeout.

``--kick panda_joint1=0.5`` pushes the held arm: ``--kick-after`` s (wall) after
the simulator's services appear it sets those joint velocities (rad/s) through the simulator's
``~/set_state``, the positions kept. Under pure gravity compensation the arm
then keeps the momentum it was given (the simulator's pose report, every 5 s,
shows the error growing); with the compensator's damping (``kd:=[2.0]``, 1/s:
g(q) - M(q) kd qd) it stops about velocity / kd from where it was.
"""

import argparse
import atexit
from dataclasses import dataclass, field
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Optional

import yaml

PACKAGE = 'ros_dynamics'


@dataclass
class NodeDeclaration:
    """
    One node of the bringup: executable, name, parameter files, clock, remappings.

    ``use_sim_time`` (None: not set) is given to the node after its parameter
    files; ``arguments`` ({parameter: argument}) gives it the value of a
    launch argument (``name:=value`` of the bringup and of ``ros2 launch``)
    after that, e.g. ``{use_sim_time: use_sim_time}``.
    """

    executable: str
    name: str
    parameters: list = field(default_factory=list)
    remappings: dict = field(default_factory=dict)
    use_sim_time: Optional[bool] = None
    arguments: dict = field(default_factory=dict)


@dataclass
class LaunchArgument:
    """
    One argument of the bringup and of the launch file (``name:=value``, text).

    ``choices`` (None: any text) lists the values allowed.
    """

    name: str
    default: str
    description: str
    choices: Optional[list] = None


def share_directory(package: str = PACKAGE) -> str:
    """Return ``<prefix>/share/<package>`` from AMENT_PREFIX_PATH, or this source tree."""
    for prefix in filter(None, os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep)):
        path = os.path.join(prefix, 'share', package)
        if os.path.isfile(os.path.join(path, 'package.xml')):
            return path
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read(path: Optional[str]) -> tuple:
    """Return (the declaration's path, its YAML, the directory its paths are relative to)."""
    path = path or os.path.join(share_directory(), 'config', 'bringup.yaml')
    with open(path, encoding='utf-8') as stream:
        declaration = yaml.safe_load(stream)
    if not isinstance(declaration, dict) or not isinstance(declaration.get('nodes'), list):
        raise ValueError(f'{path}: expected a mapping with a list of nodes')
    return path, declaration, os.path.dirname(os.path.dirname(os.path.abspath(path)))


def _text(value) -> str:
    """Return a YAML scalar of the declaration as the text of a launch argument."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return str(value)


def load_declaration(path: Optional[str] = None) -> tuple:
    """Return (robot URDF path, [NodeDeclaration]) with paths made absolute."""
    path, declaration, base = _read(path)
    robot = _robot(declaration, base)
    declared = set((declaration.get('arguments') or {}))
    nodes = []
    for entry in declaration['nodes']:
        use_sim_time = entry.get('use_sim_time')
        if use_sim_time is not None and not isinstance(use_sim_time, bool):
            raise ValueError(f'{path}: node {entry["name"]}: use_sim_time must be true or '
                             f'false, got {use_sim_time!r}')
        arguments = dict(entry.get('arguments') or {})
        unknown = sorted(set(arguments.values()) - declared)
        if unknown:
            raise ValueError(f'{path}: node {entry["name"]}: arguments name undeclared '
                             f'launch arguments {", ".join(unknown)} (declared: '
                             f'{", ".join(sorted(declared)) or "none"})')
        if use_sim_time is not None and 'use_sim_time' in arguments:
            raise ValueError(f'{path}: node {entry["name"]}: use_sim_time is both fixed and '
                             'an argument')
        node = NodeDeclaration(entry['executable'], entry['name'],
                               [os.path.join(base, p) for p in entry.get('parameters', [])],
                               dict(entry.get('remappings') or {}), use_sim_time, arguments)
        nodes.append(node)
    return robot, nodes


def _robot(declaration: dict, base: str) -> str:
    """Return the declaration's URDF path ('' for none: the robot_description topic)."""
    robot = declaration.get('robot') or ''
    return os.path.join(base, robot) if robot else ''


def load_arguments(path: Optional[str] = None) -> list:
    """
    Return the [LaunchArgument] of a declaration: ``robot``, ``config``, then its own.

    ``robot`` (the URDF every node gets as ``urdf_path``) and ``config`` (the
    directory of the nodes' parameter files, looked up by file name) belong
    to every declaration; the others come from its ``arguments`` section.
    """
    path, declaration, base = _read(path)
    out = [LaunchArgument('robot', _robot(declaration, base),
                          'URDF file of the arm (every node gets it as urdf_path; empty: '
                          'none, the nodes take robot_description)'),
           LaunchArgument('config', os.path.join(base, 'config'),
                          'directory holding the nodes parameter files (by file name)')]
    for name, entry in (declaration.get('arguments') or {}).items():
        choices = entry.get('choices')
        out.append(LaunchArgument(name, _text(entry['default']), entry.get('description', ''),
                                  [_text(c) for c in choices] if choices else None))
    return out


def resolve_arguments(arguments: list, given: dict) -> tuple:
    """
    Return (values, extra): every declared argument's text, and the undeclared ones.

    ``given`` ({name: text}) are the ``name:=value`` of the command line (or
    a launch context's configurations); a declared argument not given takes
    its default; one outside its ``choices`` raises ValueError naming it.
    The undeclared (``extra``, e.g. ``kd:=[2.0]``) go to every node as parameters.
    """
    values = {}
    for argument in arguments:
        text = str(given.get(argument.name, argument.default))
        if argument.choices is not None and text not in argument.choices:
            raise ValueError(f'{argument.name}:={text}: expected one of '
                             f'{", ".join(argument.choices)} ({argument.description})')
        values[argument.name] = text
    extra = {name: str(text) for name, text in given.items() if name not in values}
    return values, extra


def node_parameters(node: NodeDeclaration, values: dict, extra: dict) -> tuple:
    """
    Return (parameter files, {parameter: text}) of one node, in the order they apply.

    Last wins: the files (in the ``config`` directory, by name), then
    ``urdf_path`` (the ``robot`` argument), the declared ``use_sim_time``, the
    parameters taken from arguments, then ``extra``. The texts are YAML, as
    ``-p name:=value`` reads them (``parameter_value`` parses one). A
    parameter file missing from ``config`` raises FileNotFoundError naming it.
    """
    files = [os.path.join(values['config'], os.path.basename(p)) for p in node.parameters]
    for path in files:
        if not os.path.isfile(path):
            raise FileNotFoundError(f'config:={values["config"]}: no parameter file '
                                    f'{os.path.basename(path)} for {node.name}')
    overrides = {'urdf_path': values['robot']} if values['robot'] else {}
    if node.use_sim_time is not None:
        overrides['use_sim_time'] = _text(node.use_sim_time)
    for parameter, argument in node.arguments.items():
        overrides[parameter] = values[argument]
    overrides.update(extra)
    return files, overrides


def namespace(text: str) -> str:
    """Return the text of a namespace argument made absolute: robot1 gives /robot1."""
    return '/' + text.strip('/')


def parameter_value(text: str):
    """
    Return a parameter's value from its text as ``-p name:=text`` reads it (YAML).

    A document (text over several lines, or XML: a ``robot_description``
    from a xacro ``Command``) is a string as it is, as launch_ros takes it
    with ``ParameterValue(..., value_type=str)``.
    """
    if '\n' in text or text.lstrip().startswith('<'):
        return text
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    return '' if value is None else value


def executable_path(name: str, package: str = PACKAGE) -> str:
    """Return the installed ``lib/<package>/<name>``, or raise FileNotFoundError."""
    for prefix in filter(None, os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep)):
        path = os.path.join(prefix, 'lib', package, name)
        if os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(f'executable {package}/{name} is not installed (run `make build`)')


def command(node: NodeDeclaration, values: dict, extra: dict) -> list:
    """Return the command line that starts one node (``node_parameters`` in order)."""
    files, overrides = node_parameters(node, values, extra)
    args = [executable_path(node.executable), '--ros-args', '-r', f'__node:={node.name}']
    if values.get('namespace'):   # a declared namespace argument: every node under it
        args += ['-r', f'__ns:={namespace(values["namespace"])}']
    for parameters in files:
        args += ['--params-file', parameters]
    documents = {name: text for name, text in overrides.items() if '\n' in text}
    if documents:   # rcl's -p takes one line of YAML: a document goes in a file of its own
        args += ['--params-file', document_file(documents)]
    for name, text in overrides.items():
        if name not in documents:
            args += ['-p', f'{name}:={text}']
    for source, target in node.remappings.items():
        args += ['-r', f'{source}:={target}']
    return args


def document_file(documents: dict) -> str:
    """Write {parameter: text} as a parameter file for every node; removed at exit."""
    handle, path = tempfile.mkstemp(prefix='bringup_', suffix='.yaml')
    with os.fdopen(handle, 'w', encoding='utf-8') as stream:
        yaml.safe_dump({'/**': {'ros__parameters': documents}}, stream)
    atexit.register(lambda: os.path.exists(path) and os.remove(path))
    return path


def kick_velocities(text: str) -> dict:
    """Return {joint: velocity rad/s} from ``joint=velocity[,joint=velocity...]``."""
    velocities = {}
    for item in filter(None, (part.strip() for part in text.split(','))):
        joint, _, value = item.partition('=')
        try:
            velocity = float(value)
        except ValueError:
            velocity = float('nan')
        if not joint.strip() or velocity != velocity or abs(velocity) == float('inf'):
            raise ValueError(f'--kick: expected joint=velocity (rad/s, finite), got {item!r}')
        velocities[joint.strip()] = velocity
    if not velocities:
        raise ValueError('--kick: expected joint=velocity[,joint=velocity...]')
    return velocities


def run(nodes: list, values: dict, extra: dict, timeout: float = 10.0,
        velocities: Optional[dict] = None, kick_after: float = 5.0) -> int:
    """
    Start every node, wait until one exits or a signal comes, then stop them all.

    ``values`` and ``extra``: the launch arguments (``resolve_arguments``).

    ``velocities`` ({joint: rad/s}): set them through the simulator's
    ``~/set_state`` ``kick_after`` s after it serves (``ros_dynamics.nodes.kick``).
    """
    commands = [command(node, values, extra) for node in nodes]   # fail before starting any
    processes = []
    stopping = []

    def request_stop(signum, frame):
        stopping.append(signum)
    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    for node, args in zip(nodes, commands):
        print(f'[bringup] starting {node.name}: {" ".join(args[:1])}', flush=True)
        processes.append(subprocess.Popen(args, start_new_session=True))
    print('[bringup] running; Ctrl-C (SIGINT) or SIGTERM stops every node', flush=True)
    if velocities:
        from ros_dynamics.nodes.kick import kick   # rclpy: only when kicking
        simulator = next(n.name for n in nodes if n.executable == 'simulator_node')
        prefix = namespace(values['namespace']).rstrip('/') if values.get('namespace') else ''
        threading.Thread(target=kick, args=(f'{prefix}/{simulator}/set_state', velocities,
                                            kick_after,
                                            stopping), daemon=True).start()
    status = 0
    while not stopping:
        exited = [p for p in processes if p.poll() is not None]
        if exited:
            status = exited[0].returncode
            print(f'[bringup] a node exited with status {status}; stopping the others',
                  flush=True)
            break
        time.sleep(0.1)
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
    deadline = time.monotonic() + timeout
    for node, process in zip(nodes, processes):
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            print(f'[bringup] {node.name} did not stop within {timeout} s: killed', flush=True)
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if process.returncode and stopping:
            print(f'[bringup] {node.name} exited with status {process.returncode}', flush=True)
    print('[bringup] all nodes stopped', flush=True)
    return status


def section(path: str, name: str) -> dict:
    """Return the ``ros__parameters`` a parameter file gives node ``name`` (wildcard first)."""
    with open(path, encoding='utf-8') as stream:
        data = yaml.safe_load(stream) or {}
    out = {}
    for key in ('/**', f'/**/{name}', name, f'/{name}'):
        out.update((data.get(key) or {}).get('ros__parameters') or {})
    return out


def effective_parameters(node: NodeDeclaration, values: dict, extra: dict) -> dict:
    """Return the parameters a node starts with: its files' sections, then the overrides."""
    files, overrides = node_parameters(node, values, extra)
    out = {}
    for path in files:
        out.update(section(path, node.name))
    out.update({name: parameter_value(text) for name, text in overrides.items()})
    return out


def clock_warnings(nodes: list, values: dict, extra: dict) -> list:
    """
    Return why a node would find every simulated joint state stale: clocks that differ.

    The simulator stamps its joint states with simulated time when its
    ``sim_time_stamps`` is true (default), else with the wall clock; a node
    whose ``use_sim_time`` (default false) says otherwise finds them all stale
    and sends no command.
    """
    simulators = [n for n in nodes if n.executable == 'simulator_node']
    if not simulators:
        return []
    stamps = effective_parameters(simulators[0], values, extra).get('sim_time_stamps', True)
    out = []
    for node in nodes:
        if node in simulators:
            continue
        follows = effective_parameters(node, values, extra).get('use_sim_time', False)
        if follows != stamps:
            out.append(f'{node.name} runs with use_sim_time {str(follows).lower()}, but '
                       f'{simulators[0].name} stamps its joint states with '
                       f'{"simulated" if stamps else "wall-clock"} time (sim_time_stamps '
                       f'{str(stamps).lower()}): {node.name} finds them all stale and sends no '
                       'command (see /diagnostics); give use_sim_time:=true|false alone')
    return out


def assignments(items: list) -> dict:
    """Return {name: text} from ``name:=value`` items; raise ValueError naming a bad one."""
    out = {}
    for item in items:
        name, separator, value = item.partition(':=')
        if not separator or not name.strip():
            raise ValueError(f'expected name:=value, got {item!r}')
        out[name.strip()] = value
    return out


def main(argv: Optional[list] = None) -> int:
    """Parse arguments and run the bringup."""
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[1],
        epilog='example: bringup use_sim_time:=false kd:=[2.0] (every node on the wall clock, '
        'the compensator damped)')
    parser.add_argument('--config', help='bringup declaration (default: config/bringup.yaml)')
    parser.add_argument('--robot', help='URDF file (default: the robot of the declaration; '
                        'the same as robot:=FILE)')
    parser.add_argument('--kick', metavar='JOINT=VELOCITY[,...]',
                        help='push the held arm: set these joint velocities (rad/s) through '
                        "the simulator's ~/set_state, e.g. panda_joint1=0.5")
    parser.add_argument('--kick-after', type=float, default=5.0, metavar='SECONDS',
                        help='when to push, s of wall time after the simulator serves '
                        '(default 5)')
    parser.add_argument('parameters', nargs='*', metavar='name:=value',
                        help='the launch arguments of the declaration, as ros2 launch takes '
                        'them (robot:=FILE, config:=DIRECTORY, use_sim_time:=true|false: '
                        'the nodes follow the simulated clock, or all run on the wall clock), '
                        'and parameters for every node, e.g. kd:=[2.0]')
    args = parser.parse_args(argv)
    try:
        given = assignments(args.parameters)
        if args.robot:
            given['robot'] = os.path.abspath(args.robot)
        _, nodes = load_declaration(args.config)
        values, extra = resolve_arguments(load_arguments(args.config), given)
        for warning in clock_warnings(nodes, values, extra):
            print(f'[bringup] warning: {warning}', file=sys.stderr, flush=True)
        velocities = kick_velocities(args.kick) if args.kick else None
        if velocities and not any(n.executable == 'simulator_node' for n in nodes):
            raise ValueError('--kick: the declaration runs no simulator_node')
        return run(nodes, values, extra, velocities=velocities, kick_after=args.kick_after)
    except (OSError, KeyError, ValueError, yaml.YAMLError) as error:
        print(f'[bringup] error: {error}', file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main())
