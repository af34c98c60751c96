# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""Excitation trajectories: limits, rest at both ends, the optimised condition, the exports."""

import csv

import numpy as np
import pytest
from ros_dynamics import RobotModel
from ros_dynamics.identification.excitation import excitation_trajectory
import yaml

PANDA = 'urdf/panda_arm.urdf'


@pytest.fixture(scope='module')
def panda():
    return RobotModel.from_urdf_file(PANDA)


@pytest.fixture(scope='module')
def trajectories(panda):
    """Return the random start (no iteration) and the optimised trajectory, same seed."""
    return (excitation_trajectory(panda, 10.0, maxiter=0),
            excitation_trajectory(panda, 10.0, maxiter=15, acceleration_limit=4.0))


def test_limits_hold_between_the_grid_times_and_the_motion_starts_and_ends_at_rest(
        panda, trajectories):
    trajectory = trajectories[1]
    q, qd, qdd = trajectory.sample(trajectory.times(1000.0))   # 10x finer than the grid
    lower, upper = panda.lower, panda.upper
    assert np.all(q >= lower + 0.09 * (upper - lower))          # margin 0.1, minus grid slack
    assert np.all(q <= upper - 0.09 * (upper - lower))
    assert np.all(np.abs(qd) <= 0.91 * panda.velocity_limit)
    assert np.all(np.abs(qdd) <= 0.91 * 4.0)
    for k in (0, -1):
        assert np.allclose(qd[k], 0.0, atol=1e-12) and np.allclose(qdd[k], 0.0, atol=1e-12)
    assert np.allclose(q[0], q[-1])
    # the derivatives are those of the positions
    t = trajectory.times(1000.0)
    assert np.allclose(np.gradient(q, t, axis=0)[1:-1], qd[1:-1], atol=1e-4)
    assert np.allclose(np.gradient(qd, t, axis=0)[1:-1], qdd[1:-1], atol=1e-3)


def test_optimisation_lowers_the_condition_number(trajectories):
    start, optimised = trajectories
    assert optimised.condition_number < 0.2 * start.condition_number
    assert optimised.condition_number < 30.0


def test_csv_and_joint_trajectory_exports(trajectories, tmp_path):
    trajectory = trajectories[1]
    path = tmp_path / 'excitation.csv'
    trajectory.to_csv(str(path), rate=50.0)
    with open(path) as stream:
        rows = list(csv.reader(stream))
    assert rows[0][:2] == ['t', 'q_panda_joint1'] and len(rows[0]) == 1 + 21
    table = np.array(rows[1:], dtype=float)
    q, qd, qdd = trajectory.sample(table[:, 0])
    assert table.shape[0] == 501
    assert np.array_equal(table[:, 1:], np.column_stack([q, qd, qdd]))
    message = trajectory.to_joint_trajectory(rate=20.0)
    assert message['joint_names'] == [f'panda_joint{k}' for k in range(1, 8)]
    point = message['points'][31]
    assert point['time_from_start'] == {'sec': 1, 'nanosec': 550000000}
    assert np.allclose(point['positions'], trajectory.sample(1.55)[0])
    trajectory.to_yaml(str(tmp_path / 'excitation.yaml'), rate=20.0)
    assert yaml.safe_load((tmp_path / 'excitation.yaml').read_text()) == message


def test_bad_arguments(panda):
    with pytest.raises(ValueError, match='duration'):
        excitation_trajectory(panda, -1.0)
    with pytest.raises(ValueError, match='harmonics'):
        excitation_trajectory(panda, 10.0, harmonics=1)
    with pytest.raises(ValueError, match='base_frequency'):
        excitation_trajectory(panda, 10.0, base_frequency=0.0)
    with pytest.raises(ValueError, match='acceleration_limit'):
        excitation_trajectory(panda, 10.0, acceleration_limit=-1.0)
