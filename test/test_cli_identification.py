# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
``ros-dynamics excite`` and ``ros-dynamics identify``, run as a user runs them (subprocesses).

The excitation the command writes is read back by ``torques`` and checked
against the limits; a perturbed Panda (identification_data.Plant, simulated
by ros_dynamics.simulation.simulator) tracks it, its /joint_states go into an MCAP bag
through rosbags' writer, and the URDF and actuator YAML that ``identify``
writes predict the torques of the held-out end of the run within 1.2 times
the torque noise, computed here from the files with the exact states.
"""


from identification_data import FRICTION_VELOCITY, Plant
import numpy as np
import pytest
from ros_dynamics import RobotModel
from rosbags.rosbag2 import StoragePlugin
from test_cli import assert_error, assert_ok, PANDA, read_csv, run_cli
from test_identification_bags import joint_state, write_bag
import yaml

SIGMA = 0.05        # N m, torque noise in the bag
RECORD_EVERY = 5    # 200 Hz /joint_states from the 1 ms simulation
HOLDOUT = 0.2


class Sampled:
    """A trajectory given at uniform sample times (the CSV of excite), sampled by interpolation."""

    def __init__(self, t: np.ndarray, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> None:
        self.t, self.values = t, (q, qd, qdd)

    def sample(self, time: float) -> tuple:
        return tuple(np.array([np.interp(time, self.t, column) for column in values.T])
                     for values in self.values)


@pytest.fixture(scope='module')
def excitation(tmp_path_factory):
    """Run excite once: return (directory, header, data) of its CSV."""
    directory = tmp_path_factory.mktemp('excite')
    process = run_cli('excite', '--urdf', PANDA, '--duration', '10', '--iterations', '10',
                      '--rate', '500', '--out', directory / 'excitation.csv',
                      '--yaml', directory / 'excitation.yaml', '--no-progress')
    assert_ok(process)
    assert 'condition number of the base regressor' in process.stdout
    header, data = read_csv(directory / 'excitation.csv')
    return directory, header, data


def test_excite_writes_a_trajectory_torques_reads_within_the_limits(excitation):
    directory, header, data = excitation
    robot = RobotModel.from_urdf_file(PANDA)
    names = robot.joint_names
    assert header == ['time'] + [f'{n}.{field}' for field in
                                 ('position', 'velocity', 'acceleration') for n in names]
    t, q, qd, qdd = data[:, 0], data[:, 1:8], data[:, 8:15], data[:, 15:22]
    assert np.allclose(np.diff(t), 1.0 / 500.0) and t[-1] == pytest.approx(10.0)
    assert np.all(q >= robot.lower) and np.all(q <= robot.upper)
    assert np.all(np.abs(qd) <= robot.velocity_limit) and np.all(np.abs(qdd) <= 5.0)
    assert np.allclose(qd[[0, -1]], 0.0, atol=1e-9)   # starts and ends at rest
    assert np.ptp(q, axis=0).min() > 0.3               # every joint moves
    # the derivatives are the series' own: they agree with differences of the positions
    assert np.allclose(np.gradient(q, t, axis=0)[1:-1], qd[1:-1], atol=2e-3)
    points = yaml.safe_load((directory / 'excitation.yaml').read_text())['points']
    assert len(points) == t.shape[0]
    assert np.allclose(points[1234]['positions'], q[1234], atol=1e-9)
    out = directory / 'efforts.csv'
    assert_ok(run_cli('torques', PANDA, directory / 'excitation.csv', '-o', out, '--strict'))
    _, efforts = read_csv(out)
    assert np.allclose(efforts[:, 1:], robot.inverse_dynamics(q, qd, qdd), atol=1e-8)


@pytest.fixture(scope='module')
def recording(excitation, tmp_path_factory):
    """Return (plant, record, bag path): the plant tracking the excitation, in an MCAP bag."""
    _, _, data = excitation
    plant = Plant()
    record = plant.record(Sampled(data[:, 0], data[:, 1:8], data[:, 8:15], data[:, 15:22]),
                          10.0)
    rng = np.random.default_rng(0)
    rows = np.arange(0, record['t'].shape[0], RECORD_EVERY)
    names = plant.nominal.joint_names
    effort = record['tau'][rows] + rng.normal(0.0, SIGMA, (rows.shape[0], 7))
    start = 1700000000.0   # stamps as a real recording's: seconds since the epoch
    messages = [(start + record['t'][k] + 1e-3,
                 joint_state(start + record['t'][k], names, record['q'][k], record['qd'][k],
                             effort[i])) for i, k in enumerate(rows)]
    path = tmp_path_factory.mktemp('bag') / 'run'
    write_bag(path, StoragePlugin.MCAP, messages)
    return plant, {key: value[rows] for key, value in record.items()}, path


def test_identify_from_a_bag_predicts_the_held_out_torques(recording, tmp_path):
    plant, record, bag = recording
    out, report = tmp_path / 'identified.urdf', tmp_path / 'report'
    process = run_cli('identify', bag, '--urdf', PANDA, '--out', out, '--report', report,
                      '--holdout', HOLDOUT, '--friction-velocity', FRICTION_VELOCITY,
                      '--no-progress')
    assert_ok(process)
    for joint in plant.nominal.joint_names:
        assert joint in process.stdout
    assert 'held-out RMS' in process.stdout and 'physically consistent: yes' in process.stdout
    assert (report / 'held_out.png').stat().st_size > 10000
    assert process.stdout.strip() in (report / 'report.txt').read_text()
    # the files alone make the model: URDF inertials plus the YAML's friction per joint
    # (the YAML through the actuators loader, as a node's `actuators` parameter reads it)
    identified = RobotModel.from_urdf_file(str(out),
                                           actuators=str(tmp_path / 'identified_actuators.yaml'))
    held = slice(record['t'].shape[0] - int(round(HOLDOUT * record['t'].shape[0])), None)
    q, qd, qdd, tau = (record[key][held] for key in ('q', 'qd', 'qdd', 'tau'))
    predicted = identified.inverse_dynamics(q, qd, qdd, friction=True)
    measured = tau + np.random.default_rng(1).normal(0.0, SIGMA, tau.shape)
    error = np.sqrt(np.mean((measured - predicted) ** 2, axis=0))
    assert np.all(error < 1.2 * SIGMA), error
    # and the URDF the identification started from does not
    nominal = plant.nominal.inverse_dynamics(q, qd, qdd)
    assert np.max(np.sqrt(np.mean((tau - nominal) ** 2, axis=0))) > 10 * SIGMA


def test_identify_bad_inputs_exit_1_with_one_line(recording, tmp_path):
    plant, record, _ = recording
    names = plant.nominal.joint_names
    assert_error(run_cli('identify', tmp_path / 'nothing', '--urdf', PANDA, '--out',
                         tmp_path / 'x.urdf'), 'nothing', 'does not exist')
    other = tmp_path / 'other'
    write_bag(other, StoragePlugin.MCAP, [(1.0 + 0.01 * k, joint_state(
        1.0 + 0.01 * k, names, record['q'][k], record['qd'][k], record['tau'][k]))
        for k in range(100)], topic='/robot/joint_states')
    assert_error(run_cli('identify', other, '--urdf', PANDA, '--out', tmp_path / 'x.urdf'),
                 "no topic '/joint_states'", '/robot/joint_states')
    partial = tmp_path / 'partial'
    write_bag(partial, StoragePlugin.SQLITE3, [(1.0 + 0.01 * k, joint_state(
        1.0 + 0.01 * k, names[:5], record['q'][k, :5], record['qd'][k, :5],
        record['tau'][k, :5])) for k in range(100)])
    assert_error(run_cli('identify', partial, '--urdf', PANDA, '--out', tmp_path / 'x.urdf'),
                 'panda_joint6', 'never appear')
    short = tmp_path / 'short.csv'
    columns = ['time'] + [f'{n}.{field}' for field in ('position', 'effort') for n in names]
    np.savetxt(short, np.column_stack([record['t'][:12], record['q'][:12], record['tau'][:12]]),
               delimiter=',', header=','.join(columns), comments='')
    line = assert_error(run_cli('identify', short, '--urdf', PANDA, '--out',
                                tmp_path / 'x.urdf'), 'usable samples')
    assert 'Traceback' not in line
    assert not (tmp_path / 'x.urdf').exists()
    # an actuators file that is not one: refused, naming the file, nothing written
    assert_error(run_cli('identify', short, '--urdf', PANDA, '--actuators', short,
                         '--out', tmp_path / 'x.urdf'), str(short))
    assert not (tmp_path / 'x.urdf').exists()
