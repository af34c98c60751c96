# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
``rollout``: many fixed-step simulations of one robot in one call, on all cores.

What actuator sizing over a trajectory library, Monte-Carlo robustness tests
and learning data need: B simulations from B initial states under open-loop
efforts or a joint-space PD law with feed-forward, each exactly the
``Simulator``'s (the same compiled step, damping, friction, limit stops,
effort saturation and energy check), run by the compiled kernel
(rollouts/kernels.py) in blocks of rollouts on the package's thread pool
with the GIL released, each block in groups of 4 whose forward dynamics
share the CPU's vector registers (rollouts/lanes.py; the same results, bit
for bit). The counterpart of MuJoCo's ``mujoco.rollout``.
"""

from typing import Optional

import numpy as np
from ros_dynamics.kernels import integrators
from ros_dynamics.kernels.rollout import ground_rollout_batch, rollout_batch, rollout_lanes_batch
from ros_dynamics.model.robot import RobotModel
from ros_dynamics.multibody import layouts
from ros_dynamics.runtime.batches import BatchPool, run_batch
from ros_dynamics.runtime.jit import ensure_compiled
from ros_dynamics.runtime.lanes import LANES
from ros_dynamics.simulation.simulator import SimulationDiverged, Simulator

_REFUSALS = {integrators.NON_FINITE: 'the state became non-finite',
             integrators.ENERGY_GREW: 'the energy grew with no input (dt too large?)'}


def _batch_of(value, name: str, batch: int, tail: tuple, finite: bool = True) -> np.ndarray:
    """Return ``value`` as a C-contiguous float (1 or batch, *tail) array, or raise ValueError."""
    array = np.asarray(value, dtype=float)
    if array.shape == tail:
        array = array[None]
    if array.shape[1:] != tail or array.shape[0] not in (1, batch):
        shapes = ' or '.join(str(s) for s in ((batch,) + tail, tail))
        raise ValueError(f'{name}: expected shape {shapes}, got {array.shape}')
    if finite and not np.all(np.isfinite(array)):
        raise ValueError(f'{name}: expected finite values')
    return np.ascontiguousarray(array)


def _gain_matrix(value, name: str, dof: int) -> np.ndarray:
    """Return a (dof, dof) gain matrix from a diagonal (dof,) or a full (dof, dof)."""
    gain = np.asarray(value, dtype=float)
    if gain.shape == (dof,):
        gain = np.diag(gain)
    if gain.shape != (dof, dof) or not np.all(np.isfinite(gain)):
        raise ValueError(f'{name}: expected {dof} finite gains (a diagonal) or a ({dof}, {dof}) '
                         f'matrix, got shape {gain.shape}')
    return gain


def rollout(robot: RobotModel, q0, qd0, effort=None, dt: float = 1e-3,
            steps: Optional[int] = None, integrator: Optional[str] = None, *, kp=None, kd=None,
            q_ref=None, qd_ref=None, threads: Optional[int] = None,
            allow_divergence: bool = False, pool: Optional[BatchPool] = None,
            **options) -> tuple:
    """
    Simulate B rollouts of ``steps`` steps of ``dt`` and return the states (q, qd).

    Shapes (nq = robot.nq positions, nv = robot.nv = robot.dof velocities,
    B rollouts; a leading batch axis may be left out of the per-step inputs
    to share them, as mujoco.rollout tiles them; as MuJoCo's rollout.py,
    whose state is (qpos (nq), qvel (nv)) too):

    - q0: (B, nq) or (nq,) initial positions (rad, m; a floating base's
      (x, y, z, qx, qy, qz, qw), its quaternion normalised here), qd0:
      (B, nv) or (nv,) initial velocities (rad/s, m/s; a floating base's
      twist in its own frame, docs/conventions.md);
    - effort: (B, steps, nv) or (steps, nv) feed-forward joint efforts
      tau_ff (N m, N), held over each step; None for zero (then ``steps``
      must be given);
    - kp = K (N m/rad, N/m), kd = D (N m s/rad, N s/m): None (open loop),
      or (nv,) diagonal or (nv, nv) gains; the effort over step k is then
      sat(tau_ff[k] + K (q_ref[k] - q_k) + D (qd_ref[k] - qd_k)) from the
      state at the start of the step (zero-order hold); the position error
      of a one-dof joint only: K's columns of a floating, planar or ball
      joint's coordinates must be zero;
    - q_ref: (B, steps, nq) or (steps, nq), qd_ref: (B, steps, nv) or
      (steps, nv) references (qd_ref defaults to zero);
    - returns q: (B, steps + 1, nq) and qd: (B, steps + 1, nv), index 0
      the initial state, index k + 1 the state after step k (time
      (k + 1) dt), positions on the manifold (integrators.py).

    Each rollout equals ``Simulator(robot, dt, integrator, q0[b], qd0[b],
    **options)`` stepped with ``set_effort`` before every step (options:
    damping, friction, limits, friction_velocity, energy_tolerance, and
    ground: a Ground, contacts/ground.py, with integrator None or
    'semi_implicit_euler'; the contact forces are not returned). A
    rollout the simulator would refuse (non-finite state, energy growth with
    no input, singular mass matrix) raises SimulationDiverged naming it, or
    with ``allow_divergence`` keeps its states up to there and NaN after.
    ``threads`` caps the worker threads (default: ROS_DYNAMICS_THREADS or
    the cores; a block of at least 16 rollouts per thread); ``pool``: the
    runtime.BatchPool to run on (default: the one entered with ``with pool:``
    in this thread, else the shared one). Models with
    floating, planar or ball joints run one rollout at a time (the vector
    lanes hold one-dof models only).
    """
    dof, nq = robot.dof, robot.nq
    q0 = np.atleast_2d(np.asarray(q0, dtype=float))
    batch = q0.shape[0]
    q0 = _batch_of(q0, 'q0', batch, (nq,))
    if nq != dof:
        q0 = np.ascontiguousarray(robot.normalize(q0))
    qd0 = _batch_of(qd0, 'qd0', batch, (dof,))
    if qd0.shape[0] != batch:
        qd0 = np.ascontiguousarray(np.broadcast_to(qd0, (batch, dof)))
    if effort is None:
        if steps is None:
            raise ValueError('steps: give the number of steps (or an effort array)')
        effort = np.zeros((steps, dof))
    effort = np.asarray(effort, dtype=float)
    if steps is None:
        steps = effort.shape[-2] if effort.ndim >= 2 else 0
    if not (isinstance(steps, (int, np.integer)) and steps >= 0):
        raise ValueError(f'steps: expected a number of steps >= 0, got {steps!r}')
    # NaN efforts are let through: they make that rollout diverge, as in the Simulator
    feedforward = _batch_of(effort, 'effort', batch, (steps, dof), finite=False)
    if kp is not None or kd is not None:
        gains = np.stack([np.zeros((dof, dof)) if gain is None else _gain_matrix(gain, name, dof)
                          for gain, name in ((kp, 'kp'), (kd, 'kd'))])
        if q_ref is None and kp is not None:
            raise ValueError(f'q_ref: the gain kp needs position references (steps, {nq})')
        for joint in robot.joint_names:
            part = robot.v_slice(joint)
            if part.stop - part.start > 1 and np.any(gains[0][:, part]):
                raise ValueError(f'kp: the columns {part.start}..{part.stop - 1} of joint '
                                 f'{joint!r} must be zero: position errors on the manifold of '
                                 'floating, planar and ball joints are not implemented')
        q_ref = _batch_of(np.zeros((steps, nq)) if q_ref is None else q_ref, 'q_ref', batch,
                          (steps, nq))
        qd_ref = _batch_of(np.zeros((steps, dof)) if qd_ref is None else qd_ref, 'qd_ref',
                           batch, (steps, dof))
    else:
        if q_ref is not None or qd_ref is not None:
            raise ValueError('q_ref, qd_ref: give the gains kp and/or kd to use them')
        gains = np.zeros((0, dof, dof))
        q_ref, qd_ref = np.zeros((1, steps, nq)), np.zeros((1, steps, dof))
    # the settings of one simulator; each rollout's limit stops are tuned to its own q0
    template = Simulator(robot, dt=dt, integrator=integrator, q0=q0[0], qd0=qd0[0], **options)
    omega = 1.0 / (10.0 * template.dt)
    inertia = np.maximum(np.diagonal(robot.mass_matrix(q0).reshape(batch, dof, dof),
                                     axis1=1, axis2=2), 1e-6)
    block = template.block   # control, then the parameter rows (integrators.block_size)
    params = block[layouts.NCONTROL:layouts.NCONTROL + layouts.NPARAMS * dof]
    params = np.repeat(params.reshape(1, layouts.NPARAMS, dof), batch, axis=0)
    params[:, layouts.STOP_STIFFNESS] = inertia * omega ** 2
    params[:, layouts.STOP_DAMPING] = 2.0 * inertia * omega
    limit = np.ascontiguousarray(robot.effort_limit, dtype=float)
    q_out, qd_out = np.empty((batch, steps + 1, nq)), np.empty((batch, steps + 1, dof))
    outcome = np.empty(batch)

    def rows(start: int, stop: int) -> tuple:
        def part(array):
            return array if array.shape[0] == 1 else array[start:stop]
        return (robot.packed, q0[start:stop], qd0[start:stop], part(feedforward),
                params[start:stop], limit, gains, part(q_ref), part(qd_ref), block,
                q_out[start:stop], qd_out[start:stop], outcome[start:stop])

    lanes = (block[layouts.C_DENSE] == 0.0 and block[layouts.C_WRENCHES] == 0.0
             and nq == dof)   # one-dof joints only in the lanes
    kernel = rollout_lanes_batch if lanes else rollout_batch   # ABA: 4 rollouts at once
    kernel = kernel if template.ground is None else ground_rollout_batch
    ensure_compiled(kernel)
    status = run_batch(kernel, batch, rows, threads, blocks_per_thread=10, multiple=LANES,
                       pool=pool)
    if status and not allow_divergence:
        b = int(np.argmax(outcome < steps))
        k = int(outcome[b])
        reason = _REFUSALS.get(status, 'the mass matrix became singular')
        after = (k + 1) * template.dt
        raise SimulationDiverged(f'rollout {b}: step {k} (t = {k * template.dt:.6f} s) was '
                                 f'refused: {reason}; allow_divergence=True returns its states '
                                 f'up to there (NaN from t = {after:.6f} s on)')
    return q_out, qd_out
