# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""Identities every model must satisfy, at random states of real robots."""

import numpy as np
import pytest

from robot_data import example_urdf
from ros_dynamics import RobotModel, SingularMassMatrixError

ROBOTS = ['panda_description/urdf/panda.urdf', 'ur_description/urdf/ur5_robot.urdf',
          'talos_data/robots/talos_reduced.urdf', 'baxter_description/urdf/baxter.urdf',
          'kinova_description/robots/kinova.urdf']


@pytest.fixture(scope='module', params=ROBOTS)
def robot(request):
    return RobotModel.from_urdf_file(example_urdf(request.param))


def states(robot, count=5, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        yield tuple(rng.uniform(-1.5, 1.5, robot.dof) for _ in range(3))


def test_mass_matrix_symmetric_positive_definite(robot):
    for q, _, _ in states(robot):
        mass = robot.mass_matrix(q)
        assert np.array_equal(mass, mass.T)
        assert np.linalg.eigvalsh(mass)[0] > 0.0


def test_forward_dynamics_inverts_inverse_dynamics(robot):
    for q, qd, qdd in states(robot):
        tau = robot.inverse_dynamics(q, qd, qdd)
        assert np.allclose(robot.forward_dynamics(q, qd, tau), qdd, rtol=1e-9, atol=1e-9)
        wrenches = {robot.link_names[-1]: np.array([3.0, -2.0, 5.0, 0.2, -0.1, 0.3])}
        tau = robot.inverse_dynamics(q, qd, qdd, wrenches)
        assert np.allclose(robot.forward_dynamics(q, qd, tau, wrenches), qdd, atol=1e-9)


def test_inverse_dynamics_is_m_qdd_plus_bias(robot):
    for q, qd, qdd in states(robot):
        expected = robot.mass_matrix(q) @ qdd + robot.bias_torques(q, qd)
        assert np.allclose(robot.inverse_dynamics(q, qd, qdd), expected, atol=1e-9)
        assert np.allclose(robot.coriolis_matrix(q, qd) @ qd,
                           robot.bias_torques(q, qd) - robot.gravity_torques(q), atol=1e-9)


def test_external_wrench_is_jacobian_transpose(robot):
    """A wrench w at a link origin (world axes) changes tau by -J^T w (J world-aligned)."""
    rng = np.random.default_rng(4)
    for q, qd, qdd in states(robot, 3):
        link = robot.link_names[rng.integers(1, len(robot.link_names))]
        wrench = rng.uniform(-10.0, 10.0, 6)
        change = robot.inverse_dynamics(q, qd, qdd, {link: wrench}) \
            - robot.inverse_dynamics(q, qd, qdd)
        assert np.allclose(change, -robot.jacobian(q, link).T @ wrench, atol=1e-9)


def test_jacobian_matches_finite_differences(robot):
    """Linear rows: d(link origin)/dq; angular rows: the rotation's velocity; dJ/dt qd too."""
    link = robot.link_names[-1]
    h = 1e-6
    for q, qd, _ in states(robot, 2):
        jac = robot.jacobian(q, link)
        plus, minus = robot.link_pose(q + h * qd, link), robot.link_pose(q - h * qd, link)
        assert np.allclose(jac[:3] @ qd, (plus[:3, 3] - minus[:3, 3]) / (2 * h), atol=1e-6)
        rotation = robot.link_pose(q, link)[:3, :3]
        rotation_rate = (plus[:3, :3] - minus[:3, :3]) / (2 * h) @ rotation.T
        omega = np.array([rotation_rate[2, 1], rotation_rate[0, 2], rotation_rate[1, 0]])
        assert np.allclose(jac[3:] @ qd, omega, atol=1e-6)
        for frame in ('world_aligned', 'local', 'world'):
            djac = (robot.jacobian(q + h * qd, link, frame)
                    - robot.jacobian(q - h * qd, link, frame)) / (2 * h)
            assert np.allclose(robot.jacobian_dot_qd(q, qd, link, frame), djac @ qd, atol=1e-5)


def test_energy_balance(robot):
    """d(T + V)/dt = qd^T tau for the motion tau produces (power balance, by differences)."""
    rng = np.random.default_rng(9)
    q, qd = rng.uniform(-1, 1, robot.dof), rng.uniform(-1, 1, robot.dof)
    tau = rng.uniform(-2, 2, robot.dof)
    qdd = robot.forward_dynamics(q, qd, tau)
    h = 1e-5

    def energy(t):
        qt, qdt = q + qd * t + 0.5 * qdd * t * t, qd + qdd * t
        return robot.kinetic_energy(qt, qdt) + robot.potential_energy(qt)
    power = (energy(h) - energy(-h)) / (2 * h)
    assert power == pytest.approx(qd @ tau, rel=1e-5, abs=1e-6)


def test_gravity_torques_are_potential_gradient(robot):
    rng = np.random.default_rng(2)
    q = rng.uniform(-1, 1, robot.dof)
    h = 1e-6
    gradient = np.array([(robot.potential_energy(q + h * e) - robot.potential_energy(q - h * e))
                         / (2 * h) for e in np.eye(robot.dof)])
    assert np.allclose(robot.gravity_torques(q), gradient, atol=1e-6)


def test_gravity_is_settable():
    robot = RobotModel.from_urdf_file(example_urdf('ur_description/urdf/ur5_robot.urdf'))
    q = np.linspace(-1.0, 1.0, robot.dof)
    default = robot.gravity_torques(q)
    robot.gravity = (0.0, 0.0, -2 * 9.81)
    assert np.allclose(robot.gravity_torques(q), 2 * default)
    robot.gravity = (0.0, 0.0, 0.0)
    assert np.allclose(robot.gravity_torques(q), 0.0)
    with pytest.raises(ValueError, match='gravity'):
        robot.gravity = (0.0, float('nan'), 0.0)


MASSLESS_TIP = """<robot name="massless_tip">
  <link name="base"/>
  <link name="arm"><inertial><mass value="1"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <link name="tip"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="10" velocity="1"/></joint>
  <joint name="wrist" type="revolute"><parent link="arm"/><child link="tip"/>
    <origin xyz="1 0 0"/><axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="10" velocity="1"/>
  </joint>
</robot>"""


def test_singular_mass_matrix_is_named():
    """A joint that moves nothing loads, but forward dynamics says which joint is at fault."""
    robot = RobotModel.from_urdf_string(MASSLESS_TIP)
    q = np.zeros(2)
    assert robot.mass_matrix(q)[1, 1] == 0.0
    assert np.allclose(robot.inverse_dynamics(q, q, np.ones(2)), [0.1, 0.0])   # izz of arm
    with pytest.raises(SingularMassMatrixError, match="joint 'wrist'"):
        robot.forward_dynamics(q, q, np.ones(2))
    with pytest.raises(SingularMassMatrixError, match="joint 'wrist'"):
        robot.forward_dynamics(np.zeros((4, 2)), np.zeros((4, 2)), np.ones((4, 2)))
    with pytest.raises(SingularMassMatrixError):
        robot.operational_space(q, q, 'tip')


def test_fast_paths_take_any_array_layout(robot):
    """Strided, reversed, read-only, int and float32 inputs give the contiguous float64 result."""
    rng = np.random.default_rng(11)
    wide = rng.uniform(-1.0, 1.0, 2 * robot.dof)
    q = wide[::2].copy()
    expected = {f: getattr(robot, f)(q) for f in ('gravity_torques', 'mass_matrix')}
    read_only = q.copy()
    read_only.setflags(write=False)
    reversed_view = q[::-1].copy()[::-1]      # the same values through a negative stride
    integers = np.round(q * 10).astype(np.int64)
    for name, value in expected.items():
        function = getattr(robot, name)
        function(q)                           # compiled: the fast path is live
        np.testing.assert_array_equal(function(wide[::2]), value)
        np.testing.assert_array_equal(function(reversed_view), value)
        np.testing.assert_array_equal(function(read_only), value)
        np.testing.assert_array_equal(function(list(q)), value)
        np.testing.assert_allclose(function(q.astype(np.float32)), value, rtol=1e-5,
                                   atol=1e-5)
        np.testing.assert_array_equal(function(integers),
                                      function(integers.astype(np.float64)))
