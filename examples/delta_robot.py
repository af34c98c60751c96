#!/usr/bin/env python3
# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The Delta robot of urdf/delta_rl5.urdf, a spatial closed chain, in the fixed-step Simulator.

    .venv/bin/python examples/delta_robot.py   # prints the numbers of docs/closed_chains.md

The closed-form kinematics below (each leg's elbow on a sphere of radius l2 around its
platform joint; Williams, "The Delta Parallel Robot: Kinematics Solutions", 2016) give the
assembled configurations; test/test_delta_robot.py uses them as its independent oracle.
"""

import math
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402
from ros_dynamics import RobotModel  # noqa: E402
from ros_dynamics.simulation.closed_chain import ClosedChain  # noqa: E402
from ros_dynamics.simulation.simulator import SimulationSingular, Simulator  # noqa: E402

# Alikoc et al., github.com/testbedCIIRC/delta-robot-public (see the URDF's header), m
R0, L1, L2, R3 = 0.330, 0.420, 1.055, 0.125
PHI = np.radians([0.0, 120.0, 240.0])       # the legs' directions around the base


def leg_frame_point(platform, phi: float) -> np.ndarray:
    """Return a leg's platform joint in the leg's frame (x radial, z up) for a platform centre."""
    c, s = math.cos(phi), math.sin(phi)
    return np.array([c * platform[0] + s * platform[1] + R3, -s * platform[0] + c * platform[1],
                     platform[2]])


def shoulder_angles(platform) -> np.ndarray:
    """
    Return the three shoulder angles (rad, positive = arm down) for a platform centre (m).

    Leg i's elbow E = (r0 + l1 cos t, 0, -l1 sin t) lies at l2 from its platform joint P:
    -2 u l1 cos t + 2 w l1 sin t = l2^2 - l1^2 - u^2 - y^2 - w^2 with (u, y, w) = P - (r0, 0, 0),
    solved as A cos t + B sin t = C; the elbow-out solution (|t| smallest) is taken.
    """
    angles = []
    for phi in PHI:
        point = leg_frame_point(platform, phi)
        u, w = point[0] - R0, point[2]
        a, b = -2.0 * u * L1, 2.0 * w * L1
        c = L2 ** 2 - L1 ** 2 - u ** 2 - point[1] ** 2 - w ** 2
        centre, half = math.atan2(b, a), math.acos(c / math.hypot(a, b))
        angles.append(min(centre - half, centre + half,
                          key=lambda t: abs(math.atan2(math.sin(t), math.cos(t)))))
    return np.array(angles)


def assembled(platform) -> np.ndarray:
    """Return the 15 joint coordinates with the platform centre at ``platform``, unrotated."""
    q = []
    for phi, theta in zip(PHI, shoulder_angles(platform)):
        point = leg_frame_point(platform, phi)
        elbow = np.array([R0 + L1 * math.cos(theta), 0.0, -L1 * math.sin(theta)])
        d = (point - elbow) / L2           # forearm direction, leg frame
        shear = math.asin(d[1])
        bend = math.atan2(-d[2], d[0]) - theta
        q += [theta, bend, shear, -shear, -(theta + bend)]
    return np.array(q)


def free_fall(chain: ClosedChain, q0: np.ndarray, baumgarte: tuple) -> dict:
    """Drop the platform with the motors off; return the run's figures up to the lock."""
    simulator = Simulator(chain.robot, q0=q0, closures=chain, baumgarte=baumgarte,
                          damping=False, friction=False, limits=False)
    energy = simulator.energy()
    drift = residual = 0.0
    end = 'no lock within 2 s'
    start = time.perf_counter()
    steps = 0
    try:
        for steps in range(1, 2001):
            simulator.step()
            drift = max(drift, abs(simulator.energy() - energy) / abs(energy))
            residual = max(residual, simulator.constraint_residual())
    except SimulationSingular:
        end = f'singular configuration at t = {simulator.t:.3f} s'
    return {'end': end, 'drift': drift, 'residual': residual,
            'ms_per_step': (time.perf_counter() - start) / steps * 1e3}


def main() -> None:
    """Print the holding torques, a held platform and free falls with and without Baumgarte."""
    robot = RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', 'delta_rl5.urdf'))
    chain = ClosedChain.from_yaml(robot, os.path.join(ROOT, 'config', 'delta_loops.yaml'))
    platform = (0.05, -0.1, -1.0)
    q0 = assembled(platform)
    print(f'{robot.name}: {robot.dof} coordinates, {chain.m} closure rows, '
          f'{robot.dof - np.linalg.matrix_rank(chain.jacobian(q0))} DoF')
    tau, forces = chain.inverse_dynamics(q0, np.zeros(15), np.zeros(15))
    print(f'platform at {platform} m: holding torques {np.round(tau, 4).tolist()} N m, '
          f'max |lambda| {np.max(np.abs(forces)):.2f}')
    simulator = Simulator(robot, q0=q0, closures=chain)
    effort = np.zeros(15)
    effort[chain.actuated] = tau
    simulator.set_effort(effort)
    simulator.step(1000)
    moved = robot.link_pose(simulator.q, 'leg1_platform')[:3, 3] - platform
    print(f'held for 1 s (RK4, 1 ms): platform moved {np.linalg.norm(moved):.2e} m')
    for baumgarte in ((0.0, 0.0), (10.0, 10.0)):
        run = free_fall(chain, q0, baumgarte)
        print(f'free fall, motors off, Baumgarte {baumgarte}: {run["end"]}; energy drift '
              f'{run["drift"]:.2e} relative; max |phi| {run["residual"]:.2e}; '
              f'{run["ms_per_step"]:.2f} ms per step')


if __name__ == '__main__':
    main()
