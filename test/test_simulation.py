# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""The offline simulator: energy, the seeds' 2R free swing, limits, inputs, divergence."""

import os

import numpy as np
import pytest
from robot_data import example_urdf
from ros_dynamics import RobotModel
from ros_dynamics.description.urdf import parse_urdf_file
from ros_dynamics.simulation.simulator import (ENERGY_TOLERANCE, simulate, SimulationDiverged,
                                               Simulator)
from scipy.integrate import solve_ivp
import simulator_oracle

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope='module')
def panda():
    return RobotModel.from_urdf_file(example_urdf('panda_description/urdf/panda.urdf'))


@pytest.fixture(scope='module')
def two_r():
    return RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', 'planar_2r.urdf'))


def test_energy_is_conserved_without_damping(panda):
    """Panda, zero effort, no damping/friction/limits: |dE| / E < 1e-4 over 10 s, RK4 at 1 ms."""
    q0 = np.array([0.3, -0.5, 0.2, -2.0, 0.4, 1.5, 0.3, 0.02])
    sim = Simulator(panda, dt=1e-3, q0=q0, qd0=np.full(panda.dof, 0.5),
                    damping=False, friction=False, limits=False)
    start = sim.energy()
    sim.step(10000)
    assert sim.t == pytest.approx(10.0)
    assert abs(sim.energy() - start) / abs(start) < 1e-4
    assert np.max(np.abs(sim.q - q0)) > 0.1   # it did move


def seed_2r_rhs(t, x):
    """Seed 001 eq. (27), written out independently of the core, as a first-order ODE."""
    m1 = m2 = 12.456
    l1, r1, r2, i1, i2, g = 1.0, 0.773, 0.583, 1.042, 1.042, 9.81
    t1, t2, d1, d2 = x
    c1, c2, s2, c12 = np.cos(t1), np.cos(t2), np.sin(t2), np.cos(t1 + t2)
    mass = np.array([[i1 + i2 + m2 * l1 ** 2 + m1 * r1 ** 2 + m2 * r2 ** 2 + 2 * m2 * l1 * r2 * c2,
                      i2 + m2 * r2 ** 2 + m2 * l1 * r2 * c2],
                     [i2 + m2 * r2 ** 2 + m2 * l1 * r2 * c2, i2 + m2 * r2 ** 2]])
    coriolis = np.array([-m2 * l1 * r2 * s2 * (2 * d1 + d2) * d2, m2 * l1 * r2 * s2 * d1 ** 2])
    gravity = np.array([m2 * g * (l1 * c1 + r2 * c12) + m1 * g * r1 * c1, m2 * r2 * g * c12])
    return np.concatenate([[d1, d2], np.linalg.solve(mass, -coriolis - gravity)])


def test_seed_2r_free_swing_matches_the_closed_form(two_r):
    """Seed 001: theta = (-90, 45) deg, zero torque; our RK4 vs solve_ivp of eq. (27)."""
    q0 = np.radians([-90.0, 45.0])
    times, q, qd = simulate(two_r, q0, np.zeros(2), 5.0, dt=1e-3)
    reference = solve_ivp(seed_2r_rhs, (0.0, 5.0), [*q0, 0.0, 0.0], t_eval=times,
                          rtol=1e-11, atol=1e-12, method='DOP853')
    assert np.max(np.abs(q - reference.y[:2].T)) < 1e-6
    assert np.max(np.abs(qd - reference.y[2:].T)) < 1e-5
    assert np.ptp(q[:, 0]) > 0.3   # the coupled swing of the seed's figure 11
    # the adaptive path (solve_ivp over the core) agrees too
    _, q_adaptive, _ = simulate(two_r, q0, np.zeros(2), 5.0, dt=1e-2, method='RK45',
                                rtol=1e-10, atol=1e-12)
    assert np.max(np.abs(q_adaptive - reference.y[:2].T[::10])) < 1e-6


def test_damping_dissipates_and_friction_holds(two_r):
    sim = Simulator(two_r, q0=np.radians([-90.0, 45.0]), damping=[2.0, 2.0])   # URDF: none
    start = sim.energy()
    sim.step(3000)
    assert sim.energy() < start - 1.0


def test_effort_saturates_at_the_urdf_limit(panda):
    sim = Simulator(panda)
    sim.set_effort(np.full(panda.dof, 1e6))
    assert np.allclose(sim.effort, panda.effort_limit)
    with pytest.raises(ValueError, match='effort'):
        sim.set_effort(np.zeros(3))


def test_limit_stop_holds_and_does_not_tunnel(panda):
    """Joint 4 (limits -3.07, -0.07) driven at full effort into its upper stop, fast."""
    q0 = np.array([0.0, 0.0, 0.0, -1.0, 0.0, 1.5, 0.0, 0.02])
    qd0 = np.zeros(panda.dof)
    qd0[3] = 10.0   # 4.6 times the joint's velocity limit, toward the stop
    sim = Simulator(panda, q0=q0, qd0=qd0)
    sim.robot.gravity  # the default gravity stays on
    effort = np.zeros(panda.dof)
    effort[3] = 87.0
    sim.set_effort(effort)
    worst = -np.inf
    for _ in range(2000):
        sim.step()
        worst = max(worst, sim.q[3])
    assert worst < panda.upper[3] + 0.05           # penetration stays small
    assert abs(sim.q[3] - panda.upper[3]) < 0.01   # and it rests on the stop


def test_wrench_balanced_by_jacobian_transpose(panda):
    """A tip wrench F with effort g(q) - J^T F keeps the arm at rest."""
    q0 = np.array([0.1, -0.3, 0.2, -1.8, 0.1, 1.4, 0.3, 0.02])
    sim = Simulator(panda, q0=q0, damping=False, friction=False)
    wrench = np.array([5.0, -3.0, 8.0, 0.2, 0.1, -0.3])
    sim.set_wrenches({'panda_hand': wrench})
    sim.set_effort(panda.gravity_torques(q0) - panda.jacobian(q0, 'panda_hand').T @ wrench)
    sim.step(500)
    assert np.max(np.abs(sim.q - q0)) < 1e-9


def test_divergence_keeps_the_last_good_state(two_r):
    sim = Simulator(two_r, q0=np.radians([-90.0, 45.0]))
    sim.step(10)
    good_q, good_t = sim.q.copy(), sim.t
    sim.set_effort([np.nan, 0.0])
    with pytest.raises(SimulationDiverged):
        sim.step()
    assert np.array_equal(sim.q, good_q) and sim.t == good_t
    sim.set_effort([0.0, 0.0])
    sim.dt = 0.5   # far too large for RK4 on this arm: energy grows with no input
    with pytest.raises(SimulationDiverged, match='energy grew|non-finite'):
        sim.step(50)
    assert np.all(np.isfinite(sim.q))


def test_reset_set_state_and_validation(two_r):
    sim = Simulator(two_r, q0=[0.1, 0.2])
    sim.step(100)
    sim.reset()
    assert sim.t == 0.0 and np.allclose(sim.q, [0.1, 0.2]) and np.allclose(sim.qd, 0.0)
    sim.set_state(qd=[1.0, -1.0])
    assert np.allclose(sim.qd, [1.0, -1.0])
    with pytest.raises(ValueError, match='q:'):
        sim.set_state(q=[np.nan, 0.0])
    with pytest.raises(ValueError, match='dt'):
        Simulator(two_r, dt=-1.0)
    with pytest.raises(ValueError, match='integrator'):
        Simulator(two_r, integrator='euler')
    with pytest.raises(ValueError, match="link 'nowhere'"):
        sim.set_wrenches({'nowhere': np.zeros(6)})
    with pytest.raises(ValueError, match=r"wrenches\['link2'\]: expected 6 finite numbers"):
        sim.set_wrenches({'link2': [1.0, np.nan, 0.0, 0.0, 0.0, 0.0]})
    with pytest.raises(ValueError, match=r"wrenches\['link2'\]: expected 6 finite numbers"):
        sim.set_wrenches({'link2': [1.0, 0.0]})


def test_default_initial_state_is_clamped_into_limits(panda):
    sim = Simulator(panda)
    assert np.all(sim.q >= panda.lower) and np.all(sim.q <= panda.upper)
    assert sim.q[3] == panda.upper[3]   # joint 4's range excludes 0


@pytest.mark.parametrize('robot_name', ['two_r', 'panda'])
def test_semi_implicit_euler_is_not_reported_as_diverged(robot_name, request):
    """First-order energy error is no divergence; a too-large step still is."""
    robot = request.getfixturevalue(robot_name)
    sim = Simulator(robot, integrator='semi_implicit_euler')   # 2R: horizontal, E = 0
    assert sim.energy_tolerance == ENERGY_TOLERANCE['semi_implicit_euler']
    sim.step(5000)
    assert np.all(np.isfinite(sim.q)) and np.ptp(sim.q) > 0.1
    sim.dt = 0.2
    with pytest.raises(SimulationDiverged, match='energy grew|non-finite'):
        sim.step(100)
    assert np.all(np.isfinite(sim.q)) and np.all(np.isfinite(sim.qd))
    with pytest.raises(ValueError, match='energy_tolerance'):
        Simulator(robot, energy_tolerance=-1.0)


def test_the_torque_and_energy_law_equals_its_numpy_oracle(panda):
    """
    Simulator.joint_torques, limit_torques, energy (compiled) against test/simulator_oracle.py.

    The URDF-style friction terms all on (viscous, Coulomb, offset, Gaz's
    sigmoid), states inside and past the limits, moving into and out of the stops.
    """
    robot = RobotModel.from_urdf_file(example_urdf('panda_description/urdf/panda.urdf'))
    robot.actuators = robot.actuators.replace(
        viscous=np.full(robot.dof, 0.3), coulomb=np.full(robot.dof, 0.2),
        offset=np.linspace(-0.1, 0.1, robot.dof),
        sigmoid=np.tile([0.5, 8.0, 0.03], (robot.dof, 1)))
    sim = simulator_oracle.simulator(robot, q0=np.zeros(robot.dof), dt=2e-3)
    law = simulator_oracle.oracle(sim)
    sim.set_effort(np.linspace(-50.0, 50.0, robot.dof))
    rng = np.random.default_rng(4)
    middle, half = (robot.upper + robot.lower) / 2, (robot.upper - robot.lower) / 2
    stopped = 0
    for _ in range(50):
        q = middle + rng.uniform(-1.2, 1.2, robot.dof) * half   # some past a limit
        qd = rng.uniform(-2.0, 2.0, robot.dof)
        stops = law.stop_torques(q, qd)
        stopped += np.count_nonzero(stops)
        assert np.allclose(sim.limit_torques(q, qd), stops, rtol=1e-14, atol=0.0)
        assert np.allclose(sim.joint_torques(q, qd), law.joint_torques(sim.effort, q, qd),
                           rtol=1e-13, atol=1e-9)
        sim.set_state(q, qd)
        assert sim.energy() == pytest.approx(law.energy(q, qd), rel=1e-12, abs=1e-9)
    assert stopped > 50                                    # the stops acted
    with pytest.raises(ValueError, match=r'q, qd: expected shapes'):
        sim.joint_torques(q[:-1], qd)


def reference_step(sim, q, qd, integrator):
    """One step written out from the public pieces: the numpy torque law and ABA, wrenches."""
    dt, law = sim.dt, simulator_oracle.oracle(sim)

    def acceleration(q, qd):
        return sim.robot.forward_dynamics(q, qd, law.joint_torques(sim.effort, q, qd),
                                          sim.wrenches or None)

    if integrator == 'semi_implicit_euler':
        qd = qd + dt * acceleration(q, qd)
        return q + dt * qd, qd
    k1 = acceleration(q, qd)
    qd2 = qd + 0.5 * dt * k1
    k2 = acceleration(q + 0.5 * dt * qd, qd2)
    qd3 = qd + 0.5 * dt * k2
    k3 = acceleration(q + 0.5 * dt * qd2, qd3)
    qd4 = qd + dt * k3
    k4 = acceleration(q + dt * qd3, qd4)
    return (q + dt / 6.0 * (qd + 2.0 * qd2 + 2.0 * qd3 + qd4),
            qd + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4))


@pytest.mark.parametrize('integrator', ['rk4', 'semi_implicit_euler'])
@pytest.mark.parametrize('mimic', [True, False])
def test_compiled_steps_equal_the_reference_integration(integrator, mimic):
    """
    Damping, friction, a limit stop hit, saturated effort and a wrench, over 300 steps.

    The Panda with its mimic finger (dense M qdd = tau - b solve) and without
    (ABA); single steps and one block of steps give the same states.
    """
    robot = RobotModel(parse_urdf_file(example_urdf('panda_description/urdf/panda.urdf')),
                       mimic=mimic)
    q0 = np.array([0.3, -0.5, 0.2, -0.3, 0.4, 1.5, 0.3, 0.02, 0.02])[:robot.dof]
    qd0 = np.array([0.5, -0.4, 0.3, 2.5, -0.2, 0.1, 0.6, 0.0, 0.0])[:robot.dof]  # 4: to stop
    sim = simulator_oracle.simulator(robot, q0=q0, qd0=qd0, integrator=integrator,
                                     damping=np.full(robot.dof, 0.7),
                                     friction=np.full(robot.dof, 0.3), friction_velocity=0.05)
    effort = np.linspace(-120.0, 120.0, robot.dof)                 # some above the limits
    sim.set_effort(effort)
    assert np.any(np.abs(effort) > robot.effort_limit)
    sim.set_wrenches({'panda_link7': [3.0, -2.0, 5.0, 0.1, -0.2, 0.3], 'panda_link0': [1.0] * 6})
    q, qd = q0.copy(), qd0.copy()
    engaged = False
    for _ in range(300):
        q, qd = reference_step(sim, q, qd, integrator)
        sim.step()
        engaged |= bool(np.any(sim.limit_torques(sim.q, sim.qd)))
    assert engaged                                                  # the stop acted
    assert np.max(np.abs(sim.q - q)) < 1e-12 and np.max(np.abs(sim.qd - qd)) < 1e-10
    block = Simulator(robot, q0=q0, qd0=qd0, integrator=integrator,
                      damping=np.full(robot.dof, 0.7), friction=np.full(robot.dof, 0.3),
                      friction_velocity=0.05)
    block.set_effort(effort)
    block.set_wrenches(sim.wrenches)
    block.step(300)
    assert np.array_equal(block.q, sim.q) and np.array_equal(block.qd, sim.qd)
    assert block.t == sim.t == pytest.approx(0.3)
