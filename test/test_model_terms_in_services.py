# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0


"""
Friction and armature in the services over real ROS, and the flags that say so.

The inverse-dynamics node (``friction_compensation: reference``) and the
operational-space node run the Panda with an actuators YAML holding the Gaz
et al. friction of config/panda_actuators.yaml, an armature on every joint
and a low effort limit on joint 7. Each service answer equals the core
(RobotModel with the same YAML) to 1e-12 and reports ``friction_included``
and ``armature_included``: ``~/inverse_dynamics`` adds the friction at
state.velocity, ``~/forward_dynamics`` takes it off the efforts (so it
inverts the former), ``~/trajectory_dynamics`` adds it at every point's
velocities, in its efforts, its report and its effort-limit check;
``~/operational_space`` adds none. The nodes without actuators and friction
report false for both (test_inverse_dynamics_node.py).
"""

import os

from builtin_interfaces.msg import Duration
import numpy as np
import pytest
from ros_dynamics import RobotModel
from ros_dynamics.control.actuator_report import trajectory_efforts
from ros_dynamics.srv import (ForwardDynamics, InverseDynamics, OperationalSpace,
                              TrajectoryDynamics)
from ros_helpers import NodeProcess, RosClient, unique_namespace
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URDF = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
GAZ = os.path.join(ROOT, 'config', 'panda_actuators.yaml')
JOINTS = ['panda_joint%d' % k for k in range(1, 8)]
ARMATURE = [0.3, 0.3, 0.2, 0.2, 0.1, 0.1, 0.1]   # kg m^2
PATIENCE = 180.0  # s: the first answer waits for a cold cache's compile (33 s on the quiet 2-core
#                    CI host, over 60 s with two other compiling processes beside it)


def trajectory() -> tuple:
    """Return times (N,) and q, qd, qdd (N, 7) of a smooth motion about a bent pose."""
    times = np.linspace(0.0, 1.0, 41)
    amplitude = np.linspace(0.2, 0.5, 7)
    wave = np.sin(2.0 * times)[:, None] * amplitude
    q = np.array([0.0, -0.4, 0.0, -2.0, 0.0, 1.6, 0.5]) + wave
    return times, q, 2.0 * np.cos(2.0 * times)[:, None] * amplitude, -4.0 * wave


@pytest.fixture(scope='module')
def actuators(tmp_path_factory) -> str:
    """
    Write the actuators YAML: Gaz et al.'s friction, armature, and a limit on joint 7.

    The limit lies halfway between the peak of joint 7's rigid-body torque
    along ``trajectory`` and its peak with friction: only the friction makes
    the trajectory exceed it.
    """
    with open(GAZ) as stream:
        config = yaml.safe_load(stream)
    for joint, armature in zip(JOINTS, ARMATURE):
        config['joints'][joint]['armature'] = armature
    robot = RobotModel.from_urdf_file(URDF, actuators=config)
    _, q, qd, qdd = trajectory()
    rigid = np.abs(robot.inverse_dynamics(q, qd, qdd)[:, 6]).max()
    with_friction = np.abs(robot.inverse_dynamics(q, qd, qdd, friction=True)[:, 6]).max()
    assert with_friction > 1.2 * rigid, (rigid, with_friction)
    config['joints']['panda_joint7']['effort_limit'] = float(0.5 * (rigid + with_friction))
    path = tmp_path_factory.mktemp('actuators') / 'panda_with_armature.yaml'
    path.write_text(yaml.safe_dump(config))
    return str(path)


@pytest.fixture(scope='module')
def core(actuators) -> RobotModel:
    return RobotModel.from_urdf_file(URDF, actuators=actuators)


@pytest.fixture(scope='module')
def ros(actuators):
    namespace = unique_namespace()
    common = {'urdf_path': URDF, 'actuators': actuators}
    with NodeProcess('inverse_dynamics_node', namespace,
                     dict(common, friction_compensation='reference')) as dynamics, \
            NodeProcess('operational_space_node', namespace, common) as space:
        with RosClient(namespace) as client:
            client.nodes = (dynamics, space)
            yield client
        for node in (dynamics, space):
            assert node.alive(), node.output()


def joint_state(q, qd, effort=None) -> JointState:
    message = JointState(name=JOINTS, position=[float(v) for v in q],
                         velocity=[float(v) for v in qd])
    if effort is not None:
        message.effort = [float(v) for v in effort]
    return message


def inverse_dynamics(ros, request):
    response = ros.call(InverseDynamics, 'inverse_dynamics/inverse_dynamics', request,
                        timeout=PATIENCE)
    assert response.success, response.message
    return response


def test_inverse_and_forward_dynamics_include_friction_and_armature(ros, core):
    assert core.armature.tolist() == ARMATURE
    rng = np.random.default_rng(5)
    q, qd, qdd = (rng.uniform(-1.0, 1.0, 7) for _ in range(3))
    request = InverseDynamics.Request(state=joint_state(q, qd), accelerations=qdd.tolist())
    response = inverse_dynamics(ros, request)
    expected = core.inverse_dynamics(q, qd, qdd, friction=True)
    assert np.allclose(response.effort, expected, rtol=0, atol=1e-12)
    assert response.friction_included and response.armature_included
    assert response.message.startswith('friction included at state.velocity; armature '
                                       'included; payloads on no link')
    # the friction and the armature are both in it, each by more than rounding
    assert np.abs(expected - core.inverse_dynamics(q, qd, qdd)).min() > 1e-3
    assert np.abs(np.asarray(ARMATURE) * qdd).max() > 0.05

    # gravity only: g(q) + tau_f(qd), no armature in it; with M asked, armature is in M
    request.gravity_only = True
    response = inverse_dynamics(ros, request)
    assert np.allclose(response.effort, core.gravity_torques(q) + core.friction_torques(qd),
                       rtol=0, atol=1e-12)
    assert response.friction_included and not response.armature_included
    request.want_mass_matrix = True
    response = inverse_dynamics(ros, request)
    assert response.armature_included
    mass = np.array(response.mass_matrix.data).reshape(7, 7)
    assert np.allclose(mass, core.mass_matrix(q), rtol=0, atol=1e-12)

    # forward dynamics takes the friction off the efforts: it inverts the service above
    tau = core.inverse_dynamics(q, qd, qdd, friction=True)
    forward = ros.call(ForwardDynamics, 'inverse_dynamics/forward_dynamics',
                       ForwardDynamics.Request(state=joint_state(q, qd, tau)), timeout=PATIENCE)
    assert forward.success, forward.message
    assert forward.friction_included and forward.armature_included
    assert np.allclose(forward.accelerations,
                       core.forward_dynamics(q, qd, tau - core.friction_torques(qd)),
                       rtol=0, atol=1e-12)
    assert np.allclose(forward.accelerations, qdd, rtol=0, atol=1e-9)


def test_trajectory_dynamics_include_friction_at_the_points_velocities(ros, core):
    times, qs, qds, qdds = trajectory()
    motion = JointTrajectory(joint_names=JOINTS)
    for t, p, v, a in zip(times, qs, qds, qdds):
        seconds = int(t)
        motion.points.append(JointTrajectoryPoint(
            positions=p.tolist(), velocities=v.tolist(), accelerations=a.tolist(),
            time_from_start=Duration(sec=seconds, nanosec=int(round((t - seconds) * 1e9)))))
    response = ros.call(TrajectoryDynamics, 'inverse_dynamics/trajectory_dynamics',
                        TrajectoryDynamics.Request(trajectory=motion), timeout=PATIENCE)
    assert response.success, response.message
    assert response.friction_included and response.armature_included
    efforts = np.array(response.efforts.data).reshape(len(times), 7)
    for k in range(len(times)):
        assert np.allclose(efforts[k], core.inverse_dynamics(qs[k], qds[k], qdds[k],
                                                             friction=True),
                           rtol=0, atol=1e-12), k
    # the report and the limit check are those of the efforts with friction
    times_received = np.array(response.times)
    _, reports, violations = trajectory_efforts(core, times_received, qs, qds, qdds, True)
    _, rigid_reports, rigid_violations = trajectory_efforts(core, times_received, qs, qds, qdds)
    for got, want, rigid in zip(response.report, reports, rigid_reports):
        assert got.joint == want.joint
        for field in ('peak_effort', 'rms_effort', 'peak_velocity', 'peak_power',
                      'effort_limit', 'velocity_limit'):
            assert np.isclose(getattr(got, field), getattr(want, field), rtol=1e-12, atol=0)
        assert abs(want.rms_effort - rigid.rms_effort) > 1e-3   # friction counted
    assert response.report[6].effort_limit == core.effort_limit[6] < np.inf
    seen = [(v.joint, v.point_index, v.kind) for v in response.violations]
    assert seen == [(v.joint, v.index, v.kind) for v in violations]
    assert any(v.joint == 'panda_joint7' and v.kind == 'effort' for v in violations)
    assert not any(v.joint == 'panda_joint7' and v.kind == 'effort' for v in rigid_violations)


def test_operational_space_has_armature_and_no_friction(ros, core):
    q = np.array([0.2, -0.4, 0.1, -2.0, 0.3, 1.6, 0.5])
    qd = np.array([0.3, -0.2, 0.4, 0.1, -0.5, 0.2, 0.6])
    request = OperationalSpace.Request(link='panda_hand_tcp', state=joint_state(q, qd),
                                       has_wrench=True)
    request.wrench.force.z = 5.0
    response = ros.call(OperationalSpace, 'operational_space/operational_space', request,
                        timeout=PATIENCE)
    assert response.success, response.message
    assert response.armature_included and not response.friction_included
    space = core.operational_space(q, qd, 'panda_hand_tcp')
    lam = np.array(response.task_inertia.data).reshape(6, 6)
    assert np.abs(lam - space.Lambda).max() <= 1e-10 * np.abs(space.Lambda).max()
    assert np.allclose(response.effort, space.joint_torque(np.array([0, 0, 5.0, 0, 0, 0]),
                                                           np.zeros(7)), rtol=0, atol=1e-12)
