# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0


"""
Real-arm model terms: armature, joint friction, payloads, and reading them from a description.

Armature and payloads against Pinocchio on every example-robot-data URDF it
loads (``model.armature``; a payload's inertia added to its body:
``model.inertias[joint] += placement.act(Inertia(m, c, I))``), to 1e-10
relative; identities (M SPD, FD after ID, energy conserved by the simulator
with armature, dissipated by friction at the rate qd . tau_f); the friction
models against their closed forms; the actuators YAML and URDF transmissions.
"""

import os
import pickle
import threading
import warnings

import numpy as np
import pinocchio as pin
import pytest

from robot_data import example_urdf, example_urdfs
from ros_dynamics import RobotModel, URDFError, URDFWarning
from ros_dynamics.description.actuators import parse_transmissions
from ros_dynamics.simulation.simulator import Simulator
from test_against_pinocchio import relative_error, symmetric, twin

TOLERANCE = 1e-10
URDFS = example_urdfs()
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PANDA = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
PANDA_ACTUATORS = os.path.join(ROOT, 'config', 'panda_actuators.yaml')
MIMIC_PANDA = 'panda_description/urdf/panda.urdf'   # fingers: one joint mimics the other


def leader_index_v(t) -> np.ndarray:
    """Return Pinocchio's velocity index of each of our coordinates' (independent) joints."""
    model = t.pin_model
    return np.array([model.joints[model.getJointId(name)].idx_v for name in t.robot.joint_names],
                    dtype=int)


def pin_state(t, rng):
    q, qd, qdd = t.random_state(rng)
    return q, qd, qdd, t.configuration(q), t.g @ qd, t.g @ qdd


def compare_joint_space(t, rng, count: int = 2) -> None:
    """Our ID, g, M, FD, energies and Lambda against Pinocchio's (with its current model)."""
    robot, model, data, g = t.robot, t.pin_model, t.pin_data, t.g
    for _ in range(count):
        q, qd, qdd, qp, vp, ap = pin_state(t, rng)
        tau = g.T @ pin.rnea(model, data, qp, vp, ap)
        assert relative_error(robot.inverse_dynamics(q, qd, qdd), tau) < TOLERANCE
        if robot.dof:   # (a batch of a robot without joints fails on main too: reshape)
            assert relative_error(robot.inverse_dynamics(q[None], qd[None], qdd[None])[0],
                                  tau) < TOLERANCE
        gravity = g.T @ pin.computeGeneralizedGravity(model, data, qp)
        assert relative_error(robot.gravity_torques(q), gravity) < TOLERANCE
        mass = g.T @ symmetric(pin.crba(model, data, qp)) @ g
        assert relative_error(robot.mass_matrix(q), mass) < TOLERANCE
        # Pinocchio 4.1's computeKineticEnergy adds the armature inconsistently with its
        # own M on branched trees (anymal, allegro: not 1/2 v^T M v), so with armature the
        # reference is 1/2 v^T M v with Pinocchio's M
        kinetic = (0.5 * vp @ symmetric(pin.crba(model, data, qp)) @ vp if model.armature.any()
                   else pin.computeKineticEnergy(model, data, qp, vp))
        assert relative_error(robot.kinetic_energy(q, qd), kinetic) < TOLERANCE
        assert relative_error(robot.potential_energy(q),
                              pin.computePotentialEnergy(model, data, qp)) < TOLERANCE
        if robot.dof == 0:
            continue
        eigenvalues = np.linalg.eigvalsh(mass)
        if eigenvalues[0] <= 1e-12 * eigenvalues[-1]:
            continue
        effort = rng.uniform(-5.0, 5.0, robot.dof)
        ours = robot.forward_dynamics(q, qd, effort)
        residual = g.T @ pin.rnea(model, data, qp, vp, g @ ours)
        assert relative_error(residual, effort) < TOLERANCE
        if robot.dof == model.nv and eigenvalues[0] > 1e-6 * eigenvalues[-1]:
            assert relative_error(g @ ours, pin.aba(model, data, qp, vp, g @ effort)) < TOLERANCE
        link = robot.link_names[-1]
        if robot._body_of(link) < 0 or eigenvalues[0] <= 1e-9 * eigenvalues[-1]:
            continue
        pin.computeJointJacobians(model, data, qp)
        pin.updateFramePlacements(model, data)
        jac = (pin.getFrameJacobian(model, data, model.getFrameId(link, pin.BODY),
                                    pin.LOCAL_WORLD_ALIGNED) @ g)[:3]
        lambda_inv = jac @ np.linalg.solve(mass, jac.T)
        if np.linalg.cond(lambda_inv) < 1e4:
            task = robot.operational_space(q, qd, link, axes=(0, 1, 2))
            assert relative_error(task.Lambda, np.linalg.inv(lambda_inv)) < 1e-8


@pytest.mark.parametrize('path', URDFS)
def test_armature_against_pinocchio(path):
    """Armature on every coordinate: ID, M, FD (ABA and the dense mimic path), energies, Lambda."""
    t = twin(path)
    rng = np.random.default_rng(3)
    armature = rng.uniform(0.01, 0.5, t.robot.dof)
    saved = t.pin_model.armature.copy()
    try:
        t.robot.armature = armature
        pin_armature = np.zeros(t.pin_model.nv)
        pin_armature[leader_index_v(t)] = armature   # followers: none (the leader's coordinate)
        t.pin_model.armature = pin_armature
        compare_joint_space(t, rng)
    finally:
        t.robot.armature = np.zeros(t.robot.dof)
        t.pin_model.armature = saved


def random_payload(rng) -> tuple:
    """Return (mass, com, inertia) of a physically consistent random rigid body."""
    mass = rng.uniform(0.2, 3.0)
    com = rng.uniform(-0.1, 0.1, 3)
    moments = rng.uniform(0.5, 1.0, 3) * 1e-2
    rotation = pin.rpy.rpyToMatrix(*rng.uniform(-np.pi, np.pi, 3))
    return mass, com, rotation @ np.diag(moments) @ rotation.T


@pytest.mark.parametrize('path', URDFS)
def test_payloads_against_pinocchio(path):
    """Payloads on the last link and on a link merged by a fixed joint, against Pinocchio."""
    t = twin(path)
    robot, model = t.robot, t.pin_model
    moving = [link for link in robot.link_names if robot._body_of(link) >= 0]
    if not moving:
        pytest.skip('no link moves')
    merged = [link for link in moving if robot._arrays.link_offset[link][0].tolist()
              != [1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0, 0, 0, 0]]
    links = [moving[-1]] + [link for link in merged if link != moving[-1]][:1]
    rng = np.random.default_rng(5)
    saved = [model.inertias[j].copy() for j in range(model.njoints)]
    q = t.random_state(rng)[0]
    jacobians = {link: robot.jacobian(q, link) for link in robot.link_names}
    try:
        for link in links:
            mass, com, inertia = random_payload(rng)
            robot.set_payload(link, mass, com, inertia)
            frame = model.frames[model.getFrameId(link, pin.BODY)]
            model.inertias[frame.parentJoint] += frame.placement.act(
                pin.Inertia(mass, com, inertia))
        compare_joint_space(t, rng)
        for link, jac in jacobians.items():   # kinematics unchanged
            assert np.array_equal(robot.jacobian(q, link), jac)
    finally:
        robot.clear_payload()
        for j, inertia in enumerate(saved):
            model.inertias[j] = inertia


def test_clearing_restores_the_model_bit_for_bit():
    """Armature back to zero and payloads cleared give exactly today's packed model and results."""
    robot = RobotModel.from_urdf_file(example_urdf(MIMIC_PANDA))
    before = robot._model.copy()
    rng = np.random.default_rng(0)
    q, qd, qdd = (rng.uniform(-1, 1, robot.dof) for _ in range(3))
    results = (robot.inverse_dynamics(q, qd, qdd), robot.mass_matrix(q),
               robot.forward_dynamics(q, qd, qdd), robot.kinetic_energy(q, qd))
    robot.armature = np.full(robot.dof, 0.3)
    robot.set_payload('panda_hand_tcp', 1.5, (0.0, 0.0, 0.05))
    assert not np.array_equal(robot.mass_matrix(q), results[1])
    robot.armature = np.zeros(robot.dof)
    robot.clear_payload('panda_hand_tcp')
    assert np.array_equal(robot._model, before)
    after = (robot.inverse_dynamics(q, qd, qdd), robot.mass_matrix(q),
             robot.forward_dynamics(q, qd, qdd), robot.kinetic_energy(q, qd))
    for a, b in zip(results, after):
        assert np.array_equal(a, b)
    assert np.array_equal(robot.inverse_dynamics(q, qd, qdd, friction=True),
                          robot.inverse_dynamics(q, qd, qdd) + robot.friction_torques(qd))


# ---------------------------------------------------------------------- identities
@pytest.mark.parametrize('relative', [PANDA, MIMIC_PANDA])
def test_identities_with_armature_payload_and_friction(relative):
    """M SPD; FD after ID is the identity (single, batch, wrenches); ID + friction adds tau_f."""
    path = relative if os.path.isabs(relative) else example_urdf(relative)
    robot = RobotModel.from_urdf_file(path)
    rng = np.random.default_rng(1)
    robot.armature = rng.uniform(0.05, 0.5, robot.dof)
    robot.set_payload('panda_hand_tcp', 1.5, (0.01, -0.02, 0.05), np.diag([4e-3, 5e-3, 6e-3]))
    robot.actuators = robot.actuators.replace(
        viscous=np.full(robot.dof, 0.3), coulomb=np.full(robot.dof, 0.2),
        offset=np.linspace(-0.1, 0.1, robot.dof),
        sigmoid=np.tile([0.5, 8.0, 0.03], (robot.dof, 1)))
    q, qd, qdd = (rng.uniform(-1, 1, (20, robot.dof)) for _ in range(3))
    for k in range(3):
        mass = robot.mass_matrix(q[k])
        assert np.allclose(mass, mass.T, rtol=0, atol=1e-14)
        assert np.linalg.eigvalsh(mass)[0] > 0.0
        tau = robot.inverse_dynamics(q[k], qd[k], qdd[k])
        assert np.allclose(robot.forward_dynamics(q[k], qd[k], tau), qdd[k], rtol=0,
                           atol=1e-10)
        wrench = {'panda_link5': rng.uniform(-5, 5, 6)}
        tau = robot.inverse_dynamics(q[k], qd[k], qdd[k], wrench)
        assert np.allclose(robot.forward_dynamics(q[k], qd[k], tau, wrench), qdd[k], rtol=0,
                           atol=1e-10)
        assert np.isclose(robot.kinetic_energy(q[k], qd[k]), 0.5 * qd[k] @ mass @ qd[k],
                          rtol=1e-12, atol=0)
    tau = robot.inverse_dynamics(q, qd, qdd)
    assert np.allclose(robot.forward_dynamics(q, qd, tau), qdd, rtol=0, atol=1e-10)
    with_friction = robot.inverse_dynamics(q, qd, qdd, friction=True)
    assert np.allclose(with_friction, tau + robot.friction_torques(qd), rtol=0, atol=1e-12)
    for k in range(3):
        assert np.allclose(robot.inverse_dynamics(q[k], qd[k], qdd[k], friction=True),
                           with_friction[k], rtol=0, atol=1e-12)


def gaz_friction(qd, viscous, coulomb, offset, sigmoid, scale):
    """Return the friction model written out (closed form, per joint)."""
    phi1, phi2, phi3 = np.asarray(sigmoid).T
    return (viscous * qd + coulomb * np.tanh(qd / scale) + offset
            + phi1 / (1.0 + np.exp(-phi2 * (qd + phi3))) - phi1 / (1.0 + np.exp(-phi2 * phi3)))


def test_friction_models_against_their_closed_forms():
    """Each term alone and all together, single states and batches, and the Panda's sigmoid."""
    robot = RobotModel.from_urdf_file(PANDA, actuators=PANDA_ACTUATORS)
    dof = robot.dof
    rng = np.random.default_rng(2)
    qd = rng.uniform(-2.0, 2.0, (50, dof))
    qd[0] = 0.0
    sigmoid = robot.actuators.sigmoid
    assert sigmoid[0].tolist() == [0.54615, 5.1181, 0.039533]
    assert np.all(robot.friction_torques(np.zeros(dof)) == 0.0)   # Gaz et al.: zero at rest
    expected = gaz_friction(qd, 0, 0, 0, sigmoid, 1e-3)
    assert np.allclose(robot.friction_torques(qd), expected, rtol=1e-13, atol=1e-15)
    # at high speed the sigmoid saturates at phi1 (1 - 1 / (1 + exp(-phi2 phi3)))
    high = robot.friction_torques(np.full(dof, 50.0))
    phi1, phi2, phi3 = sigmoid.T
    assert np.allclose(high, phi1 - phi1 / (1 + np.exp(-phi2 * phi3)), rtol=1e-12)
    terms = {'viscous': rng.uniform(0, 1, dof), 'coulomb': rng.uniform(0, 1, dof),
             'offset': rng.uniform(-0.2, 0.2, dof)}
    base = robot.actuators.replace(sigmoid=np.zeros((dof, 3)), friction_velocity=0.02)
    for name, value in terms.items():
        robot.actuators = base.replace(**{name: value})
        args = {'viscous': 0, 'coulomb': 0, 'offset': 0, name: value}
        reference = gaz_friction(qd, sigmoid=np.zeros((dof, 3)), scale=0.02, **args)
        assert np.allclose(robot.friction_torques(qd), reference, rtol=1e-13, atol=1e-15)
        for k in range(3):
            assert np.allclose(robot.friction_torques(qd[k]), reference[k], rtol=1e-13,
                               atol=1e-15)
    robot.actuators = robot.actuators.replace(sigmoid=sigmoid, **terms)
    reference = gaz_friction(qd, sigmoid=sigmoid, scale=0.02, **terms)
    assert np.allclose(robot.friction_torques(qd), reference, rtol=1e-13, atol=1e-15)
    assert np.allclose(robot.friction_torques(list(qd[1])), reference[1], rtol=1e-13, atol=1e-15)
    with pytest.raises(ValueError, match='qd: contains NaN'):
        robot.friction_torques(np.full(dof, np.nan))
    with pytest.raises(ValueError, match='friction: expected True or False'):
        robot.inverse_dynamics(qd[1], qd[1], qd[1], friction='yes')
    assert np.array_equal(robot.inverse_dynamics(qd[1], qd[1], qd[1], friction=np.True_),
                          robot.inverse_dynamics(qd[1], qd[1], qd[1], friction=True))


def test_simulator_conserves_energy_with_armature_and_friction_dissipates_at_qd_tau_f():
    """No friction: E constant with armature; friction only: dE/dt = -qd . tau_f(qd)."""
    robot = RobotModel.from_urdf_file(PANDA)
    robot.armature = np.array([0.3, 0.3, 0.2, 0.2, 0.1, 0.1, 0.1])
    robot.set_payload('panda_hand_tcp', 1.0, (0.0, 0.02, 0.04))
    q0 = np.array([0.3, -0.4, 0.2, -1.8, 0.1, 1.6, 0.5])
    qd0 = np.array([0.8, -0.5, 0.7, 0.6, -1.0, 0.9, 1.2])
    sim = Simulator(robot, dt=1e-3, q0=q0, qd0=qd0, damping=False, friction=False,
                    limits=False)
    energy = sim.energy()
    sim.step(300)
    assert abs(sim.energy() - energy) < 1e-6 * max(1.0, abs(energy))
    assert np.linalg.norm(sim.qd - qd0) > 0.1   # it moved
    robot.actuators = robot.actuators.replace(
        viscous=np.full(7, 0.4), coulomb=np.full(7, 0.3), friction_velocity=0.05,
        sigmoid=np.tile([0.6, 8.0, 0.03], (7, 1)))
    sim = Simulator(robot, dt=2e-4, q0=q0, qd0=qd0, limits=False)
    energies, powers = [sim.energy()], [qd0 @ robot.friction_torques(qd0)]
    for _ in range(500):
        sim.step()
        energies.append(sim.energy())
        powers.append(sim.qd @ robot.friction_torques(sim.qd))
    dissipated = np.trapezoid(powers, dx=2e-4)
    assert dissipated > 0.05
    assert abs((energies[0] - energies[-1]) - dissipated) < 1e-6 * dissipated + 1e-9
    # the compiled step and the Python step (used with wrenches) agree
    python = Simulator(robot, dt=2e-4, q0=q0, qd0=qd0, limits=False)
    python.set_wrenches({'panda_link7': np.zeros(6)})
    compiled = Simulator(robot, dt=2e-4, q0=q0, qd0=qd0, limits=False)
    python.step(20)
    compiled.step(20)
    assert np.allclose(python.qd, compiled.qd, rtol=0, atol=1e-12)


# ---------------------------------------------------------------------- payloads
def test_payload_validation_names_the_problem_and_changes_nothing():
    robot = RobotModel.from_urdf_file(PANDA)
    model = robot._model
    bad = [(('nowhere', 1.0), "link 'nowhere' is not a link"),
           (('panda_link0', 1.0), 'fixed to the root'),
           (('panda_hand', -1.0), 'mass must be finite and >= 0'),
           (('panda_hand', np.nan), 'mass must be finite'),
           (('panda_hand', 'heavy'), 'mass must be a number'),
           (('panda_hand', 1.0, (0, 0)), 'com must be 3 finite numbers'),
           (('panda_hand', 1.0, (0, 0, np.inf)), 'com must be 3 finite numbers'),
           (('panda_hand', 1.0, (0, 0, 0), np.eye(2)), 'inertia must be a finite 3x3'),
           (('panda_hand', 1.0, (0, 0, 0), [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]),
            'inertia must be symmetric'),
           (('panda_hand', 1.0, (0, 0, 0), np.diag([-1e-3, 1e-3, 1e-3])),
            'not physically consistent'),
           (('panda_hand', 1.0, (0, 0, 0), np.diag([1e-3, 1e-3, 3e-3])),   # triangle
            'triangle inequality'),
           (('panda_hand', 1.0, (0, 0, 0), [[1e-3, 2e-3, 0], [2e-3, 1e-3, 0], [0, 0, 1e-3]]),
            'not physically consistent')]
    for args, message in bad:
        with pytest.raises(ValueError, match=message):
            robot.set_payload(*args)
        assert robot._model is model and robot.payloads == {}
    robot.set_payload('panda_hand', 0.5, inertia=np.diag([1e-3, 1e-3, 2e-3]))   # the limit
    assert robot.payload('panda_hand').mass == 0.5
    assert robot.payload('panda_link3') is None
    with pytest.raises(ValueError, match="link 'x' is not a link"):
        robot.payload('x')
    with pytest.raises(ValueError, match="link 'x' is not a link"):
        robot.clear_payload('x')


def test_payload_is_the_gravity_of_a_point_mass_and_round_trips_through_pickle():
    """A point mass at the TCP adds J_tcp^T m g (the Jacobian of that point) to g(q)."""
    robot = RobotModel.from_urdf_file(PANDA)
    q = np.array([0.1, -0.5, 0.3, -2.0, 0.2, 1.5, 0.4])
    base = robot.gravity_torques(q)
    offset = np.array([0.02, -0.01, 0.03])
    robot.set_payload('panda_hand_tcp', 2.0, offset)
    pose = robot.link_pose(q, 'panda_hand_tcp')
    point = robot.jacobian(q, 'panda_hand_tcp')
    lever = pose[:3, :3] @ offset
    jac = point[:3] - np.cross(lever, point[3:].T).T   # velocity of the offset point
    weight = 2.0 * np.array([0.0, 0.0, 9.81])
    assert np.allclose(robot.gravity_torques(q) - base, jac.T @ weight, rtol=0, atol=1e-12)
    copy = pickle.loads(pickle.dumps(robot))
    assert np.array_equal(copy.gravity_torques(q), robot.gravity_torques(q))
    robot.set_payload('panda_hand_tcp', 0.0)   # replaced, massless: back to the arm alone
    assert np.allclose(robot.gravity_torques(q), base, rtol=0, atol=1e-13)


def test_payload_changes_are_atomic_for_calls_on_other_threads():
    """Every result computed while another thread toggles a payload is one of the two models'."""
    robot = RobotModel.from_urdf_file(PANDA)
    q = np.array([0.1, -0.5, 0.3, -2.0, 0.2, 1.5, 0.4])
    without = robot.gravity_torques(q)
    robot.set_payload('panda_hand_tcp', 3.0, (0, 0, 0.1))
    with_payload = robot.gravity_torques(q)
    batch = np.tile(q, (64, 1))
    stop = threading.Event()
    seen = []

    def toggle():
        while not stop.is_set():
            robot.clear_payload('panda_hand_tcp')
            robot.set_payload('panda_hand_tcp', 3.0, (0, 0, 0.1))

    thread = threading.Thread(target=toggle)
    thread.start()
    try:
        for _ in range(2000):
            seen.append(robot.gravity_torques(q))
        for _ in range(50):
            seen.extend(robot.inverse_dynamics(batch, 0 * batch, 0 * batch))
    finally:
        stop.set()
        thread.join()
    kinds = [np.array_equal(s, without) or np.array_equal(s, with_payload) for s in seen]
    assert all(kinds)
    robot.set_payload('panda_hand_tcp', 3.0, (0, 0, 0.1))
    assert np.array_equal(robot.gravity_torques(q), with_payload)   # no stale binding left


# ---------------------------------------------------------------------- armature setter
def test_armature_validation_names_the_joint():
    robot = RobotModel.from_urdf_file(PANDA)
    model = robot._model
    for value, message in [(np.full(7, -0.1), "armature of joint 'panda_joint1'"),
                           ([0, 0, np.nan, 0, 0, 0, 0], "armature of joint 'panda_joint3'"),
                           (np.zeros(6), r'armature: expected shape \(7,\)'),
                           ('big', 'armature: expected real numbers')]:
        with pytest.raises((ValueError, TypeError), match=message):
            robot.armature = value
        assert robot._model is model
    robot.armature = [0.1] * 7
    assert robot.armature.tolist() == [0.1] * 7 and not robot.armature.flags.writeable


# ---------------------------------------------------------------------- description
ARM = """<robot name="arm" xmlns:drake="http://drake.mit.edu">
  <link name="base"/>
  <link name="a"><inertial><mass value="1"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><origin xyz="0.1 0 0"/><mass value="1"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="c"><inertial><origin xyz="0.1 0 0"/><mass value="0.5"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/>
    <limit effort="10" lower="-3" upper="3" velocity="1"/>
    <dynamics damping="0.7" friction="0.2"/></joint>
  <joint name="j2" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 1 0"/>
    <limit effort="10" lower="-3" upper="3" velocity="1"/></joint>
  <joint name="j3" type="revolute"><parent link="b"/><child link="c"/><axis xyz="0 1 0"/>
    <origin xyz="0.2 0 0"/><limit effort="10" lower="-3" upper="3" velocity="1"/>
    <mimic joint="j2" multiplier="2"/></joint>
  <transmission name="t1"><type>transmission_interface/SimpleTransmission</type>
    <joint name="j1"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="m1"><mechanicalReduction>-50</mechanicalReduction>
      <drake:rotor_inertia value="2e-5"/></actuator></transmission>
  <ros2_control name="hw" type="system">
    <transmission name="t2"><plugin>transmission_interface/SimpleTransmission</plugin>
      <actuator name="m2" role="m2"/>
      <joint name="j2" role="j2"><mechanical_reduction>100</mechanical_reduction></joint>
    </transmission>
  </ros2_control>
  EXTRA
</robot>"""


def arm(extra: str = '', **options) -> RobotModel:
    return RobotModel.from_urdf_string(ARM.replace('EXTRA', extra), **options)


def test_transmissions_and_dynamics_of_the_urdf():
    """ROS 1 and ros2_control reductions, Drake's rotor inertia (armature G^2 J), <dynamics>."""
    robot = arm()
    assert robot.joint_names == ('j1', 'j2')
    assert robot.actuators.gear_ratio.tolist() == [-50.0, 100.0]
    assert np.allclose(robot.armature, [2500 * 2e-5, 0.0], rtol=1e-15)
    assert robot.actuators.viscous.tolist() == [0.7, 0.0]
    assert robot.actuators.coulomb.tolist() == [0.2, 0.0]
    q, qdd = np.array([0.2, 0.4]), np.array([1.0, -2.0])
    plain = RobotModel.from_urdf_string(ARM.replace('EXTRA', ''))
    plain.armature = np.zeros(2)
    assert np.allclose(robot.mass_matrix(q) - plain.mass_matrix(q), np.diag([0.05, 0.0]))
    assert np.allclose(robot.inverse_dynamics(q, 0 * q, qdd) - plain.inverse_dynamics(
        q, 0 * q, qdd), [0.05, 0.0])
    drake_ratio = ('<transmission name="t3"><joint name="j2"/><actuator name="m3">'
                   '<drake:gear_ratio value="100"/><drake:rotor_inertia value="1e-5"/>'
                   '</actuator></transmission>')   # a second transmission of j2: merged
    assert np.isclose(arm(drake_ratio).armature[1], 1e4 * 1e-5, rtol=1e-15)
    with pytest.raises(URDFError, match="joint 'j2': two transmissions give different gear"):
        arm(drake_ratio.replace('"100"', '"90"'))


@pytest.mark.parametrize('extra, message', [
    ('<transmission name="t"><joint name="j2"/><actuator name="m">'
     '<mechanicalReduction>x</mechanicalReduction></actuator></transmission>',
     "transmission 't' actuator <mechanicalReduction>: expected a number"),
    ('<transmission name="t"><joint name="j2"/><actuator name="m">'
     '<mechanicalReduction>0</mechanicalReduction></actuator></transmission>',
     'a gear ratio of 0'),
    ('<transmission name="t"><joint name="j2"/><actuator name="m">'
     '<drake:rotor_inertia value="-1"/></actuator></transmission>', 'must be >= 0'),
    ('<transmission name="t"><joint name="j2"><mechanicalReduction>3</mechanicalReduction>'
     '</joint><actuator name="m"><drake:gear_ratio value="4"/></actuator></transmission>',
     'gear ratios 3.0 .* and 4.0 .* differ'),
])
def test_unreadable_transmissions_are_ignored_with_a_warning(extra, message):
    """As urdfdom does (test_lenient_urdf.py has the case of PyBullet's xArm 6)."""
    with pytest.warns(URDFWarning, match=message + '.*the transmission is ignored'):
        robot = arm(extra)
    assert robot.actuators.gear_ratio.tolist() == [-50.0, 100.0]   # t1 and t2 still read


def test_transmissions_skipped_with_a_warning():
    extra = ('<transmission name="diff"><joint name="j1"/><joint name="j2"/></transmission>'
             '<transmission name="t"><joint name="ghost"/><actuator name="m">'
             '<mechanicalReduction>3</mechanicalReduction></actuator></transmission>')
    with pytest.warns(URDFWarning) as record:
        robot = arm(extra)
    assert len(record) == 1 and "joint 'ghost'" in str(record[0].message)   # diff: silent
    assert robot.actuators.gear_ratio.tolist() == [-50.0, 100.0]


def test_actuators_yaml_overrides_the_description(tmp_path):
    config = {'friction_velocity': 0.01,
              'joints': {'j1': {'gear_ratio': 10, 'rotor_inertia': 1e-3, 'viscous': 0.1,
                                'coulomb': 0.3, 'offset': -0.05, 'sigmoid': [0.5, 9, 0.02],
                                'effort_limit': 7.5},
                         'j2': {'armature': 0.25}}}
    robot = arm(actuators=config)
    parameters = robot.actuators
    assert parameters.gear_ratio.tolist() == [10.0, 100.0]
    assert np.allclose(robot.armature, [0.1, 0.25], rtol=1e-15)
    assert parameters.viscous.tolist() == [0.1, 0.0] and parameters.coulomb.tolist() == [0.3, 0]
    assert parameters.offset.tolist() == [-0.05, 0.0]
    assert parameters.sigmoid.tolist() == [[0.5, 9.0, 0.02], [0.0, 0.0, 0.0]]
    assert robot.effort_limit.tolist() == [7.5, 10.0]
    assert parameters.friction_velocity == 0.01
    path = tmp_path / 'actuators.yaml'
    import yaml
    path.write_text(yaml.safe_dump(config))
    assert arm(actuators=str(path)).actuators == parameters
    assert RobotModel.from_urdf_string(ARM.replace('EXTRA', ''),
                                       actuators=parameters.to_dict()).actuators == parameters
    panda = RobotModel.from_urdf_file(PANDA, actuators=PANDA_ACTUATORS)
    assert panda.actuators.sigmoid[6].tolist() == [0.56489, 10.336, 0.0035526]


@pytest.mark.parametrize('config, message', [
    ({'joint': {}}, "unknown key 'joint' .*valid keys: friction_velocity, joints"),
    ({'joints': {'j9': {}}}, "joint 'j9' is not an independent joint .*joints: j1, j2"),
    ({'joints': {'j3': {'viscous': 1}}}, "joint 'j3' mimics joint 'j2'"),
    ({'joints': {'j1': {'viscus': 1}}}, "joint 'j1': unknown key 'viscus' .*valid keys: "
                                        'gear_ratio, armature'),
    ({'joints': {'j1': {'viscous': -1}}}, "viscous of joint 'j1': expected a finite number >= 0"),
    ({'joints': {'j1': {'viscous': 'a'}}}, "joint 'j1': viscous: expected a number"),
    ({'joints': {'j1': {'sigmoid': [1, 2]}}}, "joint 'j1': sigmoid: expected a list of 3"),
    ({'joints': {'j1': {'armature': 1, 'rotor_inertia': 1}}}, 'not both'),
    ({'joints': {'j1': {'gear_ratio': 0}}}, "gear_ratio of joint 'j1': expected a finite "
                                            'nonzero'),
    ({'joints': {'j1': {'effort_limit': -3}}}, "effort_limit of joint 'j1'"),
    ({'friction_velocity': 0}, 'friction_velocity: expected a positive'),
    ({'joints': ['j1']}, 'joints must map joint names'),
    ({'joints': {'j1': 3}}, "joint 'j1': expected a mapping"),
])
def test_actuators_yaml_errors_name_the_problem(config, message):
    with pytest.raises(ValueError, match=message):
        arm(actuators=config)


def test_rotor_inertia_needs_a_gear_ratio_and_files_must_exist(tmp_path):
    plain = ARM.replace('EXTRA', '').split('<transmission')[0] + '</robot>'
    with pytest.raises(ValueError, match='rotor_inertia needs the gear ratio'):
        RobotModel.from_urdf_string(plain, actuators={'joints': {'j1': {'rotor_inertia': 1}}})
    with pytest.raises(ValueError, match='cannot read'):
        arm(actuators=str(tmp_path / 'missing.yaml'))
    (tmp_path / 'bad.yaml').write_text('joints: [')
    with pytest.raises(ValueError, match='not valid YAML'):
        arm(actuators=str(tmp_path / 'bad.yaml'))


@pytest.mark.parametrize('path', URDFS)
def test_every_urdf_s_transmissions_load(path):
    """The transmissions of every example-robot-data URDF parse (gear ratios, no armature)."""
    import xml.etree.ElementTree as ElementTree
    with open(path, encoding='utf-8') as stream:
        root = ElementTree.fromstring(stream.read())
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', URDFWarning)
        for joint, (ratio, rotor) in parse_transmissions(root).items():
            assert ratio is None or (np.isfinite(ratio) and ratio != 0.0), joint
            assert rotor is None
