# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""Actuator report of a trajectory: batched efforts, peaks, RMS, limit violations."""

import numpy as np
import pytest
from robot_data import example_urdf
from ros_dynamics import RobotModel
from ros_dynamics.control.actuator_report import trajectory_efforts


@pytest.fixture(scope='module')
def ur5():
    return RobotModel.from_urdf_file(example_urdf('ur_description/urdf/ur5_robot.urdf'))


def test_report_of_a_sinusoid(ur5):
    times = np.linspace(0.0, 2.0, 401)
    w = 2 * np.pi * 0.5
    amplitude = np.linspace(0.2, 1.2, ur5.dof)
    q = np.sin(w * times)[:, None] * amplitude
    qd = w * np.cos(w * times)[:, None] * amplitude
    qdd = -w * w * np.sin(w * times)[:, None] * amplitude
    efforts, reports, violations = trajectory_efforts(ur5, times, q, qd, qdd)
    for k in range(0, 401, 50):
        assert np.allclose(efforts[k], ur5.inverse_dynamics(q[k], qd[k], qdd[k]))
    for k, report in enumerate(reports):
        assert report.joint == ur5.joint_names[k]
        assert report.peak_effort == pytest.approx(np.abs(efforts[:, k]).max())
        assert report.peak_velocity == pytest.approx(w * amplitude[k], rel=1e-4)
        # time-weighted RMS of a sampled signal, by the trapezoid rule
        assert report.rms_effort == pytest.approx(
            np.sqrt(np.trapezoid(efforts[:, k] ** 2, times) / 2.0))
        assert report.peak_power == pytest.approx(np.abs(efforts[:, k] * qd[:, k]).max())
    # UR5 velocity limit is 3.15 rad/s: the largest amplitude reaches 3.77 rad/s
    fast = [v for v in violations if v.kind == 'velocity']
    assert fast and all(v.joint == ur5.joint_names[-1] for v in fast)
    assert all(abs(v.value) > v.limit for v in violations)
    assert all(v.time == times[v.index] for v in violations)


def test_bad_times_are_named(ur5):
    zeros = np.zeros((3, ur5.dof))
    with pytest.raises(ValueError, match='times: expected 3'):
        trajectory_efforts(ur5, [0.0, 1.0], zeros, zeros, zeros)
    with pytest.raises(ValueError, match='non-decreasing'):
        trajectory_efforts(ur5, [0.0, 2.0, 1.0], zeros, zeros, zeros)
