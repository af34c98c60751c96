# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Where the articulated-body algorithm's time goes, and what joint-aligned frames gain.

    scripts/with_ros.sh python benchmarks/bench_aba.py [--repeats 15] [--states 2000]

Three ABA kernels run side by side in one process on example-robot-data's
Panda (9 dof, fingers as coordinates) and Talos reduced (32 dof), random
states in [-1, 1]:

- ``body``: the ABA in URDF body frames (a general joint axis S_i, X_J by
  Rodrigues' formula composed with the tree rotation), kept here as the
  reference it replaced;
- ``aligned``: ros_dynamics.kernels.aba.aba_into, in joint-aligned frames
  (S_i = e_z, X_J = T Rz(q); joints.aligned_columns);
- ``lanes``: the same aba_into compiled for LaneArrays (ros_dynamics.runtime.lanes),
  4 states a call in the lanes of a vector register, as the rollouts run it
  (time per state; its results must equal ``aligned``'s bit for bit);
- each pass alone: the ``body`` and ``aligned`` kernels stopped after pass 1
  (velocities, bias terms, rigid inertias), after pass 2 (articulated
  inertias and forces, leaves to root); the full kernel adds pass 3.

Times are CPU (process) time per evaluation, the best of ``--repeats``
interleaved runs over ``--states`` states each (so both kernels see the
same load), printed with the load average; ``--armature`` sets every
joint's armature (then pass 2 adds a rank-one term, or takes the general
path where the armature exceeds the joint's own inertia U_z). Then an
RK4 floor: 1000 steps of dt = 1 ms from one state, four ABA calls a step,
with each kernel.
"""

import argparse
import math
import os
import sys
import time

import numba
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'test'))

from robot_data import example_urdf  # noqa: E402
from ros_dynamics import RobotModel  # noqa: E402,I100
from ros_dynamics.description.urdf import parse_urdf_file  # noqa: E402
from ros_dynamics.kernels import aba  # noqa: E402,I100
from ros_dynamics.multibody.joints import (armature_of, body_count, gravity_of,  # noqa: E402
                                           joint_rate, joint_transform, parent_of, rigid_inertia,
                                           subspace_column, velocity_index)
from ros_dynamics.multibody.layouts import (ABA_BIAS_V, ABA_BIAS_W, ABA_D, ABA_IA_A,  # noqa: E402
                                            ABA_IA_B, ABA_IA_C, ABA_PA_F, ABA_PA_N, ABA_POS,
                                            ABA_ROT, ABA_SMALL_U, ABA_U_V, ABA_U_W, ABA_VEL_V,
                                            ABA_VEL_W, NABA)
from ros_dynamics.multibody.spatial import (add, articulated_times,  # noqa: E402
                                            articulated_to_parent, cross_force, cross_motion, dot,
                                            force_to_parent, load3, load9, mat_add,
                                            motion_to_child, outer, rigid_inertia_times, scale,
                                            skew, store3, store9)
from ros_dynamics.runtime.lanes import as_lanes, LANES  # noqa: E402

ROBOTS = [('Panda', 'panda_description/urdf/panda.urdf'),
          ('Talos reduced', 'talos_data/robots/talos_reduced.urdf')]


@numba.njit(nogil=True)
def body_frame_aba(model, q, qd, tau, work, qdd, passes):
    """ABA in URDF body frames (the kernel before joint-aligned frames), passes 1..``passes``."""
    nb = body_count(model)
    gravity = gravity_of(model)
    zero = (0.0, 0.0, 0.0)
    for i in range(nb):
        rot, r = joint_transform(model, i, q)
        store9(work, i, ABA_ROT, rot)
        store3(work, i, ABA_POS, r)
        parent = parent_of(model, i)
        vw, vv = zero, zero
        if parent >= 0:
            vw, vv = motion_to_child(rot, r, load3(work, parent, ABA_VEL_W),
                                     load3(work, parent, ABA_VEL_V))
        sw, sv = subspace_column(model, i, 0)
        rate = joint_rate(model, i, qd)
        jw, jv = scale(rate, sw), scale(rate, sv)
        vw, vv = add(vw, jw), add(vv, jv)
        cw, cv = cross_motion(vw, vv, jw, jv)
        m, h, ibar = rigid_inertia(model, i)
        iw, iv = rigid_inertia_times(m, h, ibar, vw, vv)
        pn, pf = cross_force(vw, vv, iw, iv)
        store3(work, i, ABA_VEL_W, vw)
        store3(work, i, ABA_VEL_V, vv)
        store3(work, i, ABA_BIAS_W, cw)
        store3(work, i, ABA_BIAS_V, cv)
        store9(work, i, ABA_IA_A, (ibar[0], ibar[3], ibar[4], ibar[3], ibar[1], ibar[5],
                                   ibar[4], ibar[5], ibar[2]))
        store9(work, i, ABA_IA_B, skew(h))
        store9(work, i, ABA_IA_C, (m, 0.0, 0.0, 0.0, m, 0.0, 0.0, 0.0, m))
        store3(work, i, ABA_PA_N, pn)
        store3(work, i, ABA_PA_F, pf)
    if passes < 2:
        return -1
    for i in range(nb - 1, -1, -1):
        a, b, c = load9(work, i, ABA_IA_A), load9(work, i, ABA_IA_B), load9(work, i, ABA_IA_C)
        pn, pf = load3(work, i, ABA_PA_N), load3(work, i, ABA_PA_F)
        sw, sv = subspace_column(model, i, 0)
        uw, uv = articulated_times(a, b, c, sw, sv)
        d = dot(sw, uw) + dot(sv, uv) + armature_of(model, i)
        u = tau[velocity_index(model, i)] - dot(sw, pn) - dot(sv, pf)
        store3(work, i, ABA_U_W, uw)
        store3(work, i, ABA_U_V, uv)
        work[i, ABA_D] = d
        work[i, ABA_SMALL_U] = u
        parent = parent_of(model, i)
        if parent < 0:
            continue
        s = -1.0 / d
        a = mat_add(a, outer(scale(s, uw), uw))
        b = mat_add(b, outer(scale(s, uw), uv))
        c = mat_add(c, outer(scale(s, uv), uv))
        cn, cf = articulated_times(a, b, c, load3(work, i, ABA_BIAS_W), load3(work, i, ABA_BIAS_V))
        k = u / d
        pn = add(add(pn, cn), scale(k, uw))
        pf = add(add(pf, cf), scale(k, uv))
        rot, r = load9(work, i, ABA_ROT), load3(work, i, ABA_POS)
        ap, bp, cp = articulated_to_parent(rot, r, a, b, c)
        store9(work, parent, ABA_IA_A, mat_add(load9(work, parent, ABA_IA_A), ap))
        store9(work, parent, ABA_IA_B, mat_add(load9(work, parent, ABA_IA_B), bp))
        store9(work, parent, ABA_IA_C, mat_add(load9(work, parent, ABA_IA_C), cp))
        pn, pf = force_to_parent(rot, r, pn, pf)
        store3(work, parent, ABA_PA_N, add(load3(work, parent, ABA_PA_N), pn))
        store3(work, parent, ABA_PA_F, add(load3(work, parent, ABA_PA_F), pf))
    if passes < 3:
        return -1
    for i in range(nb):
        parent = parent_of(model, i)
        rot, r = load9(work, i, ABA_ROT), load3(work, i, ABA_POS)
        if parent < 0:
            aw, av = motion_to_child(rot, r, zero, (-gravity[0], -gravity[1], -gravity[2]))
        else:
            aw, av = motion_to_child(rot, r, load3(work, parent, ABA_VEL_W),
                                     load3(work, parent, ABA_VEL_V))
        aw = add(aw, load3(work, i, ABA_BIAS_W))
        av = add(av, load3(work, i, ABA_BIAS_V))
        sw, sv = subspace_column(model, i, 0)
        acc = (work[i, ABA_SMALL_U] - dot(load3(work, i, ABA_U_W), aw)
               - dot(load3(work, i, ABA_U_V), av)) / work[i, ABA_D]
        qdd[velocity_index(model, i)] = acc
        store3(work, i, ABA_VEL_W, add(aw, scale(acc, sw)))
        store3(work, i, ABA_VEL_V, add(av, scale(acc, sv)))
    return -1


@numba.njit(nogil=True)
def body_frame_batch(model, q, qd, tau, work, qdd, passes):
    """Run body_frame_aba over the states (rows)."""
    for s in range(q.shape[0]):
        body_frame_aba(model, q[s], qd[s], tau[s], work, qdd[s], passes)


@numba.njit(nogil=True)
def aligned_batch(model, q, qd, tau, work, qdd, passes):
    """Run ros_dynamics' aba_into (or its first passes) over the states (rows)."""
    for s in range(q.shape[0]):
        if passes == 3:
            aba.aba_into(model, q[s], qd[s], tau[s], None, work, qdd[s])
        else:
            aba.aba_velocities(model, q[s], qd[s], None, work)
            if passes == 2:
                aba.aba_articulated(model, tau[s], work)


@numba.njit(nogil=True)
def lanes_batch(model, q, qd, tau, work, qdd):
    """
    Run aba_into on groups of LANES states: q, qd, tau, qdd (groups, dof, LANES).

    Where the group's kernel exits early (a lane singular, or lanes on both
    sides of the armature branch) its states are run one at a time with the
    scalar kernel, as the rollouts do (rollouts/lanes.group_accelerations).
    """
    n = q.shape[1]
    rows, scalar_work = np.empty((4, n)), np.empty((work.shape[0], work.shape[1]))
    for g in range(q.shape[0]):
        if aba.aba_into(model, as_lanes(q[g]), as_lanes(qd[g]), as_lanes(tau[g]), None,
                        as_lanes(work), as_lanes(qdd[g])) < 0:
            continue
        for j in range(LANES):
            for i in range(n):
                rows[0, i], rows[1, i], rows[2, i] = q[g, i, j], qd[g, i, j], tau[g, i, j]
            aba.aba_into(model, rows[0], rows[1], rows[2], None, scalar_work, rows[3])
            for i in range(n):
                qdd[g, i, j] = rows[3, i]


def in_groups(states: np.ndarray) -> np.ndarray:
    """Return (N, dof) states as (N / LANES, dof, LANES) groups (N a multiple of LANES)."""
    return np.ascontiguousarray(states.reshape(-1, LANES, states.shape[1]).transpose(0, 2, 1))


@numba.njit(nogil=True)
def rk4_floor(model, q, qd, tau, work, k, steps, dt, aligned):
    """
    Integrate ``steps`` RK4-like steps in place: four ABA a step, aba_into or body_frame_aba.

    k (4, dof) scratch. The floor of an RK4 step's cost (its stage sums
    simplified), for the two kernels on equal terms.
    """
    n = q.shape[0]
    qs, qds = np.empty(n), np.empty(n)
    for _ in range(steps):
        for stage in range(4):
            h = 0.0 if stage == 0 else (dt if stage == 3 else 0.5 * dt)
            for j in range(n):
                qs[j] = q[j] + h * qd[j]
                qds[j] = qd[j] + h * (k[stage - 1, j] if stage > 0 else 0.0)
            if aligned:
                aba.aba_into(model, qs, qds, tau, None, work, k[stage])
            else:
                body_frame_aba(model, qs, qds, tau, work, k[stage], 3)
        for j in range(n):
            q[j] += dt * qd[j]
            qd[j] += dt / 6.0 * (k[0, j] + 2.0 * k[1, j] + 2.0 * k[2, j] + k[3, j])


def cpu_best(runs: dict, repeats: int, count: int) -> dict:
    """Return the best CPU seconds per ``count`` of each run, interleaved over ``repeats``."""
    best = {name: math.inf for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.process_time()
            run()
            best[name] = min(best[name], (time.process_time() - start) / count)
    return best


def main() -> None:
    """Print the per-pass and per-kernel tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--repeats', type=int, default=15, help='interleaved runs (best taken)')
    parser.add_argument('--states', type=int, default=2000, help='states a run (a multiple of 4)')
    parser.add_argument('--armature', type=float, default=0.0,
                        help='armature of every joint (kg m^2 or kg; default 0)')
    args = parser.parse_args()
    if args.states % LANES:
        parser.error(f'--states: a multiple of {LANES}')
    now = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
    print(f'ABA kernels, CPU us per evaluation, {now}, {os.cpu_count()} cores, '
          f'load average {os.getloadavg()[0]:.2f} (shared machine)')
    for label, relative in ROBOTS:
        robot = RobotModel(parse_urdf_file(example_urdf(relative)), mimic=False)
        robot.armature = np.full(robot.dof, args.armature)
        model = robot._model
        rng = np.random.default_rng(0)
        q, qd, tau = (rng.uniform(-1.0, 1.0, (args.states, robot.dof)) for _ in range(3))
        work = np.zeros((body_count(model), NABA))
        out = np.zeros((args.states, robot.dof)), np.zeros((args.states, robot.dof))
        body_frame_batch(model, q, qd, tau, work, out[0], 3)
        aligned_batch(model, q, qd, tau, work, out[1], 3)
        error = np.max(np.abs(out[0] - out[1])) / max(1.0, np.max(np.abs(out[0])))
        groups = [in_groups(x) for x in (q, qd, tau)]
        lane_work = np.zeros((body_count(model), NABA, LANES))
        lane_out = np.zeros_like(groups[0])
        lanes_batch(model, *groups, lane_work, lane_out)
        same_bits = np.array_equal(in_groups(out[1]), lane_out)
        runs = {'lanes': lambda: lanes_batch(model, *groups, lane_work, lane_out)}
        for passes in (1, 2, 3):
            runs[f'body {passes}'] = (lambda p=passes: body_frame_batch(model, q, qd, tau, work,
                                                                        out[0], p))
            runs[f'aligned {passes}'] = (lambda p=passes: aligned_batch(model, q, qd, tau, work,
                                                                        out[1], p))
        for run in runs.values():
            run()
        best = cpu_best(runs, args.repeats, args.states)
        print(f'\n{label} ({robot.dof} dof, armature {args.armature:g}), relative difference '
              f'of qdd {error:.1e}, load {os.getloadavg()[0]:.2f}')
        print(f'{"kernel":10} {"pass 1":>8} {"pass 2":>8} {"pass 3":>8} {"total":>8}')
        for name in ('body', 'aligned'):
            t = [best[f'{name} {p}'] * 1e6 for p in (1, 2, 3)]
            print(f'{name:10} {t[0]:8.3f} {t[1] - t[0]:8.3f} {t[2] - t[1]:8.3f} {t[2]:8.3f}')
        print(f'{"lanes":10} {"":8} {"":8} {"":8} {best["lanes"] * 1e6:8.3f}   (a state, '
              f"{LANES} a call; bit for bit aligned's: {same_bits})")
        print(f'aligned / body: {best["aligned 3"] / best["body 3"]:.3f}; lanes / aligned: '
              f'{best["lanes"] / best["aligned 3"]:.3f}')
        steps, dt = 1000, 1e-3
        k = np.zeros((4, robot.dof))
        start = (rng.uniform(-0.3, 0.3, robot.dof), rng.uniform(-0.3, 0.3, robot.dof))
        ends = {}

        def integrate(name):
            x = (start[0].copy(), start[1].copy())
            rk4_floor(model, x[0], x[1], np.zeros(robot.dof), work, k, steps, dt,
                      name == 'aligned')
            ends[name] = x[0]
        rk4 = {'body': lambda: integrate('body'), 'aligned': lambda: integrate('aligned')}
        for run in rk4.values():
            run()
        best = cpu_best(rk4, args.repeats, steps)
        print(f'RK4 step (4 ABA), CPU us: body {best["body"] * 1e6:.3f}, aligned '
              f'{best["aligned"] * 1e6:.3f}, ratio {best["aligned"] / best["body"]:.3f}; '
              f'max |dq| after 1 s {np.max(np.abs(ends["body"] - ends["aligned"])):.1e}')


if __name__ == '__main__':
    main()
