# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Lanes (_lanes.py) and the rollouts' groups of LANES that use them.

Lanes must give in each lane bit for bit what the scalar code gives; the
rollouts run their forward dynamics on Lanes, so their results must equal
separate Simulator runs bit for bit, also where lanes fall on both sides
of ABA's armature branch (each takes its own: select_le) and where a
group's ABA hands its lanes back to the scalar kernel (a singular lane).
"""

import math

from numba import njit
import numpy as np
import pytest
from ros_dynamics import RobotModel
from ros_dynamics.rollouts import rollout
from ros_dynamics.runtime.batches import run_batch
from ros_dynamics.runtime.lanes import as_lanes, diverge, lane, LANES, lanes_of
from ros_dynamics.simulation.simulator import SimulationDiverged
from test_rollouts import separate_runs

SPECIAL = np.array([0.0, -0.0, 1.0, -2.5, 1e-308, 5e-324, 1e308, np.inf, -np.inf, np.nan,
                    math.pi, 3.0e-17])


@njit
def lane_arithmetic(x, y, out):
    """out[k] = the k-th expression on Lanes of x and y (LaneArrays (m, LANES))."""
    a, b, o = as_lanes(x), as_lanes(y), as_lanes(out)
    for i in range(x.shape[0]):
        u, v = a[i], b[i]
        o[i, 0] = u + v
        o[i, 1] = u - v
        o[i, 2] = u * v
        o[i, 3] = u / v
        o[i, 4] = -u
        o[i, 5] = 2.0 * u - v / 3.0 + 1
        o[i, 6] = math.sin(u)
        o[i, 7] = math.cos(v)
        o[i, 8] = 0.5    # a float stored in every lane


@njit
def scalar_arithmetic(x, y, out):
    """Write the same expressions on floats, lane by lane."""
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            u, v = x[i, j], y[i, j]
            out[i, 0, j] = u + v
            out[i, 1, j] = u - v
            out[i, 2, j] = u * v
            out[i, 3, j] = u / v if v != 0.0 else np.nan   # numba raises on u / 0.0
            out[i, 4, j] = -u
            out[i, 5, j] = 2.0 * u - v / 3.0 + 1
            out[i, 6, j] = math.sin(u)
            out[i, 7, j] = math.cos(v)
            out[i, 8, j] = 0.5


@njit
def comparisons(a, b):
    """Return the all-lanes comparisons, diverge, lane, lanes_of and shape on (a, b)."""
    u = lanes_of(a[0], a[1], a[2], a[3])
    v = lanes_of(b[0], b[1], b[2], b[3])
    picked = (lane(u, 0), lane(u, 1), lane(u, 2), lane(u, 3))
    return (u < v, u <= v, u > v, u >= v, u < 0.5, diverge(u, v), diverge(1.0, 2.0),
            as_lanes(np.zeros((3, 2, LANES))).shape, picked)


def test_arithmetic_equals_the_scalar_code_bit_for_bit():
    rng = np.random.default_rng(0)
    values = np.concatenate([SPECIAL, rng.normal(0.0, 10.0, 400), rng.uniform(-1e-3, 1e-3, 68)])
    x = rng.permutation(values)[:480].reshape(120, LANES)
    y = rng.permutation(values)[:480].reshape(120, LANES)
    lanes_out, scalar_out = np.empty((120, 9, LANES)), np.empty((120, 9, LANES))
    lane_arithmetic(x, y, lanes_out)
    scalar_arithmetic(x, y, scalar_out)
    division = lanes_out[:, 3]
    zero = y == 0.0   # IEEE: x / 0 is +-inf or NaN, which the scalar line above does not give
    with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
        np.testing.assert_array_equal(division[zero], (x / y)[zero])
    scalar_out[:, 3][zero] = division[zero]
    # bit for bit, signed zeros and NaN included
    assert lanes_out.tobytes() == scalar_out.tobytes()


def test_comparisons_hold_in_every_lane():
    one = np.array([1.0, 2.0, 3.0, 4.0])
    results = comparisons(one, one + 1.0)
    assert results[:5] == (True, True, False, False, False)
    assert results[5] is False and results[6] is False           # 1 <= 2 in every lane
    assert results[7] == (3, 2) and results[8] == (1.0, 2.0, 3.0, 4.0)
    mixed = np.array([0.0, 5.0, 0.0, 5.0])
    results = comparisons(one, mixed)
    assert results[:4] == (False, False, False, False)
    assert results[5] is True                                    # a <= b in lanes 0 and 2 only
    assert comparisons(one, np.array([1.0, 2.0, np.nan, 4.0]))[5] is True   # NaN: not uniform


def test_blocks_are_whole_groups():
    seen = []
    status = run_batch(lambda start, stop: seen.append((start, stop)) or 0, 250,
                       lambda a, b: (a, b), threads=2, blocks_per_thread=10, multiple=LANES)
    seen.sort()
    assert status == 0 and seen[0][0] == 0 and seen[-1][1] == 250
    assert all(a[1] == b[0] for a, b in zip(seen, seen[1:]))
    assert all(start % LANES == 0 for start, _ in seen) and len(seen) >= 10


# joint j1 (z) turns a point mass at distance sin(q2) from its axis, so its articulated inertia
# D_1 = m sin(q2)^2 (+ armature) depends on the state: 0 (singular) at q2 = 0; j0 carries it
# (the armature branch of ABA's second pass is taken for joints with a parent)
POINT_MASS = """<robot name="point_mass">
  <link name="base"/>
  <link name="column"><inertial><mass value="1"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <link name="turn"/>
  <link name="tilt"/>
  <link name="mass"><inertial><mass value="2"/>
    <inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>
  <joint name="j0" type="revolute"><parent link="base"/><child link="column"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="10" velocity="1"/></joint>
  <joint name="j1" type="revolute"><parent link="column"/><child link="turn"/>
    <origin xyz="0.3 0 0.2"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="10" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="turn"/><child link="tilt"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="1"/></joint>
  <joint name="fixed" type="fixed"><parent link="tilt"/><child link="mass"/>
    <origin xyz="0 0 1"/></joint>
</robot>"""


def test_lanes_on_both_sides_of_the_armature_branch_equal_separate_runs():
    """D_1 = 2 sin(q2)^2 below and above the armature 0.1 in one group: lane by lane, exact."""
    robot = RobotModel.from_urdf_string(POINT_MASS)
    robot.armature = [0.0, 0.1, 0.0]
    q2 = np.array([0.1, 0.6, 0.15, 1.2, 0.9, 0.05])   # 2 sin^2: 0.02, 0.64, 0.04, 1.7, 1.2, 0.005
    q0 = np.stack([np.zeros(6), np.zeros(6), q2], axis=1)
    qd0 = np.tile([0.2, 0.3, 0.0], (6, 1))
    efforts = np.random.default_rng(1).uniform(-0.5, 0.5, (6, 80, 3))
    q, qd = rollout(robot, q0, qd0, efforts, threads=1)
    expected_q, expected_qd = separate_runs(robot, q0, qd0, efforts, 1e-3, 'rk4')
    assert np.array_equal(q, expected_q) and np.array_equal(qd, expected_qd)
    assert np.ptp(q[:, -1, 1]) > 1e-3


def test_a_singular_lane_is_refused_alone():
    """Rows 1 and 4 sit at q2 = 0 (D_1 = 0): refused at step 0, the others as separate runs."""
    robot = RobotModel.from_urdf_string(POINT_MASS)
    q0 = np.stack([np.zeros(6), np.zeros(6), [0.5, 0.0, 0.3, 0.7, 0.0, 1.0]], axis=1)
    qd0 = np.zeros((6, 3))
    efforts = np.tile([0.1, 0.2, 0.0], (6, 30, 1))
    with pytest.raises(SimulationDiverged, match='rollout 1: step 0.*singular'):
        rollout(robot, q0, qd0, efforts, threads=1)
    q, qd = rollout(robot, q0, qd0, efforts, threads=1, allow_divergence=True)
    assert np.all(np.isnan(q[[1, 4], 1:])) and np.array_equal(q[[1, 4], 0], q0[[1, 4]])
    good = [0, 2, 3, 5]
    expected_q, expected_qd = separate_runs(robot, q0[good], qd0[good], efforts[good], 1e-3,
                                            'rk4')
    assert np.array_equal(q[good], expected_q) and np.array_equal(qd[good], expected_qd)
