# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
``ros-dynamics simulate --follow``: identification data from the command line.

An excitation from ``excite`` is tracked by the simulated robot (computed
torque, or PD with gravity compensation), the recorded efforts are checked
against the control law recomputed here from the written states, and
``identify`` recovers from them a plant that differs from the URDF it
starts from (heavier second link, joint friction and armature the URDF does
not know). The worked example of docs/identification.md runs as written.
"""

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from ros_dynamics import RobotModel
from test_cli import assert_error, assert_ok, read_csv, run_cli
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URDF = os.path.join(ROOT, 'urdf', 'planar_2r.urdf')
FRICTION = {'joints': {'shoulder': {'viscous': 0.8, 'coulomb': 2.0, 'armature': 0.6},
                       'elbow': {'viscous': 0.4, 'coulomb': 1.0, 'armature': 0.3}}}


@pytest.fixture(scope='module')
def excitation(tmp_path_factory) -> str:
    """Return a 10 s excitation of the planar 2R arm at 100 Hz (|qdd| within 2 rad/s^2)."""
    path = tmp_path_factory.mktemp('follow') / 'excitation.csv'
    assert_ok(run_cli('excite', '--urdf', URDF, '--duration', '10', '--iterations', '5',
                      '--acceleration-limit', '2', '--rate', '100', '--out', path,
                      '--no-progress'))
    return str(path)


@pytest.fixture(scope='module')
def plant(tmp_path_factory) -> tuple:
    """Return (URDF path, actuators path, model) of the arm as it is: link 2 is 30 % heavier."""
    directory = tmp_path_factory.mktemp('plant')
    with open(URDF, encoding='utf-8') as stream:
        text = stream.read()
    link2 = text.index('<link name="link2">')
    heavier = text[link2:].replace('<mass value="12.456"/>', '<mass value="16.2"/>', 1) \
        .replace('iyy="1.042" iyz="0" izz="1.042"', 'iyy="1.35" iyz="0" izz="1.35"', 1)
    urdf, actuators = directory / 'plant.urdf', directory / 'plant_actuators.yaml'
    urdf.write_text(text[:link2] + heavier, encoding='utf-8')
    actuators.write_text(yaml.safe_dump(FRICTION), encoding='utf-8')
    model = RobotModel.from_urdf_file(str(urdf), actuators=str(actuators))
    assert model.inertial_parameters()[1, 0] == 16.2
    return str(urdf), str(actuators), model


def reference(excitation: str, times: np.ndarray) -> tuple:
    """Return the excitation's q, qd, qdd (N, 2) interpolated linearly at ``times``."""
    _, data = read_csv(excitation)
    return tuple(np.column_stack([np.interp(times, data[:, 0], column) for column in
                                  data[:, 1 + 2 * k:3 + 2 * k].T]) for k in range(3))


def states(path) -> tuple:
    header, data = read_csv(path)
    assert header == ['time', 'shoulder.position', 'elbow.position', 'shoulder.velocity',
                      'elbow.velocity', 'shoulder.effort', 'elbow.effort']
    return data[:, 0], data[:, 1:3], data[:, 3:5], data[:, 5:7]


def test_computed_torque_tracks_and_identify_recovers_the_plant(excitation, plant, tmp_path):
    urdf, actuators, model = plant
    run = tmp_path / 'run.csv'
    process = run_cli('simulate', urdf, '--actuators', actuators, '--follow', excitation,
                      '--out', run, '--no-progress')
    assert_ok(process)
    assert 'computed-torque' in process.stdout and 'RMS error' in process.stdout
    assert 'warning' not in process.stderr
    t, q, qd, effort = states(run)
    assert t[-1] == pytest.approx(10.0) and t.shape[0] == 10001   # the trajectory's duration
    q_r, qd_r, qdd_r = reference(excitation, t)
    assert np.abs(q - q_r).max() < 1e-3   # e'' + 40 e' + 400 e = 0 from a start on the path
    # every recorded effort is the law, recomputed from the written state (12 digits)
    law = model.inverse_dynamics(q, qd, qdd_r + 400.0 * (q_r - q) + 40.0 * (qd_r - qd),
                                 friction=True)
    assert np.allclose(effort[:-1], law[:-1], rtol=1e-8, atol=1e-8 * np.abs(law).max())
    # identify from the URDF, which knows neither the heavier link nor friction and armature
    out = tmp_path / 'identified.urdf'
    process = run_cli('identify', run, '--urdf', URDF, '--armature', '--out', out,
                      '--no-progress')
    assert_ok(process)
    identified = RobotModel.from_urdf_file(str(out), actuators=str(tmp_path / (
        'identified_actuators.yaml')))
    nominal = RobotModel.from_urdf_file(URDF)
    qdd = np.gradient(qd, t, axis=0)
    held = slice(8000, 9800)   # the held-out fifth, its end (at rest) left out
    truth = model.inverse_dynamics(q[held], qd[held], qdd[held], friction=True)
    scale = np.sqrt(np.mean(truth ** 2, axis=0))
    error = np.sqrt(np.mean((identified.inverse_dynamics(q[held], qd[held], qdd[held],
                                                         friction=True) - truth) ** 2, axis=0))
    before = np.sqrt(np.mean((nominal.inverse_dynamics(q[held], qd[held], qdd[held])
                              - truth) ** 2, axis=0))
    assert np.all(error < 0.02 * scale), (error, scale)
    assert np.all(before > 10.0 * error), (before, error)
    assert np.allclose(identified.actuators.viscous, [0.8, 0.4], rtol=0.15)
    assert np.allclose(identified.actuators.coulomb, [2.0, 1.0], rtol=0.15)


def test_pd_with_gravity_compensation(excitation, plant, tmp_path):
    urdf, actuators, model = plant
    run = tmp_path / 'pd.csv'
    process = run_cli('simulate', urdf, '--actuators', actuators, '--follow', excitation,
                      '--controller', 'pd', '--gains', '3000,150', '--seconds', '4', '--out',
                      run, '--no-progress')
    assert_ok(process)
    t, q, qd, effort = states(run)
    assert t[-1] == pytest.approx(4.0)
    q_r, qd_r, _ = reference(excitation, t)
    law = model.gravity_torques(q) + 3000.0 * (q_r - q) + 150.0 * (qd_r - qd)
    assert np.allclose(effort, law, rtol=1e-8, atol=1e-8 * np.abs(law).max())
    error = np.abs(q - q_r).max()
    assert 1e-3 < error < 0.2, error   # PD lags where computed torque does not


def test_follow_options_are_checked(excitation, tmp_path):
    for args, message in (
            (('--follow', excitation, '--effort', 'gravity'), 'not allowed with argument'),
            (('--seconds', '1', '--gains', '1,1'), '--gains applies to --follow'),
            (('--seconds', '1', '--controller', 'pd'), '--controller applies to --follow'),
            ((), '--seconds T is required'), (('--follow', excitation, '--gains', '0,1'),
                                              'KP > 0')):
        process = run_cli('simulate', URDF, *args)   # usage errors: exit 2, usage shown
        assert process.returncode == 2 and process.stderr.startswith('usage: ros-dynamics')
        assert message in process.stderr.splitlines()[-1], process.stderr
    other = tmp_path / 'other.csv'
    other.write_text('time,shoulder,knee\n0,0,0\n1,1,1\n', encoding='utf-8')
    assert_error(run_cli('simulate', URDF, '--follow', other), 'knee')


def test_the_worked_example_runs_as_written(tmp_path):
    """The bash block of docs/identification.md, with ros-dynamics as this source tree's."""
    with open(os.path.join(ROOT, 'docs', 'identification.md'), encoding='utf-8') as stream:
        text = stream.read()
    section = text[text.index('### excite, simulate --follow, identify'):]
    block = re.search(r'```bash\n(.*?)```', section, re.S).group(1)
    os.symlink(os.path.join(ROOT, 'urdf'), tmp_path / 'urdf')
    script = (f'set -e\nros-dynamics() {{ "{sys.executable}" -m ros_dynamics.cli "$@" '
              f'--no-progress; }}\n{block}')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [ROOT] + [p for p in [os.environ.get('PYTHONPATH')] if p]))
    process = subprocess.run(['bash', '-c', script], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=600)
    assert process.returncode == 0, process.stderr
    assert 'warning' not in process.stderr, process.stderr
    held_out = [float(line.split()[5]) for line in process.stdout.splitlines()
                if line.split()[:1] in (['shoulder'], ['elbow']) and len(line.split()) == 8]
    assert len(held_out) == 2 and max(held_out) < 1.0, process.stdout   # error %
    with open(tmp_path / 'identified_actuators.yaml', encoding='utf-8') as stream:
        joints = yaml.safe_load(stream)['joints']
    for joint, truth in FRICTION['joints'].items():
        for key in ('viscous', 'coulomb'):
            assert joints[joint][key] == pytest.approx(truth[key], rel=0.15), (joint, key)
