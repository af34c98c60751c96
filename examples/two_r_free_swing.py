#!/usr/bin/env python3
# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The planar 2R free swing of Ghosal's NPTEL notes, offline, without ROS.

The arm of urdf/planar_2r.urdf (the notes' link table; its joint angles are
the notes' theta) starts at rest at theta = (-90 deg, 45 deg) with zero torque
and swings for 5 s. It is integrated with the fixed-step RK4 simulator at 1 ms
and adaptively with scipy's Radau (the notes' ODE15S counterpart); the script
prints the difference between the two and the total-energy drift, and with
``--plot PATH`` writes the joint angles over time as a PNG (matplotlib).

    .venv/bin/python examples/two_r_free_swing.py [--plot two_r_free_swing.png]
"""

import argparse
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ros_dynamics import RobotModel  # noqa: E402
from ros_dynamics.simulation.simulator import simulate, Simulator  # noqa: E402


def main() -> None:
    """Run the free swing and report (optionally plot) it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--plot', help='write a PNG of the joint angles to this path')
    parser.add_argument('--t-final', type=float, default=5.0)
    args = parser.parse_args()

    robot = RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', 'planar_2r.urdf'))
    q0, qd0 = np.radians([-90.0, 45.0]), np.zeros(2)
    options = {'damping': False, 'friction': False, 'limits': False}
    t, q, qd = simulate(robot, q0, qd0, args.t_final, dt=1e-3, **options)
    _, q_radau, _ = simulate(robot, q0, qd0, args.t_final, dt=1e-3, method='Radau',
                             rtol=1e-10, atol=1e-12, **options)
    energy = np.array([robot.kinetic_energy(a, b) + robot.potential_energy(a)
                       for a, b in zip(q, qd)])
    sim = Simulator(robot, q0=q0, qd0=qd0, **options)
    print(f'2R free swing, {args.t_final:g} s, {len(t) - 1} RK4 steps of 1 ms')
    print(f'  theta1 range [{np.degrees(q[:, 0].min()):.2f}, '
          f'{np.degrees(q[:, 0].max()):.2f}] deg, '
          f'theta2 range [{np.degrees(q[:, 1].min()):.2f}, {np.degrees(q[:, 1].max()):.2f}] deg')
    print(f'  max |q_rk4 - q_radau| = {np.max(np.abs(q - q_radau)):.3e} rad')
    drift = np.max(np.abs(energy - energy[0]))
    print(f'  energy {sim.energy():.6f} J, max |E - E0| = {drift:.3e} J')
    if args.plot:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4))
        ax.plot(t, np.degrees(q[:, 0]), label='theta1 (RK4, 1 ms)')
        ax.plot(t, np.degrees(q[:, 1]), label='theta2 (RK4, 1 ms)')
        ax.plot(t[::50], np.degrees(q_radau[::50, 0]), 'k.', markersize=3, label='Radau')
        ax.plot(t[::50], np.degrees(q_radau[::50, 1]), 'k.', markersize=3)
        ax.set_xlabel('t [s]')
        ax.set_ylabel('angle [deg]')
        ax.set_title('Planar 2R free swing from (-90, 45) deg')
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
        print(f'  plot written to {args.plot}')


if __name__ == '__main__':
    main()
