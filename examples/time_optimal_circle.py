# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Ghosal's 2R circle in minimum time under effort limits (docs/time_optimal.md).

The planar 2R arm of Ghosal's NPTEL notes (urdf/planar_2r.urdf) traces the
circle of centre (1.2, 1.2) m and radius 0.2 m once, from rest to rest, as fast
as effort limits of 300 N m (shoulder) and 100 N m (elbow) and the URDF's
10 rad/s allow (``ros_dynamics.time_optimal_trajectory``); then with 0.5 kg m^2
of armature on each joint, a 2 kg payload at the tool, and viscous (5 N m s/rad)
plus Coulomb (3 N m) joint friction. For comparison, the fastest constant-speed
traversal under the same limits (found by bisection on the period). The path is
the inverse kinematics of 73 points of the circle (elbow up, the notes'
convention), a not-a-knot spline over their joint-space chord length.

    .venv/bin/python examples/time_optimal_circle.py [--plot DIR]

``--plot DIR`` runs ``ros-dynamics retime`` on the rigid-body case and writes
its phase.png and efforts.png into DIR.
"""

import argparse
import os
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ros_dynamics import RobotModel, time_optimal_trajectory  # noqa: E402
from ros_dynamics.time_optimal import SplinePath  # noqa: E402

URDF = os.path.join(ROOT, 'urdf', 'planar_2r.urdf')
EFFORT = {'shoulder': 300.0, 'elbow': 100.0}     # N m, the limits stated here
CENTER, RADIUS = np.array([1.2, 1.2]), 0.2


def inverse_kinematics(x: float, z: float, l1: float = 1.0, l2: float = 1.0) -> np.ndarray:
    """Return (shoulder, elbow) reaching (x, z), elbow angle positive (the notes' convention)."""
    cos_elbow = (x * x + z * z - l1 * l1 - l2 * l2) / (2.0 * l1 * l2)
    elbow = np.arccos(np.clip(cos_elbow, -1.0, 1.0))
    shoulder = np.arctan2(z, x) - np.arctan2(l2 * np.sin(elbow), l1 + l2 * np.cos(elbow))
    return np.array([shoulder, elbow])


def circle_path(points: int = 73) -> np.ndarray:
    """Return the joint waypoints (points, 2) of one revolution from (1.4, 1.2) m."""
    angles = np.linspace(0.0, 2.0 * np.pi, points)
    return np.array([inverse_kinematics(*(CENTER + RADIUS * np.array([np.cos(a), np.sin(a)])))
                     for a in angles])


def actuators(armature: float = 0.0, viscous: float = 0.0, coulomb: float = 0.0) -> dict:
    """Return the actuators mapping: the effort limits above and the given terms per joint."""
    return {'joints': {name: {'effort_limit': limit, 'armature': armature, 'viscous': viscous,
                              'coulomb': coulomb} for name, limit in EFFORT.items()}}


def constant_speed_period(robot: RobotModel, waypoints: np.ndarray, friction: bool) -> float:
    """Return the shortest period of a constant path speed (no start/stop) within the limits."""
    path = SplinePath(waypoints)
    s = np.linspace(*path.domain, 4001)
    q, dq, ddq = path.evaluate(s)
    length = path.domain[1] - path.domain[0]

    def feasible(period: float) -> bool:
        speed = length / period
        qd, qdd = dq * speed, ddq * speed ** 2
        tau = robot.inverse_dynamics(q, qd, qdd, friction=friction)
        return bool(np.all(np.abs(tau) <= robot.effort_limit)
                    and np.all(np.abs(qd) <= robot.velocity_limit))

    low, high = 1e-3, 1e3
    for _ in range(60):
        middle = np.sqrt(low * high)
        low, high = (low, middle) if feasible(middle) else (middle, high)
    return high


def main() -> None:
    """Time the circle in the four cases and print a table (and plot with --plot)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--plot', metavar='DIR', help='write phase.png and efforts.png')
    arguments = parser.parse_args()
    waypoints = circle_path()
    cases = [('rigid bodies', actuators(), None, False),
             ('+ armature 0.5 kg m^2', actuators(armature=0.5), None, False),
             ('+ payload 2 kg at the tool', actuators(), ('tool', 2.0), False),
             ('+ friction 5 N m s/rad, 3 N m', actuators(viscous=5.0, coulomb=3.0), None, True)]
    print('| case | minimum time (s) | constant speed (s) | binding limits (share of the time) |')
    print('|---|---|---|---|')
    for label, mapping, payload, friction in cases:
        robot = RobotModel.from_urdf_file(URDF, actuators=mapping)
        if payload:
            robot.set_payload(payload[0], payload[1])
        trajectory = time_optimal_trajectory(robot, waypoints, friction=friction)
        assert max(trajectory.limit_ratios.values()) <= 1.0
        shares = {}
        for segment in trajectory.binding:
            shares[segment.limit] = shares.get(segment.limit, 0.0) + (
                segment.t_end - segment.t_start) / trajectory.duration
        binding = ', '.join(f'{name} {100 * share:.0f} %' for name, share in
                            sorted(shares.items(), key=lambda item: -item[1]))
        print(f'| {label} | {trajectory.duration:.4f} | '
              f'{constant_speed_period(robot, waypoints, friction):.4f} | {binding} |')
    if arguments.plot:
        import yaml
        from ros_dynamics.cli import main as cli
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, 'circle.csv')
            np.savetxt(path, np.column_stack((np.arange(len(waypoints)), waypoints)),
                       delimiter=',', header='time,shoulder,elbow', comments='')
            limits = os.path.join(directory, 'actuators.yaml')
            with open(limits, 'w', encoding='utf-8') as stream:
                yaml.safe_dump(actuators(), stream)
            status = cli(['retime', URDF, path, '--actuators', limits, '--plot', arguments.plot,
                          '--no-progress'])
        assert status == 0


if __name__ == '__main__':
    main()
