#!/usr/bin/env python3
# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The four-bar of Ghosal's NPTEL notes (figures 13-15): spring-driven, folded to locked.

    .venv/bin/python examples/four_bar.py   # prints the numbers, writes docs/images/four_bar_*

Horizontal plane (no gravity), tau = 1.96 - 0.1 theta1 on joint 1, from theta1 = 0.01 rad
with the consistent phi1 and at rest, integrated by solve_ivp (RK45, the notes' ODE45) until
theta1 = 150 deg; a second run without that stop ends at the singularity event (links 2 and
3 aligned), and the loop-closure drift is compared with and without Baumgarte.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402
from ros_dynamics import RobotModel  # noqa: E402
from ros_dynamics.simulation.closed_chain import ClosedChain  # noqa: E402


def spring(t, q, qd):
    """Return the example's torsional spring torque on joint 1 (N m)."""
    return np.array([1.96 - 0.1 * q[0], 0.0, 0.0])


def main() -> None:
    """Simulate, print the numbers, plot."""
    robot = RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', 'four_bar.urdf'))
    chain = ClosedChain.from_yaml(robot, os.path.join(ROOT, 'config', 'four_bar_loops.yaml'))
    q0, _ = chain.project([0.01, 0.0, 0.0], fixed=[0])
    run = chain.simulate(q0, np.zeros(3), 14.0, spring, dt=0.01, method='RK45', rtol=1e-9,
                         atol=1e-11, stop=lambda t, q, qd: q[0] - np.radians(150.0))
    locked = chain.simulate(q0, np.zeros(3), 14.0, spring, dt=0.01, method='RK45', rtol=1e-9,
                            atol=1e-11)
    print(f'end: {locked["end"]}, last regular sample theta1 = '
          f'{np.degrees(locked["q"][-1, 0]):.3f} deg, |lambda| = '
          f'{np.linalg.norm(locked["lambda"][-1]):.0f} N')
    print(f'  {locked["singularity"]}')
    for label, options in (('RK4 dt 0.05 s', {}),
                           ('RK45 rtol 1e-4', {'method': 'RK45', 'rtol': 1e-4, 'atol': 1e-6})):
        for gains in ((0.0, 0.0), (10.0, 10.0)):
            drift = chain.simulate(q0, np.zeros(3), 12.0, spring, dt=0.05, alpha=gains[0],
                                   beta=gains[1], **options)
            error = max(np.abs(chain.residual(q)).max() for q in drift['q'])
            print(f'  {label}, alpha = beta = {gains[0]:g}: max |phi| to 12 s = {error:.2e} m')
    theta1, phi2, phi1 = np.degrees(run['q']).T
    phi2_absolute = theta1 + phi2   # the notes plot link 2's angle from the ground
    print(f'initial phi1 = {q0[2]:.4f} rad (notes: 0.0102); theta1 = 150 deg at '
          f't = {run["t"][-1]:.3f} s (notes: 12.25 s)')
    force = np.linalg.norm(run['lambda'], axis=1)
    for t in (6.0, 10.0, 12.0, run['t'][-1]):
        k = min(np.searchsorted(run['t'], t), len(force) - 1)
        print(f'  t = {run["t"][k]:6.3f} s: theta1 {theta1[k]:7.2f} deg, '
              f'|lambda| {force[k]:9.3f} N')
    # plots: the run up to the singularity event (the last regular sample)
    theta1, phi2, phi1 = np.degrees(locked['q']).T
    phi2_absolute = theta1 + phi2
    run = locked
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    figure, axis = plt.subplots(figsize=(6, 4))
    axis.plot(run['t'], theta1, label='theta1 (link 1)')
    axis.plot(run['t'], phi1, label='phi1 (link 3)')
    axis.plot(run['t'], phi2_absolute, label='theta1 + phi2 (link 2)')
    axis.set_xlabel('t (s)')
    axis.set_ylabel('angle (deg)')
    axis.set_title("four-bar: joint angles (cf. Ghosal's fig. 14)")
    axis.legend()
    paths = [os.path.join(ROOT, 'docs', 'images', 'four_bar_angles.png')]
    figure.savefig(paths[-1], dpi=100, bbox_inches='tight')
    figure, axis = plt.subplots(figsize=(6, 4))
    axis.plot(run['t'], run['lambda'][:, 0], label='lambda_x')
    axis.plot(run['t'], run['lambda'][:, 1], label='lambda_y')
    axis.set_xlabel('t (s)')
    axis.set_ylabel('constraint force at O3 (N)')
    axis.set_title("four-bar: Lagrange multipliers (cf. Ghosal's fig. 15)")
    axis.legend()
    paths.append(os.path.join(ROOT, 'docs', 'images', 'four_bar_lambda.png'))
    figure.savefig(paths[-1], dpi=100, bbox_inches='tight')
    for path in paths:
        print('wrote', os.path.relpath(path, ROOT))


if __name__ == '__main__':
    main()
