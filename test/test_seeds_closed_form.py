# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The cube of Khatib's course slides (parallel-axis theorem), through one-joint mass matrices.

The other published closed forms (Ghosal's eq. (27), the RP arm of Khatib's slides) are in
test_seeds.py.

The slides: a homogeneous cube of side a and mass m has, about its
centre C, I_C = m a^2 / 6 on every axis; about a corner A with the cube in the
positive octant, I_Axx = I_Ayy = I_Azz = 2/3 m a^2 and products of inertia
(positive convention, integral of x y rho) m a^2 / 4, so the tensor entries are
-m a^2 / 4. Misprints: the slides print ``I_Czz + 2/2 m a^2`` where the
parallel-axis term is m (x_c^2 + y_c^2) = 1/2 m a^2 (the result 2/3 m a^2 is
right), and ``I_{Ayza}`` for I_Ayz. URDF stores the inertia about the centre
of mass only, so the corner form is checked as the mass matrix of a revolute
joint through the corner: M = n^T I_A n for a unit axis n.
"""

import numpy as np
import pytest
from ros_dynamics import RobotModel

MASS, SIDE = 2.5, 0.4


def cube_about_corner(m: float, a: float) -> np.ndarray:
    """Return the inertia tensor of a cube about its corner (tensor entries), Khatib's slides."""
    return m * a ** 2 * np.array([[2 / 3, -1 / 4, -1 / 4],
                                  [-1 / 4, 2 / 3, -1 / 4],
                                  [-1 / 4, -1 / 4, 2 / 3]])


def cube_robot(axis: np.ndarray, rpy: str = '0 0 0') -> RobotModel:
    """Build a one-joint robot: a cube hinged at its corner, the joint origin."""
    centre = SIDE / 2
    moment = MASS * SIDE ** 2 / 6
    return RobotModel.from_urdf_string(f"""<robot name="cube"><link name="base"/>
      <link name="cube"><inertial><origin xyz="{centre} {centre} {centre}" rpy="{rpy}"/>
      <mass value="{MASS}"/><inertia ixx="{moment}" ixy="0" ixz="0" iyy="{moment}" iyz="0"
      izz="{moment}"/></inertial></link>
      <joint name="hinge" type="continuous"><parent link="base"/><child link="cube"/>
      <axis xyz="{axis[0]} {axis[1]} {axis[2]}"/></joint></robot>""")


def test_corner_inertia_is_parallel_axis_of_centre_inertia():
    centre = np.full(3, SIDE / 2)
    parallel = MASS * (centre @ centre * np.eye(3) - np.outer(centre, centre))
    assert np.allclose(MASS * SIDE ** 2 / 6 * np.eye(3) + parallel,
                       cube_about_corner(MASS, SIDE), rtol=1e-14, atol=0)


@pytest.mark.parametrize('axis, factor', [((1, 0, 0), 2 / 3), ((0, 0, 1), 2 / 3),
                                          ((1, 1, 0), 5 / 12), ((1, 1, 1), 1 / 6),
                                          ((1, -1, 0), 2 / 3 + 1 / 4)])
@pytest.mark.parametrize('rpy', ['0 0 0', '0.3 -1.1 2.0'])
def test_cube_hinged_at_corner(axis, factor, rpy):
    """The isotropic cube's centre inertia is unchanged by rpy; the sign of the products shows."""
    n = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    expected = n @ cube_about_corner(MASS, SIDE) @ n
    assert expected == pytest.approx(factor * MASS * SIDE ** 2, rel=1e-14)
    robot = cube_robot(np.asarray(axis, dtype=float), rpy)
    rng = np.random.default_rng(4)
    for q in rng.uniform(-np.pi, np.pi, (5, 1)):
        assert robot.mass_matrix(q) == pytest.approx(np.array([[expected]]), rel=1e-12)
        qd = rng.uniform(-2, 2, 1)
        assert robot.kinetic_energy(q, qd) == pytest.approx(0.5 * expected * qd[0] ** 2,
                                                            rel=1e-12)
