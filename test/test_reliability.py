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
Regression tests for hostile input: each reproduces one defect found by fuzzing.

Loading: a description without links, xacro instead of URDF, unencodable
text and values whose products overflow double precision are refused with a
URDFError naming the element. Calls: every public entry refuses complex,
object, text and masked arrays with TypeError and NaN/Inf with ValueError,
accepts any array numpy converts losslessly (unaligned, strided, other
float widths), returns empty results for empty batches and robots without
joints, and refuses a batch whose result cannot fit in memory.
"""

import os
import sys

import numpy as np
import pytest

from ros_dynamics.exceptions import URDFError
from ros_dynamics.model import RobotModel

sys.path.insert(0, os.path.dirname(__file__))
from robot_data import example_urdf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PANDA = os.path.join(HERE, '..', 'urdf', 'panda_arm.urdf')

ARM = """<robot name="arm">
  <link name="base"/>
  <link name="upper"><inertial><origin xyz="0 0 0.5" rpy="0 0 0"/><mass value="{mass}"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="{iyz}" izz="0.1"/></inertial></link>
  <link name="fore"><inertial><mass value="1"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="{axis}"/><limit lower="-3" upper="3" effort="10" velocity="1"/></joint>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="fore"/>
    <origin xyz="{origin}"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="10" velocity="1"/>
    <mimic joint="shoulder" multiplier="{multiplier}"/></joint>
</robot>"""
SANE = dict(mass='2', iyz='0', axis='0 1 0', origin='0 0 1', multiplier='1')


def arm(**changes) -> str:
    """Return the two-link arm URDF with some attribute values replaced."""
    return ARM.format(**dict(SANE, **changes))


@pytest.fixture(scope='module')
def panda() -> RobotModel:
    return RobotModel.from_urdf_file(PANDA)


# ---------------------------------------------------------------------------- loading
@pytest.mark.parametrize('xml', ['<robot name="x"/>', '<robot name="x"><!-- c --></robot>'])
def test_a_robot_without_links_is_a_urdf_error(xml):
    with pytest.raises(URDFError, match='has no <link>'):
        RobotModel.from_urdf_string(xml)


def test_example_robot_data_ur3_without_links_is_a_urdf_error():
    with pytest.raises(URDFError, match='has no <link>'):
        RobotModel.from_urdf_file(example_urdf('ur_description/urdf/ur3.urdf'))


def test_warm_up_never_raises_on_a_loadable_model():
    for xml in ('<robot name="x"><link name="a"/></robot>', arm()):
        RobotModel.from_urdf_string(xml).warm_up()
    RobotModel.from_urdf_file(PANDA).warm_up()


@pytest.mark.parametrize('change, element', [
    (dict(mass='1e308'), "link 'upper': mass"),
    (dict(iyz='1e308'), "link 'upper': inertia"),
    (dict(origin='1e308 0 0'), "joint 'elbow': <origin xyz>"),
    (dict(multiplier='1e308'), "joint 'elbow': mimic"),
])
def test_values_whose_products_overflow_are_refused(change, element):
    with pytest.raises(URDFError) as error:
        RobotModel.from_urdf_string(arm(**change))
    assert element in str(error.value) and 'double precision' in str(error.value)


def test_a_huge_axis_is_normalised_by_scaling_first():
    robot = RobotModel.from_urdf_string(arm(axis='1e200 0 1e200'))
    reference = RobotModel.from_urdf_string(arm(axis='1 0 1'))
    q = np.array([0.3, 0.0])[:robot.dof]
    assert np.allclose(robot.jacobian(q, 'fore'), reference.jacobian(q, 'fore'))
    assert np.abs(robot.jacobian(q, 'fore')).max() > 0.1


@pytest.mark.filterwarnings('ignore::ros_dynamics.exceptions.URDFWarning')
def test_the_largest_accepted_values_give_finite_results():
    robot = RobotModel.from_urdf_string(arm(mass='1e30', iyz='1e29', origin='1e30 0 0',
                                            multiplier='1e30'))
    rng = np.random.default_rng(3)
    for _ in range(5):
        q, qd, qdd = (rng.uniform(-1e3, 1e3, robot.dof) for _ in range(3))
        for value in (robot.inverse_dynamics(q, qd, qdd), robot.mass_matrix(q),
                      robot.coriolis_matrix(q, qd), robot.kinetic_energy(q, qd),
                      robot.potential_energy(q), robot.jacobian(q, 'fore')):
            assert np.all(np.isfinite(value))


def test_a_lone_surrogate_is_a_urdf_error():
    with pytest.raises(URDFError, match='not valid Unicode'):
        RobotModel.from_urdf_string('<robot name="x"><link name="a\ud800"/></robot>')


@pytest.mark.parametrize('xml', [
    '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
    '<xacro:macro name="m"/><link name="a"/></robot>',
    '<robot name="r"><xacro:include filename="arm.xacro"/></robot>',
    '<robot name="r"><link name="a"/><joint name="j" type="fixed"><parent link="a"/>'
    '<child link="${prefix}b"/></joint></robot>',
])
def test_xacro_is_detected_and_the_error_says_to_run_xacro(xml):
    with pytest.raises(URDFError, match='xacro'):
        RobotModel.from_urdf_string(xml)


def test_a_xacro_file_says_to_run_xacro(tmp_path):
    path = tmp_path / 'robot.urdf.xacro'
    path.write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                    '<xacro:property name="l" value="1"/></robot>')
    with pytest.raises(URDFError, match='xacro robot.urdf.xacro > robot.urdf'):
        RobotModel.from_urdf_file(str(path))
