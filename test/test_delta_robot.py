# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
A spatial parallel mechanism: the Delta robot of urdf/delta_rl5.urdf with pose closures.

The checks are independent of the multibody code: the Delta's closed-form inverse
kinematics (examples/delta_robot.py: each leg's elbow on a sphere of radius l2 around its
platform joint) gives the assembled configurations, and the principle of virtual work over
the masses' heights (from the same closed form) gives the motor torques that hold the
platform still.
"""

import importlib.util
import math
import os

import numpy as np
import pytest
from ros_dynamics import RobotModel
from ros_dynamics.simulation.closed_chain import ClosedChain
from ros_dynamics.simulation.simulator import SimulationSingular, Simulator

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the closed-form kinematics live in the example (one copy): load it as a module
_spec = importlib.util.spec_from_file_location(
    'delta_robot_example', os.path.join(ROOT, 'examples', 'delta_robot.py'))
delta = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(delta)
assembled, shoulder_angles, L1 = delta.assembled, delta.shoulder_angles, delta.L1
M_ARM, COM_ARM, M_PIN, M_FOREARM, M_PLATFORM = 3.696, 0.2463, 0.226, 2 * 0.525, 2.916
G = 9.81
PLATFORMS = [(0.0, 0.0, -1.0), (0.05, -0.1, -1.0), (-0.2, 0.15, -0.9), (0.3, 0.1, -1.2)]


@pytest.fixture(scope='module')
def chain():
    robot = RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', 'delta_rl5.urdf'))
    return ClosedChain.from_yaml(robot, os.path.join(ROOT, 'config', 'delta_loops.yaml'))


def potential(platform) -> float:
    """Return the potential energy (J) of every mass, from the closed-form geometry."""
    energy = (M_PLATFORM + 3 * M_FOREARM / 2) * G * platform[2]
    for theta in shoulder_angles(platform):
        energy -= G * math.sin(theta) * (M_ARM * COM_ARM + (M_PIN + M_FOREARM / 2) * L1)
    return energy


def test_the_closed_form_configuration_closes_the_loops(chain):
    robot = chain.robot
    assert robot.dof == 15 and chain.m == 12
    for platform in PLATFORMS:
        q = assembled(platform)
        assert np.max(np.abs(chain.residual(q))) < 1e-12
        pose = robot.link_pose(q, 'leg1_platform')
        np.testing.assert_allclose(pose[:3, 3], platform, atol=1e-12)
        np.testing.assert_allclose(pose[:3, :3], np.eye(3), atol=1e-12)
        assert np.linalg.matrix_rank(chain.jacobian(q)) == 12   # 15 - 12 = 3 DoF


def test_projection_finds_the_passive_joints(chain):
    """Gauss-Newton from a guess off by 0.05 rad returns the closed-form passive joints."""
    rng = np.random.default_rng(3)
    actuated = chain.actuated
    for platform in PLATFORMS:
        exact = assembled(platform)
        guess = exact + rng.uniform(-0.05, 0.05, 15)
        guess[actuated] = exact[actuated]
        q, qd = chain.project(guess, np.ones(15), fixed=actuated)
        np.testing.assert_allclose(q, exact, atol=1e-9)
        assert np.max(np.abs(chain.jacobian(q) @ qd)) < 1e-12


def test_holding_torques_are_the_virtual_work_of_gravity(chain):
    """Motor torques: tau = J_theta^-T dV/dp, J_theta = d theta / dp from the IK."""
    h = 1e-6
    for platform in PLATFORMS:
        p = np.array(platform)
        grad = np.array([(potential(p + h * e) - potential(p - h * e)) / (2 * h)
                         for e in np.eye(3)])
        jac = np.array([(shoulder_angles(p + h * e) - shoulder_angles(p - h * e)) / (2 * h)
                        for e in np.eye(3)]).T
        expected = np.linalg.solve(jac.T, grad)
        tau, _ = chain.inverse_dynamics(assembled(platform), np.zeros(15), np.zeros(15))
        np.testing.assert_allclose(tau, expected, rtol=1e-7, atol=1e-7)
        assert np.all(tau < 0.0)       # the motors lift: positive turns an arm down


def test_platform_accelerates_like_the_closed_form_at_rest(chain):
    """From rest, qdd of the shoulders follows the platform's acceleration via J_theta."""
    q = assembled(PLATFORMS[1])
    qdd, _ = chain.forward_dynamics(q, np.zeros(15), np.zeros(15))
    robot = chain.robot
    acc = robot.jacobian(q, 'leg1_platform') @ qdd        # qd = 0: no velocity product
    h = 1e-6
    p = np.array(PLATFORMS[1])
    jac = np.array([(shoulder_angles(p + h * e) - shoulder_angles(p - h * e)) / (2 * h)
                    for e in np.eye(3)]).T
    np.testing.assert_allclose(jac @ acc[:3], qdd[chain.actuated], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(acc[3:], 0.0, atol=1e-10)     # the platform does not turn


def test_simulator_holds_the_platform_with_the_holding_torques(chain):
    q0 = assembled(PLATFORMS[1])
    tau, _ = chain.inverse_dynamics(q0, np.zeros(15), np.zeros(15))
    simulator = Simulator(chain.robot, q0=q0, closures=chain)
    effort = np.zeros(15)
    effort[chain.actuated] = tau
    simulator.set_effort(effort)
    simulator.step(300)
    pose = chain.robot.link_pose(simulator.q, 'leg1_platform')
    np.testing.assert_allclose(pose[:3, 3], PLATFORMS[1], atol=1e-9)
    assert np.max(np.abs(simulator.qd)) < 1e-8
    assert simulator.constraint_residual() < 1e-12
    lam = simulator.constraint_forces()
    assert lam.shape == (12,) and np.all(np.isfinite(lam))


def constraint_couples(robot, q) -> float:
    """
    Return det of the legs' constraint couples w_i = u_i x n_i (unit vectors).

    Each R-U-U leg lets the platform turn about its cross-bar axis u_i and the
    parallelogram normal n_i only; the three legs keep it from turning unless
    their w_i become coplanar (a constraint singularity of the 3-RUU model).
    """
    couples = []
    for leg in (1, 2, 3):
        u = robot.link_pose(q, f'leg{leg}_elbow_cross')[:3, 1]
        n = robot.link_pose(q, f'leg{leg}_forearm')[:3, 2]
        w = np.cross(u, n)
        couples.append(w / np.linalg.norm(w))
    return float(np.linalg.det(np.array(couples)))


def test_free_fall_conserves_energy_and_stops_at_a_constraint_singularity(chain):
    """No motor torque: the platform falls, translating, until the legs' couples align."""
    robot = chain.robot
    simulator = Simulator(robot, q0=assembled(PLATFORMS[1]), closures=chain, damping=False,
                          friction=False, limits=False)
    energy = simulator.energy()
    couples = constraint_couples(robot, simulator.q)
    worst_energy = worst_turn = worst_residual = 0.0
    with pytest.raises(SimulationSingular, match='singular configuration'):
        for _ in range(2000):
            simulator.step()
            worst_energy = max(worst_energy, abs(simulator.energy() - energy))
            rotation = robot.link_pose(simulator.q, 'leg1_platform')[:3, :3]
            worst_turn = max(worst_turn, np.max(np.abs(rotation - np.eye(3))))
            worst_residual = max(worst_residual, simulator.constraint_residual())
    assert 0.2 < simulator.t < 1.0
    assert worst_energy < 1e-5 * abs(energy)
    assert worst_turn < 1e-7 and worst_residual < 1e-7
    assert abs(constraint_couples(robot, simulator.q)) < 0.02 * abs(couples)


def test_simulator_projects_states_and_ignores_passive_efforts(chain):
    q0 = assembled(PLATFORMS[0])
    simulator = Simulator(chain.robot, q0=q0, closures=chain)
    target = assembled(PLATFORMS[2])
    guess = q0.copy()
    guess[chain.actuated] = target[chain.actuated]
    simulator.set_state(q=guess, qd=np.ones(15))
    np.testing.assert_allclose(simulator.q, target, atol=1e-9)
    assert np.max(np.abs(chain.jacobian(simulator.q) @ simulator.qd)) < 1e-10
    simulator.set_effort(np.full(15, 5.0))
    assert np.count_nonzero(simulator.effort) == 3
    other = RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', 'delta_rl5.urdf'))
    with pytest.raises(ValueError, match='built on the simulated robot'):
        Simulator(other, closures=chain)
    with pytest.raises(ValueError, match='baumgarte'):
        Simulator(chain.robot, q0=q0, closures=chain, baumgarte=(-1.0, 0.0))


def test_simulate_with_closures_agrees_across_integrators(chain):
    """simulate(..., closures=...): fixed-step RK4, RK45 and Radau give the same motion."""
    from ros_dynamics.simulation.simulator import simulate
    robot = chain.robot
    q0 = assembled(PLATFORMS[1])
    tau, _ = chain.inverse_dynamics(q0, np.zeros(15), np.zeros(15))
    effort = np.zeros(15)
    effort[chain.actuated] = 1.05 * tau                 # 5 % more than holding: it rises
    ends = []
    for method in (None, 'RK45', 'Radau'):
        _, q, _ = simulate(robot, q0, np.zeros(15), 0.2, dt=0.01, effort=effort,
                           method=method, closures=chain, limits=False)
        assert np.max(np.abs(chain.residual(q[-1]))) < 1e-8
        ends.append(robot.link_pose(q[-1], 'leg1_platform')[:3, 3])
    assert ends[0][2] > PLATFORMS[1][2] + 0.005
    np.testing.assert_allclose(ends[1], ends[0], atol=1e-6)
    np.testing.assert_allclose(ends[2], ends[0], atol=1e-6)


def test_pose_closure_with_offsets_has_consistent_jacobian_and_bias(chain, tmp_path):
    """Offset, rotated pose closures: Jc = d phi / dq and Jcdot qd = d(Jc)/dt qd (central FD)."""
    loops = tmp_path / 'loops.yaml'
    frame = '{link: %s, offset: [0.1, -0.05, 0.2], rpy: [0.1, 0.2, 0.3]}'
    loops.write_text('closures:\n'
                     f'  - {{frame_a: {frame % "leg1_platform"}, '
                     f'frame_b: {frame % "leg2_platform"}, type: pose}}\n'
                     f'  - {{frame_a: {frame % "leg1_platform"}, '
                     f'frame_b: {frame % "leg3_platform"}, type: pose}}\n'
                     'actuated: [leg1_shoulder, leg2_shoulder, leg3_shoulder]\n')
    offset = ClosedChain.from_yaml(chain.robot, str(loops))
    q = assembled(PLATFORMS[2])
    assert np.max(np.abs(offset.residual(q))) < 1e-12      # the same frame on a rigid platform
    h = 1e-6
    numeric = np.array([(offset.residual(q + h * e) - offset.residual(q - h * e)) / (2 * h)
                        for e in np.eye(15)]).T
    np.testing.assert_allclose(offset.jacobian(q), numeric, atol=1e-8)
    rng = np.random.default_rng(4)
    # any velocity (the copies then turn differently: every lever-arm term counts), and one
    # consistent with the closures
    for qd in (rng.uniform(-1.0, 1.0, 15),
               offset.project(q, rng.uniform(-1.0, 1.0, 15), fixed=offset.actuated)[1]):
        jdot = (offset.jacobian(q + h * qd) - offset.jacobian(q - h * qd)) / (2 * h)
        np.testing.assert_allclose(offset.bias(q, qd), jdot @ qd, atol=1e-6)
    np.testing.assert_allclose(offset.jacobian(q) @ qd, 0.0, atol=1e-12)
