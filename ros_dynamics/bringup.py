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
Start the nodes of config/bringup.yaml without the ROS 2 launch system.

The launch system (``ros2 launch``) cannot be installed here, so ``make run``
uses this runner; ``launch/sim_gravity_compensation.launch.py`` reads the
same declaration (``load_declaration``) for users with a full ROS 2 install.
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
from dataclasses import dataclass, field
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Optional

import yaml

PACKAGE = 'ros_dynamics'


@dataclass
class NodeDeclaration:
    """
    One node of the bringup: executable, name, parameter files, clock, remappings.

    ``use_sim_time`` is given to the node after its parameter files: true for
    a node that follows the simulator's /clock, false for the simulator itself.
    """

    executable: str
    name: str
    parameters: list = field(default_factory=list)
    remappings: dict = field(default_factory=dict)
    use_sim_time: bool = False


def share_directory(package: str = PACKAGE) -> str:
    """Return ``<prefix>/share/<package>`` from AMENT_PREFIX_PATH, or this source tree."""
    for prefix in filter(None, os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep)):
        path = os.path.join(prefix, 'share', package)
        if os.path.isfile(os.path.join(path, 'package.xml')):
            return path
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_declaration(path: Optional[str] = None) -> tuple:
    """Return (robot URDF path, [NodeDeclaration]) with paths made absolute."""
    share = share_directory()
    path = path or os.path.join(share, 'config', 'bringup.yaml')
    with open(path, encoding='utf-8') as stream:
        declaration = yaml.safe_load(stream)
    base = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    robot = os.path.join(base, declaration['robot'])
    nodes = []
    for entry in declaration['nodes']:
        use_sim_time = entry.get('use_sim_time', False)
        if not isinstance(use_sim_time, bool):
            raise ValueError(f'{path}: node {entry["name"]}: use_sim_time must be true or '
                             f'false, got {use_sim_time!r}')
        node = NodeDeclaration(entry['executable'], entry['name'],
                               [os.path.join(base, p) for p in entry.get('parameters', [])],
                               dict(entry.get('remappings') or {}), use_sim_time)
        nodes.append(node)
    return robot, nodes


def executable_path(name: str, package: str = PACKAGE) -> str:
    """Return the installed ``lib/<package>/<name>``, or raise FileNotFoundError."""
    for prefix in filter(None, os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep)):
        path = os.path.join(prefix, 'lib', package, name)
        if os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(f'executable {package}/{name} is not installed (run `make build`)')


def command(node: NodeDeclaration, robot: str, extra: list) -> list:
    """
    Return the command line that starts one node.

    Order of precedence (last wins): the parameter files, then the
    declaration's ``urdf_path`` and ``use_sim_time``, then ``extra``.
    """
    args = [executable_path(node.executable), '--ros-args', '-r', f'__node:={node.name}']
    for parameters in node.parameters:
        args += ['--params-file', parameters]
    args += ['-p', f'urdf_path:={robot}',
             '-p', f'use_sim_time:={"true" if node.use_sim_time else "false"}']
    for source, target in node.remappings.items():
        args += ['-r', f'{source}:={target}']
    return args + extra


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


def run(robot: str, nodes: list, extra: list, timeout: float = 10.0,
        velocities: Optional[dict] = None, kick_after: float = 5.0) -> int:
    """
    Start every node, wait until one exits or a signal comes, then stop them all.

    ``velocities`` ({joint: rad/s}): set them through the simulator's
    ``~/set_state`` ``kick_after`` s after it serves (``ros_dynamics.nodes.kick``).
    """
    commands = [command(node, robot, extra) for node in nodes]   # fail before starting any
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
        threading.Thread(target=kick, args=(f'/{simulator}/set_state', velocities, kick_after,
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


def clock_warnings(nodes: list, assignments: list) -> list:
    """Return why a ``use_sim_time:=...`` given to every node breaks the declared clocks."""
    out = []
    for assignment in assignments:
        name, _, value = assignment.partition(':=')
        if name.strip() != 'use_sim_time':
            continue
        wanted = value.strip().lower() == 'true'
        differ = [n.name for n in nodes if n.use_sim_time != wanted]
        if differ:
            out.append(f'use_sim_time:={value} applies to every node, but the declaration runs '
                       f'{", ".join(differ)} with use_sim_time {not wanted}: the simulator '
                       'stamps its joint states with simulated time, so a node on another '
                       'clock finds them all stale and sends no command (see /diagnostics)')
    return out


def main(argv: Optional[list] = None) -> int:
    """Parse arguments and run the bringup."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--config', help='bringup declaration (default: config/bringup.yaml)')
    parser.add_argument('--robot', help='URDF file (default: the robot of the declaration)')
    parser.add_argument('--kick', metavar='JOINT=VELOCITY[,...]',
                        help='push the held arm: set these joint velocities (rad/s) through '
                        "the simulator's ~/set_state, e.g. panda_joint1=0.5")
    parser.add_argument('--kick-after', type=float, default=5.0, metavar='SECONDS',
                        help='when to push, s of wall time after the simulator serves '
                        '(default 5)')
    parser.add_argument('parameters', nargs='*', metavar='name:=value',
                        help='extra parameters for every node, e.g. use_sim_time:=true')
    args = parser.parse_args(argv)
    try:
        robot, nodes = load_declaration(args.config)
        robot = os.path.abspath(args.robot) if args.robot else robot
        extra = [item for assignment in args.parameters for item in ('-p', assignment)]
        for warning in clock_warnings(nodes, args.parameters):
            print(f'[bringup] warning: {warning}', file=sys.stderr, flush=True)
        velocities = kick_velocities(args.kick) if args.kick else None
        if velocities and not any(n.executable == 'simulator_node' for n in nodes):
            raise ValueError('--kick: the declaration runs no simulator_node')
        return run(robot, nodes, extra, velocities=velocities, kick_after=args.kick_after)
    except (OSError, KeyError, ValueError, yaml.YAMLError) as error:
        print(f'[bringup] error: {error}', file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main())
