# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The runtime layer's API: a BatchPool the caller owns, bound calls per packed model, statuses.

A pool is handed to the batches by ``with pool:`` / ``pool.use()`` (RobotModel's batched
methods, the regressor) or by ``pool=`` (run_batch, rollout); these tests see which threads
ran the blocks, that a closed pool is refused wherever it is handed over (so the call went
through it), and that results on an owned pool equal those of the default pool and of
single-state calls.
"""

import multiprocessing
import os
import threading

import numpy as np
import pytest
from robot_data import example_urdf

from ros_dynamics import RobotModel
from ros_dynamics.kernels.regressor import regressor_entry
from ros_dynamics.rollouts import rollout
from ros_dynamics.runtime import batches as runtime
from ros_dynamics.runtime.batches import BatchPool, check_status, run_batch


@pytest.fixture(scope='module')
def ur5():
    return RobotModel.from_urdf_file(example_urdf('ur_description/urdf/ur5_robot.urdf'))


def states(robot, count, seed=3):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.0, 1.0, (count, robot.dof)) for _ in range(3)]


def test_an_owned_pool_runs_the_blocks_on_its_threads_and_stops_them():
    """Two blocks meet at a barrier: two threads ran them, the caller and the pool's worker."""
    barrier, seen = threading.Barrier(2, timeout=20), []

    def kernel(start, stop):
        seen.append((start, stop, threading.current_thread()))
        barrier.wait()   # both blocks at once, or BrokenBarrierError
        return 0

    with BatchPool(threads=2) as pool:
        assert runtime.current_pool() is pool and pool.threads == 2
        assert run_batch(kernel, 64, lambda a, b: (a, b)) == 0
    assert runtime.current_pool() is runtime.default_pool()
    assert sorted((a, b) for a, b, _ in seen) == [(0, 32), (32, 64)]
    threads = {thread for _, _, thread in seen}
    assert threading.current_thread() in threads and len(threads) == 2
    worker = (threads - {threading.current_thread()}).pop()
    assert worker.name.startswith('ros_dynamics') and not worker.is_alive()   # closed: joined
    assert pool.closed and 'closed' in repr(pool)
    with pytest.raises(RuntimeError, match='closed'):
        run_batch(kernel, 64, lambda a, b: (a, b), pool=pool)


def test_robot_batches_go_through_the_entered_pool(ur5):
    q, qd, qdd = states(ur5, 96)
    expected = ur5.inverse_dynamics(q, qd, qdd)   # the default pool
    with BatchPool(threads=2) as pool:
        tau = ur5.inverse_dynamics(q, qd, qdd)
        mass = ur5.mass_matrix(q)
        y = ur5.regressor(q, qd, qdd)
    np.testing.assert_array_equal(tau, expected)
    for k in (0, 47, 95):   # the single-state entries (the batch kernel on a batch of one)
        np.testing.assert_allclose(tau[k], ur5.inverse_dynamics(q[k], qd[k], qdd[k]),
                                   rtol=1e-13, atol=1e-12)
        np.testing.assert_allclose(mass[k], ur5.mass_matrix(q[k]), rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(y @ ur5.inertial_parameters().ravel(), expected, atol=1e-9)
    with pytest.raises(RuntimeError, match='closed'), pool.use():   # closed: refused there
        ur5.mass_matrix(q)
    with pytest.raises(RuntimeError, match='closed'):
        rollout(ur5, q[:32], qd[:32], steps=2, pool=pool)


def test_rollouts_on_an_owned_pool_equal_the_default(ur5):
    q, qd, _ = states(ur5, 40, seed=8)
    effort = np.zeros((5, ur5.dof))
    with BatchPool(threads=2) as pool:
        owned = rollout(ur5, q, qd, effort, pool=pool)
    default = rollout(ur5, q, qd, effort)
    for a, b in zip(owned, default):
        np.testing.assert_array_equal(a, b)


def two_threads_at_once(pool=None) -> int:
    """Run two blocks that wait for each other (a barrier): 0 if two threads ran them."""
    barrier = threading.Barrier(2, timeout=20)
    return run_batch(lambda a, b: barrier.wait() * 0, 64, lambda a, b: (a, b), threads=2,
                     pool=pool)


def child(pool) -> None:
    os._exit(two_threads_at_once(pool) + two_threads_at_once())   # owned, then default pool


def test_pools_started_before_a_fork_run_batches_in_the_child():
    """The parent's workers did not survive the fork: the child's batches start new ones."""
    pool = BatchPool(threads=2)
    assert two_threads_at_once(pool) == 0 and two_threads_at_once() == 0   # workers started
    process = multiprocessing.get_context('fork').Process(target=child, args=(pool,))
    process.start()
    process.join(timeout=60)
    assert process.exitcode == 0
    pool.close()


@pytest.mark.parametrize('threads', [0, -2, 1.5, True, 'two'])
def test_a_pool_refuses_a_bad_thread_count(threads):
    with pytest.raises(ValueError, match='threads'):
        BatchPool(threads)


def test_bound_calls_are_replaced_with_the_packed_model(ur5):
    """A gravity change swaps in new BoundCalls: the regressor then binds the new model."""
    robot = RobotModel.from_urdf_file(example_urdf('ur_description/urdf/ur5_robot.urdf'))
    q, qd, qdd = (s[0] for s in states(robot, 1, seed=11))
    theta = robot.inertial_parameters().ravel()
    np.testing.assert_allclose(robot.regressor(q, qd, qdd) @ theta,
                               robot.inverse_dynamics(q, qd, qdd), atol=1e-10)
    calls = robot.state_calls
    assert calls.model is robot.packed and calls.find(regressor_entry) is not None
    robot.gravity = (0.0, 3.0, -1.62)
    assert robot.state_calls.find(regressor_entry) is None
    assert robot.state_calls is not calls and robot.state_calls.model is robot.packed
    assert calls.model is not robot.packed and not calls.model.flags.writeable
    np.testing.assert_allclose(robot.regressor(q, qd, qdd) @ theta,
                               robot.inverse_dynamics(q, qd, qdd), atol=1e-10)
    stale = robot.regressor(q, qd, qdd) @ theta - ur5.regressor(q, qd, qdd) @ theta
    assert np.max(np.abs(stale)) > 1.0   # gravity moved the torques: not the old binding


def test_check_status_names_the_argument():
    good, bad = np.zeros(3), np.array([0.0, np.nan, 1.0])
    assert check_status(0, ('q', 'qd'), (good, bad)) is None
    assert check_status(-2, ('q',), (good,)) is None   # a singular M: the caller's error
    with pytest.raises(ValueError, match='^qd: contains NaN or Inf$'):
        check_status(1, ('q', 'qd'), (good, bad))
    with pytest.raises(ValueError, match=r'q, qd: rejected by the kernel \(status 2\)'):
        check_status(2, ('q', 'qd'), (good, good))
