# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""PoseTrajectory: a sampled pose trajectory reproduces the closed-form circle between samples."""

import numpy as np
import pytest
from ros_dynamics.control.trajectories import circle, PoseTrajectory
from scipy.spatial.transform import Rotation

CENTER, RADIUS, PERIOD = [1.2, 0.0, 1.2], 0.2, 10.0


def sampled_circle(step: float, spin: float = 0.1, velocities: bool = True) -> PoseTrajectory:
    times = np.arange(0.0, PERIOD + step / 2, step)
    samples = [circle(t, CENTER, RADIUS, PERIOD) for t in times]
    rotations = Rotation.from_rotvec(np.outer(times * spin, [0.3, 0.0, 1.0]))
    linear = [s[1][:3] for s in samples] if velocities else None
    return PoseTrajectory(times, [s[0][:3, 3] for s in samples], rotations, linear)


@pytest.mark.parametrize('velocities', [True, False])
def test_between_samples_the_circle_and_its_twist(velocities):
    trajectory = sampled_circle(0.01, velocities=velocities)
    axis = np.array([0.3, 0.0, 1.0])
    for t in np.random.default_rng(1).uniform(0.0, PERIOD, 200):
        pose, twist = trajectory(t)
        reference, reference_twist, _ = circle(t, CENTER, RADIUS, PERIOD)
        assert np.allclose(pose[:3, 3], reference[:3, 3], atol=1e-9)
        assert np.allclose(twist[:3], reference_twist[:3], atol=1e-7)
        assert np.allclose(pose[:3, :3], Rotation.from_rotvec(0.1 * t * axis).as_matrix(),
                           atol=1e-12)
        assert np.allclose(twist[3:], 0.1 * axis, atol=1e-9)


def test_holds_the_ends_with_zero_twist():
    trajectory = sampled_circle(0.5)
    for t, end in ((-1.0, 0.0), (PERIOD + 3.0, PERIOD)):
        pose, twist = trajectory(t)
        assert np.allclose(pose[:3, 3], circle(end, CENTER, RADIUS, PERIOD)[0][:3, 3])
        assert not np.any(twist)
    single = PoseTrajectory([2.0], [[1.0, 2.0, 3.0]], Rotation.identity(1))
    assert np.array_equal(single(5.0)[0][:3, 3], [1.0, 2.0, 3.0])


@pytest.mark.parametrize('times, positions, message', [
    ([0.0, 0.0], [[0, 0, 0]] * 2, 'increasing'),
    ([0.0, 1.0], [[0, 0, 0]], 'positions'),
    ([0.0, np.nan], [[0, 0, 0]] * 2, 'finite'),
])
def test_bad_samples_are_refused(times, positions, message):
    with pytest.raises(ValueError, match=message):
        PoseTrajectory(times, positions, Rotation.identity(len(times)))
