# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""Control laws: computed torque, the SO(3) rotation error, Cartesian impedance."""

import numpy as np
import pytest
from robot_data import example_urdf
from ros_dynamics import RobotModel
from ros_dynamics.control.impedance import CartesianImpedance, computed_torque, rotation_error
from scipy.spatial.transform import Rotation


@pytest.fixture(scope='module')
def ur5():
    return RobotModel.from_urdf_file(example_urdf('ur_description/urdf/ur5_robot.urdf'))


@pytest.fixture(scope='module')
def panda():
    return RobotModel.from_urdf_file(example_urdf('panda_description/urdf/panda.urdf'))


def test_computed_torque_is_m_command_plus_bias(ur5):
    rng = np.random.default_rng(0)
    q, qd, q_ref, qd_ref, qdd_ref = (rng.uniform(-1, 1, 6) for _ in range(5))
    kp, kd = rng.uniform(10, 100, 6), rng.uniform(1, 20, 6)
    tau = computed_torque(ur5, q, qd, q_ref, qd_ref, qdd_ref, kp, kd)
    command = qdd_ref + kd * (qd_ref - qd) + kp * (q_ref - q)
    assert np.allclose(tau, ur5.mass_matrix(q) @ command + ur5.bias_torques(q, qd), atol=1e-9)
    # on the reference it is the inverse dynamics of the reference
    assert np.allclose(computed_torque(ur5, q_ref, qd_ref, q_ref, qd_ref, qdd_ref, kp, kd),
                       ur5.inverse_dynamics(q_ref, qd_ref, qdd_ref))


def test_computed_torque_wraps_continuous_joints():
    urdf = """<robot name="wheel"><link name="base"/><link name="w"><inertial><mass value="1"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
      <joint name="spin" type="continuous"><parent link="base"/><child link="w"/>
      <axis xyz="0 0 1"/></joint></robot>"""
    robot = RobotModel.from_urdf_string(urdf)
    tau = computed_torque(robot, [3.1], [0.0], [-3.1], [0.0], [0.0], [1.0], [0.0])
    assert tau[0] == pytest.approx(2 * np.pi - 6.2)   # the short way round, not -6.2


@pytest.mark.parametrize('angle', [0.0, 1e-8, 0.3, 2.0, np.pi - 1e-9, np.pi])
def test_rotation_error_is_the_log_map(angle):
    rng = np.random.default_rng(int(angle * 1000))
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    current = Rotation.from_rotvec(rng.normal(size=3)).as_matrix()
    target = Rotation.from_rotvec(angle * axis).as_matrix() @ current
    error = rotation_error(target, current)
    assert np.allclose(Rotation.from_rotvec(error).as_matrix() @ current, target, atol=1e-7)
    assert np.linalg.norm(error) == pytest.approx(angle, abs=1e-7)


def test_impedance_at_target_holds_the_robot(panda):
    """At the target, at rest, with rest = q, tau = g(q): J^T p + N^T g = g."""
    q = np.array([0.1, -0.4, 0.2, -2.0, 0.1, 1.8, 0.5, 0.02])
    controller = CartesianImpedance(panda, 'panda_hand', kp=[100.0] * 6, kd=[20.0] * 6,
                                    posture_stiffness=5.0, rest=q)
    tau, space, error = controller.torque(q, np.zeros(panda.dof), panda.link_pose(q, 'panda_hand'))
    assert np.allclose(error, 0.0, atol=1e-12)
    assert np.allclose(tau, panda.gravity_torques(q), atol=1e-8)


def test_impedance_acceleration_follows_the_gains(panda):
    """Task acceleration = kp e + kd (xd_ref - xd): the closed loop is the chosen spring."""
    rng = np.random.default_rng(3)
    q = np.array([0.1, -0.4, 0.2, -2.0, 0.1, 1.8, 0.5, 0.02])
    qd = rng.uniform(-0.5, 0.5, panda.dof)
    target = panda.link_pose(q, 'panda_hand')
    target[:3, 3] += [0.02, -0.01, 0.03]
    target[:3, :3] = Rotation.from_rotvec([0.05, 0.0, -0.04]).as_matrix() @ target[:3, :3]
    kp, kd = np.array([100, 120, 140, 50, 60, 70.0]), np.array([20, 21, 22, 10, 11, 12.0])
    controller = CartesianImpedance(panda, 'panda_hand', kp, kd)
    twist = rng.uniform(-0.1, 0.1, 6)
    tau, space, error = controller.torque(q, qd, target, twist)
    qdd = panda.forward_dynamics(q, qd, tau)
    task_acceleration = space.J @ qdd + space.jdot_qd
    assert np.allclose(task_acceleration, kp * error + kd * (twist - space.J @ qd), atol=1e-8)


def test_impedance_rejects_bad_gains(panda):
    with pytest.raises(ValueError, match='kp'):
        CartesianImpedance(panda, 'panda_hand', kp=[1.0] * 5, kd=[1.0] * 6)
    with pytest.raises(ValueError, match='kd'):
        CartesianImpedance(panda, 'panda_hand', kp=[1.0] * 6, kd=[-1.0] * 6)
    with pytest.raises(ValueError, match="link 'hand'"):
        CartesianImpedance(panda, 'hand', kp=[1.0] * 6, kd=[1.0] * 6)
