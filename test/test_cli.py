# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The ``ros-dynamics`` command, run as a user runs it: a separate process, its exit status.

Every call goes through ``python -m ros_dynamics.cli`` in a subprocess, and
setup.py is checked to declare the ``ros-dynamics`` console script on the
same ``main``. Results are checked against the core (``RobotModel``,
``simulation.simulate``), Pinocchio and closed forms, not against stored
output.
"""

import glob
from importlib import metadata
import io
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest
from robot_data import example_robot_data_dir, example_urdf
from ros_dynamics import RobotModel
from ros_dynamics.cli.common import is_xacro, number
from ros_dynamics.simulation.simulator import simulate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PANDA = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
PLANAR = os.path.join(ROOT, 'urdf', 'planar_2r.urdf')
ERROR = re.compile(r'^ros-dynamics: error: \S.*$')


def run_cli(*args, cwd=ROOT) -> subprocess.CompletedProcess:
    """Run ``python -m ros_dynamics.cli ARGS`` from this source tree; return the process."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [ROOT] + [p for p in [os.environ.get('PYTHONPATH')] if p]), COLUMNS='120')
    return subprocess.run([sys.executable, '-m', 'ros_dynamics.cli', *map(str, args)],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def assert_ok(process: subprocess.CompletedProcess) -> None:
    assert process.returncode == 0, process.stderr
    assert 'Traceback' not in process.stderr
    assert '\r' not in process.stderr, 'a progress bar was drawn into a pipe'


def assert_error(process: subprocess.CompletedProcess, *fragments: str) -> str:
    """Check exit 1 with one 'ros-dynamics: error:' line naming every fragment; return it."""
    assert process.returncode == 1, (process.returncode, process.stdout, process.stderr)
    lines = process.stderr.strip().splitlines()
    assert len(lines) == 1 and ERROR.match(lines[0]), process.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def read_csv(path_or_text, is_text: bool = False) -> tuple:
    """Return (header, data (N, columns)) of a CSV the command wrote."""
    text = path_or_text if is_text else open(path_or_text, encoding='utf-8').read()
    header = text.splitlines()[0].split(',')
    return header, np.loadtxt(io.StringIO(text), delimiter=',', skiprows=1, ndmin=2)


def write_csv(path, header, columns) -> str:
    np.savetxt(path, np.column_stack(columns), delimiter=',', header=','.join(header),
               comments='', fmt='%.17g')
    return str(path)


# ---------------------------------------------------------------------- the entry point
def test_setup_py_declares_the_console_script_on_main():
    from setuptools import distutils
    distribution = distutils.core.run_setup(os.path.join(ROOT, 'setup.py'), stop_after='init')
    scripts = distribution.entry_points['console_scripts']
    assert 'ros-dynamics = ros_dynamics.cli:main' in scripts
    entry = metadata.EntryPoint('ros-dynamics', 'ros_dynamics.cli:main', 'console_scripts')
    from ros_dynamics.cli import main
    assert entry.load() is main
    assert 'tqdm' in ' '.join(distribution.install_requires)
    assert distribution.extras_require['plot'] == ['matplotlib>=3.8']
    installed = metadata.entry_points(group='console_scripts', name='ros-dynamics')
    for script in installed:   # when the package is installed (pip, colcon), the same target
        assert script.value == 'ros_dynamics.cli:main'


def test_module_entry_runs_the_same_main():
    with open(os.path.join(ROOT, 'ros_dynamics', 'cli', '__main__.py'), encoding='utf-8') as f:
        source = f.read()
    assert 'from ros_dynamics.cli import main' in source and 'sys.exit(main())' in source


def test_version_and_help():
    process = run_cli('--version')
    assert_ok(process)
    assert process.stdout.startswith('ros-dynamics ')
    process = run_cli('--help')
    assert_ok(process)
    for command in ('info', 'torques', 'simulate'):
        assert command in process.stdout
    for command, option in (('info', 'URDF'), ('torques', '--plot'), ('simulate', '--seconds')):
        process = run_cli(command, '--help')
        assert_ok(process)
        assert process.stdout.startswith(f'usage: ros-dynamics {command}')
        assert option in process.stdout
    assert 'JOINT.velocity' in run_cli('torques', '--help').stdout   # the file format


@pytest.mark.parametrize('args', [
    (), ('nonsense',), ('info',), ('torques', PANDA), ('simulate', PANDA),
    ('simulate', PANDA, '--seconds', '-1'), ('simulate', PANDA, '--seconds', 'x'),
    ('simulate', PANDA, '--seconds', '1', '--effort', 'max'),
    ('torques', PANDA, 'x.csv', '--format', 'json'), ('info', PANDA, '--bogus')],
    ids=lambda args: ' '.join(os.path.basename(a) for a in args) or 'no-command')
def test_usage_errors_exit_2(args):
    process = run_cli(*args)
    assert process.returncode == 2, process.stderr
    assert process.stderr.startswith('usage: ros-dynamics')
    assert 'ros-dynamics' in process.stderr.splitlines()[-1] and 'error:' in process.stderr
    assert 'Traceback' not in process.stderr


# ---------------------------------------------------------------------- info
def info_figures(stdout: str) -> tuple:
    """Return (total mass, CoM (3,)) parsed from the output of info."""
    match = re.search(r'Total mass (\S+) kg .* centre of mass at q = 0: \((\S+), (\S+), (\S+)\)',
                      stdout)
    assert match, stdout
    return float(match.group(1)), np.array([float(match.group(k)) for k in (2, 3, 4)])


def test_info_planar_2r_closed_form():
    process = run_cli('info', PLANAR)
    assert_ok(process)
    mass, com = info_figures(process.stdout)
    # two 12.456 kg links along x at q = 0, centres of mass at 0.773 m and 1.0 + 0.583 m
    assert mass == pytest.approx(24.912, rel=1e-6)
    assert com == pytest.approx([(0.773 + 1.583) / 2.0, 0.0, 0.0], abs=1e-6)
    out = process.stdout
    assert "robot 'planar_2r'" in out and '2 dof' in out
    assert '`-- shoulder [continuous, axis 0 -1 0] -> link1 (12.46 kg)' in out
    assert 'tool (joint tool_joint) -> the body of joint ' in out
    assert 'Warnings: none' in out


def test_info_panda_against_pinocchio():
    pin = pytest.importorskip('pinocchio')
    process = run_cli('info', PANDA)
    assert_ok(process)
    mass, com = info_figures(process.stdout)
    # Pinocchio leaves out the fixed root link (panda_link0, at the root frame's origin)
    model = pin.buildModelFromUrdf(PANDA)
    moving_com = pin.centerOfMass(model, model.createData(), pin.neutral(model))
    root = ElementTree.parse(PANDA).getroot().find("link[@name='panda_link0']/inertial")
    root_mass = float(root.find('mass').get('value'))
    root_com = np.array([float(v) for v in root.find('origin').get('xyz').split()])
    assert mass == pytest.approx(pin.computeTotalMass(model) + root_mass, rel=1e-6)
    expected = (pin.computeTotalMass(model) * moving_com + root_mass * root_com) / mass
    assert com == pytest.approx(expected, abs=1e-5)
    out = process.stdout
    for k in range(1, 8):
        assert f'panda_joint{k} [revolute, axis 0 0 1]' in out
    assert 'Merged through fixed joints (3)' in out
    assert 'panda_hand (joint panda_hand_joint) -> the body of joint ' in out
    assert 'q = 0 is outside the position limits of panda_joint4' in out


def test_info_reports_ignored_parts_mimic_and_warnings(tmp_path):
    urdf = tmp_path / 'odd.urdf'
    urdf.write_text("""<robot name="odd">
  <material name="blue"/>
  <link name="base"><visual/><collision/></link>
  <link name="arm"><inertial><mass value="2"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <visual/></link>
  <link name="tip"/>
  <link name="twin"><inertial><mass value="1"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <joint name="j1" type="continuous"><parent link="base"/><child link="arm"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="j2" type="revolute"><parent link="arm"/><child link="tip"/>
    <origin xyz="1 0 0"/><limit lower="-1" upper="1" effort="0" velocity="1"/>
    <safety_controller/></joint>
  <joint name="j3" type="revolute"><parent link="arm"/><child link="twin"/>
    <limit lower="-1" upper="1" effort="5" velocity="1"/>
    <mimic joint="j1" multiplier="2" offset="0.5"/></joint>
  <transmission name="t"/>
  <gazebo/>
</robot>""")
    process = run_cli('info', urdf)
    assert_ok(process)
    out = process.stdout
    for line in ('1 x <material>', '1 x <transmission>', '1 x <gazebo>',
                 '2 x <link><visual>', '1 x <link><collision>',
                 '1 x <joint><safety_controller>'):
        assert line in out, line
    assert 'mimic followers (not coordinates): j3 = 2 * j1 + 0.5' in out
    assert 'Massless links (no <inertial>): base, tip' in out
    assert 'no effort limit on j1' in out and 'no velocity limit on j1' in out
    assert 'effort limit 0 on j2' in out
    # j2 moves the massless tip only: M is singular, forward dynamics names the joint
    assert re.search(r"at q = 0: .*'j2'.*simulate will fail", out), out


@pytest.mark.parametrize('command', ['info', 'simulate', 'torques'])
def test_missing_urdf(tmp_path, command):
    extra = {'info': (), 'simulate': ('--seconds', '1'), 'torques': (PANDA,)}[command]
    line = assert_error(run_cli(command, tmp_path / 'nowhere.urdf', *extra), 'nowhere.urdf',
                        'does not exist')
    assert 'URDF' in line


def test_bad_urdf_files(tmp_path):
    not_xml = tmp_path / 'robot.urdf'
    not_xml.write_text('time,a,b\n0,1,2\n')
    assert_error(run_cli('info', not_xml), 'robot.urdf', 'not well-formed XML')
    other = tmp_path / 'launch.urdf'
    other.write_text('<launch><node/></launch>')
    assert_error(run_cli('info', other), 'launch.urdf', '<launch>', 'expected <robot>')
    broken = tmp_path / 'broken.urdf'
    broken.write_text('<robot name="r"><link name="a"/><link name="b"/>'
                      '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
                      '</joint></robot>')
    assert_error(run_cli('info', broken), 'broken.urdf', "joint 'j'", '<limit>')
    assert_error(run_cli('info', tmp_path), 'is a directory')
    binary = tmp_path / 'binary.urdf'
    binary.write_bytes(b'\xff\xfe\x00robot')
    assert_error(run_cli('info', binary), 'binary.urdf', 'not UTF-8')


def test_xacro_files_are_refused_with_the_command_to_expand_them(tmp_path):
    xacro = os.path.join(example_robot_data_dir(), 'hector_description', 'robots',
                         'quadrotor_base.urdf.xacro')
    assert_error(run_cli('info', xacro), 'a xacro file, not a URDF', f'xacro {xacro} >')
    # the same content under a .urdf name is recognised by its xacro elements
    disguised = tmp_path / 'quadrotor.urdf'
    disguised.write_text(open(xacro, encoding='utf-8').read())
    assert_error(run_cli('torques', disguised, 'x.csv'), 'a xacro file')


def test_generated_urdfs_are_not_taken_for_xacro():
    # 40 of these keep xmlns:xacro on <robot> after expansion; all are plain URDFs
    files = sorted(glob.glob(os.path.join(example_robot_data_dir(), '**', '*.urdf'),
                             recursive=True))
    assert len(files) >= 60
    assert [f for f in files if is_xacro(f, open(f, encoding='utf-8').read())] == []


# ---------------------------------------------------------------------- torques
def smooth_trajectory(robot: RobotModel, points: int = 121, seconds: float = 1.2) -> tuple:
    """Return (t, q, qd, qdd): q cubic in time around the middle of the limits."""
    t = np.linspace(0.0, seconds, points)
    rng = np.random.default_rng(7)
    lower = np.where(np.isfinite(robot.lower), robot.lower, -1.0)
    upper = np.where(np.isfinite(robot.upper), robot.upper, 1.0)
    middle, span = (lower + upper) / 2.0, (upper - lower) / 4.0
    a, b, c = (rng.uniform(-1.0, 1.0, robot.dof) * span for _ in range(3))
    s = t[:, None] / seconds
    q = middle + a * s + b * s ** 2 + c * s ** 3
    qd = (a + 2 * b * s + 3 * c * s ** 2) / seconds
    qdd = (2 * b + 6 * c * s) / seconds ** 2
    return t, q, qd, qdd


def trajectory_csv(path, robot, t, q, qd=None, qdd=None, suffix='') -> str:
    header, columns = ['time'], [t]
    for field, values in ((suffix, q), ('.velocity', qd), ('.acceleration', qdd)):
        if values is not None:
            header += [f'{name}{field}' for name in robot.joint_names]
            columns += list(values.T)
    return write_csv(path, header, columns)


@pytest.mark.parametrize('urdf', [PANDA, PLANAR], ids=['panda_arm', 'planar_2r'])
def test_torques_equal_inverse_dynamics(tmp_path, urdf):
    robot = RobotModel.from_urdf_file(urdf)
    t, q, qd, qdd = smooth_trajectory(robot)
    path = trajectory_csv(tmp_path / 'trajectory.csv', robot, t, q, qd, qdd)
    out = tmp_path / 'efforts.csv'
    process = run_cli('torques', urdf, path, '-o', out)
    assert_ok(process)
    header, data = read_csv(out)
    assert header == ['time'] + [f'{n}.effort' for n in robot.joint_names]
    expected = robot.inverse_dynamics(q, qd, qdd)
    assert np.allclose(data[:, 0], t, rtol=1e-11, atol=0.0)
    assert np.allclose(data[:, 1:], expected, rtol=1e-10, atol=1e-10 * np.abs(expected).max())
    # the report's figures are those of the efforts
    for k, name in enumerate(robot.joint_names):
        row = next(line for line in process.stdout.splitlines()
                   if line.split() and line.split()[0] == name)
        cells = row.split()
        assert cells[1] == number(np.abs(expected[:, k]).max())
        assert cells[5] == number(np.abs(qd[:, k]).max())
        assert cells[-1] == number(np.abs(expected[:, k] * qd[:, k]).max())


def test_torques_with_actuators_and_friction(tmp_path):
    """--actuators puts the armature into the efforts, --friction adds tau_f(qd) (Panda)."""
    with open(os.path.join(ROOT, 'config', 'panda_actuators.yaml'), encoding='utf-8') as f:
        text = f.read()
    yaml = tmp_path / 'actuators.yaml'   # Gaz et al.'s friction, and an armature on joint 2
    yaml.write_text(text.replace('  panda_joint2:\n', '  panda_joint2:\n    armature: 0.3\n'))
    robot = RobotModel.from_urdf_file(PANDA, actuators=str(yaml))
    assert robot.armature[1] == 0.3
    t, q, qd, qdd = smooth_trajectory(robot)
    path = trajectory_csv(tmp_path / 'trajectory.csv', robot, t, q, qd, qdd)
    plain = RobotModel.from_urdf_file(PANDA).inverse_dynamics(q, qd, qdd)
    for extra, expected, terms in (
            ((), plain, 'rigid bodies'),
            (('--actuators', yaml), robot.inverse_dynamics(q, qd, qdd), 'rigid bodies, armature'),
            (('--actuators', yaml, '--friction'),
             robot.inverse_dynamics(q, qd, qdd) + robot.friction_torques(qd),
             'rigid bodies, armature, joint friction')):
        out = tmp_path / 'efforts.csv'
        process = run_cli('torques', PANDA, path, '-o', out, *extra)
        assert_ok(process)
        assert f'efforts: {terms}\n' in process.stdout
        _, data = read_csv(out)
        assert np.allclose(data[:, 1:], expected, rtol=1e-10, atol=1e-10)
    assert np.abs(expected - plain).max() > 0.5     # the terms are not negligible here
    assert_error(run_cli('torques', PANDA, path, '--actuators', tmp_path / 'none.yaml'),
                 'actuators file', 'none.yaml', 'does not exist')


@pytest.mark.parametrize('given', ['positions', 'positions+velocities'])
def test_torques_derive_missing_derivatives_exactly_for_a_cubic(tmp_path, given):
    robot = RobotModel.from_urdf_file(PANDA)
    t, q, qd, qdd = smooth_trajectory(robot, points=41)
    velocities = qd if given == 'positions+velocities' else None
    path = trajectory_csv(tmp_path / 't.csv', robot, t, q, velocities, suffix='.position')
    process = run_cli('torques', PANDA, path, '-o', '-')
    assert_ok(process)
    _, data = read_csv(process.stdout, is_text=True)   # '-': the CSV on stdout
    expected = robot.inverse_dynamics(q, qd, qdd)
    assert np.allclose(data[:, 1:], expected, rtol=1e-8, atol=1e-8 * np.abs(expected).max())
    assert 'from a cubic spline' in process.stderr and 'Actuator report' in process.stderr


ECHO = """header:
  stamp:
    sec: 0
    nanosec: 0
  frame_id: ''
joint_names:
- elbow
- shoulder
points:
{points}---
"""


def joint_trajectory_yaml(t, q, names_order=(1, 0)) -> str:
    """Return a JointTrajectory as `ros2 topic echo` prints it (positions only)."""
    points = ''
    for time, row in zip(t, q):
        sec = int(np.floor(time))
        points += '- positions:\n' + ''.join(f'  - {float(row[k])!r}\n' for k in names_order)
        points += ('  velocities: []\n  accelerations: []\n  effort: []\n'
                   f'  time_from_start:\n    sec: {sec}\n    nanosec: '
                   f'{int(round((time - sec) * 1e9))}\n')
    return ECHO.format(points=points)


def test_torques_from_joint_trajectory_yaml(tmp_path):
    robot = RobotModel.from_urdf_file(PLANAR)
    t, q, qd, qdd = smooth_trajectory(robot, points=31, seconds=3.0)
    path = tmp_path / 'echo.yaml'
    path.write_text(joint_trajectory_yaml(t, q))
    out = tmp_path / 'efforts.csv'
    process = run_cli('torques', PLANAR, path, '--out', out)
    assert_ok(process)
    _, data = read_csv(out)
    expected = robot.inverse_dynamics(q, qd, qdd)
    assert np.allclose(data[:, 1:], expected, rtol=1e-7, atol=1e-7 * np.abs(expected).max())


def test_torques_from_a_spreadsheet_csv_and_a_trajectory_goal(tmp_path):
    robot = RobotModel.from_urdf_file(PLANAR)
    t, q, qd, qdd = smooth_trajectory(robot, points=11)
    plain = trajectory_csv(tmp_path / 'plain.csv', robot, t, q, qd, qdd)
    lines = open(plain, encoding='utf-8').read().splitlines()
    lines[0] = ','.join(f'"{name}"' for name in lines[0].split(','))
    sheet = tmp_path / 'sheet.csv'   # a byte-order mark and a quoted header, as exported
    sheet.write_bytes(b'\xef\xbb\xbf' + '\n'.join(lines).encode())
    out = tmp_path / 'efforts.csv'
    assert_ok(run_cli('torques', PLANAR, sheet, '-o', out))
    expected = robot.inverse_dynamics(q, qd, qdd)
    assert np.allclose(read_csv(out)[1][:, 1:], expected, rtol=1e-10, atol=1e-9)
    # a FollowJointTrajectory goal holds the message under 'trajectory'
    goal = tmp_path / 'goal.yaml'
    message = joint_trajectory_yaml(t, q).replace('---\n', '')
    goal.write_text('trajectory:\n' + ''.join(f'  {line}\n' for line in message.splitlines()))
    assert_ok(run_cli('torques', PLANAR, goal, '-o', out))
    assert np.allclose(read_csv(out)[1][:, 1:], expected, rtol=1e-6, atol=1e-6)


def test_robot_without_moving_joints(tmp_path):
    urdf = tmp_path / 'fixed.urdf'
    urdf.write_text('<robot name="fixed"><link name="a"/><link name="b"/><joint name="j" '
                    'type="fixed"><parent link="a"/><child link="b"/></joint></robot>')
    process = run_cli('info', urdf)
    assert_ok(process)
    assert 'no moving joint (0 dof)' in process.stdout
    assert 'b (joint j) -> the fixed base' in process.stdout
    (tmp_path / 't.csv').write_text('time\n0\n1\n')
    assert_error(run_cli('torques', urdf, tmp_path / 't.csv'), 'no moving joint')
    assert_error(run_cli('simulate', urdf, '--seconds', '1'), 'no moving joint')


def test_output_into_a_closed_pipe_is_quiet():
    env = dict(os.environ, PYTHONPATH=ROOT)
    # 2001 rows of states on stdout: more than a pipe holds, so the writer meets the closed end
    process = subprocess.Popen([sys.executable, '-m', 'ros_dynamics.cli', 'simulate', PLANAR,
                                '--seconds', '2', '-o', '-'],
                               cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stdout.readline().startswith('time,shoulder.position')
    process.stdout.close()   # like `| head -1`
    _, stderr = process.communicate(timeout=600)
    assert process.returncode == 1
    assert "robot 'planar_2r'" in stderr   # the summary, and nothing else
    assert 'error' not in stderr and 'Traceback' not in stderr and 'Exception' not in stderr


def test_torques_plots_and_strict(tmp_path):
    pytest.importorskip('matplotlib')
    robot = RobotModel.from_urdf_file(PLANAR)
    t, q, qd, qdd = smooth_trajectory(robot)
    path = trajectory_csv(tmp_path / 'slow.csv', robot, t, q, qd, qdd)
    plots = tmp_path / 'plots'
    process = run_cli('torques', PLANAR, path, '--plot', plots, '--strict')
    assert_ok(process)   # within the 500 N m and 10 rad/s limits: --strict passes
    for name in ('torques.png', 'power.png', 'limits.png'):
        with open(plots / name, 'rb') as figure:
            assert figure.read(8) == b'\x89PNG\r\n\x1a\n'
    fast = trajectory_csv(tmp_path / 'fast.csv', robot, t / 20.0, q, qd * 20.0, qdd * 400.0)
    process = run_cli('torques', PLANAR, fast, '--strict')
    assert process.returncode == 3, process.stderr
    assert 'Limits exceeded' in process.stdout
    process = run_cli('torques', PLANAR, fast)
    assert_ok(process)


BAD_CSVS = {
    'missing joint': ('time,shoulder\n0,1\n1,2\n', ['missing position columns', "'elbow'"]),
    'non-numeric': ('time,shoulder,elbow\n0,1,2\n0.1,abc,2\n',
                    ['bad.csv:3', "column 'shoulder'", "'abc' is not a number"]),
    'not finite': ('time,shoulder,elbow\n0,1,2\n0.1,nan,2\n', ['bad.csv:3', 'finite']),
    'time backwards': ('time,shoulder,elbow\n0,1,2\n0.2,1,2\n0.1,1,2\n',
                       ['line 4', 'time 0.1 s does not come after 0.2 s', 'increase']),
    'time repeated': ('# a comment\ntime,shoulder,elbow\n0,1,2\n0,1,2\n',
                      ['line 4', 'increase strictly']),
    'no time': ('shoulder,elbow\n1,2\n', ["no 'time' column"]),
    'empty': ('', ['empty']),
    'header only': ('time,shoulder,elbow\n', ['no data rows']),
    'typo': ('time,sholder,elbow\n0,1,2\n', ["'sholder' is not a joint", "'shoulder'?"]),
    'short row': ('time,shoulder,elbow\n0,1,2\n1,2\n', ['bad.csv:3', '2 values for 3 columns']),
    'twice': ('time,shoulder,shoulder.position,elbow\n0,1,1,2\n', ['two position columns']),
    'some velocities': ('time,shoulder,elbow,shoulder.velocity\n0,1,2,0\n1,1,2,0\n',
                        ["velocity given for some joints but not for 'elbow'"]),
    'one point': ('time,shoulder,elbow\n0,1,2\n', ['one point', 'at least two']),
    'semicolons': ('time;shoulder;elbow\n0;1;2\n', ['separated by commas']),
}


@pytest.mark.parametrize('case', sorted(BAD_CSVS))
def test_bad_trajectory_csv(tmp_path, case):
    text, fragments = BAD_CSVS[case]
    path = tmp_path / 'bad.csv'
    path.write_text(text)
    assert_error(run_cli('torques', PLANAR, path), 'bad.csv', *fragments)


def test_bad_trajectory_files(tmp_path):
    assert_error(run_cli('torques', PLANAR, tmp_path / 'none.csv'), 'none.csv',
                 'does not exist')
    odd = tmp_path / 'trajectory.txt'
    odd.write_text('time,shoulder,elbow\n0,1,2\n1,1,2\n')
    assert_error(run_cli('torques', PLANAR, odd), '--format')
    assert_ok(run_cli('torques', PLANAR, odd, '--format', 'csv'))
    robot = RobotModel.from_urdf_file(PLANAR)
    t, q, _, _ = smooth_trajectory(robot, points=5)
    text = joint_trajectory_yaml(t, q)
    cases = {
        'two messages': (text + text, ['2 YAML documents', '--once']),
        'not a message': ('a: 1\n', ['not a trajectory_msgs/JointTrajectory']),
        'not yaml': ('joint_names: [a\n', ['not valid YAML']),
        'short positions': (text.replace('- positions:\n  - ', '- positions:\n  - 1.0\n  - ', 1),
                            ['points[0].positions', 'expected 2 values']),
        'no time': (text.replace('  time_from_start:\n    sec: 0\n    nanosec: 0\n', '', 1),
                    ['points[0].time_from_start']),
        'partial velocities': (text.replace('velocities: []', 'velocities: [0.0, 0.0]', 1),
                               ['points[1] has no velocity values']),
        'unknown joint': (text.replace('- elbow', '- wrist'), ["'wrist' is not a joint"]),
    }
    for case, (content, fragments) in cases.items():
        path = tmp_path / 'bad.yaml'
        path.write_text(content)
        assert_error(run_cli('torques', PLANAR, path), 'bad.yaml', *fragments)


def test_mimic_follower_column_is_named(tmp_path):
    panda = example_urdf('panda_description/urdf/panda.urdf')
    robot = RobotModel.from_urdf_file(panda)
    t, q, _, _ = smooth_trajectory(robot, points=4)
    path = trajectory_csv(tmp_path / 'fingers.csv', robot, t, q)
    text = open(path, encoding='utf-8').read().splitlines()
    text[0] += ',panda_finger_joint2'
    open(path, 'w', encoding='utf-8').write('\n'.join(line + ',0' * (k > 0)
                                                      for k, line in enumerate(text)))
    assert_error(run_cli('torques', panda, path), "'panda_finger_joint2' is a mimic follower")


# ---------------------------------------------------------------------- simulate
def test_simulate_equals_the_library_and_gravity_holds(tmp_path):
    robot = RobotModel.from_urdf_file(PANDA)
    out = tmp_path / 'states.csv'
    q0 = np.array([0.2, -0.4, 0.1, -1.8, 0.0, 1.4, 0.3])
    process = run_cli('simulate', PANDA, '--seconds', '0.3', '--effort', 'gravity',
                      '--q0', ','.join(map(str, q0.tolist())), '--out', out)
    assert_ok(process)
    header, data = read_csv(out)
    names = robot.joint_names
    assert header == (['time'] + [f'{n}.position' for n in names]
                      + [f'{n}.velocity' for n in names] + [f'{n}.effort' for n in names])
    t, q, qd = simulate(robot, q0, np.zeros(7), 0.3, 1e-3,
                        effort=lambda t, q, qd: robot.gravity_torques(q))
    dof = robot.dof
    assert np.allclose(data[:, 0], t, rtol=0, atol=1e-12)
    assert np.allclose(data[:, 1:1 + dof], q, rtol=1e-11, atol=1e-12)
    assert np.allclose(data[:, 1 + dof:1 + 2 * dof], qd, rtol=1e-11, atol=1e-12)
    assert np.allclose(data[:, 1 + 2 * dof:], robot.gravity_torques(q), rtol=1e-10)
    assert np.abs(data[:, 1:1 + dof] - q0).max() < 1e-9   # gravity compensation holds
    assert 'effort gravity' in process.stdout


def test_simulate_planar_2r_falls_like_the_library(tmp_path):
    pytest.importorskip('matplotlib')
    robot = RobotModel.from_urdf_file(PLANAR)
    plots = tmp_path / 'plots'
    process = run_cli('simulate', PLANAR, '--seconds', '0.5', '--q0', 'elbow=0.5',
                      '--dt', '0.002', '-o', '-', '--plot', plots, '--no-progress')
    assert_ok(process)
    _, data = read_csv(process.stdout, is_text=True)
    t, q, qd = simulate(robot, [0.0, 0.5], [0.0, 0.0], 0.5, 0.002)
    assert np.allclose(data[:, 1:3], q, rtol=1e-11, atol=1e-12)
    assert np.allclose(data[:, 5:], 0.0)   # effort zero
    assert q[-1, 0] < -0.5   # it fell from the horizontal
    assert "robot 'planar_2r'" in process.stderr   # the summary moves to stderr with -o -
    for name in ('positions.png', 'velocities.png', 'efforts.png'):
        assert (plots / name).stat().st_size > 1000


@pytest.mark.parametrize('q0, fragments', [
    ('1,2,3', ['3 values for 2 joints']),
    ('wrist=1', ["'wrist' is not a joint"]),
    ('elbow=x', ["elbow: 'x' is not a number"]),
    ('elbow=nan', ['not finite'])])
def test_simulate_bad_start(q0, fragments):
    assert_error(run_cli('simulate', PLANAR, '--seconds', '0.1', '--q0', q0), '--q0',
                 *fragments)


# ---------------------------------------------------------------------- the README
def test_readme_command_line_section_runs(tmp_path):
    with open(os.path.join(ROOT, 'README.md'), encoding='utf-8') as stream:
        section = stream.read().split('## Command line', 1)[1].split('\n## ', 1)[0]
    commands = [line.split('#')[0].split()[1:]
                for line in re.findall(r'```bash\n(.*?)```', section, re.S)[0].splitlines()
                if line.startswith('ros-dynamics ') and 'COMMAND' not in line]
    assert [c[0] for c in commands] == ['info', 'torques', 'simulate', 'retime']
    example = re.findall(r'```\n\$ cat motion.csv\n(.*?)\$ (ros-dynamics .*?)\n(.*?)```',
                         section, re.S)
    assert example, 'the README lost its torques example'
    motion, command, shown = example[0]
    (tmp_path / 'motion.csv').write_text(motion)
    os.symlink(os.path.join(ROOT, 'urdf'), tmp_path / 'urdf')
    for args in commands:
        assert_ok(run_cli(*args, cwd=tmp_path))
    assert (tmp_path / 'plots' / 'torques.png').exists() and (tmp_path / 'states.csv').exists()
    assert (tmp_path / 'timed.csv').exists()
    process = run_cli(*command.split()[1:], cwd=tmp_path)
    assert_ok(process)
    assert process.stdout == shown, 'the example output in the README is out of date'
