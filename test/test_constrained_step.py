# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The compiled closed-chain step (integrators.constrained_steps) against the Python KKT path.

The reference integrates the numpy twin of the closed-chain law
(test/closed_chain_oracle.py: the KKT system with Baumgarte's stabilisation)
with the numpy twin of the simulator's joint torques (test/simulator_oracle.py)
and wrenches, in an RK4 or semi-implicit Euler written here, and tests
ClosedChain.singularity_margin after each step as the simulator must.
ClosedChain's own terms and forward dynamics (the compiled law) are held
against the same twin.
"""

import importlib.util
import os

import closed_chain_oracle
import numpy as np
import pytest
from ros_dynamics import RobotModel
from ros_dynamics.simulation.closed_chain import ClosedChain, ConstraintSingularity
from ros_dynamics.simulation.simulator import BAUMGARTE, SimulationSingular, Simulator
import simulator_oracle

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location(
    'delta_robot_example', os.path.join(ROOT, 'examples', 'delta_robot.py'))
delta = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(delta)


def load(urdf: str, loops: str) -> ClosedChain:
    robot = RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', urdf))
    return ClosedChain.from_yaml(robot, os.path.join(ROOT, 'config', loops))


def reference_step(simulator: Simulator, q: np.ndarray, qd: np.ndarray) -> tuple:
    """One step of the Python path: the numpy KKT forward dynamics at each stage."""
    chain, dt, law = simulator.closures, simulator.dt, simulator_oracle.oracle(simulator)

    def acceleration(q, qd):
        tau = law.joint_torques(simulator.effort, q, qd)
        return closed_chain_oracle.forward_dynamics(chain, q, qd, tau, *BAUMGARTE,
                                                    simulator.wrenches or None)[0]
    if simulator.integrator == 'semi_implicit_euler':
        qd = qd + dt * acceleration(q, qd)
        return q + dt * qd, qd
    k1 = acceleration(q, qd)
    k2 = acceleration(q + 0.5 * dt * qd, qd + 0.5 * dt * k1)
    qd2 = qd + 0.5 * dt * k1
    k3 = acceleration(q + 0.5 * dt * qd2, qd + 0.5 * dt * k2)
    qd3 = qd + 0.5 * dt * k2
    k4 = acceleration(q + dt * qd3, qd + dt * k3)
    qd4 = qd + dt * k3
    return (q + dt / 6.0 * (qd + 2.0 * qd2 + 2.0 * qd3 + qd4),
            qd + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4))


def compare(simulator: Simulator, steps: int, block: int = 1) -> float:
    """Return the largest |compiled - reference| of q and qd over ``steps`` steps."""
    q, qd = simulator.q.copy(), simulator.qd.copy()
    sign = simulator.closures.lock_orientation(q)
    worst = 0.0
    for _ in range(steps // block):
        simulator.step(block)
        for _ in range(block):
            q, qd = reference_step(simulator, q, qd)
            assert simulator.closures.singularity_margin(q, sign) > 0.0
        worst = max(worst, np.max(np.abs(q - simulator.q)), np.max(np.abs(qd - simulator.qd)))
    return worst


def offset_pose_chain(tmp_path) -> ClosedChain:
    """Return the Delta robot closed by frames with offsets and rpy: a pose and a point closure."""
    loops = tmp_path / 'loops.yaml'
    frame = '{link: %s, offset: [0.1, -0.05, 0.2], rpy: [0.1, 0.2, 0.3]}'
    loops.write_text('closures:\n'
                     f'  - {{frame_a: {frame % "leg1_platform"}, '
                     f'frame_b: {frame % "leg2_platform"}, type: pose}}\n'
                     f'  - {{frame_a: {frame % "leg1_platform"}, '
                     f'frame_b: {frame % "leg3_platform"}, type: point}}\n'
                     'actuated: [leg1_shoulder, leg2_shoulder, leg3_shoulder]\n')
    robot = RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', 'delta_rl5.urdf'))
    return ClosedChain.from_yaml(robot, str(loops))


@pytest.mark.parametrize('which', ['four_bar', 'delta', 'offsets'])
def test_closed_chain_law_equals_its_numpy_oracle(which, tmp_path):
    """The compiled phi, Jc, Jcdot qd and KKT forward dynamics of ClosedChain = the numpy twin."""
    if which == 'four_bar':
        chain, link = load('four_bar.urdf', 'four_bar_loops.yaml'), 'link2_tip'
    elif which == 'delta':
        chain, link = load('delta_rl5.urdf', 'delta_loops.yaml'), 'leg2_platform'
    else:
        chain, link = offset_pose_chain(tmp_path), 'leg3_platform'
    n = chain.robot.dof
    rng = np.random.default_rng(7)
    for _ in range(5):   # states off the constraint manifold: every term at work
        q, qd, tau = rng.uniform(-1.0, 1.0, n), rng.uniform(-2.0, 2.0, n), rng.uniform(-3, 3, n)
        phi, jac, bias = closed_chain_oracle.terms(chain, q, qd)
        assert np.allclose(chain.residual(q), phi, rtol=0.0, atol=1e-13)
        assert np.allclose(chain.jacobian(q), jac, rtol=0.0, atol=1e-13)
        assert np.allclose(chain.bias(q, qd), bias, rtol=0.0, atol=1e-12)
        wrench = {link: rng.uniform(-5.0, 5.0, 6)}
        qdd, forces = closed_chain_oracle.forward_dynamics(chain, q, qd, tau, 3.0, 4.0, wrench)
        scale = 1e-10 * max(1.0, np.max(np.abs(qdd)), np.max(np.abs(forces)))
        for check in (True, 'solve', False):
            try:
                got = chain.forward_dynamics(q, qd, tau, 3.0, 4.0, check, wrench)
            except ConstraintSingularity:   # a random state may be near singular: only True
                assert check is True
                continue
            assert np.allclose(got[0], qdd, rtol=0.0, atol=scale)
            assert np.allclose(got[1], forces, rtol=0.0, atol=scale)
    with pytest.raises(ValueError, match='qd: expected'):
        chain.bias(q, qd[:-1])
    with pytest.raises(ValueError, match='tau: expected'):
        chain.forward_dynamics(q, qd, np.full(n, np.nan))


@pytest.mark.parametrize('integrator', ['rk4', 'semi_implicit_euler'])
def test_four_bar_steps_equal_the_python_kkt_path(integrator):
    chain = load('four_bar.urdf', 'four_bar_loops.yaml')
    simulator = simulator_oracle.simulator(chain.robot, q0=[0.01, 0.0, 0.0], closures=chain,
                                           damping=False, friction=False, limits=False,
                                           integrator=integrator)
    simulator.set_effort([1.96, 0.0, 0.0])                  # Ghosal's spring at the start
    assert compare(simulator, 300) < 1e-12
    assert compare(simulator, 256, block=64) < 1e-12       # numba's dispatcher (GIL released)
    assert simulator.t == pytest.approx(0.556)


def test_delta_steps_equal_the_python_kkt_path_with_friction_and_a_wrench():
    """Pose closures (rotation rows), the URDF's damping and friction, a wrench, limits."""
    chain = load('delta_rl5.urdf', 'delta_loops.yaml')
    robot = chain.robot
    q0 = delta.assembled((0.05, -0.1, -1.0))
    simulator = simulator_oracle.simulator(robot, q0=q0, closures=chain)
    effort = np.zeros(robot.dof)
    effort[chain.actuated] = 1.02 * chain.inverse_dynamics(q0, np.zeros(15), np.zeros(15))[0]
    simulator.set_effort(effort)
    simulator.set_wrenches({'leg2_platform': [1.0, -2.0, 3.0, 0.1, 0.0, -0.2]})
    assert compare(simulator, 300) < 1e-12
    assert simulator.constraint_residual() < 1e-10


def test_offset_pose_closures_step_as_the_python_path(tmp_path):
    """Closure frames with offsets and rpy: the frames' poses, Jacobians and biases."""
    chain = offset_pose_chain(tmp_path)
    robot = chain.robot
    simulator = simulator_oracle.simulator(robot, q0=delta.assembled((-0.2, 0.15, -0.9)),
                                           closures=chain, damping=False, friction=False,
                                           limits=False)
    assert compare(simulator, 200) < 1e-12


def test_the_lock_is_found_at_the_python_paths_step():
    """At 10 ms the four-bar locks near 12.25 s: the same step as the Python margin test."""
    chain = load('four_bar.urdf', 'four_bar_loops.yaml')
    simulator = simulator_oracle.simulator(chain.robot, dt=0.01, q0=[0.01, 0.0, 0.0],
                                           closures=chain, damping=False, friction=False,
                                           limits=False)
    q, qd = simulator.q.copy(), simulator.qd.copy()
    sign = chain.lock_orientation(q)
    for _ in range(2000):
        simulator.set_effort([1.96 - 0.1 * q[0], 0.0, 0.0])
        q_next, qd_next = reference_step(simulator, q, qd)
        if chain.singularity_margin(q_next, sign) <= 0.0:
            break
        simulator.step()
        np.testing.assert_allclose(simulator.q, q_next, rtol=0.0, atol=1e-9)
        q, qd = simulator.q.copy(), simulator.qd.copy()
    else:
        pytest.fail('the Python path never locked')
    kept, t = simulator.q.copy(), simulator.t
    with pytest.raises(SimulationSingular, match=f't = {t:.6f} s: the step to .* reaches or '
                       'crosses a singular configuration'):
        simulator.step()
    assert 12.2 < t < 12.3
    np.testing.assert_array_equal(simulator.q, kept)
    assert simulator.t == t
