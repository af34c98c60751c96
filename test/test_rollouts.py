# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""rollout: B simulations in one call equal B separate Simulator runs."""

import numpy as np
import pytest
from robot_data import example_urdf
from ros_dynamics import RobotModel
from ros_dynamics.rollouts import rollout
from ros_dynamics.simulation.simulator import SimulationDiverged, Simulator


@pytest.fixture(scope='module', params=['mimic', 'no_mimic'])
def panda(request):
    """
    Return the Panda with its fingers' mimic joint (M qdd = tau - b, one at a time) or not.

    Without (fingers as two coordinates) forward dynamics is ABA, which the
    rollouts run in groups of 4 in vector lanes (rollouts/lanes.py).
    """
    return RobotModel.from_urdf_file(example_urdf('panda_description/urdf/panda.urdf'),
                                     mimic=request.param == 'mimic')


def separate_runs(robot, q0, qd0, efforts, dt, integrator, feedback=None, **options):
    """B Simulator runs, effort set before each step; returns (B, steps + 1, dof) q and qd."""
    qs, qds = [], []
    for b in range(q0.shape[0]):
        sim = Simulator(robot, dt=dt, integrator=integrator, q0=q0[b], qd0=qd0[b], **options)
        q, qd = [sim.q], [sim.qd]
        for k in range(efforts.shape[1]):
            effort = efforts[b, k]
            if feedback is not None:
                effort = feedback(b, k, sim.q, sim.qd, effort)
            sim.set_effort(effort)
            sim.step()
            q.append(sim.q)
            qd.append(sim.qd)
        qs.append(q)
        qds.append(qd)
    return np.array(qs), np.array(qds)


@pytest.mark.parametrize('integrator', ['rk4', 'semi_implicit_euler'])
def test_open_loop_rollouts_equal_separate_simulator_runs(panda, integrator):
    """40 rollouts (two threads' blocks): damping, friction, stops, saturation, free swings."""
    rng = np.random.default_rng(3)
    batch, steps = 40, 150
    q0 = np.clip(rng.uniform(-1.0, 1.0, (batch, panda.dof)), panda.lower, panda.upper)
    qd0 = rng.uniform(-1.0, 1.0, (batch, panda.dof))
    efforts = rng.uniform(-150.0, 150.0, (batch, steps, panda.dof))   # some saturate
    efforts[::5] = 0.0        # free swings: the energy check runs
    q, qd = rollout(panda, q0, qd0, efforts, dt=2e-3, integrator=integrator, threads=2)
    assert q.shape == qd.shape == (batch, steps + 1, panda.dof)
    q_ref, qd_ref = separate_runs(panda, q0, qd0, efforts, 2e-3, integrator)
    assert np.array_equal(q, q_ref) and np.array_equal(qd, qd_ref)
    assert np.ptp(q[:, -1], axis=0).min() > 1e-3          # the rollouts differ


def test_shared_effort_and_pd_feedback_equal_separate_runs():
    """tau_ff + K (q_ref - q) + D (qd_ref - qd), a coupled K, shared (steps, dof) inputs (UR5)."""
    robot = RobotModel.from_urdf_file(example_urdf('ur_description/urdf/ur5_robot.urdf'))
    rng = np.random.default_rng(4)
    batch, steps, dof = 20, 300, robot.dof
    q0 = rng.uniform(-0.5, 0.5, (batch, dof))
    qd0 = np.zeros((batch, dof))
    t = np.arange(steps)[:, None] * 1e-3
    q_ref = 0.3 * np.sin(2.0 * t + np.arange(dof))
    qd_ref = 0.6 * np.cos(2.0 * t + np.arange(dof))
    tau_ff = np.tile(robot.gravity_torques(np.zeros(dof)), (steps, 1))
    kp = np.diag(np.full(dof, 300.0)) + 5.0     # coupled
    kd = np.full(dof, 30.0)
    q, qd = rollout(robot, q0, qd0, tau_ff, dt=1e-3, kp=kp, kd=kd, q_ref=q_ref, qd_ref=qd_ref)

    def law(b, k, q_now, qd_now, effort):
        position = sum(kp[:, j] * (q_ref[k, j] - q_now[j]) for j in range(dof))
        return effort + position + kd * (qd_ref[k] - qd_now)

    expected_q, expected_qd = separate_runs(robot, q0, qd0, np.tile(tau_ff, (batch, 1, 1)),
                                            1e-3, 'rk4', law)
    assert np.max(np.abs(q - expected_q)) < 1e-13
    assert np.max(np.abs(qd - expected_qd)) < 1e-11
    assert np.max(np.abs(q[:, -1] - q_ref[-1])) < np.max(np.abs(q[:, 0] - q_ref[0]))   # tracks


def test_refused_rollouts_and_bad_input(panda):
    q0 = np.zeros((3, panda.dof))
    efforts = np.zeros((3, 10, panda.dof))
    efforts[1, 4, 0] = np.nan
    with pytest.raises(SimulationDiverged, match='rollout 1: step 4'):
        rollout(panda, q0, q0, efforts)
    q, _ = rollout(panda, q0, q0, efforts, allow_divergence=True)
    assert np.all(np.isfinite(q[[0, 2]])) and np.all(np.isfinite(q[1, :5]))
    assert np.all(np.isnan(q[1, 5:]))
    with pytest.raises(ValueError, match='effort'):
        rollout(panda, q0, q0, np.zeros((3, 10, 2)))
    with pytest.raises(ValueError, match='q0'):
        rollout(panda, np.full((3, panda.dof), np.nan), q0, efforts[0])
    with pytest.raises(ValueError, match='steps'):
        rollout(panda, q0, q0)
    with pytest.raises(ValueError, match='kp'):
        rollout(panda, q0, q0, steps=5, kp=np.ones(3), q_ref=np.zeros((5, panda.dof)))


def test_blocks_are_taken_by_whichever_thread_is_free():
    """run_batch's blocks: every row once, a slow block does not hold the others, row order."""
    import threading
    import time

    from ros_dynamics.runtime.batches import run_batch

    runs, lock = [], threading.Lock()

    def kernel(start, stop):
        if start == 0:
            time.sleep(0.2)     # the calling thread's first block, held up by other work
        with lock:
            runs.append((start, stop, threading.get_ident()))
        return 7 if start <= 100 < stop else (3 if start <= 150 < stop else 0)

    status = run_batch(kernel, 320, lambda a, b: (a, b), threads=2, blocks_per_thread=10)
    covered = sorted((start, stop) for start, stop, _ in runs)
    assert len(covered) == 20 and covered[0][0] == 0 and covered[-1][1] == 320
    assert all(a[1] == b[0] for a, b in zip(covered, covered[1:]))
    assert status == 7                        # the first refusal in row order, not in time
    slow = next(thread for start, _, thread in runs if start == 0)
    assert sum(thread != slow for _, _, thread in runs) >= 15   # the free thread took the rest
    assert run_batch(kernel, 320, lambda a, b: (a + 200, b + 200), threads=2) == 0


def test_rollouts_in_many_blocks_equal_separate_runs(panda):
    """96 rollouts in 6 blocks on 2 threads; two refused in different blocks: the first named."""
    rng = np.random.default_rng(5)
    batch, steps = 96, 12
    q0 = rng.uniform(-0.5, 0.5, (batch, panda.dof))
    qd0 = rng.uniform(-0.5, 0.5, (batch, panda.dof))
    efforts = rng.uniform(-20.0, 20.0, (batch, steps, panda.dof))
    q, qd = rollout(panda, q0, qd0, efforts, threads=2)
    q_ref, qd_ref = separate_runs(panda, q0, qd0, efforts, 1e-3, 'rk4')
    assert np.array_equal(q, q_ref) and np.array_equal(qd, qd_ref)
    efforts[70, 3, 2] = np.nan
    efforts[20, 8, 1] = np.nan
    with pytest.raises(SimulationDiverged, match='rollout 20: step 8'):
        rollout(panda, q0, qd0, efforts, threads=2)
