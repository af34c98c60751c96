# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
``~/time_optimal_trajectory`` of the installed inverse_dynamics_node against the core.

One node process for the module (the Panda with an actuators YAML: armature,
viscous and Coulomb friction); every answer is compared with
``ros_dynamics.time_optimal_trajectory`` on the same model, sampled at the
answer's own times (the timing is deterministic: 1e-9 agreement). Then the
joint order, held joints, scaling factors, friction and payload settings of
the node, infeasible paths and a bounded fuzz of the request (marker ``fuzz``,
``ROS_DYNAMICS_FUZZ_SCALE``).
"""

import math
import os
import random
import subprocess
import sys
import time
import uuid

from geometry_msgs.msg import Inertia
import numpy as np
import pytest
from rcl_interfaces.srv import SetParameters
import rclpy
from rclpy.parameter import Parameter
from ros_dynamics import RobotModel, time_optimal_trajectory
from ros_dynamics.srv import SetPayload, TimeOptimalTrajectory
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
import yaml

pytestmark = pytest.mark.ros

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URDF = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
SERVICE = 'inverse_dynamics/time_optimal_trajectory'
HOME = np.array([0.0, -0.4, 0.0, -2.0, 0.0, 1.6, 0.5])
SCALE = float(os.environ.get('ROS_DYNAMICS_FUZZ_SCALE', '1'))
SEED = int(os.environ.get('ROS_DYNAMICS_FUZZ_SEED', random.SystemRandom().randint(0, 2**31)))


@pytest.fixture(scope='module')
def actuators(tmp_path_factory) -> str:
    config = {'friction_velocity': 0.01, 'joints': {
        f'panda_joint{k}': {'armature': 0.05 * k, 'viscous': 0.4, 'coulomb': 0.6}
        for k in range(1, 8)}}
    path = tmp_path_factory.mktemp('actuators') / 'panda_friction.yaml'
    path.write_text(yaml.safe_dump(config))
    return str(path)


@pytest.fixture(scope='module')
def core(actuators) -> RobotModel:
    return RobotModel.from_urdf_file(URDF, actuators=actuators)


@pytest.fixture(scope='module')
def ros(actuators):
    namespace = unique_namespace()
    with NodeProcess('inverse_dynamics_node', namespace,
                     {'urdf_path': URDF, 'actuators': actuators}) as node:
        with RosClient(namespace) as client:
            client.process = node
            yield client
        assert node.alive(), node.output()


def waypoints(seed: int, n: int = 5) -> np.ndarray:
    return HOME + np.random.default_rng(seed).uniform(-0.4, 0.4, (n, 7))


def request_for(names, rows, **fields) -> TimeOptimalTrajectory.Request:
    path = JointTrajectory(joint_names=list(names))
    path.points = [JointTrajectoryPoint(positions=[float(v) for v in row]) for row in rows]
    return TimeOptimalTrajectory.Request(path=path, **fields)


def times_of(trajectory) -> np.ndarray:
    return np.array([p.time_from_start.sec + 1e-9 * p.time_from_start.nanosec
                     for p in trajectory.points])


def assert_matches(response, expected, names, core_names, period=0.01):
    """Assert that the answer equals the core's ``expected`` at its times, ``names`` order."""
    assert response.success, response.message
    trajectory = response.trajectory
    assert list(trajectory.joint_names) == list(names)
    t = times_of(trajectory)
    assert t[0] == 0.0 and np.all(np.diff(t) > 0.0)
    assert abs(t[-1] - expected.duration) <= 1e-9
    assert np.allclose(np.diff(t)[:-1], period, atol=1e-9)
    assert response.duration == pytest.approx(expected.duration, rel=1e-12)
    columns = [core_names.index(n) for n in names]
    sample = expected.sample(np.minimum(t, expected.duration))
    for field, values in (('positions', sample.positions), ('velocities', sample.velocities),
                          ('accelerations', sample.accelerations)):
        got = np.array([getattr(p, field) for p in trajectory.points])
        if field == 'velocities':   # at rest at the end: exactly 0 (the core: sqrt of rounding)
            assert np.all(got[-1] == 0.0) and np.abs(values[-1]).max() < 1e-6
            got, values = got[:-1], values[:-1]
        assert np.allclose(got, values[:, columns], rtol=0, atol=1e-9), field
        assert np.all(np.isfinite(got))
    assert all(len(p.effort) == 0 for p in trajectory.points)   # a position JTC takes it
    efforts = np.array(response.efforts.data).reshape(t.size, len(names))
    assert np.allclose(efforts, sample.efforts[:, columns], rtol=0, atol=1e-9)
    assert np.allclose(response.waypoint_times, expected.waypoint_times, atol=1e-12)
    assert len(response.binding) == t.size
    assert set(response.binding) <= {b.limit for b in expected.binding}
    assert max(response.limit_ratios) <= 1.0 and len(response.limit_ratios) == 3


def test_a_panda_path_equals_the_core_in_any_joint_order(ros, core):
    rows = waypoints(1)
    names = list(core.joint_names)
    expected = time_optimal_trajectory(core, rows)
    response = ros.call(TimeOptimalTrajectory, SERVICE, request_for(names, rows))
    assert_matches(response, expected, names, names)
    assert response.armature_included and not response.friction_included
    # the limits bind: effort or velocity of some joint most of the time
    assert any(b.startswith(('effort', 'velocity')) for b in response.binding)
    order = np.random.default_rng(2).permutation(7)
    shuffled = [names[k] for k in order]
    response = ros.call(TimeOptimalTrajectory, SERVICE,
                        request_for(shuffled, rows[:, order], sample_period=0.004))
    assert_matches(response, expected, shuffled, names, period=0.004)
    request = request_for(names, rows, effort_feedforward=True)
    response = ros.call(TimeOptimalTrajectory, SERVICE, request)
    efforts = np.array([p.effort for p in response.trajectory.points])
    assert np.array_equal(efforts.ravel(), np.array(response.efforts.data))


def test_held_joints_stay_at_the_given_positions(ros, core):
    names = list(core.joint_names)
    moving = [names[k] for k in (4, 0, 1, 3, 5)]   # joints 3 and 7 held
    rows = waypoints(3)
    held = {'panda_joint3': 0.3, 'panda_joint7': -0.7}
    full = rows.copy()
    full[:, 2], full[:, 6] = held['panda_joint3'], held['panda_joint7']
    velocity = core.velocity_limit.copy()
    velocity[[2, 6]] = np.inf
    expected = time_optimal_trajectory(core, full, velocity_limit=velocity)
    # the current joint_states as is: path joints and unknown names in hold are ignored
    hold = JointState(name=['gripper', 'panda_joint7', 'panda_joint1', 'panda_joint3'],
                      position=[9.0, held['panda_joint7'], 5.0, held['panda_joint3']])
    request = request_for(moving, full[:, [names.index(n) for n in moving]], hold=hold)
    assert_matches(ros.call(TimeOptimalTrajectory, SERVICE, request), expected, moving, names)
    request.hold = JointState(name=['panda_joint3'], position=[0.3])
    response = ros.call(TimeOptimalTrajectory, SERVICE, request)
    assert not response.success and "'panda_joint7'" in response.message
    assert 'hold' in response.message and not response.trajectory.points


def test_scaling_factors_and_acceleration_limits(ros, core):
    names = list(core.joint_names)
    rows = waypoints(4)
    fast = time_optimal_trajectory(core, rows)
    expected = time_optimal_trajectory(core, rows, velocity_limit=0.5 * core.velocity_limit,
                                       acceleration_limit=0.5 * np.array([4.0] * 6 + [8.0]),
                                       effort_scale=0.8)
    request = request_for(names, rows, velocity_scaling_factor=0.5, effort_scaling_factor=0.8,
                          acceleration_scaling_factor=0.5,
                          acceleration_limits=[4.0] * 6 + [8.0])
    response = ros.call(TimeOptimalTrajectory, SERVICE, request)
    assert_matches(response, expected, names, names)
    assert response.duration > 1.2 * fast.duration
    # one acceleration limit for all; a factor with no limit to scale is said, not hidden
    request = request_for(names, rows, acceleration_limits=[3.0])
    assert_matches(ros.call(TimeOptimalTrajectory, SERVICE, request),
                   time_optimal_trajectory(core, rows, acceleration_limit=3.0), names, names)
    response = ros.call(TimeOptimalTrajectory, SERVICE,
                        request_for(names, rows, acceleration_scaling_factor=0.1))
    assert_matches(response, fast, names, names)
    assert 'acceleration_scaling_factor unused' in response.message
    for field, value in (('velocity_scaling_factor', 1.5), ('effort_scaling_factor', -0.2),
                         ('acceleration_scaling_factor', math.nan)):
        response = ros.call(TimeOptimalTrajectory, SERVICE,
                            request_for(names, rows, **{field: value}))
        assert not response.success and response.message.startswith(field), response.message
    # a motion too long to certify (its dense check would not fit in memory) is refused
    response = ros.call(TimeOptimalTrajectory, SERVICE,
                        request_for(names, rows, velocity_scaling_factor=1e-4))
    assert not response.success and 'dense check' in response.message
    assert 'velocity_scaling_factor' in response.message, response.message


def test_an_infeasible_path_is_refused_naming_joint_limit_and_place(ros, core):
    names = list(core.joint_names)
    rows = waypoints(5)
    with pytest.raises(ValueError) as raised:
        time_optimal_trajectory(core, rows, effort_scale=0.05)
    response = ros.call(TimeOptimalTrajectory, SERVICE,
                        request_for(names, rows, effort_scaling_factor=0.05))
    assert not response.success and not response.trajectory.points
    assert response.duration == 0.0 and not response.binding
    joint = raised.value.joint
    assert joint in response.message and 'effort limit' in response.message
    assert 'effort_scaling_factor' in response.message and 'waypoint' in response.message
    rows[2, 3] = 0.5   # panda_joint4 lies in [-3.0718, -0.0698]
    response = ros.call(TimeOptimalTrajectory, SERVICE, request_for(names, rows))
    assert not response.success and response.message.startswith(
        "path.points[2].positions: joint 'panda_joint4' at 0.5 is outside its limits")


def test_the_nodes_friction_and_payload_apply(ros, core, actuators):
    names = list(core.joint_names)
    rows = waypoints(6)
    request = SetParameters.Request(parameters=[Parameter(
        'friction_compensation', value='reference').to_parameter_msg()])
    result = ros.call(SetParameters, 'inverse_dynamics/set_parameters', request)
    assert result.results[0].successful, result.results[0].reason
    try:
        response = ros.call(TimeOptimalTrajectory, SERVICE, request_for(names, rows))
        assert_matches(response, time_optimal_trajectory(core, rows, friction=True),
                       names, names)
        assert response.friction_included
        payload = SetPayload.Request(link='panda_link8', inertia=Inertia(m=2.0))
        assert ros.call(SetPayload, 'inverse_dynamics/set_payload', payload).success
        loaded = RobotModel.from_urdf_file(URDF, actuators=actuators)
        loaded.set_payload('panda_link8', 2.0)
        response = ros.call(TimeOptimalTrajectory, SERVICE, request_for(names, rows))
        assert_matches(response, time_optimal_trajectory(loaded, rows, friction=True),
                       names, names)
        assert "'panda_link8'" in response.message
    finally:
        request.parameters = [Parameter('friction_compensation',
                                        value='false').to_parameter_msg()]
        ros.call(SetParameters, 'inverse_dynamics/set_parameters', request)
        ros.call(SetPayload, 'inverse_dynamics/set_payload', SetPayload.Request(link=''))


def random_request(rng, names) -> TimeOptimalTrajectory.Request:
    """Return a request, right or wrong in one or more fields (a few in five are timed)."""
    def chance(p):
        return bool(rng.random() < p)

    special = [math.nan, math.inf, -1.0, 0.0, 1e-12, 1e300]
    joints = list(rng.permutation(names)) if chance(0.5) else list(names)
    if chance(0.15):
        joints = joints[:int(rng.integers(0, 7))]
    if chance(0.1):
        joints.append(str(rng.choice(['ghost', joints[0] if joints else ''])))
    n = int(rng.integers(0, 5)) if chance(0.2) else int(rng.integers(2, 7))
    centre = np.array([HOME[names.index(j)] if j in names else 0.0 for j in joints])
    rows = centre + rng.uniform(-0.4, 0.4, (n, len(joints)))
    rows = [list(map(float, row)) for row in rows]
    if rows and chance(0.1):
        rows[int(rng.integers(0, len(rows)))][0:1] = [float(rng.choice(special))]
    if len(rows) > 1 and chance(0.1):
        rows[1] = list(rows[0])   # a repeated waypoint
    if rows and chance(0.05):
        rows[0] = rows[0][:-1]
    request = request_for(joints, [], hold=JointState(
        name=list(names), position=[float(v) for v in HOME]) if chance(0.8) else JointState())
    request.path.points = [JointTrajectoryPoint(positions=row) for row in rows]
    for field in ('velocity_scaling_factor', 'acceleration_scaling_factor',
                  'effort_scaling_factor'):
        if chance(0.3):
            setattr(request, field, float(rng.choice(special + [0.3, 1.0, 2.0])))
    if chance(0.3):
        request.acceleration_limits = [float(rng.choice(special + [2.0, 5.0]))
                                       for _ in range(int(rng.integers(0, 9)))]
    if chance(0.2):
        request.sample_period = float(rng.choice(special + [1e-7, 0.05]))
    if chance(0.1):
        request.grid_points = int(rng.choice([1, 2, 3, 50, 10**6]))
    request.effort_feedforward = chance(0.3)
    return request


@pytest.mark.fuzz
def test_fuzzed_requests_are_answered_and_never_carry_nan(ros, core):
    """Every answer is a message or a finite, strictly timed, at-rest trajectory."""
    print(f'seed {SEED} (ROS_DYNAMICS_FUZZ_SEED)')
    rng = np.random.default_rng(SEED)
    names = list(core.joint_names)
    counts = {'success': 0, 'refused': 0}
    for _ in range(max(1, int(round(30 * SCALE)))):
        request = random_request(rng, names)
        response = ros.call(TimeOptimalTrajectory, SERVICE, request)
        if not response.success:
            counts['refused'] += 1
            assert response.message.strip() and not response.trajectory.points
            assert 'internal error' not in response.message, response.message
            continue
        counts['success'] += 1
        trajectory = response.trajectory
        assert list(trajectory.joint_names) == list(request.path.joint_names)
        t = times_of(trajectory)
        assert t[0] == 0.0 and np.all(np.diff(t) > 0.0) and t.size <= 100000
        values = np.array([p.positions + p.velocities + p.accelerations
                           for p in trajectory.points])
        assert np.all(np.isfinite(values)) and np.all(np.isfinite(response.efforts.data))
        assert all(v == 0.0 for v in trajectory.points[-1].velocities)
        assert max(response.limit_ratios) <= 1.0
        assert bool(request.effort_feedforward) == bool(trajectory.points[0].effort)
    print(f'time_optimal_trajectory requests: {counts}')
    assert counts['success'] and counts['refused']
    rows = waypoints(7)   # and the node still answers a good request exactly
    assert_matches(ros.call(TimeOptimalTrajectory, SERVICE, request_for(names, rows)),
                   time_optimal_trajectory(core, rows), names, names)
    wait_for(ros.process.alive, 1.0, 'the node alive')


def test_destroying_the_node_ends_the_service_thread():
    """The thread ends with the node, and the context then shuts down at once (not in 5 s)."""
    from ros_dynamics.nodes.inverse_dynamics_node import InverseDynamicsNode
    urdf = os.path.join(ROOT, 'urdf', 'planar_2r.urdf')
    rclpy.init(args=['--ros-args', '-p', f'urdf_path:={urdf}', '-r',
                     f'__ns:=/t{uuid.uuid4().hex[:8]}'])
    try:
        node = InverseDynamicsNode()
        thread = node._time_optimal._thread
        assert thread.is_alive() and thread.name == 'time_optimal'
        node.destroy_node()
        assert not thread.is_alive()
        start = time.monotonic()
    finally:
        rclpy.try_shutdown()
    assert time.monotonic() - start < 2.5


# as test_node_reliability's stop right after ~/estimate_payload's thread started: a stop in
# the node's constructor once this service's thread is in its executor's wait exits 0
INTERRUPTED_AFTER_THREAD_START = """
import sys, threading, time
from ros_dynamics.nodes import process
from ros_dynamics.nodes.inverse_dynamics_node import InverseDynamicsNode
start = threading.Thread.start
def start_then_stop(thread):
    start(thread)
    if thread.name == 'time_optimal':
        time.sleep(0.5)   # warmed up, in its executor's wait
        raise process.Interrupted('SIGTERM')
threading.Thread.start = start_then_stop
process.main_for(InverseDynamicsNode)(sys.argv)
print('returned')
"""


def test_a_stop_right_after_the_service_thread_started_exits_cleanly():
    run = subprocess.run([sys.executable, '-c', INTERRUPTED_AFTER_THREAD_START, '--ros-args',
                          '-r', f'__ns:={unique_namespace()}', '-p', f'urdf_path:={URDF}'],
                         capture_output=True, text=True, timeout=120)
    output = run.stdout + run.stderr
    assert run.returncode == 0 and 'returned' in output, f'exit {run.returncode}:\n{output}'
    assert 'Traceback' not in output and 'terminate' not in output, output
