# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Published closed forms and a Lagrangian cross-check of the recursive algorithms.

* Ghosal's NPTEL notes (Module 6), eq. (27): the planar 2R arm of its link data table
  (urdf/planar_2r.urdf).
* Khatib's course slides on dynamics: the RP arm's M, V, G and Jacobian (the slides print
  a zero Jacobian column that is (cos theta1, sin theta1, 0)).
* Torques from numerically differentiated kinetic and potential energy
  (d/dt dT/dqd - dT/dq + dV/dq) on a 3-D robot, the UR5.
"""

import os

import numpy as np
import pytest
from robot_data import example_urdf
from ros_dynamics import RobotModel

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
G = 9.81


def two_r_closed_form(q, qd):
    """Return M, C qd, G of Ghosal's eq. (27) for the 2R arm (I about the centre of mass)."""
    m1 = m2 = 12.456
    l1, r1, r2, i1, i2 = 1.0, 0.773, 0.583, 1.042, 1.042
    (t1, t2), (d1, d2) = q, qd
    c1, c2, s2, c12 = np.cos(t1), np.cos(t2), np.sin(t2), np.cos(t1 + t2)
    m12 = i2 + m2 * r2 ** 2 + m2 * l1 * r2 * c2
    mass = np.array([[i1 + i2 + m2 * l1 ** 2 + m1 * r1 ** 2 + m2 * r2 ** 2
                      + 2 * m2 * l1 * r2 * c2, m12], [m12, i2 + m2 * r2 ** 2]])
    coriolis = np.array([-m2 * l1 * r2 * s2 * (2 * d1 + d2) * d2, m2 * l1 * r2 * s2 * d1 ** 2])
    gravity = np.array([m2 * G * (l1 * c1 + r2 * c12) + m1 * G * r1 * c1, m2 * r2 * G * c12])
    return mass, coriolis, gravity


def test_planar_2r_matches_seed_equation_27():
    robot = RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', 'planar_2r.urdf'))
    rng = np.random.default_rng(27)
    for _ in range(50):
        q, qd, qdd = rng.uniform(-np.pi, np.pi, 2), rng.uniform(-3, 3, 2), rng.uniform(-5, 5, 2)
        mass, coriolis, gravity = two_r_closed_form(q, qd)
        assert np.allclose(robot.mass_matrix(q), mass, rtol=1e-12, atol=1e-12)
        assert np.allclose(robot.gravity_torques(q), gravity, rtol=1e-12, atol=1e-10)
        assert np.allclose(robot.bias_torques(q, qd), coriolis + gravity, rtol=1e-12, atol=1e-10)
        assert np.allclose(robot.inverse_dynamics(q, qd, qdd), mass @ qdd + coriolis + gravity,
                           rtol=1e-12, atol=1e-10)


# Khatib's RP arm: link 1 (mass m1, centre of mass l1 from joint 1, Izz1) turns about the
# axis normal to the plane of motion; link 2 (m2, Izz2) slides along link 1, its centre of mass
# at d2 (the joint variable) from joint 1. The slides' plane is (x, y) with gravity along -y;
# ours is (x, z) with gravity along -z and the joint axis -y, so theta1 turns x toward z.
M1, L1, IZZ1, M2, IZZ2 = 3.0, 0.4, 0.05, 2.0, 0.02
RP_ARM = f"""<robot name="rp_arm"><link name="base"/>
  <link name="link1"><inertial><origin xyz="{L1} 0 0"/><mass value="{M1}"/>
    <inertia ixx="0.001" ixy="0" ixz="0" iyy="{IZZ1}" iyz="0" izz="{IZZ1}"/></inertial></link>
  <link name="link2"><inertial><mass value="{M2}"/>
    <inertia ixx="0.001" ixy="0" ixz="0" iyy="{IZZ2}" iyz="0" izz="{IZZ2}"/></inertial></link>
  <joint name="theta1" type="continuous"><parent link="base"/><child link="link1"/>
    <axis xyz="0 -1 0"/></joint>
  <joint name="d2" type="prismatic"><parent link="link1"/><child link="link2"/>
    <axis xyz="1 0 0"/><limit lower="0" upper="2" effort="100" velocity="1"/></joint>
</robot>"""


def test_rp_arm_matches_seed_004():
    robot = RobotModel.from_urdf_string(RP_ARM)
    rng = np.random.default_rng(4)
    for _ in range(30):
        (t1, d2), (dt1, dd2), qdd = (rng.uniform(0.1, 1.5, 2), rng.uniform(-2, 2, 2),
                                     rng.uniform(-3, 3, 2))
        q, qd = np.array([t1, d2]), np.array([dt1, dd2])
        c1, s1 = np.cos(t1), np.sin(t1)
        mass = np.diag([M1 * L1 ** 2 + IZZ1 + M2 * d2 ** 2 + IZZ2, M2])
        # V = B [theta1' d2'] + C [theta1'^2, d2'^2], with the factor 2 on the Coriolis term
        v = np.array([2 * M2 * d2 * dt1 * dd2, -M2 * d2 * dt1 ** 2])
        gravity = np.array([(M1 * L1 + M2 * d2) * G * c1, M2 * G * s1])
        assert np.allclose(robot.mass_matrix(q), mass, atol=1e-12)
        assert np.allclose(robot.bias_torques(q, qd) - robot.gravity_torques(q), v, atol=1e-12)
        assert np.allclose(robot.gravity_torques(q), gravity, atol=1e-12)
        assert np.allclose(robot.inverse_dynamics(q, qd, qdd), mass @ qdd + v + gravity,
                           atol=1e-12)
        # J_v2 of the slider's centre of mass; the slides' rows (x, y) are our rows (x, z)
        jac = robot.jacobian(q, 'link2')
        assert np.allclose(jac[[0, 2]], [[-d2 * s1, c1], [d2 * c1, s1]], atol=1e-12)
        assert np.allclose(jac[1], 0.0) and np.allclose(jac[4], [-1.0, 0.0])


def test_lagrangian_cross_check_on_ur5():
    """Check d/dt (dT/dqd) - dT/dq + dV/dq, from the energies alone, equals RNEA."""
    robot = RobotModel.from_urdf_file(example_urdf('ur_description/urdf/ur5_robot.urdf'))
    rng = np.random.default_rng(5)
    eye = np.eye(robot.dof)
    kinetic, potential = robot.kinetic_energy, robot.potential_energy

    def momentum(q, qd):   # dT/dqd: T is quadratic in qd, so central differences are exact
        return np.array([(kinetic(q, qd + e) - kinetic(q, qd - e)) / 2.0 for e in eye])

    for _ in range(3):
        q, qd, qdd = (rng.uniform(-1.5, 1.5, robot.dof) for _ in range(3))
        h = 1e-5

        def along(t):
            return q + qd * t + 0.5 * qdd * t * t, qd + qdd * t
        momentum_rate = (momentum(*along(h)) - momentum(*along(-h))) / (2 * h)
        d_kinetic = np.array([(kinetic(q + h * e, qd) - kinetic(q - h * e, qd)) / (2 * h)
                              for e in eye])
        d_potential = np.array([(potential(q + h * e) - potential(q - h * e)) / (2 * h)
                                for e in eye])
        tau = momentum_rate - d_kinetic + d_potential
        expected = robot.inverse_dynamics(q, qd, qdd)
        assert np.allclose(tau, expected, rtol=1e-6, atol=1e-6 * np.abs(expected).max())


@pytest.mark.parametrize('relative', ['ur_description/urdf/ur5_robot.urdf',
                                      'panda_description/urdf/panda.urdf'])
def test_mdot_minus_two_c_is_skew_symmetric(relative):
    robot = RobotModel.from_urdf_file(example_urdf(relative))
    rng = np.random.default_rng(8)
    h = 1e-6
    for _ in range(3):
        q, qd = rng.uniform(-1.5, 1.5, robot.dof), rng.uniform(-1.5, 1.5, robot.dof)
        mdot = (robot.mass_matrix(q + h * qd) - robot.mass_matrix(q - h * qd)) / (2 * h)
        skew = mdot - 2 * robot.coriolis_matrix(q, qd)
        assert np.allclose(skew, -skew.T, atol=1e-7 * max(1.0, np.abs(mdot).max()))
        assert robot.kinetic_energy(q, qd) == pytest.approx(
            0.5 * qd @ robot.mass_matrix(q) @ qd, rel=1e-12)
