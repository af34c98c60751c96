# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Identification recovers a known model from data our simulator recorded, clean or messy.

The plant (identification_data.Plant) differs from the URDF the
identification starts from by up to 30 % in every mass, centre of mass and
inertia, and has joint friction the URDF does not know. The test: on a
held-out trajectory the identified model predicts the measured torques to
within 1.2 times the noise, per joint, with physically consistent parameters.
"""

from identification_data import FRICTION_VELOCITY, PANDA, Plant
import numpy as np
import pinocchio as pin
import pytest
from ros_dynamics import RobotModel
from ros_dynamics.identification.excitation import excitation_trajectory
from ros_dynamics.identification.identify import identify
from ros_dynamics.identification.physical import is_physically_consistent, pseudo_inertia

SIGMA = 0.05          # N m, torque noise
RATE_STEPS = 5        # record at 200 Hz (every 5th 1 ms simulator step)


@pytest.fixture(scope='module')
def recordings():
    """Return the plant, a run on an optimised excitation and a held-out run on a random one."""
    plant = Plant()
    train = excitation_trajectory(plant.nominal, 10.0, seed=0)
    held_out = excitation_trajectory(plant.nominal, 10.0, seed=1, maxiter=0)
    return plant, plant.record(train, 10.0), plant.record(held_out, 10.0)


def held_out_rms(result, held_out, rng) -> np.ndarray:
    """Return the per-joint RMS of measured (noisy) minus predicted torques on held-out data."""
    measured = held_out['tau'] + rng.normal(0.0, SIGMA, held_out['tau'].shape)
    predicted = result.predict(held_out['q'], held_out['qd'], held_out['qdd'])
    return np.sqrt(np.mean((measured - predicted) ** 2, axis=0))


def test_identifies_the_perturbed_panda_from_positions_and_noisy_torques(recordings):
    plant, train, held_out = recordings
    rng = np.random.default_rng(0)
    rows = slice(None, None, RATE_STEPS)
    tau = train['tau'][rows] + rng.normal(0.0, SIGMA, train['tau'][rows].shape)
    result = identify(plant.nominal, train['q'][rows], tau=tau, t=train['t'][rows],
                      friction_velocity=FRICTION_VELOCITY)
    assert result.cutoff == 5.0 and result.consistent
    assert np.all(held_out_rms(result, held_out, rng) < 1.2 * SIGMA)
    assert is_physically_consistent(result.parameters)
    # what the data determine: the base parameters, and the friction
    true_base = result.base.base_values(np.concatenate([
        plant.robot.inertial_parameters().ravel(),
        np.column_stack([plant.viscous, plant.coulomb, np.zeros(7)]).ravel()]))
    assert np.all(np.abs(result.base_values - true_base) < 5.0 * result.base_std + 1e-3)
    assert np.allclose(result.friction[:, 0], plant.viscous, atol=0.02)
    assert np.allclose(result.friction[:, 1], plant.coulomb, atol=0.05)
    assert np.allclose(result.friction[:, 2], 0.0, atol=0.03)
    assert 1.0 < result.condition_number < 100.0
    # the new model is the robot's inverse dynamics with the identified bodies
    q, qd, qdd = held_out['q'][100], held_out['qd'][100], held_out['qdd'][100]
    assert np.allclose(result.robot.inverse_dynamics(q, qd, qdd)
                       + result.friction[:, 0] * qd
                       + result.friction[:, 1] * np.tanh(qd / FRICTION_VELOCITY)
                       + result.friction[:, 2], result.predict(q, qd, qdd))


def test_messy_recordings_irregular_times_dropped_rows_quantised_torques(recordings):
    """Jittered sample times (3-7 ms), a NaN row, a repeated stamp, torques in 0.05 N m steps."""
    plant, train, held_out = recordings
    rng = np.random.default_rng(1)
    rows = np.cumsum(rng.integers(3, 8, 3000))
    rows = rows[rows < train['t'].shape[0]]
    t, q, tau = train['t'][rows].copy(), train['q'][rows].copy(), train['tau'][rows].copy()
    tau = np.round((tau + rng.normal(0.0, SIGMA, tau.shape)) / 0.05) * 0.05
    q[100] = np.nan
    t[200] = t[199]
    result = identify(plant.nominal, q, tau=tau, t=t, friction_velocity=FRICTION_VELOCITY)
    assert result.dropped_samples == 2
    noise = np.sqrt(SIGMA ** 2 + 0.05 ** 2 / 12.0)   # quantisation adds step^2 / 12
    assert np.all(held_out_rms(result, held_out, rng) < 1.2 * noise)
    assert is_physically_consistent(result.parameters)


def test_given_velocities_and_accelerations_need_no_times(recordings):
    plant, train, held_out = recordings
    rng = np.random.default_rng(2)
    rows = slice(None, None, RATE_STEPS)
    tau = train['tau'][rows] + rng.normal(0.0, SIGMA, train['tau'][rows].shape)
    result = identify(plant.nominal, train['q'][rows], train['qd'][rows], train['qdd'][rows],
                      tau=tau, consistent=False, friction_velocity=FRICTION_VELOCITY)
    assert result.cutoff is None and not result.consistent
    assert np.all(held_out_rms(result, held_out, rng) < 1.1 * SIGMA)
    assert np.allclose(result.noise_std, SIGMA, rtol=0.1)


def test_joints_that_never_move_leave_an_ill_conditioned_but_consistent_fit():
    """Only the shoulder joints 1 and 2 move: most base parameters are never excited."""
    plant = Plant(seed=3)
    trajectory = excitation_trajectory(plant.nominal, 10.0, maxiter=0)
    t = trajectory.times(100.0)
    q, qd, qdd = trajectory.sample(t)
    q[:, 2:], qd[:, 2:], qdd[:, 2:] = 0.3, 0.0, 0.0
    rng = np.random.default_rng(3)
    tau = plant.robot.inverse_dynamics(q, qd, qdd) + rng.normal(0.0, SIGMA, q.shape)
    result = identify(plant.nominal, q, qd, qdd, tau=tau, friction=False)
    assert result.condition_number > 1e6 and np.all(np.isfinite(result.parameters))
    assert is_physically_consistent(result.parameters)
    assert np.all(result.residual_rms < 1.1 * SIGMA)
    # the bodies beyond joint 2 move rigidly with link 2: only their sum is seen, and the
    # prior keeps them apart (their masses near the URDF's where consistency allows)
    assert np.all(result.parameters[:, 0] > 0.0)


def test_exports_round_trip(recordings, tmp_path):
    plant, train, _ = recordings
    rows = slice(None, None, RATE_STEPS)
    result = identify(plant.nominal, train['q'][rows], train['qd'][rows], train['qdd'][rows],
                      tau=train['tau'][rows], friction_velocity=FRICTION_VELOCITY,
                      armature=True)
    reloaded = RobotModel.from_urdf_string(result.to_urdf(PANDA))
    assert reloaded.body_names == plant.nominal.body_names
    assert np.allclose(reloaded.inertial_parameters(), result.parameters, atol=1e-12)
    import yaml
    path = tmp_path / 'actuators.yaml'
    text = result.to_actuators_yaml(str(path))
    loaded = yaml.safe_load(path.read_text())
    assert yaml.safe_load(text) == loaded
    assert list(loaded['joints']) == list(plant.nominal.joint_names)
    assert np.all(result.armature >= -1e-9)
    # the YAML is an actuators file: the loader (what the nodes' `actuators` parameter reads)
    # gives a model whose friction and armature are the identified ones
    model = RobotModel.from_urdf_string(result.to_urdf(PANDA), actuators=str(path))
    assert np.array_equal(model.armature, np.maximum(result.armature, 0.0))
    qd = np.random.default_rng(3).uniform(-2.0, 2.0, (50, plant.nominal.dof))
    qd[0] = 0.0
    qd[1] = 0.3 * FRICTION_VELOCITY   # on the smooth sign's slope
    b, f, o = result.friction.T
    expected = b * qd + f * np.tanh(qd / FRICTION_VELOCITY) + o
    assert np.allclose(model.friction_torques(qd), expected, rtol=1e-12, atol=1e-12)
    # and the motor torque of the loaded files is the identification's prediction
    q = train['q'][rows][:20]
    qdd = train['qdd'][rows][:20]
    assert np.allclose(model.inverse_dynamics(q, qd[:20], qdd, friction=True),
                       result.predict(q, qd[:20], qdd), rtol=1e-9, atol=1e-9)


def test_pseudo_inertia_is_pinocchios():
    for seed in range(5):
        np.random.seed(seed)
        inertia = pin.Inertia.Random()
        expected = pin.PseudoInertia.FromInertia(inertia).toMatrix()
        assert np.allclose(pseudo_inertia(inertia.toDynamicParameters()), expected,
                           atol=1e-14)
    assert not is_physically_consistent([1.0, 0, 0, 0, 1.0, 0, 0.1, 0, 0, 0.1])   # Ixx > Iyy + Izz


def test_bad_inputs_are_named():
    robot = RobotModel.from_urdf_file(PANDA)
    q = np.zeros((100, 7))
    with pytest.raises(ValueError, match='tau: the measured joint torques'):
        identify(robot, q)
    with pytest.raises(ValueError, match='t: sample times'):
        identify(robot, q, tau=q)
    with pytest.raises(ValueError, match=r'tau: expected shape \(100, 7\)'):
        identify(robot, q, tau=np.zeros((100, 6)), rate=100.0)
    with pytest.raises(ValueError, match='cutoff'):
        identify(robot, q, tau=q, rate=100.0, cutoff=80.0)
    with pytest.raises(ValueError, match='usable samples'):
        identify(robot, q[:10], tau=q[:10], rate=100.0)
