# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The repository builds and runs as an ordinary ROS 2 workspace package.

What a ROS user does with a fresh clone: copy the repository's files into
``ws/src/ros_dynamics``, run plain ``colcon build`` from ``ws`` with only the
ROS prefix (the venv of Kilted wheels) as underlay, ``source
install/setup.bash`` in bash, and start the nodes. Every node executable is
started from that shell and answers a service, the interfaces import as
``ros_dynamics.msg`` / ``ros_dynamics.srv``, the command line is on PATH, and
the build filled the kernel cache. About a minute warm, two to four on a
loaded machine (a cold CMake configure, rosidl's generators, the kernels).
"""

import os
import re
import shutil
import signal
import subprocess
import sys

from geometry_msgs.msg import Pose
import pytest
from rcl_interfaces.srv import GetParameters
from ros_dynamics.srv import InverseDynamics, OperationalSpace, SetJointState
from ros_helpers import RosClient, START_TIMEOUT, unique_namespace
from sensor_msgs.msg import JointState

pytestmark = pytest.mark.ros

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# what `ros2 run ros_dynamics <node>` does: the package's prefix from the ament index
PACKAGE_PREFIX = ('$(python -c "import sys; from ament_index_python.packages import '
                  'get_package_prefix; print(get_package_prefix(sys.argv[1]))" ros_dynamics)')
NODES = ('inverse_dynamics_node', 'simulator_node', 'operational_space_node',
         'cartesian_impedance_controller')
BUILD_TIMEOUT = 1200.0   # s: a cold build on a loaded 2-core machine took 3-4 min


def repository_files(root: str) -> list:
    """Return the paths (relative to root) of the files a clone of the working tree has."""
    try:
        listing = subprocess.run(
            ['git', '-C', root, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'],
            check=True, capture_output=True).stdout.decode()
        names = [name for name in listing.split('\0') if name]
    except (OSError, subprocess.CalledProcessError):   # not a git checkout: a copy of the tree
        skip = {'.git', '.venv', 'build', 'install', 'log', '__pycache__'}
        names = []
        for directory, subdirectories, files in os.walk(root):
            subdirectories[:] = [d for d in subdirectories if d not in skip]
            names += [os.path.relpath(os.path.join(directory, f), root) for f in files]
    return [name for name in names if os.path.isfile(os.path.join(root, name))]


def underlay_environment(cache_dir: str) -> dict:
    """Return this environment with the venv as the only ROS prefix (no repository install/)."""
    venv = os.environ.get('VIRTUAL_ENV', sys.prefix)
    install = os.path.join(ROOT, 'install')
    env = {key: value for key, value in os.environ.items()
           if key not in ('PYTHONPATH', 'CMAKE_PREFIX_PATH', 'COLCON_PREFIX_PATH',
                          'AMENT_CURRENT_PREFIX')}
    for key in ('PATH', 'LD_LIBRARY_PATH'):
        if key in env:
            env[key] = os.pathsep.join(p for p in env[key].split(os.pathsep)
                                       if p and not p.startswith(install))
    env['VIRTUAL_ENV'] = venv
    env['AMENT_PREFIX_PATH'] = venv
    env['ROS_DYNAMICS_CACHE_DIR'] = cache_dir   # the build fills it, the nodes read it
    return env


def in_sourced_shell(workspace: str, command: str, env: dict, **options):
    """Run ``command`` in bash after ``source install/setup.bash`` (cwd: the workspace)."""
    script = f'source install/setup.bash && {command}'
    return subprocess.Popen(['bash', '-c', script], cwd=workspace, env=env, **options)


@pytest.fixture(scope='module')
def workspace(tmp_path_factory):
    """Build a fresh workspace holding a copy of the repository; yield (path, environment)."""
    base = tmp_path_factory.mktemp('colcon')
    workspace = base / 'ws'
    package = workspace / 'src' / 'ros_dynamics'
    for name in repository_files(ROOT):
        target = package / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(os.path.join(ROOT, name), target)
    env = underlay_environment(str(base / 'kernel_cache'))
    log = base / 'colcon.log'
    with open(log, 'w') as stream:
        result = subprocess.run(['colcon', 'build'], cwd=workspace, env=env, stdout=stream,
                                stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT)
    assert result.returncode == 0, 'colcon build failed:\n' + log.read_text()[-6000:]
    yield str(workspace), env
    shutil.rmtree(base, ignore_errors=True)


def test_colcon_finds_one_package_from_the_workspace_root(workspace):
    path, env = workspace
    listed = subprocess.run(['colcon', 'list', '--names-only'], cwd=path, env=env,
                            check=True, capture_output=True, text=True).stdout.split()
    assert listed == ['ros_dynamics']


def test_sourced_workspace_provides_interfaces_executables_command_and_data(workspace):
    path, env = workspace
    prefix = os.path.join(path, 'install', 'ros_dynamics')
    probe = in_sourced_shell(path, (
        'cd / && python -c "import ros_dynamics, ros_dynamics.msg, ros_dynamics.srv, '
        'ros_dynamics.runtime._statecall; print(ros_dynamics.__file__)" '
        '&& command -v ros-dynamics && '
        'ros-dynamics --version && '
        'python -c "from ament_index_python.packages import get_package_share_directory as g; '
        "print(g('ros_dynamics'))\""), env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    output = probe.communicate(timeout=120)[0]
    assert probe.returncode == 0, output
    assert 'ros-dynamics' in output.splitlines()[-2], output   # the installed command runs
    module, command = output.split()[-5:-3]
    share = output.split()[-1]
    assert module.startswith(prefix)      # the installed package, with our __init__.py
    assert command == os.path.join(prefix, 'bin', 'ros-dynamics')
    assert share == os.path.join(prefix, 'share', 'ros_dynamics')
    for name in NODES:
        assert os.access(os.path.join(prefix, 'lib', 'ros_dynamics', name), os.X_OK), name
    for data in ('launch/sim_gravity_compensation.launch.py', 'config/bringup.yaml',
                 'urdf/planar_2r.urdf', 'package.xml'):
        assert os.path.isfile(os.path.join(share, data)), data


def test_colcon_test_runs_a_test_file_and_test_result_reports_it(workspace):
    """
    `colcon test` runs test/test_*.py through ament_cmake_pytest, one ctest test a file.

    One small file here (test_package_xml: the whole suite is what `make test` runs);
    `colcon test-result` counts its test cases from the JUnit file pytest wrote.
    """
    path, env = workspace
    run = in_sourced_shell(path, (
        'colcon test --packages-select ros_dynamics --ctest-args -R "^test_package_xml$" && '
        'colcon test-result --verbose'), env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    output = run.communicate(timeout=900)[0]
    assert run.returncode == 0, output[-4000:]
    summary = re.search(r'Summary: (\d+) tests?, (\d+) errors?, (\d+) failures?', output)
    assert summary, output[-4000:]
    tests, errors, failures = (int(x) for x in summary.groups())
    assert tests >= 5 and errors == 0 and failures == 0, output[-4000:]


def _state(names, positions) -> JointState:
    return JointState(name=list(names), position=[float(v) for v in positions])


def test_every_node_starts_from_the_sourced_workspace_and_answers(workspace):
    path, env = workspace
    namespace = unique_namespace()
    urdf = os.path.join(path, 'install', 'ros_dynamics', 'share', 'ros_dynamics', 'urdf',
                        'planar_2r.urdf')
    extra = {'cartesian_impedance_controller': ' -p link:=tool -p axes:="[0, 2]"'}
    logs, processes = {}, {}
    try:
        for name in NODES:
            logs[name] = open(os.path.join(path, f'{name}.log'), 'w')
            command = (f'exec "{PACKAGE_PREFIX}/lib/ros_dynamics/{name}" '
                       f'--ros-args -r __ns:={namespace} -r __node:={name} '
                       f'-r /clock:={namespace}/clock -r /diagnostics:={namespace}/diagnostics '
                       f'-p urdf_path:={urdf}{extra.get(name, "")}')
            processes[name] = in_sourced_shell(path, command, env, stdout=logs[name],
                                               stderr=subprocess.STDOUT, start_new_session=True)
        with RosClient(namespace) as ros:
            request = InverseDynamics.Request(gravity_only=True)
            request.state = _state(['shoulder', 'elbow'], [0.3, -0.5])
            response = ros.call(InverseDynamics, 'inverse_dynamics_node/inverse_dynamics',
                                request, timeout=START_TIMEOUT)
            assert response.success, response.message
            assert len(response.effort) == 2 and any(abs(e) > 0.1 for e in response.effort)

            response = ros.call(SetJointState, 'simulator_node/set_state',
                                SetJointState.Request(name=['shoulder', 'elbow'],
                                                      position=[0.2, 0.1], velocity=[]),
                                timeout=START_TIMEOUT)
            assert response.success, response.message

            request = OperationalSpace.Request(link='tool')
            request.state = _state(['shoulder', 'elbow'], [0.3, -0.5])
            response = ros.call(OperationalSpace, 'operational_space_node/operational_space',
                                request, timeout=START_TIMEOUT)
            assert response.success, response.message
            assert isinstance(response.pose, Pose)

            response = ros.call(GetParameters, 'cartesian_impedance_controller/get_parameters',
                                GetParameters.Request(names=['link', 'urdf_path']),
                                timeout=START_TIMEOUT)
            assert [v.string_value for v in response.values] == ['tool', urdf]
        for name, process in processes.items():
            assert process.poll() is None, f'{name} died:\n' + _read(logs[name])
    finally:
        for process in processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGINT)
        for name, process in processes.items():
            try:
                process.wait(timeout=15.0)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=15.0)
            logs[name].close()
    for name in NODES:
        output = _read(logs[name])
        assert 'Traceback' not in output, f'{name}:\n{output}'
        # the build compiled the kernels: the nodes load them and say nothing about compiling
        assert 'compiling dynamics kernels' not in output, f'{name}:\n{output}'


def _read(stream) -> str:
    if not stream.closed:
        stream.flush()
    with open(stream.name, encoding='utf-8', errors='replace') as handle:
        return handle.read()


def test_build_filled_the_kernel_cache(workspace):
    path, env = workspace
    probe = in_sourced_shell(path, 'python -c "from ros_dynamics.runtime import jit as _jit\n'
                             'print(all(_jit._cached(d) for d in _jit.entry_points()))"', env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = probe.communicate(timeout=120)[0]
    assert output.split()[-1:] == ['True'], output
