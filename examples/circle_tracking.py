#!/usr/bin/env python3
# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The circle of Ghosal's 2R example (NPTEL notes) tracked in closed loop, offline.

A Cartesian impedance controller on operational-space dynamics
(``ros_dynamics.control.impedance.CartesianImpedance``) drives the simulator
(``ros_dynamics.simulation.simulator``, RK4 at 1 ms, the controller at 1 kHz with a
zero-order hold) along a circle of radius 0.2 m around (1.2, 1.2) m, one
revolution in 10 s, for Ghosal's planar 2R arm (urdf/planar_2r.urdf, plane
x-z), and along a 0.1 m circle in the x-z plane for the Panda arm
(urdf/panda_arm.urdf, full 6-D task: the hand keeps its orientation). For the
2R arm the closed-loop torques are compared with the open-loop inverse
dynamics of the same circle (analytic inverse kinematics + RNEA).

    .venv/bin/python examples/circle_tracking.py      # prints the table, writes docs/images/
"""

import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ros_dynamics import RobotModel  # noqa: E402
from ros_dynamics.control.impedance import CartesianImpedance  # noqa: E402
from ros_dynamics.control.trajectories import circle  # noqa: E402
from ros_dynamics.simulation.simulator import simulate  # noqa: E402

PERIOD = 10.0
KP, KD = 400.0, 40.0   # 1/s^2, 1/s: critically damped, natural frequency 20 rad/s


def two_r_inverse_kinematics(x: float, z: float, l1: float = 1.0, l2: float = 1.0) -> np.ndarray:
    """Return (shoulder, elbow) reaching (x, z), elbow angle positive (the notes' convention)."""
    cos_elbow = (x * x + z * z - l1 * l1 - l2 * l2) / (2.0 * l1 * l2)
    elbow = np.arccos(np.clip(cos_elbow, -1.0, 1.0))
    shoulder = np.arctan2(z, x) - np.arctan2(l2 * np.sin(elbow), l1 + l2 * np.cos(elbow))
    return np.array([shoulder, elbow])


def track(robot: RobotModel, link: str, controller: CartesianImpedance, q0: np.ndarray,
          center, radius: float, orientation=None, duration: float = PERIOD,
          dt: float = 1e-3) -> dict:
    """Simulate the closed loop over ``duration``; return times, targets, positions, torques."""
    axes = list(controller.axes)
    _, twist0, _ = circle(0.0, center, radius, PERIOD, orientation=orientation)
    qd0 = np.linalg.pinv(robot.jacobian(q0, link)[axes]) @ twist0[axes]   # start on the path
    torques = {}

    def effort(t, q, qd):
        target, twist, acceleration = circle(t, center, radius, PERIOD, orientation=orientation)
        tau, _, _ = controller.torque(q, qd, target, twist, acceleration)
        torques[round(t / dt)] = tau
        return tau
    times, q, qd = simulate(robot, q0, qd0, duration, dt=dt, effort=effort)
    targets = np.array([circle(t, center, radius, PERIOD)[0][:3, 3] for t in times])
    positions = np.array([robot.link_pose(qk, link)[:3, 3] for qk in q])
    tau = np.array([torques.get(k, torques[max(torques)]) for k in range(len(times))])
    error = np.linalg.norm(positions - targets, axis=1)
    return {'times': times, 'q': q, 'qd': qd, 'targets': targets, 'positions': positions,
            'torques': tau, 'error': error,
            'rms': float(np.sqrt(np.mean(error ** 2))), 'max': float(error.max())}


def two_r_circle(duration: float = PERIOD) -> dict:
    """Track the example's circle with its 2R arm."""
    robot = RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', 'planar_2r.urdf'))
    center, radius = np.array([1.2, 0.0, 1.2]), 0.2
    q0 = two_r_inverse_kinematics(center[0] + radius, center[2])
    controller = CartesianImpedance(robot, 'tool', kp=[KP] * 6, kd=[KD] * 6, axes=(0, 2),
                                    null_damping=0.0)
    result = track(robot, 'tool', controller, q0, center, radius, duration=duration)
    result['open_loop'] = two_r_open_loop(robot, result['times'], center, radius)
    return result


def two_r_open_loop(robot: RobotModel, times: np.ndarray, center, radius: float) -> np.ndarray:
    """Return the inverse-dynamics torques of the exact circle (IK + RNEA), one row per time."""
    rows = []
    for t in times:
        pose, twist, acceleration = circle(t, center, radius, PERIOD)
        q = two_r_inverse_kinematics(pose[0, 3], pose[2, 3])
        jac = robot.jacobian(q, 'tool')[[0, 2]]
        qd = np.linalg.solve(jac, twist[[0, 2]])
        jdot_qd = robot.jacobian_dot_qd(q, qd, 'tool')[[0, 2]]
        qdd = np.linalg.solve(jac, acceleration[[0, 2]] - jdot_qd)
        rows.append(robot.inverse_dynamics(q, qd, qdd))
    return np.array(rows)


def panda_circle(duration: float = PERIOD) -> dict:
    """Track a 0.1 m circle in the x-z plane with the Panda hand, orientation held."""
    robot = RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', 'panda_arm.urdf'))
    q0 = np.array([0.0, -0.3, 0.0, -2.2, 0.0, 1.9, 0.785])
    start = robot.link_pose(q0, 'panda_hand_tcp')
    radius = 0.1
    center = start[:3, 3] - np.array([radius, 0.0, 0.0])
    controller = CartesianImpedance(robot, 'panda_hand_tcp', kp=[KP] * 6, kd=[KD] * 6,
                                    null_damping=2.0, posture_stiffness=10.0, rest=q0)
    return track(robot, 'panda_hand_tcp', controller, q0, center, radius,
                 orientation=start[:3, :3], duration=duration)


def plot(name: str, result: dict, plane=(0, 2), labels=('x (m)', 'z (m)')) -> list:
    """Write the path and torque plots of one run as PNGs; return their paths."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    paths = []
    figure, axis = plt.subplots(figsize=(5, 5))
    axis.plot(result['targets'][:, plane[0]], result['targets'][:, plane[1]], 'k--',
              label='target')
    axis.plot(result['positions'][:, plane[0]], result['positions'][:, plane[1]], 'C1',
              label=f'actual (RMS error {result["rms"] * 1e3:.3f} mm)')
    axis.set_aspect('equal')
    axis.set_xlabel(labels[0])
    axis.set_ylabel(labels[1])
    axis.legend(loc='upper right', fontsize=8)
    axis.set_title(f'{name}: circle tracking')
    paths.append(os.path.join(ROOT, 'docs', 'images', f'circle_{name}_path.png'))
    figure.savefig(paths[-1], dpi=100, bbox_inches='tight')
    figure, axis = plt.subplots(figsize=(7, 4))
    for k in range(result['torques'].shape[1]):
        axis.plot(result['times'], result['torques'][:, k], label=f'joint {k + 1}')
        if 'open_loop' in result:
            axis.plot(result['times'], result['open_loop'][:, k], 'k:', linewidth=1)
    axis.set_xlabel('t (s)')
    axis.set_ylabel('torque (N m)')
    title = f'{name}: joint torques over one revolution'
    if 'open_loop' in result:
        title += ' (dotted: open-loop inverse dynamics)'
    axis.set_title(title, fontsize=9)
    axis.legend(fontsize=7, ncol=4)
    paths.append(os.path.join(ROOT, 'docs', 'images', f'circle_{name}_torques.png'))
    figure.savefig(paths[-1], dpi=100, bbox_inches='tight')
    return paths


def main() -> None:
    """Run both robots, print the table, write the plots."""
    two_r, panda = two_r_circle(), panda_circle()
    difference = two_r['torques'] - two_r['open_loop']
    print('| robot | RMS error (mm) | max error (mm) | peak torque (N m) |')
    print('|---|---|---|---|')
    for name, result in (("planar 2R (Ghosal's example)", two_r), ('Panda arm', panda)):
        peaks = ', '.join(f'{v:.1f}' for v in np.abs(result['torques']).max(axis=0))
        print(f'| {name} | {result["rms"] * 1e3:.4f} | {result["max"] * 1e3:.4f} | {peaks} |')
    print(f'2R closed loop vs open-loop inverse dynamics: max |difference| '
          f'{np.abs(difference).max():.4f} N m, RMS {np.sqrt(np.mean(difference ** 2)):.4f} N m')
    for path in plot('planar_2r', two_r) + plot('panda', panda):
        print('wrote', os.path.relpath(path, ROOT))


if __name__ == '__main__':
    main()
