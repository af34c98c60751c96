# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
URDFs that urdfdom, Pinocchio and PyBullet load, loaded here too, each with a URDFWarning.

Three cases from robot files found in the wild, as small URDFs written here: a transmission that
cannot be read (PyBullet's xArm 6 carries the xacro leftover
``<mechanicalReduction>reduction</mechanicalReduction>``), a lower limit
above the upper one (Bullet's "no limit"), blank lines before the XML
declaration. The dynamics must be those of the same URDF without the
oddity; ``ros-dynamics info`` lists every warning, and the command line
prints warnings as one line each, never Python's format with source lines.
"""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from ros_dynamics import RobotModel, URDFWarning

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ARM = """<?xml version="1.0"?>
<robot name="xarm_like">
  <link name="base"/>
  <link name="a"><inertial><origin xyz="0 0.05 0.1"/><mass value="1.5"/>
    <inertia ixx="0.02" iyy="0.03" izz="0.01" ixy="0.001" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><origin xyz="0.2 0 0"/><mass value="0.8"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.02" ixy="0" ixz="0.002" iyz="0"/></inertial></link>
  <joint name="joint1" type="revolute"><parent link="base"/><child link="a"/>
    <axis xyz="0 0 1"/><limit lower="LOWER" upper="UPPER" effort="50" velocity="3"/></joint>
  <joint name="joint2" type="revolute"><parent link="a"/><child link="b"/>
    <origin xyz="0 0 0.3" rpy="1.5708 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="30" velocity="3"/></joint>
  EXTRA
</robot>
"""
XARM_TRANSMISSION = """<transmission name="tran2">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="joint2"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="motor2"><hardwareInterface>EffortJointInterface</hardwareInterface>
      <mechanicalReduction>reduction</mechanicalReduction></actuator></transmission>"""
GOOD_TRANSMISSION = """<transmission name="tran1"><joint name="joint1"/>
    <actuator name="motor1"><mechanicalReduction>100</mechanicalReduction></actuator>
    </transmission>"""


def arm(lower: str = '-3', upper: str = '3', extra: str = '') -> str:
    return ARM.replace('LOWER', lower).replace('UPPER', upper).replace('EXTRA', extra)


def load(text: str, **options) -> tuple:
    """Return (model, [warning messages]) of URDF text."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        robot = RobotModel.from_urdf_string(text, **options)
    return robot, [str(w.message) for w in caught if issubclass(w.category, URDFWarning)]


def assert_same_dynamics(robot: RobotModel, reference: RobotModel) -> None:
    rng = np.random.default_rng(33)
    q, qd, qdd = rng.uniform(-1.5, 1.5, (3, 5, 2))
    assert np.array_equal(robot.inverse_dynamics(q, qd, qdd),
                          reference.inverse_dynamics(q, qd, qdd))
    assert np.array_equal(robot.mass_matrix(q), reference.mass_matrix(q))


def test_unreadable_transmission_is_ignored_with_a_warning():
    reference, none = load(arm(extra=GOOD_TRANSMISSION))
    assert none == []
    robot, messages = load(arm(extra=GOOD_TRANSMISSION + XARM_TRANSMISSION))
    assert len(messages) == 1, messages
    assert "transmission 'tran2'" in messages[0] and "'reduction'" in messages[0]
    assert 'ignored' in messages[0] and "joint 'joint2'" in messages[0]
    assert robot.actuators.gear_ratio.tolist() == [100.0, 1.0]   # tran1 still read
    assert_same_dynamics(robot, reference)


@pytest.mark.parametrize('actuator, problem', [
    ('<mechanicalReduction>0</mechanicalReduction>', 'a gear ratio of 0'),
    ('<drake:rotor_inertia xmlns:drake="http://drake.mit.edu" value="-1"/>', 'must be >= 0'),
    ('<mechanicalReduction>3</mechanicalReduction><mechanicalReduction>4</mechanicalReduction>'
     '<drake:gear_ratio xmlns:drake="http://drake.mit.edu" value="5"/>', 'differ'),
])
def test_other_unreadable_transmissions_are_ignored(actuator, problem):
    extra = f'<transmission name="t"><joint name="joint1"/><actuator>{actuator}</actuator>' \
            '</transmission>'
    robot, messages = load(arm(extra=extra))
    assert len(messages) == 1 and problem in messages[0] and "'t'" in messages[0], messages
    assert robot.actuators.gear_ratio.tolist() == [1.0, 1.0]
    assert robot.armature.tolist() == [0.0, 0.0]


def test_unreadable_transmission_is_an_error_when_the_actuators_need_it():
    """A rotor inertia needs the gear ratio (armature G^2 J_m): the unreadable one is named."""
    config = {'joints': {'joint2': {'rotor_inertia': 1e-4}}}
    with pytest.raises(ValueError, match=r"joint 'joint2': rotor_inertia needs the gear ratio"
                                         r".*transmission 'tran2'.*'reduction'.*gear_ratio key"):
        load(arm(extra=XARM_TRANSMISSION), actuators=config)
    config['joints']['joint2']['gear_ratio'] = 50   # given in the YAML: the URDF's not needed
    robot, messages = load(arm(extra=XARM_TRANSMISSION), actuators=config)
    assert len(messages) == 1 and robot.armature[1] == pytest.approx(2500 * 1e-4, rel=1e-15)


def test_lower_limit_above_upper_means_no_limit():
    robot, messages = load(arm(lower='1', upper='-1'))
    assert len(messages) == 1, messages
    assert "joint 'joint1'" in messages[0] and 'lower limit 1 is above upper limit -1' \
        in messages[0] and 'no position limit' in messages[0]
    assert robot.lower.tolist() == [-np.inf, -2.0] and robot.upper.tolist() == [np.inf, 2.0]
    assert robot.effort_limit.tolist() == [50.0, 30.0]   # the rest of <limit> is kept
    reference, _ = load(arm())
    assert_same_dynamics(robot, reference)
    equal, none = load(arm(lower='0.5', upper='0.5'))   # a locked range is a range
    assert none == [] and equal.lower[0] == equal.upper[0] == 0.5


@pytest.mark.parametrize('prefix', ['\n\n', '  \n\t\n', '\ufeff\n'])
def test_blanks_before_the_declaration_are_ignored(prefix, tmp_path):
    reference, _ = load(arm())
    robot, messages = load(prefix + arm())
    assert len(messages) == 1 and 'before the <?xml ...?> declaration ignored' in messages[0]
    assert_same_dynamics(robot, reference)
    path = tmp_path / 'blank.urdf'
    path.write_text(prefix + arm(extra=GOOD_TRANSMISSION), encoding='utf-8')
    with pytest.warns(URDFWarning, match='declaration'):
        from_file = RobotModel.from_urdf_file(str(path))   # transmissions read as well
    assert from_file.actuators.gear_ratio.tolist() == [100.0, 1.0]
    _, none = load('\n\n' + arm().split('?>', 1)[1])   # no declaration: legal XML, silent
    assert none == []


def run_cli(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [ROOT] + [p for p in [os.environ.get('PYTHONPATH')] if p]), COLUMNS='120')
    return subprocess.run([sys.executable, '-m', 'ros_dynamics.cli', *map(str, args)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_info_lists_every_warning_and_commands_print_one_line_each(tmp_path):
    path = tmp_path / 'xarm_like.urdf'
    path.write_text('\n\n' + arm(lower='1', upper='-1', extra=XARM_TRANSMISSION),
                    encoding='utf-8')
    info = run_cli('info', path)
    assert info.returncode == 0, info.stderr
    warned = info.stdout.split('\nWarnings\n', 1)[1].splitlines()
    for fragment in ('declaration ignored', "transmission 'tran2'", 'no position limit'):
        assert sum(fragment in line and line.startswith('  - ') for line in warned) == 1, \
            (fragment, info.stdout)
    assert info.stderr == ''
    q = tmp_path / 'q.csv'
    q.write_text('time,joint1,joint2\n0,0.1,0.2\n0.1,0.3,0.4\n0.2,0.2,0.1\n', encoding='utf-8')
    for args in (('torques', path, q, '-o', tmp_path / 'tau.csv'),
                 ('torques', path, q, '-o', tmp_path / 'tau.csv', '--actuators',
                  write_yaml(tmp_path))):
        process = run_cli(*args)
        assert process.returncode == 0, process.stderr
        lines = process.stderr.strip().splitlines()   # the warnings, then 'efforts written'
        assert all(line.startswith('ros-dynamics: ') for line in lines), process.stderr
        assert sum(line.startswith('ros-dynamics: warning: ') for line in lines) == 3, lines
        assert 'URDFWarning' not in process.stderr and 'warnings.warn' not in process.stderr


def write_yaml(directory) -> str:
    path = directory / 'actuators.yaml'
    path.write_text('joints:\n  joint1:\n    armature: 0.1\n', encoding='utf-8')
    return str(path)
