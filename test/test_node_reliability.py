# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
A node never dies and never lies: bad descriptions, overflowing requests, signals.

* Every node that takes a ``robot_description`` keeps its previous model on
  any exception while loading a new one (a description without links made the
  model's warm-up raise IndexError and ended the node).
* A service never answers ``success: true`` with NaN or Inf: finite inputs
  whose result overflows (1e300) get ``success: false`` saying so.
* SIGINT and SIGTERM end every node with exit code 0 and no traceback, at
  any moment: while the model loads and its kernels compile on a cold
  kernel cache, right after the services appear, and while serving a stream.
"""

import array
import functools
import os
import pathlib
import signal
import subprocess
import sys
import tempfile

import numpy as np
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from robot_data import example_urdf
from ros_dynamics import RobotModel
from ros_dynamics.srv import ForwardDynamics, InverseDynamics, OperationalSpace
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String

pytestmark = pytest.mark.ros

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PANDA = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
TWO_R = os.path.join(ROOT, 'urdf', 'planar_2r.urdf')
ROBOT = RobotModel.from_urdf_file(PANDA)
JOINTS = list(ROBOT.joint_names)
DESCRIPTION_QOS = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                             reliability=ReliabilityPolicy.RELIABLE)
REFUSED = 'cannot load the robot model'

# every node that takes a robot description, with the parameters it needs to start
NODES = {
    'inverse_dynamics_node': ('inverse_dynamics', {}),
    'operational_space_node': ('operational_space', {}),
    'simulator_node': ('simulator', {'real_time_factor': 1.0}),
    'cartesian_impedance_controller': ('cartesian_impedance_controller', {'link': 'tool'}),
}


def joint_state(q, names=None, qd=None) -> JointState:
    message = JointState(name=list(names or JOINTS), position=[float(v) for v in q])
    if qd is not None:
        message.velocity = [float(v) for v in qd]
    return message


def numbers(message):
    """Yield every float field and float sequence of a message, nested ones too."""
    for name in message.get_fields_and_field_types():
        value = getattr(message, name)
        if isinstance(value, float):
            yield value
        elif hasattr(value, 'get_fields_and_field_types'):
            yield from numbers(value)
        elif isinstance(value, list) and value and hasattr(value[0], 'get_fields_and_field_types'):
            for item in value:
                yield from numbers(item)
        elif isinstance(value, (list, array.array, np.ndarray)) and len(value) and \
                isinstance(value[0], (float, np.floating)):
            yield np.asarray(value, dtype=float)


def read(path: str) -> str:
    with open(path, encoding='utf-8') as stream:
        return stream.read()


@pytest.mark.parametrize('executable', sorted(NODES))
def test_a_description_that_fails_to_load_keeps_the_previous_model(executable):
    """No links (a bare <robot/>, example-robot-data's ur3.urdf): refused, the node lives on."""
    name, parameters = NODES[executable]
    namespace = unique_namespace()
    with NodeProcess(executable, namespace, parameters) as node, RosClient(namespace) as ros:
        publisher = ros.node.create_publisher(String, 'robot_description', DESCRIPTION_QOS)
        publisher.publish(String(data=read(TWO_R)))
        wait_for(lambda: "loaded 'planar_2r'" in node.output(), 60.0, 'the 2R arm loaded')
        bad = ['<robot name="x"/>', read(example_urdf('ur_description/urdf/ur3.urdf')),
               '<robot name="y"><link name="a"/><joint name="j" type="revolute"/></robot>',
               'not xml at all <']
        for count, description in enumerate(bad, start=1):
            publisher.publish(String(data=description))
            wait_for(lambda: node.output().count(REFUSED) >= count or not node.alive(),
                     60.0, f'refusal {count}')
            assert node.alive(), node.output()
        assert node.output().count('keeping the previous model') >= len(bad), node.output()
        if executable == 'inverse_dynamics_node':   # and it still answers with the 2R arm
            request = InverseDynamics.Request(state=joint_state([0.3, -0.7],
                                                                ['shoulder', 'elbow']))
            answer = ros.call(InverseDynamics, f'{name}/inverse_dynamics', request)
            expected = RobotModel.from_urdf_file(TWO_R).gravity_torques([0.3, -0.7])
            assert answer.success and np.allclose(answer.effort, expected, atol=1e-12)
    assert node.process.returncode == 0, node.output()


@pytest.fixture(scope='module')
def services():
    namespace = unique_namespace()
    with NodeProcess('inverse_dynamics_node', namespace, {'urdf_path': PANDA}) as dynamics, \
            NodeProcess('operational_space_node', namespace, {'urdf_path': PANDA}) as space, \
            RosClient(namespace) as ros:
        yield ros
        assert dynamics.alive(), dynamics.output()
        assert space.alive(), space.output()


HUGE = 1e300


@pytest.mark.parametrize('case', ['velocity', 'acceleration', 'gravity', 'forward_effort',
                                  'forward_velocity', 'op_velocity', 'op_acceleration'])
def test_an_overflowing_result_is_a_failure_not_nan(services, case):
    zero = np.zeros(ROBOT.dof)
    huge = np.full(ROBOT.dof, HUGE)
    if case in ('velocity', 'acceleration', 'gravity'):
        request = InverseDynamics.Request(state=joint_state(zero, qd=huge if case == 'velocity'
                                                            else zero))
        if case == 'acceleration':
            request.accelerations = huge.tolist()
        request.want_bias_torques = request.want_coriolis_matrix = True
        request.want_mass_matrix = case == 'gravity'
        request.state.position = huge.tolist() if case == 'gravity' else request.state.position
        kind, service = InverseDynamics, 'inverse_dynamics/inverse_dynamics'
    elif case.startswith('forward'):
        request = ForwardDynamics.Request(state=joint_state(
            zero, qd=huge if case == 'forward_velocity' else zero))
        if case == 'forward_effort':
            request.state.effort = huge.tolist()
        kind, service = ForwardDynamics, 'inverse_dynamics/forward_dynamics'
    else:
        request = OperationalSpace.Request(state=joint_state(zero, qd=huge), link='panda_link8')
        if case == 'op_acceleration':
            request.state.velocity = zero.tolist()
            request.has_acceleration = True
            request.acceleration = [HUGE] * 6
        kind, service = OperationalSpace, 'operational_space/operational_space'
    response = services.call(kind, service, request)
    if response.success:   # then every number in it is finite (q = 1e300 is just an angle)
        assert all(np.all(np.isfinite(v)) for v in numbers(response)), response
    else:
        assert 'the result overflowed (inputs too large?)' in response.message, response.message
        assert 'force' not in response.message or case != 'op_acceleration' or \
            'task force' in response.message, response.message
    # the node keeps answering good requests correctly
    good = services.call(InverseDynamics, 'inverse_dynamics/inverse_dynamics',
                         InverseDynamics.Request(state=joint_state(zero + 0.1)))
    assert good.success and np.allclose(good.effort, ROBOT.inverse_dynamics(
        zero + 0.1, zero, zero), atol=1e-12)


def test_op_space_overflow_does_not_blame_a_force_never_sent(services):
    request = OperationalSpace.Request(state=joint_state(np.zeros(ROBOT.dof),
                                                         qd=np.full(ROBOT.dof, HUGE)),
                                       link='panda_link8', has_acceleration=True,
                                       acceleration=[0.0] * 6)
    response = services.call(OperationalSpace, 'operational_space/operational_space', request)
    assert not response.success
    assert 'overflowed' in response.message and 'expected 6 finite' not in response.message


# ---------------------------------------------------------------------------- signals
def assert_clean_exit(node: NodeProcess, code: int) -> None:
    output = node.output()
    assert code == 0, f'exit code {code}:\n{output}'
    for word in ('Traceback', 'FATAL', 'RCLError', 'Unable to convert'):
        assert word not in output, output


def catches(pid: int, signum: int) -> bool:
    """Return whether process ``pid`` has a handler for ``signum`` (SigCgt in /proc)."""
    with open(f'/proc/{pid}/status') as status:
        mask = next(line for line in status if line.startswith('SigCgt:')).split()[1]
    return bool(int(mask, 16) >> (int(signum) - 1) & 1)


# A sitecustomize that holds the interpreter inside one import: it marks a file when the import
# starts and then waits there for the signal, so a test knows the process is still importing
# (a delay only assumes it: a warm, quiet machine had loaded the node within 1.0 s).
HOLD_IMPORT = """\
import os, sys, time


class HoldImport:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ['ROS_DYNAMICS_TEST_HOLD_IMPORT']:
            open(os.environ['ROS_DYNAMICS_TEST_HOLD_MARK'], 'w').close()
            while True:
                time.sleep(0.05)
        return None


sys.meta_path.insert(0, HoldImport())
"""


@pytest.mark.parametrize('module',
                         ['numpy', 'scipy.linalg', 'numba', 'rclpy', 'ros_dynamics.model.robot'])
@pytest.mark.parametrize('signum', [signal.SIGINT, signal.SIGTERM], ids=['SIGINT', 'SIGTERM'])
def test_a_signal_while_the_package_imports_exits_cleanly(signum, module, tmp_path):
    """
    The first second of a node process: the interpreter is still importing the package.

    The process is held inside the import of ``module`` (a sitecustomize on PYTHONPATH)
    and signalled there, once the launcher has installed its handlers (/proc/<pid>/status
    shows them). A signal before the interpreter has started at all, within ~0.1 s of the
    exec, ends the process by the signal's default action, silently, as for any program.
    """
    (tmp_path / 'sitecustomize.py').write_text(HOLD_IMPORT)
    mark = tmp_path / 'holding'
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get('PYTHONPATH')]))
    env = {'PYTHONPATH': path, 'ROS_DYNAMICS_TEST_HOLD_IMPORT': module,
           'ROS_DYNAMICS_TEST_HOLD_MARK': str(mark)}
    node = NodeProcess('inverse_dynamics_node', unique_namespace(), {'urdf_path': PANDA},
                       env=env)
    node.start()
    try:
        wait_for(lambda: mark.exists() or not node.alive(), 60.0, f'the import of {module}')
        assert node.alive(), f'exited before importing {module}:\n{node.output()}'
        assert catches(node.process.pid, signum), "held before the launcher's handlers"
    finally:
        code = node.stop(timeout=20.0, signum=signum)
    assert_clean_exit(node, code)


@pytest.mark.parametrize('signum', [signal.SIGINT, signal.SIGTERM], ids=['SIGINT', 'SIGTERM'])
@pytest.mark.parametrize('executable', ['inverse_dynamics_node', 'simulator_node'])
def test_a_signal_while_the_kernels_compile_exits_cleanly(executable, signum):
    """A cold kernel cache: the node is still compiling its model's kernels when stopped."""
    cache = tempfile.mkdtemp(prefix='ros_dynamics_cold_cache_')
    env = {'ROS_DYNAMICS_CACHE_DIR': cache, 'ROS_DYNAMICS_PRECOMPILE': '0'}
    node = NodeProcess(executable, unique_namespace(), {'urdf_path': PANDA}, env=env).start()
    try:
        # the imports are over and the model's kernels are compiling (the first one is
        # in the cache; all of them take 10-90 s on a cold cache)
        wait_for(lambda: any(pathlib.Path(cache).rglob('*.nbi')) or not node.alive(),
                 120.0, 'the first kernel compiled')
        assert "loaded 'panda_arm'" not in node.output(), 'compiled before the signal: no test'
    finally:
        code = node.stop(timeout=20.0, signum=signum)
    assert_clean_exit(node, code)


@pytest.mark.parametrize('signum', [signal.SIGINT, signal.SIGTERM], ids=['SIGINT', 'SIGTERM'])
@pytest.mark.parametrize('executable', sorted(NODES))
def test_a_signal_once_serving_exits_cleanly(executable, signum):
    name, parameters = NODES[executable]
    parameters = dict(parameters, urdf_path=PANDA)
    if executable == 'cartesian_impedance_controller':
        parameters['link'] = 'panda_link8'
    namespace = unique_namespace()
    node = NodeProcess(executable, namespace, parameters).start()
    try:
        wait_for(lambda: "loaded 'panda_arm'" in node.output() or not node.alive(), 60.0,
                 'the model loaded')
    finally:
        code = node.stop(timeout=20.0, signum=signum)   # right after the start-up
    assert_clean_exit(node, code)


# A stop landing in the node's constructor after ~/estimate_payload's thread has started
# serving, before the constructor returned (a CI run hit that window in the test above, 2 of
# 30 runs locally: the owner never learned of the thread, which sat in rclpy's wait set while
# the interpreter finalised, and the process aborted: "terminate called without an active
# exception", exit -6, when the interpreter's exit overlapped the thread's last wait). The
# stop is injected where the signal landed; the old code aborted in 4 of 4 runs. (The
# thread may still outlive main() by up to close()'s join timeout when its wait returned
# just as the context shut down and it waits for the context's lock: the atexit hook joins
# it; a CI run saw that once.)
INTERRUPTED_AFTER_THREAD_START = """
from ros_dynamics.nodes import process
from ros_dynamics.nodes.inverse_dynamics_node import InverseDynamicsNode
import sys, threading, time
start = threading.Thread.start
def start_then_stop(thread):
    start(thread)
    if thread.name == 'estimate_payload':
        while 'ros_dynamics.identification.payload' not in sys.modules:
            time.sleep(0.01)
        time.sleep(0.3)   # the thread is in its executor's wait
        raise process.Interrupted('SIGTERM')
threading.Thread.start = start_then_stop
process.main_for(InverseDynamicsNode)(sys.argv)
print('returned')
"""


def test_a_stop_right_after_the_service_thread_started_exits_cleanly():
    run = subprocess.run([sys.executable, '-c', INTERRUPTED_AFTER_THREAD_START, '--ros-args',
                          '-r', f'__ns:={unique_namespace()}', '-p', f'urdf_path:={PANDA}'],
                         capture_output=True, text=True, timeout=120)
    output = run.stdout + run.stderr
    assert run.returncode == 0 and 'returned' in output, f'exit {run.returncode}:\n{output}'
    assert 'Traceback' not in output and 'terminate' not in output, output


@pytest.mark.parametrize('signum', [signal.SIGINT, signal.SIGTERM], ids=['SIGINT', 'SIGTERM'])
def test_a_signal_while_streaming_exits_cleanly(signum):
    """The simulator at 1 kHz with the gravity compensation answering it, both stopped."""
    namespace = unique_namespace()
    simulator = NodeProcess('simulator_node', namespace, {'urdf_path': PANDA},
                            params_file=os.path.join(ROOT, 'config', 'simulator.yaml'))
    compensation = NodeProcess('inverse_dynamics_node', namespace,
                               {'urdf_path': PANDA, 'use_sim_time': True},
                               params_file=os.path.join(ROOT, 'config', 'inverse_dynamics.yaml'),
                               remappings={'commands': 'simulator/commands'})
    with simulator, compensation, RosClient(namespace) as ros:
        received, commands = [], []
        ros.node.create_subscription(JointState, 'joint_states',
                                     lambda m: received.append(m), 10)
        ros.node.create_subscription(Float64MultiArray, 'simulator/commands',
                                     lambda m: commands.append(m), 10)
        wait_for(lambda: len(received) > 100, 60.0, 'the simulator streaming')
        wait_for(lambda: len(commands) > 100, 60.0, 'the gravity compensation answering')
        codes = [compensation.stop(timeout=20.0, signum=signum),
                 simulator.stop(timeout=20.0, signum=signum)]
    assert_clean_exit(compensation, codes[0])
    assert_clean_exit(simulator, codes[1])


@pytest.mark.parametrize('signum', [signal.SIGINT, signal.SIGTERM], ids=['SIGINT', 'SIGTERM'])
def test_the_bringup_stops_cleanly(signum):
    """`make run` stopped once its nodes serve: every node and the bringup exit 0, quietly."""
    log = tempfile.NamedTemporaryFile(suffix='.log', delete=False).name
    with open(log, 'w') as stream:
        bringup = subprocess.Popen([sys.executable, '-m', 'ros_dynamics.bringup'], cwd=ROOT,
                                   stdout=stream, stderr=subprocess.STDOUT,
                                   start_new_session=True,
                                   env=dict(os.environ, PYTHONUNBUFFERED='1'))
    output = functools.partial(pathlib.Path(log).read_text, errors='replace')
    try:
        wait_for(lambda: output().count("loaded 'panda_arm'") >= 2 or bringup.poll() is not None,
                 120.0, 'both nodes serving')
        wait_for(lambda: 'first command received' in output() or bringup.poll() is not None,
                 60.0, 'the gravity compensation running')
        bringup.send_signal(signum)
        code = bringup.wait(timeout=30.0)
    finally:
        if bringup.poll() is None:
            os.killpg(bringup.pid, signal.SIGKILL)
            bringup.wait()
    text = output()
    assert code == 0, text
    assert 'all nodes stopped' in text and 'exited with status' not in text, text
    for word in ('Traceback', 'FATAL', 'RCLError', 'Unable to convert'):
        assert word not in text, text
