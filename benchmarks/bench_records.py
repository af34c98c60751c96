# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Named records against long positional argument lists in compiled code (issue 28, item 4).

    scripts/with_ros.sh python benchmarks/bench_records.py [--rounds 3] [--steps 5000]

1. The simulator's RK4 step (integrators.advance, 14 positional arguments, and
   acceleration_into, 11) copied twice: as today, and with (effort, params,
   wrenches, limits, dense) as one ``collections.namedtuple`` record (numba
   types it as a NamedTuple of arrays and booleans). Each variant runs in a
   fresh process (alternated, ``--rounds`` times): the CPU time of its first
   call (compiling these functions; the package's callees come from its
   cache) and the median CPU time per step over 7 runs of ``--steps`` steps
   on example-robot-data's Panda.
2. The Python boundary: CPU time per call from Python of an entry taking 13
   arrays positionally and of one taking them as a namedtuple (unboxing).

Prints the load average. Benchmarks assert nothing.
"""

import argparse
import collections
import os
import subprocess
import sys
import time

import numba
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'test'))

from robot_data import example_urdf  # noqa: E402
from ros_dynamics import RobotModel  # noqa: E402,I100
from ros_dynamics.kernels.aba import aba_into, dense_into  # noqa: E402
from ros_dynamics.kernels.integrators import (block_parts, body_forces_into, DONE,  # noqa: E402
                                              finite_state, NON_FINITE, velocity_stage,
                                              zero_body_forces)
from ros_dynamics.kernels.joint_torques import joint_torques_into  # noqa: E402
from ros_dynamics.kernels.loop_closures import kkt_acceleration_into  # noqa: E402
from ros_dynamics.kernels.manifold import add_bracket, integrate_into  # noqa: E402
from ros_dynamics.runtime.jit import read_only  # noqa: E402
from ros_dynamics.simulation.simulator import Simulator  # noqa: E402

StepInputs = collections.namedtuple('StepInputs', 'effort params wrenches limits dense')


@numba.njit(nogil=True)
def acc_pos(model, q, qd, effort, params, wrenches, limits, dense, workspace, qdd, chain):
    """Return integrators.acceleration_into's result: today's 11 positional arguments."""
    work, mass, fext, kinematic_work, poses, tau = workspace[:6]
    joint_torques_into(q, qd, effort, params, limits, tau)
    if wrenches.shape[0] > 0:
        body_forces_into(model, q, wrenches, kinematic_work, poses, fext)
    q, qd, torque, forces = read_only(q), read_only(qd), read_only(tau), read_only(fext)
    if chain is not None:
        return kkt_acceleration_into(model, q, qd, torque, forces, chain, work, mass,
                                     kinematic_work, poses, qdd)
    if dense:
        return dense_into(model, q, qd, torque, forces, work, mass, qdd)
    return aba_into(model, q, qd, torque, forces, work, qdd)


@numba.njit(nogil=True)
def adv_pos(model, q, qd, effort, params, wrenches, dt, rk4, limits, dense, workspace, q_next,
            qd_next, chain):
    """Return integrators.advance's result: today's 14 positional arguments."""
    k1, k2, k3, k4, qs, qds, v2, v3 = workspace[6:]
    singular = acc_pos(model, q, qd, effort, params, wrenches, limits, dense, workspace, k1, chain)
    if singular >= 0:
        return -(singular + 1)
    if not rk4:
        velocity_stage(qd, dt, k1, qd_next)
        integrate_into(model, q, qd_next, dt, q_next)
    else:
        h = 0.5 * dt
        velocity_stage(qd, h, k1, v2)
        integrate_into(model, q, qd, h, qs)
        singular = acc_pos(model, qs, v2, effort, params, wrenches, limits, dense, workspace,
                           k2, chain)
        velocity_stage(qd, h, k2, v3)
        for i in range(qd.shape[0]):
            qds[i] = v2[i]
        add_bracket(model, qd, v2, 0.25 * dt, qds)
        integrate_into(model, q, qds, h, qs)
        singular = max(singular, acc_pos(model, qs, v3, effort, params, wrenches, limits, dense,
                                         workspace, k3, chain))
        velocity_stage(qd, dt, k3, qds)
        integrate_into(model, q, v3, dt, qs)
        singular = max(singular, acc_pos(model, qs, qds, effort, params, wrenches, limits, dense,
                                         workspace, k4, chain))
        if singular >= 0:
            return -(singular + 1)
        for i in range(qd.shape[0]):
            v2[i] = qd[i] + 2.0 * v2[i] + 2.0 * v3[i] + qds[i]
            qd_next[i] = qd[i] + dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
        add_bracket(model, qd, qds, 0.5 * dt, v2)
        integrate_into(model, q, v2, dt / 6.0, q_next)
    return DONE if finite_state(q_next, qd_next) else NON_FINITE


@numba.njit(nogil=True)
def acc_rec(model, q, qd, inputs, workspace, qdd, chain):
    """Return acc_pos's result with (effort, params, wrenches, limits, dense) as a record."""
    work, mass, fext, kinematic_work, poses, tau = workspace[:6]
    joint_torques_into(q, qd, inputs.effort, inputs.params, inputs.limits, tau)
    if inputs.wrenches.shape[0] > 0:
        body_forces_into(model, q, inputs.wrenches, kinematic_work, poses, fext)
    q, qd, torque, forces = read_only(q), read_only(qd), read_only(tau), read_only(fext)
    if chain is not None:
        return kkt_acceleration_into(model, q, qd, torque, forces, chain, work, mass,
                                     kinematic_work, poses, qdd)
    if inputs.dense:
        return dense_into(model, q, qd, torque, forces, work, mass, qdd)
    return aba_into(model, q, qd, torque, forces, work, qdd)


@numba.njit(nogil=True)
def adv_rec(model, q, qd, inputs, dt, rk4, workspace, q_next, qd_next, chain):
    """Return adv_pos's result with the inputs as one StepInputs record."""
    k1, k2, k3, k4, qs, qds, v2, v3 = workspace[6:]
    singular = acc_rec(model, q, qd, inputs, workspace, k1, chain)
    if singular >= 0:
        return -(singular + 1)
    if not rk4:
        velocity_stage(qd, dt, k1, qd_next)
        integrate_into(model, q, qd_next, dt, q_next)
    else:
        h = 0.5 * dt
        velocity_stage(qd, h, k1, v2)
        integrate_into(model, q, qd, h, qs)
        singular = acc_rec(model, qs, v2, inputs, workspace, k2, chain)
        velocity_stage(qd, h, k2, v3)
        for i in range(qd.shape[0]):
            qds[i] = v2[i]
        add_bracket(model, qd, v2, 0.25 * dt, qds)
        integrate_into(model, q, qds, h, qs)
        singular = max(singular, acc_rec(model, qs, v3, inputs, workspace, k3, chain))
        velocity_stage(qd, dt, k3, qds)
        integrate_into(model, q, v3, dt, qs)
        singular = max(singular, acc_rec(model, qs, qds, inputs, workspace, k4, chain))
        if singular >= 0:
            return -(singular + 1)
        for i in range(qd.shape[0]):
            v2[i] = qd[i] + 2.0 * v2[i] + 2.0 * v3[i] + qds[i]
            qd_next[i] = qd[i] + dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
        add_bracket(model, qd, qds, 0.5 * dt, v2)
        integrate_into(model, q, v2, dt / 6.0, q_next)
    return DONE if finite_state(q_next, qd_next) else NON_FINITE


@numba.njit(nogil=True)
def run_pos(model, q, qd, effort, block, steps):
    """Take ``steps`` steps of the simulator's block with adv_pos; return the last status."""
    control, params, wrenches, workspace, q_next, qd_next = block_parts(
        block, q.shape[0], qd.shape[0], model.shape[0] - 1)
    zero_body_forces(workspace)
    status = 0
    for _ in range(steps):
        status = adv_pos(model, q, qd, effort, params, wrenches, control[0], control[1] != 0.0,
                         control[2] != 0.0, control[3] != 0.0, workspace, q_next, qd_next, None)
        q[:] = q_next
        qd[:] = qd_next
    return status


@numba.njit(nogil=True)
def run_rec(model, q, qd, effort, block, steps):
    """Take ``steps`` steps of the simulator's block with adv_rec; return the last status."""
    control, params, wrenches, workspace, q_next, qd_next = block_parts(
        block, q.shape[0], qd.shape[0], model.shape[0] - 1)
    zero_body_forces(workspace)
    inputs = StepInputs(effort, params, wrenches, control[2] != 0.0, control[3] != 0.0)
    status = 0
    for _ in range(steps):
        status = adv_rec(model, q, qd, inputs, control[0], control[1] != 0.0, workspace, q_next,
                         qd_next, None)
        q[:] = q_next
        qd[:] = qd_next
    return status


def step_variant(variant: str, steps: int) -> str:
    """Return one line: compile CPU and CPU per step of ``variant`` (positional or record)."""
    robot = RobotModel.from_urdf_file(example_urdf('panda_description/urdf/panda.urdf'))
    sim = Simulator(robot, dt=1e-3, integrator='rk4')
    sim.step()   # the package's own kernels, from its cache
    block = sim._block.copy()   # the simulator's block as the compiled step reads it
    model = robot._model
    run = run_pos if variant == 'positional' else run_rec
    q0, effort = np.full(robot.nq, 0.3), np.zeros(robot.nv)
    start = time.process_time()
    run(model, q0.copy(), np.zeros(robot.nv), effort, block.copy(), 1)
    compile_cpu = time.process_time() - start
    cpus = []
    for _ in range(7):
        q, qd = q0.copy(), np.zeros(robot.nv)
        start = time.process_time()
        status = run(model, q, qd, effort, block.copy(), steps)
        cpus.append(time.process_time() - start)
    per_step = np.median(cpus) / steps * 1e6
    return (f'{variant:10s}: first call {compile_cpu:.2f} s CPU, {per_step:.2f} '
            f'us CPU per RK4 step (median of 7 x {steps}), status {status}, '
            f'q[:3] {np.array2string(q[:3], precision=12)}, load {os.getloadavg()[0]:.2f}')


Arrays13 = collections.namedtuple('Arrays13', 'a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12')


@numba.njit
def entry_positional(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12):
    """Return a0[0] + a12[0]: an entry of 13 positional arrays."""
    return a0[0] + a12[0]


@numba.njit
def entry_record(record):
    """Return a0[0] + a12[0] of one Arrays13 record."""
    return record.a0[0] + record.a12[0]


def boundary() -> str:
    """Return the CPU time per call from Python of entry_positional and entry_record."""
    arrays = [np.zeros(4) for _ in range(13)]
    record = Arrays13(*arrays)
    entry_positional(*arrays)
    entry_record(record)
    best = {'positional': [], 'record': []}
    for _ in range(5):
        for name, call in (('positional', lambda: entry_positional(*arrays)),
                           ('record', lambda: entry_record(record))):
            start = time.process_time()
            for _ in range(20000):
                call()
            best[name].append((time.process_time() - start) / 20000 * 1e6)
    return ', '.join(f'{name} {min(times):.2f} us' for name, times in best.items())


def main() -> int:
    """Run the step variants in fresh processes, alternated, then the boundary timing."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--rounds', type=int, default=3, help='alternated process pairs')
    parser.add_argument('--steps', type=int, default=5000, help='RK4 steps per timing run')
    parser.add_argument('--variant', choices=('positional', 'record'), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.variant:
        print(step_variant(options.variant, options.steps))
        return 0
    print(f'# records against positional arguments, load {os.getloadavg()[0]:.2f}')
    for k in range(options.rounds):
        order = ('positional', 'record') if k % 2 == 0 else ('record', 'positional')
        for variant in order:
            result = subprocess.run([sys.executable, __file__, '--variant', variant, '--steps',
                                     str(options.steps)], capture_output=True, text=True,
                                    check=True)
            print(result.stdout.strip())
    print(f'from Python, CPU per call (best of 5 x 20000): {boundary()}')
    print(f'load {os.getloadavg()[0]:.2f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
