# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""runtime.views.borrowed: entry points' arrays unowned for the call, results and counts intact."""

import gc
import os
import sys

import numba
import numpy as np
import pytest
from ros_dynamics import RobotModel
from ros_dynamics.kernels.rnea import inverse_dynamics_batch
from ros_dynamics.runtime.jit import ensure_compiled
from ros_dynamics.runtime.views import borrowed, keep

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PANDA = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')


@numba.njit
def _borrowed_sum(a, scale, b):
    """Return sum(a) * scale + sum(b) read through borrowed views, and the scale passed on."""
    a, scale, b = borrowed((a, scale, b))
    return a.sum() * scale + b.sum(), scale


def test_borrowed_views_read_the_same_data_and_pass_other_values_through():
    a, b = np.arange(5.0), np.ones((2, 3))
    total, scale = _borrowed_sum(a, 2.0, b)
    assert total == 26.0 and scale == 2.0


@numba.njit
def _sum_of_kept_ones(n):
    """Return 50 sums of a borrowed view of n ones, allocating an array of -1 before each."""
    owner = np.full(n, 1.0)
    (view,) = borrowed((owner,))
    total = 0.0
    for _ in range(50):
        other = np.full(n, -1.0)   # would reuse the owner's memory, were it released
        total += view.sum() + 0.0 * other[0]
    keep(owner)
    return total


def test_keep_holds_the_owner_of_views_a_kernel_borrows():
    """Without keep(owner) numba frees the owner after borrowed() (here: -50000.0)."""
    assert _sum_of_kept_ones(1000) == 50000.0


def test_an_entry_point_on_borrowed_arrays_keeps_python_reference_counts():
    """
    1000 batch calls leave the arguments' reference counts as they were; results agree.

    (Nothing leaked or released twice; the results equal the single-state path's.)
    """
    robot = RobotModel.from_urdf_file(PANDA)
    ensure_compiled(inverse_dynamics_batch)
    rng = np.random.default_rng(3)
    q, qd, qdd = (rng.uniform(-1, 1, (8, robot.nv)) for _ in range(3))
    fext = np.zeros((1, robot.packed.shape[0] - 1, 6))
    tau = np.empty((8, robot.nv))
    arguments = (robot.packed, q, qd, qdd, fext, tau)
    counts = [sys.getrefcount(a) for a in arguments]
    for _ in range(1000):
        assert inverse_dynamics_batch(*arguments) == 0
    assert [sys.getrefcount(a) for a in arguments] == counts
    expected = np.array([robot.inverse_dynamics(q[k], qd[k], qdd[k]) for k in range(8)])
    np.testing.assert_allclose(tau, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize('rows', [1, 3, 500])
def test_batches_of_temporaries_survive_collection(rows):
    """Arguments made for the call alone (the caller's only reference) stay valid through it."""
    robot = RobotModel.from_urdf_file(PANDA)
    rng = np.random.default_rng(rows)
    q = rng.uniform(-1, 1, (rows, robot.nv))
    for _ in range(20):
        tau = robot.inverse_dynamics(q.copy(), np.zeros_like(q), np.zeros_like(q))
        gc.collect()
    np.testing.assert_allclose(tau, robot.gravity_torques(q), rtol=0, atol=1e-12)
