# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Closed chains: Ghosal's planar four-bar with its loop closure, Baumgarte, singularity.

Ghosal's NPTEL notes (Module 6, the four-bar worked example) report, in a horizontal
plane (no gravity: the figures reproduce only so), from theta1 = 0.01 rad
with phi1 = 0.0102 rad at rest under tau = 1.96 - 0.1 theta1: theta1 reaches 150 deg at
about t = 12.25 s, and links 2 and 3 align (the mechanism locks) at 150.4 deg with the
Lagrange multipliers growing without bound.
"""

import os

import numpy as np
import pytest
from ros_dynamics import RobotModel
from ros_dynamics.simulation.closed_chain import ClosedChain, Closure, ConstraintSingularity
from ros_dynamics.simulation.simulator import SimulationSingular, Simulator

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope='module')
def chain():
    robot = RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', 'four_bar.urdf'))
    return ClosedChain.from_yaml(robot, os.path.join(ROOT, 'config', 'four_bar_loops.yaml'))


def spring(t, q, qd):
    return np.array([1.96 - 0.1 * q[0], 0.0, 0.0])


@pytest.fixture(scope='module')
def start(chain):
    q, _ = chain.project([0.01, 0.0, 0.0], fixed=[0])
    return q


@pytest.fixture(scope='module')
def run(chain, start):
    return chain.simulate(start, np.zeros(3), 14.0, spring, dt=0.01, method='RK45',
                          rtol=1e-9, atol=1e-11, stop=lambda t, q, qd: q[0] - np.radians(150))


def test_consistent_initial_state_is_the_seeds(chain, start):
    assert start[0] == 0.01
    assert start[2] == pytest.approx(0.0102, abs=5e-5)   # Ghosal's phi1 (4 digits)
    assert np.max(np.abs(chain.residual(start))) < 1e-12


def test_theta1_reaches_150_degrees_at_the_seeds_time(run):
    assert run['end'] == 'stop'
    assert np.degrees(run['q'][-1, 0]) == pytest.approx(150.0, abs=1e-6)
    assert run['t'][-1] == pytest.approx(12.25, abs=0.05)   # Ghosal: "about t = 12.25 s"


def test_constraint_forces_grow_toward_the_singularity(run):
    force = np.linalg.norm(run['lambda'], axis=1)
    t = run['t']
    early, late = force[np.searchsorted(t, 10.0)], force[-1]
    assert late > 50 * early and late > 100.0


def test_singularity_is_detected_and_reported(chain, start):
    near = chain.simulate(start, np.zeros(3), 14.0, spring, dt=0.01, method='RK45',
                          rtol=1e-9, atol=1e-11,
                          stop=lambda t, q, qd: q[0] - np.radians(150.35))
    q, qd = near['q'][-1], near['qd'][-1]
    with pytest.raises(ConstraintSingularity, match='links aligned'):
        for _ in range(200):   # step on toward 150.4 deg with a fixed-step integrator
            qdd, _ = chain.forward_dynamics(q, qd, spring(0, q, qd))
            qd = qd + 1e-4 * qdd
            q = q + 1e-4 * qd
    # links 2 and 3 in line: |A - O4| = l2 + l3 with |A - O4|^2 = 2 l1^2 (1 - cos theta1)
    lock = np.degrees(np.arccos(1.0 - 2.4 ** 2 / (2 * 1.241 ** 2)))
    assert lock == pytest.approx(150.4, abs=0.1)             # Ghosal's 150.4 deg
    assert np.degrees(q[0]) == pytest.approx(lock, abs=0.05)   # caught right at the lock


@pytest.mark.parametrize('method', ['RK45', 'Radau'])
def test_solve_ivp_stops_at_the_lock_and_reports_the_time(chain, start, method):
    """Without a stop event the run ends at the singularity event, at the analytic lock angle."""
    result = chain.simulate(start, np.zeros(3), 14.0, spring, dt=0.01, method=method,
                            rtol=1e-9, atol=1e-11)
    lock = np.arccos(1.0 - 2.4 ** 2 / (2 * 1.241 ** 2))
    assert result['end'] == 'singularity'
    assert 12.25 < result['singularity_time'] < 12.3         # 150 deg at 12.236 s, then locks
    assert f"t = {result['singularity_time']:.6f} s" in result['singularity']
    assert 'locks' in result['singularity']
    assert np.degrees(result['q'][-1, 0]) == pytest.approx(np.degrees(lock), abs=0.05)
    assert result['t'][-1] <= result['singularity_time']    # only regular samples returned
    assert np.linalg.norm(result['lambda'][-1]) > 500.0      # forces blowing up at the lock


def test_baumgarte_reduces_drift_of_a_loose_integrator(chain, start):
    """
    Ghosal's run to 12 s with a loose RK45 (rtol 1e-4): max |phi| with Baumgarte is much smaller.

    Measured: 3.3e-5 m without, 4.7e-6 m with alpha = beta = 10. (With RK4 at 0.05 s from
    a consistent start the drift is 1e-7 m and Baumgarte does not reduce it; see docs.)
    """
    errors = []
    for gains in ((0.0, 0.0), (10.0, 10.0)):
        result = chain.simulate(start, np.zeros(3), 12.0, spring, dt=0.05, alpha=gains[0],
                                beta=gains[1], method='RK45', rtol=1e-4, atol=1e-6)
        errors.append(max(np.abs(chain.residual(q)).max() for q in result['q']))
    assert errors[0] > 1e-6
    assert errors[1] < 0.25 * errors[0]


def test_energy_balance(chain, run):
    """Kinetic energy equals the spring's work, integral of (1.96 - 0.1 theta1) d theta1."""
    theta0 = run['q'][0, 0]
    for k in (len(run['t']) // 2, -1):
        theta = run['q'][k, 0]
        work = 1.96 * (theta - theta0) - 0.05 * (theta ** 2 - theta0 ** 2)
        energy = chain.robot.kinetic_energy(run['q'][k], run['qd'][k])
        assert energy == pytest.approx(work, rel=1e-5)


def test_baumgarte_keeps_the_loop_closed(chain, start):
    """Start 0.1 mrad off the manifold: the error stays without Baumgarte, decays with it."""
    off = start + np.array([0.0, 0.0, 1e-4])
    plain = chain.simulate(off, np.zeros(3), 3.0, spring, dt=0.01)
    stabilised = chain.simulate(off, np.zeros(3), 3.0, spring, dt=0.01, alpha=10.0, beta=10.0)
    initial = np.abs(chain.residual(off)).max()
    drift = np.abs(chain.residual(plain['q'][-1])).max()
    held = np.abs(chain.residual(stabilised['q'][-1])).max()
    assert drift > 0.5 * initial > 1e-6
    assert held < 1e-3 * initial
    assert np.allclose(plain['q'][-1, 0], stabilised['q'][-1, 0], atol=1e-3)


def test_inverse_dynamics_recovers_the_spring_torque(chain, run):
    for k in (100, 600, 1000):
        q, qd = run['q'][k], run['qd'][k]
        qdd, force = chain.forward_dynamics(q, qd, spring(0, q, qd))
        torque, force_back = chain.inverse_dynamics(q, qd, qdd)
        assert torque[0] == pytest.approx(1.96 - 0.1 * q[0], abs=1e-9)
        assert np.allclose(force_back, force, atol=1e-8)


def test_lambda_is_the_reaction_on_the_cut_link(chain, run):
    """Newton-Euler of link 3 alone: its joint torque is tau3 = J3^T (-lambda) = M3 qdd + b3."""
    robot = chain.robot
    q, qd = run['q'][800], run['qd'][800]
    qdd, force = chain.forward_dynamics(q, qd, spring(0, q, qd))
    # link 3 (joint j3_phi1) is the one-joint branch: the force on its tip is -lambda
    tip = robot.jacobian(q, 'link3_tip')[:2, 2]
    branch = robot.inverse_dynamics(q, qd, qdd)[2]
    assert branch == pytest.approx(tip @ (-force), abs=1e-9)


def test_bad_inputs(chain, tmp_path):
    robot = chain.robot
    with pytest.raises(ValueError, match="link 'nowhere'"):
        ClosedChain(robot, [Closure('bad', 'nowhere', np.zeros(3), 'link3_tip', np.zeros(3),
                                    (0, 1))], ['j1_theta1'])
    with pytest.raises(ValueError, match='too far from the constraint manifold'):
        chain.project([0.01, 3.0, -2.0], fixed=[0, 1, 2])
    loops = tmp_path / 'bad.yaml'
    for text, message in (
            ('closures:\n  - {frame_a: {link: link2_tip}, frame_b: {link: nowhere}}\n',
             "link 'nowhere'"),
            ('closures:\n  - {frame_a: {link: link2_tip}, frame_b: {link: link3_tip}}\n'
             'actuated: [no_joint]\n', "joint 'no_joint'"),
            ('closures:\n  - {frame_a: {link: link2_tip}, frame_b: {link: link3_tip}, '
             'typo: 1}\n', "unknown keys \\['typo'\\]"),
            ('closures:\n  - {frame_a: {link: link2_tip}, frame_b: {link: link3_tip}, '
             'type: line}\n', 'type must be point'),
            ('closures:\n  - {frame_a: {link: link2_tip, offset: [1, 2]}, '
             'frame_b: {link: link3_tip}}\n', 'offset must be 3 numbers')):
        loops.write_text(text)
        with pytest.raises(ValueError, match=message):
            ClosedChain.from_yaml(robot, str(loops))
    redundant = ClosedChain(robot, list(chain.closures) * 2, ['j1_theta1'])
    with pytest.raises(ConstraintSingularity, match='lost rank'):
        redundant.forward_dynamics([0.5, -0.9, 0.9], np.zeros(3), np.zeros(3))


def test_a_different_cut_gives_the_same_motion(run):
    """Cut at O2 instead of O3: another tree and closure, the same theta1(t) and energy."""
    robot = RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', 'four_bar_cut_o2.urdf'))
    loops = os.path.join(ROOT, 'config', 'four_bar_cut_o2_loops.yaml')
    other = ClosedChain.from_yaml(robot, loops)
    start, _ = other.project([0.01, 0.0102, np.pi - 0.02], fixed=[0])
    assert start[1] == pytest.approx(run['q'][0, 2], abs=1e-9)   # the same phi1
    second = other.simulate(start, np.zeros(3), 14.0, spring, dt=0.01, method='RK45',
                            rtol=1e-9, atol=1e-11,
                            stop=lambda t, q, qd: q[0] - np.radians(150))
    assert second['t'][-1] == pytest.approx(run['t'][-1], abs=1e-6)
    steps = min(len(second['t']), len(run['t'])) - 1
    assert np.allclose(second['q'][:steps, 0], run['q'][:steps, 0], atol=1e-6)
    assert np.allclose(second['q'][:steps, 1], run['q'][:steps, 2], atol=1e-6)   # phi1


TWO_P = """<robot name="featherstone_2p"><link name="ground"/>
  <link name="rail_x1"/><link name="rail_x2"/>
  <link name="body1"><inertial><mass value="{m1}"/>
    <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="body2"><inertial><mass value="{m2}"/>
    <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <joint name="x1" type="prismatic"><parent link="ground"/><child link="rail_x1"/>
    <axis xyz="1 0 0"/><limit lower="-9" upper="9" effort="1" velocity="1"/></joint>
  <joint name="y1" type="prismatic"><parent link="rail_x1"/><child link="body1"/>
    <axis xyz="0 1 0"/><limit lower="-9" upper="9" effort="1" velocity="1"/></joint>
  <joint name="x2" type="prismatic"><parent link="ground"/><child link="rail_x2"/>
    <axis xyz="1 0 0"/><limit lower="-9" upper="9" effort="1" velocity="1"/></joint>
  <joint name="y2" type="prismatic"><parent link="rail_x2"/><child link="body2"/>
    <axis xyz="0 1 0"/><limit lower="-9" upper="9" effort="1" velocity="1"/></joint>
</robot>"""


def test_featherstone_planar_2p(tmp_path):
    """
    Ghosal's fig. 17: body 1 on a horizontal rail, body 2 on a vertical rail on body 1.

    In absolute coordinates (x1, y1, x2, y2) with y1 = 0 and x2 - x1 = 0 the closed form
    is xdd1 = xdd2 = (fx1 + fx2) / (m1 + m2), ydd1 = 0, ydd2 = fy2 / m2; the rail forces are
    -fy1 on body 1 along y and m2 xdd2 - fx2 on body 2 along x.
    """
    m1, m2 = 3.0, 2.0
    robot = RobotModel.from_urdf_string(TWO_P.format(m1=m1, m2=m2))
    robot.gravity = (0.0, 0.0, 0.0)
    loops = tmp_path / 'loops.yaml'
    loops.write_text("""closures:
  - {name: rail_1, frame_a: {link: body1}, frame_b: {link: ground}, type: axis, axis: y}
  - {name: rail_2, frame_a: {link: body2}, frame_b: {link: body1}, type: axis, axis: x}
actuated: [x1, y1, x2, y2]
""")
    chain = ClosedChain.from_yaml(robot, str(loops))
    fx1, fy1, fx2, fy2 = 4.0, -3.0, 1.5, 2.5
    q = np.array([0.3, 0.0, 0.3, 0.7])
    qdd, force = chain.forward_dynamics(q, np.zeros(4), np.array([fx1, fy1, fx2, fy2]))
    xdd = (fx1 + fx2) / (m1 + m2)
    assert np.allclose(qdd, [xdd, 0.0, xdd, fy2 / m2], atol=1e-12)
    assert np.allclose(force, [-fy1, m2 * xdd - fx2], atol=1e-12)


def test_kinetic_energy_is_the_seeds_eq_28(chain):
    """The URDF tree's kinetic energy equals Ghosal's eq. (28) (inertias about the CoM)."""
    m1, m2, m3, r1, r2, r3, l1 = 20.15, 8.25, 8.25, 1.2, 0.6, 0.6, 1.241
    i1, i2, i3 = 9.6, 0.06, 0.06
    q, qd = np.array([0.4, -1.1, 0.8]), np.array([0.7, -0.3, 1.9])   # (theta1, phi2, phi1)
    t1, p2, p1 = qd
    seed = (0.5 * m1 * (r1 * t1) ** 2 + 0.5 * i1 * t1 ** 2 + 0.5 * i2 * (t1 + p2) ** 2
            + 0.5 * m2 * (l1 ** 2 * t1 ** 2 + r2 ** 2 * (t1 + p2) ** 2
                          + 2 * l1 * r2 * np.cos(q[1]) * t1 * (t1 + p2))
            + 0.5 * m3 * r3 ** 2 * p1 ** 2 + 0.5 * i3 * p1 ** 2)
    assert chain.robot.kinetic_energy(q, qd) == pytest.approx(seed, rel=1e-12)


def test_rk4_ends_at_the_singularity_with_its_time(chain, start):
    """Fixed-step RK4 (no stop event): the step whose stages reach the lock ends the run."""
    result = chain.simulate(start, np.zeros(3), 14.0, spring, dt=0.01)
    assert result['end'] == 'singularity'
    assert result['singularity_time'] == result['t'][-1]
    assert 12.25 < result['singularity_time'] < 12.3
    assert result['singularity'].startswith(f"t = {result['t'][-1]:.6f} s")
    assert 'links aligned' in result['singularity']


def test_the_fixed_step_simulator_runs_the_four_bar(chain, start, run):
    """Simulator(closures=...) at 1 ms, spring torque held per step, = the RK45 run to 1e-4."""
    simulator = Simulator(chain.robot, q0=start, closures=chain, damping=False,
                          friction=False, limits=False)
    for _ in range(6000):
        simulator.set_effort(spring(simulator.t, simulator.q, simulator.qd))
        simulator.step()
    k = int(np.argmin(np.abs(run['t'] - 6.0)))
    assert abs(run['t'][k] - simulator.t) < 1e-9
    np.testing.assert_allclose(simulator.q, run['q'][k], atol=1e-4)
    assert simulator.constraint_residual() < 1e-9
    np.testing.assert_allclose(simulator.constraint_forces(), run['lambda'][k], rtol=1e-3,
                               atol=1e-3)
    with pytest.raises(SimulationSingular, match='singular configuration'):
        for _ in range(7000):
            simulator.set_effort(spring(simulator.t, simulator.q, simulator.qd))
            simulator.step()
    assert 12.2 < simulator.t < 12.3 and np.degrees(simulator.q[0]) < 150.5
    kept = simulator.q.copy()
    with pytest.raises(ValueError, match='q: project: no consistent configuration'):
        simulator.set_state(q=[3.0, 0.0, 0.0])                 # beyond the lock
    np.testing.assert_array_equal(simulator.q, kept)
