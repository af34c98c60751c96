# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""Batch jobs on Dask: a LocalCluster of 2 worker processes (loopback) equals the local path."""

import os

import numpy as np
import pytest
from robot_data import example_urdf
from ros_dynamics import RobotModel
from ros_dynamics.cli import main
from ros_dynamics.rollouts import rollout
from ros_dynamics.rollouts.scale_out import distributed_rollout, map_chunks, trajectory_torques

distributed = pytest.importorskip('distributed')


@pytest.fixture(scope='module')
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host='127.0.0.1', dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            yield client


@pytest.fixture(scope='module')
def ur5():
    return RobotModel.from_urdf_file(example_urdf('ur_description/urdf/ur5_robot.urdf'))


def test_trajectory_torques_on_two_workers_equal_the_local_batch(client, ur5):
    rng = np.random.default_rng(5)
    q, qd, qdd = (rng.uniform(-1.0, 1.0, (10, 50, ur5.dof)) for _ in range(3))
    tau = trajectory_torques(ur5, q, qd, qdd, scheduler=client, chunk=3)   # 4 chunks, uneven
    local = ur5.inverse_dynamics(q.reshape(-1, ur5.dof), qd.reshape(-1, ur5.dof),
                                 qdd.reshape(-1, ur5.dof)).reshape(q.shape)
    assert np.array_equal(tau, local)
    workers = client.run(lambda: __import__('os').getpid())
    assert len(set(workers.values())) == 2                  # two processes did the work
    with pytest.raises(ValueError, match='qd'):
        trajectory_torques(ur5, q, qd[:, :3], qdd, scheduler=client)


def test_rollouts_on_two_workers_equal_the_local_rollout(client, ur5):
    rng = np.random.default_rng(6)
    q0, qd0 = rng.uniform(-0.5, 0.5, (40, ur5.dof)), np.zeros((40, ur5.dof))
    effort = rng.uniform(-5.0, 5.0, (40, 100, ur5.dof))
    q, qd = distributed_rollout(ur5, q0, qd0, effort, scheduler=client, chunk=16)
    expected = rollout(ur5, q0, qd0, effort)
    assert np.array_equal(q, expected[0]) and np.array_equal(qd, expected[1])
    shared = distributed_rollout(ur5, q0, qd0, effort[0], scheduler=client, chunk=16,
                                 kd=np.ones(ur5.dof))
    expected = rollout(ur5, q0, qd0, effort[0], kd=np.ones(ur5.dof))
    assert np.array_equal(shared[0], expected[0])


def test_in_process_default_and_chunk_validation(ur5):
    rng = np.random.default_rng(7)
    q = rng.uniform(-1.0, 1.0, (3, 4, ur5.dof))
    tau = trajectory_torques(ur5, q, q, q, chunk=2)   # scheduler None: in-process threads
    assert np.array_equal(tau, ur5.inverse_dynamics(q.reshape(-1, ur5.dof), q.reshape(
        -1, ur5.dof), q.reshape(-1, ur5.dof)).reshape(q.shape))
    with pytest.raises(ValueError, match='chunk'):
        map_chunks(len, ur5, (q,), 0)


def torques_cli(capsys, urdf, trajectory, out, *options) -> tuple:
    """Run ``ros-dynamics torques`` in this process; return (status, stdout, stderr, CSV text)."""
    status = main(['torques', urdf, trajectory, '-o', str(out), '--no-progress', *options])
    captured = capsys.readouterr()
    text = open(out).read() if os.path.exists(out) else None
    return status, captured.out, captured.err, text


def test_cli_torques_on_a_scheduler_equal_the_in_process_output(client, ur5, tmp_path, capsys):
    urdf = example_urdf('ur_description/urdf/ur5_robot.urdf')
    t = np.linspace(0.0, 1.0, 101)
    rng = np.random.default_rng(8)
    q = np.sin(t[:, None] * rng.uniform(1.0, 6.0, ur5.dof))   # qd, qdd from the spline
    path = tmp_path / 'trajectory.csv'
    np.savetxt(path, np.column_stack([t, q]), delimiter=',', comments='',
               header=','.join(['time'] + list(ur5.joint_names)))
    local = torques_cli(capsys, urdf, str(path), tmp_path / 'local.csv')
    assert local[0] == 0 and 'Actuator report' in local[1]
    remote = torques_cli(capsys, urdf, str(path), tmp_path / 'remote.csv',
                         '--scheduler', client.scheduler.address, '--chunk', '7')  # 15 tasks
    assert remote[0] == 0
    assert remote[1] == local[1].replace('local.csv', 'remote.csv')   # the report
    assert remote[3] == local[3]                                          # the efforts, bitwise


@pytest.mark.parametrize('address, fragments', [
    ('tcp://127.0.0.1:9', ('tcp://127.0.0.1:9', 'cannot connect within 0.5 s')),
    ('nowhere', ("'nowhere'", 'not a Dask address', 'tcp://host:8786')),
    ('local:0', ("'local:0'", 'local:N with N >= 1'))])
def test_cli_bad_scheduler_is_one_line_naming_it(ur5, tmp_path, capsys, address, fragments):
    urdf = example_urdf('ur_description/urdf/ur5_robot.urdf')
    path = tmp_path / 'trajectory.csv'
    t = np.linspace(0.0, 1.0, 5)
    np.savetxt(path, np.column_stack([t] + [t] * ur5.dof), delimiter=',', comments='',
               header=','.join(['time'] + list(ur5.joint_names)))
    status, out, err, _ = torques_cli(capsys, urdf, str(path), tmp_path / 'efforts.csv',
                                      '--scheduler', address, '--scheduler-timeout', '0.5')
    assert status == 1 and out == ''
    lines = [line for line in err.splitlines() if line.startswith('ros-dynamics: error:')]
    assert len(lines) == 1 and 'Traceback' not in err
    assert all(fragment in lines[0] for fragment in fragments), lines[0]


@pytest.mark.parametrize('option, value', [('--chunk', '0'), ('--scheduler-timeout', '-1')])
def test_cli_bad_scheduler_options_are_usage_errors(capsys, option, value):
    urdf = example_urdf('ur_description/urdf/ur5_robot.urdf')
    with pytest.raises(SystemExit) as exit_:
        main(['torques', urdf, 'trajectory.csv', option, value])
    assert exit_.value.code == 2
    assert f'argument {option}: expected' in capsys.readouterr().err
