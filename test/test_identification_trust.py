# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Identification stands behind what it returns and writes.

A recording without the information to identify (every effort zero, no
joint moving) is refused with its cause; an unconstrained fit that comes out
physically impossible (here: efforts recorded with the wrong sign, which
makes every mass negative) is reported naming the bodies, has no model, and
is never written; ``result.robot`` carries every identified term, so its
inverse dynamics with friction is ``result.predict``; the written URDF and
actuators YAML load back into that same model. The command line says all
of it with its flags (``--no-consistent``) instead of Python keywords.

The robot is the planar 2R arm (urdf/planar_2r.urdf) following a sum of
sines (exact derivatives), the plant its perturbed twin with friction and
armature: the torques are tau = ID_plant(q, qd, qdd) + b qd + f_c tanh(qd /
v) + o + I_a qdd, exactly.
"""

import os
import subprocess
import sys
import warnings

from identification_data import perturbed_parameters
import numpy as np
import pytest
from ros_dynamics import RobotModel
from ros_dynamics.exceptions import (IdentificationError, IdentificationWarning,
                                     NonPhysicalEstimateWarning)
from ros_dynamics.identification.identify import identify
from ros_dynamics.identification.physical import is_physically_consistent
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URDF = os.path.join(ROOT, 'urdf', 'planar_2r.urdf')
RATE = 200.0
DURATION = 8.0
VELOCITY_SCALE = 0.05   # rad/s, the smooth Coulomb sign of the plant and of the fit
VISCOUS = np.array([0.8, 0.4])
COULOMB = np.array([2.0, 1.0])
OFFSET = np.array([0.3, -0.2])
ARMATURE = np.array([0.6, 0.3])


def motion(t: np.ndarray) -> tuple:
    """Return q, qd, qdd (N, 2): two sines per joint about the arm hanging down."""
    q, qd, qdd = (np.zeros((t.shape[0], 2)) for _ in range(3))
    for j, (base, terms) in enumerate(((-1.2, ((0.8, 0.31), (0.4, 0.83))),
                                       (0.3, ((1.0, 0.47), (0.5, 1.1))))):
        q[:, j] = base
        for amplitude, frequency in terms:
            w = 2.0 * np.pi * frequency
            q[:, j] += amplitude * np.sin(w * t)
            qd[:, j] += amplitude * w * np.cos(w * t)
            qdd[:, j] -= amplitude * w * w * np.sin(w * t)
    return q, qd, qdd


@pytest.fixture(scope='module')
def data() -> dict:
    nominal = RobotModel.from_urdf_file(URDF)
    plant = nominal.with_inertial_parameters(
        perturbed_parameters(nominal.inertial_parameters(), np.random.default_rng(33)))
    t = np.arange(int(DURATION * RATE) + 1) / RATE
    q, qd, qdd = motion(t)
    tau = (plant.inverse_dynamics(q, qd, qdd) + VISCOUS * qd
           + COULOMB * np.tanh(qd / VELOCITY_SCALE) + OFFSET + ARMATURE * qdd)
    return {'nominal': nominal, 'plant': plant, 't': t, 'q': q, 'qd': qd, 'qdd': qdd,
            'tau': tau}


def fit(data: dict, tau=None, q=None, **options):
    options.setdefault('friction_velocity', VELOCITY_SCALE)
    return identify(data['nominal'], data['q'] if q is None else q, data['qd'], data['qdd'],
                    data['tau'] if tau is None else tau, **options)


# ---------------------------------------------------------------------- no information
def test_a_recording_with_every_effort_zero_is_refused_with_its_cause(data):
    for consistent in (True, False):
        with pytest.raises(IdentificationError, match='every measured torque is zero') as error:
            fit(data, tau=np.zeros_like(data['tau']), consistent=consistent)
        assert isinstance(error.value, ValueError)
        assert 'no torque information' in str(error.value)
        assert '--effort zero' in error.value.command_line   # the fall of `simulate`


def test_a_recording_without_motion_is_refused_and_still_joints_are_named(data):
    q = np.tile(data['q'][0], (data['q'].shape[0], 1))
    tau = data['nominal'].gravity_torques(q)
    with pytest.raises(IdentificationError, match='no joint moves .* no excitation'):
        identify(data['nominal'], q, np.zeros_like(q), np.zeros_like(q), tau)
    q = data['q'].copy()
    q[:, 1] = 0.3   # the elbow held still, the shoulder moving
    qd, qdd = data['qd'].copy(), data['qdd'].copy()
    qd[:, 1] = qdd[:, 1] = 0.0
    tau = data['plant'].inverse_dynamics(q, qd, qdd)
    with pytest.warns(IdentificationWarning, match='joints elbow: no motion'):
        result = identify(data['nominal'], q, qd, qdd, tau, friction=False)
    assert result.robot is not None
    tau[:, 1] = 0.0   # the elbow's effort not recorded
    with pytest.warns(IdentificationWarning) as record:
        identify(data['nominal'], q, qd, qdd, tau, friction=False)
    assert [str(w.message).split(';')[0] for w in record] == [
        'joints elbow: zero torque in every sample (not recorded?)',
        'joints elbow: no motion (positions span less than 0.001)']


# ---------------------------------------------------------------------- non-physical
def test_a_non_physical_unconstrained_fit_is_named_and_never_written(data, tmp_path):
    """
    Efforts of the wrong sign: the unconstrained fit has a negative mass and friction.

    (A planar 2R arm's data determine link 2's mass; link 1's parameters only
    in combinations, the rest of them stays at the URDF's.)
    """
    with pytest.warns(NonPhysicalEstimateWarning) as record:
        result = fit(data, tau=-data['tau'], consistent=False)
    message = str(record[0].message)
    assert "body 'link2': mass -" in message, message
    for joint in ('shoulder', 'elbow'):
        assert f"joint '{joint}': viscous -" in message and f"joint '{joint}': Coulomb -" \
            in message
    assert 'consistent=True' in message and '--no-consistent' not in message
    assert result.parameters[1, 0] < 0.0
    assert result.robot is None and len(result.non_physical) == 5
    assert not is_physically_consistent(result.parameters)
    for write in (lambda: result.to_urdf(URDF), result.to_actuators_yaml):
        with pytest.raises(IdentificationError, match="not physical .*body 'link2'.*"
                                                      'consistent=True') as error:
            write()
        assert '--no-consistent' in error.value.command_line
    # the prediction still is the fit's (for diagnosis): -tau, nearly
    assert np.sqrt(np.mean((result.predict(data['q'], data['qd'], data['qdd'])
                            + data['tau']) ** 2)) < 0.05 * np.sqrt(np.mean(data['tau'] ** 2))
    # constrained, the same data give physical parameters (and a poor fit)
    with warnings.catch_warnings():
        warnings.simplefilter('error', NonPhysicalEstimateWarning)
        constrained = fit(data, tau=-data['tau'])
    assert is_physically_consistent(constrained.parameters) and constrained.robot is not None


# ---------------------------------------------------------------------- the model
@pytest.mark.parametrize('friction, armature', [(True, True), (True, False), (False, False)])
def test_result_robot_is_what_predict_predicts(data, friction, armature):
    # the nominal model has its own armature and friction: the result's replace them
    nominal = RobotModel.from_urdf_file(URDF, actuators={'joints': {'shoulder': {
        'armature': 0.05, 'sigmoid': [0.5, 3.0, 0.1], 'viscous': 9.0}}})
    result = identify(nominal, data['q'], data['qd'], data['qdd'], data['tau'],
                      friction=friction, armature=armature, friction_velocity=VELOCITY_SCALE)
    q, qd, qdd = data['q'][::40], data['qd'][::40], data['qdd'][::40]
    predicted = result.predict(q, qd, qdd)
    assert np.allclose(result.robot.inverse_dynamics(q, qd, qdd, friction=True), predicted,
                       rtol=1e-10, atol=1e-10)
    for k in range(3):   # the single-state path too
        assert np.allclose(result.robot.inverse_dynamics(q[k], qd[k], qdd[k], friction=True),
                           predicted[k], rtol=1e-10, atol=1e-10)
    if friction and armature:   # and it is the plant's, as far as the data determine it
        # (the shoulder's armature adds to link 1's inertia about the same axis: only the sum
        # is determined, and the prior keeps the split near the URDF's)
        assert result.armature[1] == pytest.approx(ARMATURE[1], rel=1e-3)
        assert np.allclose(result.friction, np.column_stack([VISCOUS, COULOMB, OFFSET]),
                           rtol=1e-3)
        assert np.allclose(predicted, data['tau'][::40], atol=1e-3 * np.abs(data['tau']).max())


def test_written_files_load_back_into_the_identified_model(data, tmp_path):
    result = fit(data, armature=True)
    urdf, actuators = tmp_path / 'identified.urdf', tmp_path / 'identified_actuators.yaml'
    urdf.write_text(result.to_urdf(URDF), encoding='utf-8')
    result.to_actuators_yaml(str(actuators))
    with warnings.catch_warnings():
        warnings.simplefilter('error')   # a clean URDF: nothing to warn about
        loaded = RobotModel.from_urdf_file(str(urdf), actuators=str(actuators))
    assert np.allclose(loaded.inertial_parameters(), result.parameters, rtol=1e-12,
                       atol=1e-12)
    assert loaded.actuators == result.robot.actuators
    q, qd, qdd = data['q'][::40], data['qd'][::40], data['qdd'][::40]
    assert np.allclose(loaded.inverse_dynamics(q, qd, qdd, friction=True),
                       result.predict(q, qd, qdd), rtol=1e-10, atol=1e-10)
    # the URDF alone carries viscous and Coulomb friction in <dynamics>
    alone = RobotModel.from_urdf_file(str(urdf))
    assert np.allclose(alone.actuators.viscous, result.friction[:, 0], rtol=1e-15)
    assert np.allclose(alone.actuators.coulomb, result.friction[:, 1], rtol=1e-15)


# ---------------------------------------------------------------------- the command line
def run_cli(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [ROOT] + [p for p in [os.environ.get('PYTHONPATH')] if p]), COLUMNS='120')
    return subprocess.run([sys.executable, '-m', 'ros_dynamics.cli', *map(str, args)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def write_recording(path, data: dict, tau: np.ndarray) -> None:
    names = data['nominal'].joint_names
    header = ['time'] + [f'{n}.{field}' for field in ('position', 'velocity', 'effort')
                         for n in names]
    np.savetxt(path, np.column_stack([data['t'], data['q'], data['qd'], tau]), delimiter=',',
               header=','.join(header), comments='', fmt='%.17g')


def one_error_line(process: subprocess.CompletedProcess) -> str:
    assert process.returncode == 1, (process.stdout, process.stderr)
    lines = process.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith('ros-dynamics: error: '), process.stderr
    return lines[0]


def test_command_line_refuses_what_it_cannot_stand_behind(data, tmp_path):
    out = tmp_path / 'out.urdf'
    fall = tmp_path / 'fall.csv'   # the arm falling from horizontal: it moves, no effort
    process = run_cli('simulate', URDF, '--seconds', '2', '--effort', 'zero', '-o', fall)
    assert process.returncode == 0, process.stderr
    for flags in ((), ('--no-consistent',)):
        line = one_error_line(run_cli('identify', fall, '--urdf', URDF, '-o', out, *flags))
        assert 'every effort in the recording is zero' in line and '=' not in line, line
    assert not out.exists()
    flipped = tmp_path / 'flipped.csv'
    write_recording(flipped, data, -data['tau'])
    process = run_cli('identify', flipped, '--urdf', URDF, '-o', out, '--no-consistent',
                      '--friction-velocity', VELOCITY_SCALE)
    line = one_error_line(process)
    assert '--no-consistent' in line and "body 'link2'" in line and 'nothing written' in line
    assert 'consistent=' not in line
    assert 'physically consistent: NO' in process.stdout   # the table is still shown
    assert not out.exists() and not (tmp_path / 'out_actuators.yaml').exists()


def test_command_line_files_reproduce_the_printed_table(data, tmp_path):
    recording, out = tmp_path / 'run.csv', tmp_path / 'out.urdf'
    write_recording(recording, data, data['tau'])
    process = run_cli('identify', recording, '--urdf', URDF, '-o', out, '--armature',
                      '--friction-velocity', VELOCITY_SCALE, '--holdout', '0.25')
    assert process.returncode == 0, process.stderr
    assert 'physically consistent: yes (enforced)' in process.stdout
    loaded = RobotModel.from_urdf_file(str(out), actuators=str(tmp_path / 'out_actuators.yaml'))
    from ros_dynamics.cli.common import number
    lines = process.stdout.splitlines()
    masses = {line.split()[0]: line.split()[2] for line in
              lines[lines.index('Body masses (kg)') + 3:] if line.strip()}
    assert masses == {body: number(mass) for body, mass in
                      zip(loaded.body_names, loaded.inertial_parameters()[:, 0])}
    start = next(k for k, line in enumerate(lines) if line.startswith('Fit per joint'))
    for k, joint in enumerate(loaded.joint_names):
        cells = next(line for line in lines[start:] if line.split()[0] == joint).split()
        assert cells[-2:] == [number(loaded.actuators.viscous[k]),
                              number(loaded.actuators.coulomb[k])]
    with open(tmp_path / 'out_actuators.yaml', encoding='utf-8') as stream:
        assert yaml.safe_load(stream)['friction_velocity'] == VELOCITY_SCALE
    # and the files predict the plant's torques on the held-out quarter
    held = slice(int(0.75 * data['t'].shape[0]), None)
    predicted = loaded.inverse_dynamics(data['q'][held], data['qd'][held], data['qdd'][held],
                                        friction=True)
    assert np.sqrt(np.mean((predicted - data['tau'][held]) ** 2)) \
        < 0.01 * np.sqrt(np.mean(data['tau'][held] ** 2))
