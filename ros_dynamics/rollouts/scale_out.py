# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Batch jobs on Dask (``dask.distributed``): many trajectories or rollouts over many processes.

When one machine's cores are not enough (a fleet's trajectory library for
actuator sizing, millions of rollouts), the batch is split along its first
axis into chunks, each chunk runs the single-process batch call
(``RobotModel.inverse_dynamics`` on its trajectories, ``rollout`` on its
rollouts) on a Dask worker, and the results are gathered in order. The model
travels once per worker (``Client.scatter``; RobotModel pickles without its
bound C calls). Install the extra: ``pip install ros_dynamics[scale]``.

``scheduler``: None runs on an in-process cluster of threads (no extra
processes; the kernels release the GIL), ``local:N`` starts N worker
processes on this machine for the call, a ``tcp://host:8786`` address
connects to a running scheduler, a ``distributed.Client`` is used as is.
Each chunk costs a task round trip (``benchmarks/bench_sim_throughput.py``
measures it), so chunks should be large against it.
"""

from typing import Callable, Optional, Union

import numpy as np
from ros_dynamics.model.robot import RobotModel
from ros_dynamics.rollouts import rollout


def dask_client(scheduler: Union[None, str, object] = None, timeout: float = 30.0):
    """
    Return a ``distributed.Client`` for ``scheduler``.

    None: an in-process cluster of threads; ``'local:N'``: a cluster of N
    worker processes on this machine (one thread each), closed with the
    client; ``'tcp://host:8786'`` (any Dask address): a running scheduler,
    reached within ``timeout`` s (ConnectionError naming the address
    otherwise); a ``distributed.Client``: used as is.
    """
    try:
        from distributed import Client
    except ImportError:
        raise ImportError('scale-out needs dask.distributed: pip install ros_dynamics[scale] '
                          '(or dask[distributed])') from None
    if scheduler is None:
        return Client(processes=False, dashboard_address=None)
    if isinstance(scheduler, str) and scheduler.startswith('local:'):
        workers = scheduler[len('local:'):]
        if not (workers.isdigit() and int(workers) >= 1):
            raise ValueError(f'scheduler {scheduler!r}: expected local:N with N >= 1 worker '
                             'processes, e.g. local:2')
        return Client(n_workers=int(workers), threads_per_worker=1, processes=True,
                      dashboard_address=None)
    if isinstance(scheduler, str):
        try:
            return Client(scheduler, timeout=timeout)
        except ValueError as error:   # no port, unknown protocol...
            raise ValueError(f'scheduler {scheduler!r}: not a Dask address ({error}); expected '
                             'tcp://host:8786 or local:N') from None
        except OSError as error:      # refused, unknown host, timed out
            raise ConnectionError(f'scheduler {scheduler!r}: cannot connect within {timeout:g} '
                                  f's ({error}); is a Dask scheduler running there '
                                  '(dask scheduler --port 8786)?') from None
    if isinstance(scheduler, Client):
        return scheduler
    raise TypeError(f'scheduler: expected None, an address such as tcp://host:8786 or local:N, '
                    f'or a distributed.Client, got {type(scheduler).__name__}')


def map_chunks(function: Callable, robot: RobotModel, arrays: tuple, chunk: int,
               scheduler=None, shared: Optional[dict] = None, timeout: float = 30.0) -> list:
    """
    Return [function(robot, *chunk_k, **shared) for each chunk k], in order, computed on Dask.

    ``arrays`` are split along their first axis into chunks of ``chunk``
    rows; ``shared`` keyword arguments go to every call unsplit. A client
    made here (scheduler None or an address) is closed afterwards;
    ``timeout`` (s) bounds connecting to an address (``dask_client``).
    """
    if not (isinstance(chunk, (int, np.integer)) and chunk >= 1):
        raise ValueError(f'chunk: expected a number of rows >= 1, got {chunk!r}')
    count = arrays[0].shape[0]
    if any(array.shape[0] != count for array in arrays):
        raise ValueError(f'arrays: expected the same first axis, got shapes '
                         f'{[array.shape for array in arrays]}')
    client = dask_client(scheduler, timeout)
    try:
        # a fresh key per call: a hashed key repeated while the last call releases it is lost
        model = client.scatter(robot, broadcast=True, hash=False)
        futures = [client.submit(function, model,
                                 *(array[start:start + chunk] for array in arrays),
                                 **(shared or {}), pure=False)
                   for start in range(0, count, chunk)]
        return client.gather(futures)
    finally:
        if client is not scheduler:
            client.close()


def _torques(robot: RobotModel, q, qd, qdd) -> np.ndarray:
    """Return the inverse dynamics of a chunk of trajectories (T, N, dof) on one worker."""
    dof = robot.dof
    tau = robot.inverse_dynamics(q.reshape(-1, dof), qd.reshape(-1, dof), qdd.reshape(-1, dof))
    return tau.reshape(q.shape)


def trajectory_torques(robot: RobotModel, q, qd, qdd, scheduler=None, chunk: int = 16,
                       timeout: float = 30.0) -> np.ndarray:
    """
    Return the joint torques tau (T, N, dof) of T trajectories of N samples, on Dask.

    q, qd, qdd: (T, N, dof) positions, velocities, accelerations (rad, rad/s,
    rad/s^2; m for prismatic joints); tau = M qdd + C qd + g by RNEA
    (Featherstone 2008, table 5.1), ``chunk`` trajectories per task; equal
    to ``robot.inverse_dynamics`` on the stacked samples. One trajectory
    (N, dof) is split by samples instead: ``chunk`` samples per task, tau
    (N, dof).
    """
    arrays = [np.asarray(x, dtype=float) for x in (q, qd, qdd)]
    if arrays[0].ndim == 2:
        shape, expected = arrays[0].shape[:1] + (robot.dof,), f'(samples, {robot.dof})'
    else:
        shape = (arrays[0].shape[0], arrays[0].shape[1] if arrays[0].ndim == 3 else 0,
                 robot.dof)
        expected = f'(trajectories, samples, {robot.dof})'
    for name, array in zip(('q', 'qd', 'qdd'), arrays):
        if array.shape != shape:
            raise ValueError(f'{name}: expected {expected} like q, got shape {array.shape}')
    return np.concatenate(map_chunks(_torques, robot, tuple(arrays), chunk, scheduler,
                                     timeout=timeout))


def _rollout_chunk(robot: RobotModel, q0, qd0, *effort, **options) -> tuple:
    """Run one chunk of rollouts on one worker (effort: the chunk's, or shared in options)."""
    return rollout(robot, q0, qd0, effort[0] if effort else options.pop('shared_effort'),
                   **options)


def distributed_rollout(robot: RobotModel, q0, qd0, effort, scheduler=None, chunk: int = 64,
                        **options) -> tuple:
    """
    Return ``rollout(robot, q0, qd0, effort, **options)``, its rollouts split into chunks on Dask.

    Shapes as ``rollouts.rollout``: q0, qd0 (B, dof), effort (B, steps, dof)
    or a shared (steps, dof); returns q, qd (B, steps + 1, dof), ``chunk``
    rollouts per task.
    """
    q0 = np.atleast_2d(np.asarray(q0, dtype=float))
    qd0 = np.broadcast_to(np.asarray(qd0, dtype=float), q0.shape)
    effort = np.asarray(effort, dtype=float)
    if effort.ndim == 3:
        parts = map_chunks(_rollout_chunk, robot, (q0, qd0, effort), chunk, scheduler, options)
    else:
        parts = map_chunks(_rollout_chunk, robot, (q0, qd0), chunk, scheduler,
                           dict(options, shared_effort=effort))
    return (np.concatenate([part[0] for part in parts]),
            np.concatenate([part[1] for part in parts]))
