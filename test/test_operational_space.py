# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""Operational-space dynamics (Khatib 1987): identities and the task acceleration it promises."""

import numpy as np
import pytest

from robot_data import example_urdf
from ros_dynamics import RobotModel

PLANAR_2R = """<robot name="planar_2r">
  <link name="base"/>
  <link name="upper"><inertial><origin xyz="0.5 0 0"/><mass value="2"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.2"/></inertial></link>
  <link name="fore"><inertial><origin xyz="0.4 0 0"/><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <link name="tool"/>
  <joint name="shoulder" type="continuous"><parent link="base"/><child link="upper"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="elbow" type="continuous"><parent link="upper"/><child link="fore"/>
    <origin xyz="1 0 0"/><axis xyz="0 0 1"/></joint>
  <joint name="tool_joint" type="fixed"><parent link="fore"/><child link="tool"/>
    <origin xyz="0.8 0 0"/></joint>
</robot>"""


@pytest.fixture(scope='module')
def panda():
    return RobotModel.from_urdf_file(example_urdf('panda_description/urdf/panda.urdf'))


def random_state(robot, seed):
    rng = np.random.default_rng(seed)
    q = rng.uniform(-1.0, 1.0, robot.dof)
    q[3] = -1.5 - rng.uniform(0, 0.5)   # panda elbow bent: away from singularities
    return q, rng.uniform(-1.0, 1.0, robot.dof)


@pytest.mark.parametrize('frame', ['world_aligned', 'local', 'world'])
@pytest.mark.parametrize('seed', range(4))
def test_khatib_identities(panda, frame, seed):
    q, qd = random_state(panda, seed)
    os_ = panda.operational_space(q, qd, 'panda_hand', frame=frame)
    n = panda.dof
    assert not os_.degenerate and os_.regularization == ''
    mass = panda.mass_matrix(q)
    m_inv = np.linalg.inv(mass)
    jac = panda.jacobian(q, 'panda_hand', frame)
    assert np.allclose(os_.J, jac, atol=1e-12)
    assert np.allclose(os_.Lambda, np.linalg.inv(jac @ m_inv @ jac.T), rtol=1e-8, atol=1e-8)
    assert np.allclose(os_.J_bar, m_inv @ jac.T @ os_.Lambda, atol=1e-8)
    assert np.allclose(os_.J @ os_.J_bar, np.eye(6), atol=1e-9)
    assert np.allclose(os_.N @ os_.N, os_.N, atol=1e-9)
    assert np.allclose(os_.N @ os_.J_bar, 0.0, atol=1e-9)
    assert np.allclose(os_.N, np.eye(n) - os_.J_bar @ os_.J, atol=1e-12)
    coriolis = panda.bias_torques(q, qd) - panda.gravity_torques(q)
    jdot_qd = panda.jacobian_dot_qd(q, qd, 'panda_hand', frame)
    assert np.allclose(os_.mu, os_.J_bar.T @ coriolis - os_.Lambda @ jdot_qd, atol=1e-8)
    assert np.allclose(os_.p, os_.J_bar.T @ panda.gravity_torques(q), atol=1e-8)
    assert np.allclose(os_.pose, panda.link_pose(q, 'panda_hand'))


@pytest.mark.parametrize('seed', range(4))
def test_task_force_produces_task_acceleration(panda, seed):
    """Check tau = J^T (Lambda a + mu + p) + N^T tau0 gives J qdd + Jdot qd = a for any tau0."""
    q, qd = random_state(panda, seed)
    rng = np.random.default_rng(100 + seed)
    a = rng.uniform(-2.0, 2.0, 6)
    os_ = panda.operational_space(q, qd, 'panda_hand')
    tau = os_.joint_torque(os_.task_force(a), rng.uniform(-5, 5, panda.dof))
    qdd = panda.forward_dynamics(q, qd, tau)
    assert np.allclose(os_.J @ qdd + os_.jdot_qd, a, atol=1e-8)


def test_planar_arm_full_task_is_degenerate_and_planar_task_is_not():
    robot = RobotModel.from_urdf_string(PLANAR_2R)
    q, qd = np.array([0.3, 1.1]), np.array([0.5, -0.2])
    full = robot.operational_space(q, qd, 'tool')
    assert full.degenerate and 'damped' in full.regularization
    assert np.all(np.isfinite(full.Lambda))
    planar = robot.operational_space(q, qd, 'tool', axes=(0, 1))
    assert not planar.degenerate
    assert planar.J.shape == (2, 2) and planar.Lambda.shape == (2, 2)
    assert np.allclose(planar.J @ planar.J_bar, np.eye(2), atol=1e-12)
    # non-redundant: Lambda = J^-T M J^-1 and the null space is empty
    j_inv = np.linalg.inv(planar.J)
    assert np.allclose(planar.Lambda, j_inv.T @ robot.mass_matrix(q) @ j_inv, atol=1e-10)
    assert np.allclose(planar.N, 0.0, atol=1e-12)


def test_singular_configuration_is_flagged():
    """Stretched out (elbow at 0) the planar arm loses a task direction: flagged, finite."""
    robot = RobotModel.from_urdf_string(PLANAR_2R)
    os_ = robot.operational_space(np.array([0.4, 0.0]), np.zeros(2), 'tool', axes=(0, 1))
    assert os_.degenerate
    assert np.all(np.isfinite(os_.Lambda)) and np.all(np.isfinite(os_.J_bar))


def test_reference_link_rotates_the_task(panda):
    q, qd = random_state(panda, 1)
    base = panda.operational_space(q, qd, 'panda_hand', reference_link='panda_link0')
    world = panda.operational_space(q, qd, 'panda_hand')
    assert np.allclose(base.Lambda, world.Lambda)   # panda_link0 is the root: same axes
    with pytest.raises(ValueError, match='rigidly attached to the root'):
        panda.operational_space(q, qd, 'panda_hand', reference_link='panda_link3')


@pytest.mark.parametrize('kwargs, fragment', [
    ({'link': 'nope'}, "link 'nope'"),
    ({'frame': 'sideways'}, 'frame'),
    ({'axes': (0, 7)}, 'axes'),
    ({'axes': ()}, 'axes'),
    ({'damping': 0.0}, 'damping'),
])
def test_bad_arguments(panda, kwargs, fragment):
    q, qd = random_state(panda, 0)
    arguments = {'link': 'panda_hand'} | kwargs
    link = arguments.pop('link')
    with pytest.raises(ValueError, match=fragment):
        panda.operational_space(q, qd, link, **arguments)


def test_bad_force_and_null_space_torque(panda):
    q, qd = random_state(panda, 0)
    os_ = panda.operational_space(q, qd, 'panda_hand')
    with pytest.raises(ValueError, match='force'):
        os_.joint_torque([1.0, 2.0])
    with pytest.raises(ValueError, match='null_space_torque'):
        os_.joint_torque(np.zeros(6), [np.nan] * panda.dof)
    with pytest.raises(ValueError, match='acceleration'):
        os_.task_force([np.inf] * 6)
