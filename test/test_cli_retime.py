# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
``ros-dynamics retime``, run as a user runs it (a subprocess), checked against the core.

The written trajectory is read back and its efforts recomputed with
``RobotModel.inverse_dynamics``: within the scaled limits, the same duration as
``time_optimal_trajectory`` gives, and ``torques`` reads it.
"""

import os

import numpy as np
import pytest
from ros_dynamics import RobotModel, time_optimal_trajectory
from test_cli import assert_error, assert_ok, PLANAR, read_csv, run_cli, write_csv

PATH = np.array([[-1.5, 0.3], [-0.8, 0.9], [0.2, 1.2], [0.9, 0.4]])


def test_retime_writes_a_timed_trajectory_within_the_limits(tmp_path):
    path = write_csv(tmp_path / 'path.csv', ['time', 'shoulder', 'elbow'],
                     [np.arange(4.0), PATH[:, 0], PATH[:, 1]]) or tmp_path / 'path.csv'
    out = tmp_path / 'timed.csv'
    process = run_cli('retime', PLANAR, path, '-o', out, '--effort-scale', '0.8', '--plot',
                      tmp_path / 'plots')
    assert_ok(process)
    header, data = read_csv(out)
    assert header[:3] == ['time', 'shoulder.position', 'elbow.position']
    robot = RobotModel.from_urdf_file(PLANAR)
    reference = time_optimal_trajectory(robot, PATH, effort_scale=0.8)
    assert data[-1, 0] == pytest.approx(reference.duration, rel=1e-11)   # the last sample
    assert np.all(np.diff(data[:, 0]) > 0.0) and np.allclose(np.diff(data[:-1, 0]), 1e-3)
    q, qd, qdd = data[:, 1:3], data[:, 3:5], data[:, 5:7]
    assert np.allclose(q[0], PATH[0]) and np.allclose(q[-1], PATH[-1])
    tau = robot.inverse_dynamics(q, qd, qdd)
    assert np.max(np.abs(tau) / (0.8 * robot.effort_limit)) <= 1.0 + 1e-9
    assert np.max(np.abs(tau) / (0.8 * robot.effort_limit)) > 0.999
    assert np.all(np.abs(qd) <= robot.velocity_limit)
    assert 'effort shoulder' in process.stdout and 'timed in' in process.stdout
    assert os.path.getsize(tmp_path / 'plots' / 'phase.png') > 0
    assert os.path.getsize(tmp_path / 'plots' / 'efforts.png') > 0
    # torques reads the timed file back and finds every point within the URDF limits
    assert_ok(check := run_cli('torques', PLANAR, out))
    assert 'every point within the URDF effort and velocity limits' in check.stdout


def test_retime_payload_friction_and_errors(tmp_path):
    path = tmp_path / 'path.csv'
    write_csv(path, ['time', 'shoulder', 'elbow'], [np.arange(4.0), PATH[:, 0], PATH[:, 1]])
    loaded = run_cli('retime', PLANAR, path, '--payload', 'tool:5.0:0.1,0,0', '-o', '-')
    assert_ok(loaded)
    robot = RobotModel.from_urdf_file(PLANAR)
    plain = time_optimal_trajectory(robot, PATH)
    robot.set_payload('tool', 5.0, com=(0.1, 0.0, 0.0))
    heavy = time_optimal_trajectory(robot, PATH)
    assert heavy.duration > 1.01 * plain.duration
    _, data = read_csv(loaded.stdout, is_text=True)
    assert data[-1, 0] == pytest.approx(heavy.duration, rel=1e-11)
    assert 'payload' in loaded.stderr
    # gravity alone above the scaled limit: refused, naming the joint, the flag, the place
    assert_error(run_cli('retime', PLANAR, path, '--effort-scale', '0.3'),
                 'shoulder needs', 'gravity torque alone', '--effort-scale', 's = ', 'waypoint')
    assert_error(run_cli('retime', PLANAR, path, '--payload', 'nowhere:1'), '--payload',
                 'nowhere')
    assert_error(run_cli('retime', PLANAR, path, '--grid-points', '1'), '--grid-points')
