# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
A corpus of malformed URDFs (test/data/malformed/), one problem each, each a clear URDFError.

Each file's comment says what is wrong and what Pinocchio 4.1 does with it;
the table below says which element the message must name and which word
must describe the problem. Loading from a string gives the same error.
"""

import glob
import os

import pytest
from ros_dynamics import RobotModel, URDFError

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'malformed')

EXPECTED = {
    'axis_not_numbers': ("joint 'elbow'", 'axis'),
    'child_of_two_joints': ("link 'b'", 'child of two joints'),
    'cycle_beside_root': ("link 'c'", 'cycle'),
    'cycle_without_root': ('joints', 'cycle'),
    'duplicate_joint': ("joint 'elbow'", 'defined twice'),
    'duplicate_link': ("link 'arm'", 'defined twice'),
    'inertial_without_mass': ("link 'arm'", 'mass'),
    'joint_without_name': ('<joint>', 'no name'),
    'mimic_cycle': ("joint 'left'", 'cycle'),
    'mimic_unknown_joint': ("joint 'finger'", "mimics joint 'ghost', which does not exist"),
    'missing_child_link': ("joint 'elbow'", "child link 'ghost' does not exist"),
    'missing_joint_type': ("joint 'elbow'", 'type'),
    'missing_parent_link': ("joint 'elbow'", "parent link 'ghost' does not exist"),
    'nan_inertia': ("link 'arm'", 'finite'),
    'nan_mass': ("link 'arm'", 'finite'),
    'negative_effort_limit': ("joint 'elbow'", 'non-negative'),
    'negative_inertia': ("link 'arm'", 'negative moment of inertia'),
    'negative_mass': ("link 'arm'", 'non-negative'),
    'not_xml': ('XML', 'not well-formed'),
    'origin_two_numbers': ("joint 'elbow'", 'origin xyz'),
    'revolute_without_limit': ("joint 'elbow'", '<limit>'),
    'truncated_xml': ('XML', 'not well-formed'),
    'two_roots': ("'base', 'other_base'", 'root links'),
    'unknown_joint_type': ("joint 'elbow'", "unknown joint type 'hinge'"),
    'wrong_root_element': ('<model>', 'expected <robot>'),
    'zero_axis': ("joint 'elbow'", 'zero length'),
}


def test_every_corpus_file_has_an_expectation():
    names = {os.path.basename(p)[:-5] for p in glob.glob(os.path.join(CORPUS, '*.urdf'))}
    assert names == set(EXPECTED)
    assert len(names) >= 15


@pytest.mark.parametrize('name', sorted(EXPECTED))
def test_malformed_urdf_gives_a_clear_error(name):
    element, problem = EXPECTED[name]
    path = os.path.join(CORPUS, f'{name}.urdf')
    with pytest.raises(URDFError) as from_file:
        RobotModel.from_urdf_file(path)
    message = str(from_file.value)
    assert element in message and problem in message, message
    with open(path, encoding='utf-8') as stream:
        with pytest.raises(URDFError) as from_string:
            RobotModel.from_urdf_string(stream.read())
    assert str(from_string.value) == message
    assert isinstance(from_file.value, ValueError)   # one type of ours, a ValueError


def test_massless_links_are_allowed():
    urdf = """<robot name="light"><link name="base"/><link name="a"/><link name="b"><inertial>
      <mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
      </link><joint name="j1" type="revolute"><parent link="base"/><child link="a"/>
      <limit lower="-1" upper="1" effort="1" velocity="1"/></joint><joint name="j2"
      type="continuous"><parent link="a"/><child link="b"/><origin xyz="0 0 1"/></joint></robot>"""
    robot = RobotModel.from_urdf_string(urdf)
    assert robot.dof == 2 and robot.link_names == ('base', 'a', 'b')


def test_non_string_input_is_refused():
    with pytest.raises(URDFError, match='string'):
        RobotModel.from_urdf_string(b'<robot name="x"/>')


def test_missing_file_names_the_path(tmp_path):
    path = str(tmp_path / 'no_such_robot.urdf')
    with pytest.raises((FileNotFoundError, URDFError)) as error:
        RobotModel.from_urdf_file(path)
    assert path in str(error.value)
