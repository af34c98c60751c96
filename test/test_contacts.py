# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Contacts in the core against Pinocchio 4's constraintDynamics and against a cvxpy QP.

Constrained forward dynamics: solo12 and ANYmal with four point feet (CONTACT_3D) and
TALOS with both soles (CONTACT_6D), Baumgarte gains zero, at random states, against
``pin.constraintDynamics`` in LOCAL and LOCAL_WORLD_ALIGNED (the forces: LWA's lambda).
Contact-consistent inverse dynamics: the equations of motion, the limits, and the same
solution as the QP written here with cvxpy from the friction pyramid's and the centre of
pressure's definitions (not from the module's matrices).
"""

import os
import re
import warnings

import cvxpy as cp
import numpy as np
import pinocchio as pin
import pytest
from robot_data import example_urdf
from ros_dynamics import RobotModel, URDFWarning
from ros_dynamics.contacts import Contact
from ros_dynamics.contacts.forward import compiled_call
from ros_dynamics.contacts.inverse import ContactInfeasibleError

TOLERANCE = 1e-9
SOLO_FEET = ('FL_FOOT', 'FR_FOOT', 'HL_FOOT', 'HR_FOOT')
ROBOTS = {
    'solo12': ('solo_description/robots/solo12.urdf', SOLO_FEET, 'point'),
    'anymal': ('anymal_b_simple_description/robots/anymal.urdf',
               ('LF_FOOT', 'RF_FOOT', 'LH_FOOT', 'RH_FOOT'), 'point'),
    'talos_reduced': ('talos_data/robots/talos_reduced.urdf',
                      ('left_sole_link', 'right_sole_link'), '6d'),
}
PIN_TYPE = {'point': pin.ContactType.CONTACT_3D, '6d': pin.ContactType.CONTACT_6D}


def relative_error(ours, reference) -> float:
    return float(np.max(np.abs(ours - reference)) / max(1.0, np.max(np.abs(reference))))


class Pair:
    """Our model and Pinocchio's of one free-flyer robot (revolute joints: the same q)."""

    def __init__(self, name: str) -> None:
        relative, self.feet, self.kind = ROBOTS[name]
        path = example_urdf(relative)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', URDFWarning)
            self.robot = RobotModel.from_urdf_file(path, mimic=False, root_joint='floating')
        self.model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
        self.data = self.model.createData()
        assert (self.robot.nq, self.robot.nv) == (self.model.nq, self.model.nv)
        assert self.robot.joint_names == tuple(self.model.names[1:])

    def random_state(self, rng: np.random.Generator) -> tuple:
        pin.seed(int(rng.integers(2 ** 31)))   # Pinocchio's own generator, from ours
        q = pin.randomConfiguration(self.model, -np.ones(self.model.nq), np.ones(self.model.nq))
        return q, rng.standard_normal(self.robot.nv), rng.standard_normal(self.robot.nv)

    def pin_dynamics(self, q, v, tau, frames, reference, placements=None, prox=None,
                     anchors=None, gains=(0.0, 0.0)) -> tuple:
        """Return pin.constraintDynamics's (qdd, lambda) for contacts on ``frames``."""
        models = []
        for k, name in enumerate(frames):
            frame = self.model.frames[self.model.getFrameId(name)]
            placement = frame.placement * (placements[k] if placements else pin.SE3.Identity())
            if anchors is None:
                models.append(pin.RigidConstraintModel(PIN_TYPE[self.kind], self.model,
                                                       frame.parentJoint, placement, reference))
            else:   # held to a world placement (joint 0, the universe), with the corrector
                models.append(pin.RigidConstraintModel(
                    PIN_TYPE[self.kind], self.model, frame.parentJoint, placement, 0,
                    pin.SE3(anchors[k]), reference))
                models[-1].setBaumgarteCorrectorParameters(
                    pin.BaumgarteCorrectorParameters(*gains))
        models = pin.StdVec_RigidConstraintModel(models)
        datas = pin.StdVec_RigidConstraintData([m.createData() for m in models])
        pin.initConstraintDynamics(self.model, self.data, models, datas)
        args = (self.model, self.data, q, v, tau, models, datas) + ((prox,) if prox else ())
        qdd = pin.constraintDynamics(*args)
        return qdd.copy(), self.data.lambda_c.copy()


@pytest.fixture(scope='module', params=list(ROBOTS))
def pair(request) -> Pair:
    return Pair(request.param)


def test_forward_dynamics_is_pinocchios(pair):
    """Compare qdd with LOCAL's and LOCAL_WORLD_ALIGNED's (the same), forces with LWA's."""
    rng = np.random.default_rng(7)
    contacts = [Contact(name, pair.kind) for name in pair.feet]
    for _ in range(3):
        q, v, tau = pair.random_state(rng)
        qdd, forces = pair.robot.constrained_forward_dynamics(q, v, tau, contacts)
        for reference in (pin.LOCAL, pin.LOCAL_WORLD_ALIGNED):
            qdd_pin, forces_pin = pair.pin_dynamics(q, v, tau, pair.feet, reference)
            assert relative_error(qdd, qdd_pin) < TOLERANCE
        assert relative_error(forces, forces_pin) < TOLERANCE
        # the Python path (zero Baumgarte gains given: no compiled call) agrees too
        python = pair.robot.constrained_forward_dynamics(q, v, tau, contacts, (0.0, 0.0))
        assert relative_error(python.qdd, qdd_pin) < TOLERANCE
        assert relative_error(python.forces, forces_pin) < TOLERANCE
        assert compiled_call(pair.robot, contacts)(q, v, tau) is not None   # it was compiled
        # the equations of motion with the contact forces, from our own M, b and J
        robot = pair.robot
        lhs = robot.mass_matrix(q) @ qdd + robot.bias_torques(q, v)
        assert relative_error(lhs, tau + contact_jacobian(robot, q, contacts).T @ forces) \
            < TOLERANCE


def test_forward_dynamics_offset_and_rotated_contact_frames(pair):
    """Place a contact point or frame in the link (position, rotation) as Pinocchio does."""
    rng = np.random.default_rng(11)
    q, v, tau = pair.random_state(rng)
    placements, contacts = [], []
    for name in pair.feet:
        rotation = pin.rpy.rpyToMatrix(*rng.uniform(-1.0, 1.0, 3))
        position = rng.uniform(-0.05, 0.05, 3)
        placements.append(pin.SE3(rotation, position))
        contacts.append(Contact(name, pair.kind, position=position, rotation=rotation))
    qdd, forces = pair.robot.constrained_forward_dynamics(q, v, tau, contacts)
    qdd_pin, forces_pin = pair.pin_dynamics(q, v, tau, pair.feet, pin.LOCAL_WORLD_ALIGNED,
                                            placements)
    assert relative_error(qdd, qdd_pin) < TOLERANCE
    assert relative_error(forces, forces_pin) < TOLERANCE


def test_forward_dynamics_batch_is_the_single_states(pair):
    rng = np.random.default_rng(13)
    states = [pair.random_state(rng) for _ in range(3)]
    contacts = [Contact(name, pair.kind) for name in pair.feet]
    q, v, tau = (np.array(x) for x in zip(*states))
    qdd, forces = pair.robot.constrained_forward_dynamics(q, v, tau, contacts)
    for k, state in enumerate(states):
        single = pair.robot.constrained_forward_dynamics(*state, contacts)
        assert relative_error(qdd[k], single.qdd) < 1e-12
        assert relative_error(forces[k], single.forces) < 1e-12
    empty = pair.robot.constrained_forward_dynamics(q[:0], v[:0], tau[:0], contacts)
    assert empty.qdd.shape == (0, pair.robot.nv) and empty.forces.shape[0] == 0
    v[1, 3] = np.nan
    with pytest.raises(ValueError, match='v: row 1 contains NaN'):
        pair.robot.constrained_forward_dynamics(q, v, tau, contacts)


def test_the_compiled_path_follows_model_changes():
    """A payload or a new gravity repacks the model: the compiled call is bound again."""
    pair = Pair('solo12')
    robot = pair.robot
    rng = np.random.default_rng(43)
    q, v, tau = pair.random_state(rng)
    feet = [Contact(name) for name in SOLO_FEET]
    before = robot.constrained_forward_dynamics(q, v, tau, feet)
    robot.set_payload('base_link', 2.0, com=(0.05, 0.0, 0.02))
    robot.gravity = (0.5, 0.0, -9.0)
    try:
        after = robot.constrained_forward_dynamics(q, v, tau, feet)
        python = robot.constrained_forward_dynamics(q, v, tau, feet, (0.0, 0.0))
        assert relative_error(after.qdd, before.qdd) > 1e-3
        assert relative_error(after.qdd, python.qdd) < TOLERANCE
        assert relative_error(after.forces, python.forces) < TOLERANCE
        single = robot.constrained_forward_dynamics(q, v, tau, feet[0])   # one Contact
        assert single.forces.shape == (3,)
    finally:
        robot.clear_payload()
        robot.gravity = (0.0, 0.0, -9.81)


def test_no_contact_is_the_free_dynamics():
    """An empty contact set: forward dynamics is ABA's; the inverse dynamics falls (limited)."""
    pair = Pair('solo12')
    robot = pair.robot
    q, v, tau = pair.random_state(np.random.default_rng(47))
    for baumgarte in (None, (0.0, 0.0)):   # the compiled call and the Python path
        qdd, forces = robot.constrained_forward_dynamics(q, v, tau, [], baumgarte)
        assert relative_error(qdd, robot.forward_dynamics(q, v, tau)) < TOLERANCE
        assert forces.shape == (0,)
    answer = robot.contact_inverse_dynamics(q, v, np.zeros(robot.nv), [])
    assert answer.limited and np.all(answer.tau[:6] == 0.0)
    assert relative_error(robot.forward_dynamics(q, v, answer.tau), answer.qdd) < TOLERANCE


def test_rank_deficient_contacts_as_pinocchios_proximal_solver():
    """A foot held twice (rank-deficient J): qdd unique, forces the least-norm (prox limit)."""
    pair = Pair('solo12')
    rng = np.random.default_rng(17)
    q, v, tau = pair.random_state(rng)
    frames = SOLO_FEET + ('FL_FOOT',)
    qdd, forces = pair.robot.constrained_forward_dynamics(
        q, v, tau, [Contact(name) for name in frames])
    # mu 1e-2: the iterations converge in a few steps; a small mu lets rounding in G's null
    # space grow by rhs_null / mu a step (1e-6 and 1000 steps: 1e-5 relative, uneven splits)
    prox = pin.ProximalSettings(1e-13, 1e-2, 200)
    qdd_pin, forces_pin = pair.pin_dynamics(q, v, tau, frames, pin.LOCAL_WORLD_ALIGNED,
                                            prox=prox)
    assert relative_error(qdd, qdd_pin) < TOLERANCE
    assert relative_error(forces, forces_pin) < TOLERANCE   # 1e-10 at worst over 20 states
    assert np.allclose(forces[:3], forces[12:], atol=1e-9)   # the least norm splits evenly
    full = pair.robot.constrained_forward_dynamics(q, v, tau, [Contact(n) for n in SOLO_FEET])
    assert relative_error(qdd, full.qdd) < 1e-9
    assert relative_error(forces[:3] + forces[12:], full.forces[:3]) < 1e-9
    # in a batch, rows the kernel refuses take the Python path
    batch = pair.robot.constrained_forward_dynamics(
        np.array([q, q]), np.array([v, -v]), np.array([tau, tau]), [Contact(n) for n in frames])
    assert relative_error(batch.qdd[0], qdd) < 1e-12
    assert np.allclose(batch.forces[:, :3], batch.forces[:, 12:], atol=1e-9)


def test_baumgarte_stabilisation_is_pinocchios(pair):
    """Contacts anchored where they were, the robot moved: Pinocchio's Baumgarte corrector."""
    robot = pair.robot
    rng = np.random.default_rng(41)
    q, v, tau = pair.random_state(rng)
    anchors = [Contact(name, pair.kind).fixed_at(robot, q) for name in pair.feet]
    moved = robot.integrate(q, 0.05 * rng.standard_normal(robot.nv))
    gains = (100.0, 20.0)
    qdd, forces = robot.constrained_forward_dynamics(moved, v, tau, anchors, baumgarte=gains)
    qdd_pin, forces_pin = pair.pin_dynamics(moved, v, tau, pair.feet, pin.LOCAL_WORLD_ALIGNED,
                                            anchors=[c.anchor for c in anchors], gains=gains)
    assert relative_error(qdd, qdd_pin) < TOLERANCE
    assert relative_error(forces, forces_pin) < TOLERANCE
    unanchored = robot.constrained_forward_dynamics(moved, v, tau, [
        Contact(name, pair.kind) for name in pair.feet], baumgarte=gains)
    assert relative_error(unanchored.qdd, qdd) > 1e-6   # the anchors' error acts


def test_baumgarte_terms_hold_the_stabilised_constraint():
    """J qdd + Jdot v = -kd J v - kp e, e the anchored point's position error (world axes)."""
    pair = Pair('solo12')
    robot = pair.robot
    rng = np.random.default_rng(19)
    q, v, tau = pair.random_state(rng)
    anchors = [Contact(name).fixed_at(robot, q) for name in SOLO_FEET]
    moved = robot.integrate(q, 0.01 * rng.standard_normal(robot.nv))
    kp, kd = 100.0, 20.0
    qdd, _ = robot.constrained_forward_dynamics(moved, v, tau, anchors, baumgarte=(kp, kd))
    for contact in anchors:
        jac = robot.jacobian(moved, contact.frame)[:3]
        drift = robot.jacobian_dot_qd(moved, v, contact.frame)[:3]
        error = robot.link_pose(moved, contact.frame)[:3, 3] - contact.anchor[:3, 3]
        assert np.abs(error).max() > 1e-4
        assert np.allclose(jac @ qdd + drift, -kd * (jac @ v) - kp * error, atol=1e-9)


def test_forward_dynamics_errors_name_the_argument():
    robot = Pair('solo12').robot
    q, zero = robot.neutral_configuration(), np.zeros(robot.nv)
    with pytest.raises(ValueError, match="frame 'FL_FOT' is not a link.*did you mean 'FL_FOOT'"):
        robot.constrained_forward_dynamics(q, zero, zero, [Contact('FL_FOT')])
    with pytest.raises(ValueError, match='contacts\\[1\\]: expected a Contact'):
        robot.constrained_forward_dynamics(q, zero, zero, [Contact('FL_FOOT'), 'FR_FOOT'])
    with pytest.raises(ValueError, match='tau: contains NaN'):
        robot.constrained_forward_dynamics(q, zero, np.full(robot.nv, np.nan), Contact('FL_FOOT'))
    with pytest.raises(ValueError, match='v: expected shape'):
        robot.constrained_forward_dynamics(q, zero[:3], zero, Contact('FL_FOOT'))
    with pytest.raises(ValueError, match='overflowed'):   # never inf or NaN with success
        robot.constrained_forward_dynamics(q, np.full(robot.nv, 1e200), zero, Contact('FL_FOOT'))
    with pytest.raises(ValueError, match='baumgarte'):
        robot.constrained_forward_dynamics(q, zero, zero, Contact('FL_FOOT'), baumgarte=(-1, 0))
    for kwargs, match in [({'kind': 'plane'}, 'kind'), ({'friction': -0.5}, 'friction'),
                          ({'friction': float('nan')}, 'friction'),
                          ({'sole': (-0.1, 0.1, -0.05, 0.05)}, 'sole applies to a 6d'),
                          ({'normal': (0, 0, 2)}, 'unit vector'),
                          ({'position': (0, 0)}, 'position'),
                          ({'bilateral': True, 'friction': 0.5}, 'bilateral contact has no'),
                          ({'kind': '6d', 'sole': (0.1, 0.2, -0.05, 0.05)}, 'contain the')]:
        with pytest.raises(ValueError, match=match):
            Contact('FL_FOOT', **kwargs)


# ---------------------------------------------------------------- inverse dynamics
def standing(pair: Pair, name: str) -> np.ndarray:
    srdf = {'solo12': ('solo_description/srdf/solo.srdf', 'standing'),
            'talos_reduced': ('talos_data/srdf/talos.srdf', 'half_sitting')}[name]
    pin.loadReferenceConfigurations(pair.model, example_urdf(srdf[0]))
    return pair.model.referenceConfigurations[srdf[1]].copy()


def consistent_acceleration(robot, q, v, contacts, base, rng) -> np.ndarray:
    """Return a qdd holding the contacts (J qdd + gamma = 0) with the base part ``base``."""
    from ros_dynamics.contacts.forward import constraint_residual
    zero = np.zeros(robot.nv)
    gamma = constraint_residual(robot, q, v, zero, contacts)
    jac = np.vstack([constraint_residual(robot, q, v, e, contacts) - gamma
                     for e in np.eye(robot.nv)]).T
    legs = np.linalg.lstsq(jac[:, 6:], -gamma - jac[:, :6] @ base, rcond=None)[0]
    qdd = np.concatenate([base, legs]) + 0.0 * rng.standard_normal(robot.nv)
    assert np.abs(constraint_residual(robot, q, v, qdd, contacts)).max() < 1e-9
    return qdd


def contact_jacobian(robot, q, contacts) -> np.ndarray:
    """Return the stacked contact Jacobian, world axes (J^T f is the contacts' joint force)."""
    rows = []
    for contact in contacts:
        jac = robot.jacobian(q, contact.frame)
        r = robot.link_pose(q, contact.frame)[:3, :3] @ contact.position
        skew = np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])
        rows.append(jac[:3] - skew @ jac[3:])
        if contact.kind == '6d':
            rows.append(jac[3:])
    return np.vstack(rows)


def reference_qp(robot, q, v, qdd, contacts, mu, sole=None) -> np.ndarray:
    """Solve the stage-1 QP with cvxpy: min |f|^2, the base rows, pyramids (4 facets), CoP."""
    jac = contact_jacobian(robot, q, contacts)
    torque = robot.inverse_dynamics(q, v, qdd)
    f = cp.Variable(jac.shape[0])
    constraints = [jac[:, :6].T @ f == torque[:6]]
    row = 0
    for contact in contacts:
        rot = robot.link_pose(q, contact.frame)[:3, :3] @ contact.rotation
        force = f[row:row + 3] if contact.kind == 'point' else rot.T @ f[row:row + 3]
        bound = mu / np.sqrt(2.0) * force[2]
        constraints += [cp.abs(force[0]) <= bound, cp.abs(force[1]) <= bound]
        if sole is not None:
            moment = rot.T @ f[row + 3:row + 6]
            constraints += [sole[0] * force[2] <= -moment[1], -moment[1] <= sole[1] * force[2],
                            sole[2] * force[2] <= moment[0], moment[0] <= sole[3] * force[2]]
        row += contact.size
    problem = cp.Problem(cp.Minimize(cp.sum_squares(f)), constraints)
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    assert problem.status == cp.OPTIMAL
    return f.value


def check_answer(robot, q, v, answer, contacts, mu=None, sole=None, cones=True) -> None:
    """Check the equations of motion (base unactuated), J qdd + gamma = 0, the limits."""
    from ros_dynamics.contacts.forward import constraint_residual
    jac = contact_jacobian(robot, q, contacts)
    lhs = robot.mass_matrix(q) @ answer.qdd + robot.bias_torques(q, v)
    assert relative_error(lhs, answer.tau + jac.T @ answer.forces) < TOLERANCE
    assert np.all(answer.tau[:6] == 0.0)
    assert np.abs(constraint_residual(robot, q, v, answer.qdd, contacts)).max() < TOLERANCE
    row, scale = 0, 1.0 + np.abs(answer.forces).max()
    for contact in contacts if cones else ():
        rot = robot.link_pose(q, contact.frame)[:3, :3] @ contact.rotation
        force = answer.forces[row:row + 3]
        if contact.kind == '6d':
            force = rot.T @ force
        assert force[2] >= -TOLERANCE * scale
        if mu is not None:
            assert np.hypot(force[0], force[1]) <= mu * force[2] + TOLERANCE * scale
        if sole is not None:
            moment = rot.T @ answer.forces[row + 3:row + 6]
            assert sole[0] * force[2] - TOLERANCE * scale <= -moment[1] \
                <= sole[1] * force[2] + TOLERANCE * scale
            assert sole[2] * force[2] - TOLERANCE * scale <= moment[0] \
                <= sole[3] * force[2] + TOLERANCE * scale
        row += contact.size


def test_bilateral_inverse_dynamics_is_the_least_norm():
    """Bilateral contacts: f = pinv(J_base^T) (M qdd + b)_base, the least-norm forces."""
    pair = Pair('solo12')
    robot = pair.robot
    rng = np.random.default_rng(23)
    contacts = [Contact(name, bilateral=True) for name in SOLO_FEET]
    q, v, _ = pair.random_state(rng)
    qdd = consistent_acceleration(robot, q, v, contacts, rng.standard_normal(6), rng)
    answer = robot.contact_inverse_dynamics(q, v, qdd, contacts)
    assert not answer.active and not answer.limited
    check_answer(robot, q, v, answer, contacts, cones=False)
    jac = contact_jacobian(robot, q, contacts)
    expected = np.linalg.pinv(jac[:, :6].T) @ robot.inverse_dynamics(q, v, qdd)[:6]
    assert relative_error(answer.forces, expected) < TOLERANCE
    assert np.array_equal(answer.qdd, qdd)


@pytest.mark.parametrize('name, mu, push, sole', [
    ('solo12', 0.7, 0.0, None), ('solo12', 0.3, 1.9, None),
    ('talos_reduced', 0.5, 0.0, (-0.1, 0.1, -0.05, 0.05)),
    ('talos_reduced', 0.5, 1.0, (-0.1, 0.1, -0.03, 0.03))])
def test_inverse_dynamics_with_cones_is_the_reference_qp(name, mu, push, sole):
    """
    Standing with a push of the base (m/s^2): the forces, in their limits, as cvxpy's.

    The pushes bring solo12's feet to their pyramids' edges and TALOS's soles to their
    centre-of-pressure limits (the roll moment, which the two feet share).
    """
    pair = Pair(name)
    robot = pair.robot
    rng = np.random.default_rng(29)
    q = standing(pair, name)
    contacts = [Contact(frame, pair.kind, friction=mu, sole=sole) for frame in pair.feet]
    v = 0.05 * rng.standard_normal(robot.nv)
    base = np.concatenate([push * np.array([1.0, 0.5, 0.0]), 0.1 * rng.standard_normal(3)])
    qdd = consistent_acceleration(robot, q, v, contacts, base, rng)
    answer = robot.contact_inverse_dynamics(q, v, qdd, contacts)
    assert not answer.limited
    assert np.array_equal(answer.qdd, qdd)
    check_answer(robot, q, v, answer, contacts, mu, sole)
    reference = reference_qp(robot, q, v, qdd, contacts, mu, sole)
    assert np.abs(answer.forces - reference).max() < 1e-6 * (1.0 + np.abs(reference).max())
    assert answer.active == (push > 0.0)   # the push needs the pyramids' edges


def test_infeasible_request_is_reported_and_the_closest_returned():
    """A push beyond the cones: limited, the closest acceleration (as cvxpy's), cones held."""
    pair = Pair('solo12')
    robot = pair.robot
    rng = np.random.default_rng(31)
    q, mu = standing(pair, 'solo12'), 0.3
    contacts = [Contact(frame, friction=mu) for frame in SOLO_FEET]
    v = np.zeros(robot.nv)
    qdd = consistent_acceleration(robot, q, v, contacts, np.array([6.0, 0, 0, 0, 0, 0]), rng)
    answer = robot.contact_inverse_dynamics(q, v, qdd, contacts)
    assert answer.limited and answer.active
    check_answer(robot, q, v, answer, contacts, mu)
    # the reference: min |a - a_des|^2 + 1e-6 |f|^2, the dynamics' base rows, J a = -gamma
    mass, bias = robot.mass_matrix(q), robot.bias_torques(q, v)
    jac = contact_jacobian(robot, q, contacts)
    a, f = cp.Variable(robot.nv), cp.Variable(12)
    constraints = [mass[:6] @ a + bias[:6] == jac[:, :6].T @ f, jac @ a == 0.0]
    for k in range(4):
        bound = mu / np.sqrt(2.0) * f[3 * k + 2]
        constraints += [cp.abs(f[3 * k]) <= bound, cp.abs(f[3 * k + 1]) <= bound]
    problem = cp.Problem(cp.Minimize(cp.sum_squares(a - qdd) + 1e-6 * cp.sum_squares(f)),
                         constraints)
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    assert np.abs(answer.qdd - a.value).max() < 1e-6 * (1.0 + np.abs(a.value).max())
    assert np.abs(answer.forces - f.value).max() < 1e-6 * (1.0 + np.abs(f.value).max())
    assert answer.qdd[0] < 0.5 * qdd[0]


def test_inverse_dynamics_errors():
    pair = Pair('solo12')
    robot = pair.robot
    q, zero = standing(pair, 'solo12'), np.zeros(robot.nv)
    feet = [Contact(frame, friction=0.5) for frame in SOLO_FEET]
    with pytest.raises(ValueError, match='unactuated: .*root'):
        robot.contact_inverse_dynamics(q, zero, zero, feet, unactuated=['root'])
    with pytest.raises(ValueError, match='friction_facets'):
        robot.contact_inverse_dynamics(q, zero, zero, feet, friction_facets=2)
    with pytest.raises(ValueError, match='acceleration_weights'):
        robot.contact_inverse_dynamics(q, zero, zero, feet, acceleration_weights=zero)
    with pytest.raises(ValueError, match='qdd: contains NaN'):
        robot.contact_inverse_dynamics(q, zero, np.full(robot.nv, np.nan), feet)
    with pytest.raises(ValueError, match='one state'):
        robot.contact_inverse_dynamics(q[None], zero[None], zero[None], feet)
    # a passive robot (no actuator) standing on one foot whose normal points down: the foot
    # would have to pull (f_z = m (g + a_z) > 0 for every acceleration it can have)
    with pytest.raises(ContactInfeasibleError, match='limits'):
        robot.contact_inverse_dynamics(q, zero, zero, [Contact('FL_FOOT', normal=(0, 0, -1))],
                                       unactuated=robot.joint_names)


def test_the_worked_example_of_docs_contacts_runs():
    path = os.path.join(os.path.dirname(__file__), '..', 'docs', 'contacts.md')
    with open(path, encoding='utf-8') as stream:   # the ROS part: test_contact_node.py
        core = stream.read().split('## Over ROS')[0]
    blocks = re.findall(r'```python\n(.*?)```', core, re.S)
    assert blocks, 'docs/contacts.md lost its worked example'
    for block in blocks:
        exec(compile(block, 'docs/contacts.md', 'exec'),
             {'solo12_urdf': example_urdf(ROBOTS['solo12'][0])})


@pytest.mark.parametrize('name', ['solo12', 'talos_reduced'])
def test_inverse_dynamics_invariants_at_random_requests(name):
    """
    Random contact sets, limits and requests: the invariants of every answer.

    Mixed bilateral and limited contacts, random friction, facets, soles, weights and
    desired accelerations (some contact-consistent, some not, some beyond the cones): the
    equations of motion, J qdd + gamma = 0, the limits of the pyramid actually used (inside
    the exact cone), and limited exactly when the acceleration differs from the request.
    Constrained forward dynamics with the answer's torques gives its qdd back.
    """
    pair = Pair(name)
    robot = pair.robot
    rng = np.random.default_rng(37)
    q0 = standing(pair, name)
    for case in range(8):
        q = robot.integrate(q0, 0.05 * rng.standard_normal(robot.nv))
        v = 0.2 * rng.standard_normal(robot.nv)
        mu = float(rng.uniform(0.2, 1.0))
        sole = (-0.1, 0.1, -0.05, 0.05) if pair.kind == '6d' and case % 2 else None
        contacts = [Contact(frame, pair.kind, bilateral=True) if k == 0 and case % 3 == 0 else
                    Contact(frame, pair.kind, friction=mu, sole=sole)
                    for k, frame in enumerate(pair.feet)]
        base = rng.uniform(-3.0, 3.0, 6)
        qdd = consistent_acceleration(robot, q, v, contacts, base, rng)
        if case % 4 == 3:   # a request that does not hold the contacts
            qdd = qdd + rng.standard_normal(robot.nv)
        facets = int(rng.choice([4, 8]))
        answer = robot.contact_inverse_dynamics(q, v, qdd, contacts, friction_facets=facets,
                                                moment_weight=float(rng.uniform(0.5, 20.0)))
        jac = contact_jacobian(robot, q, contacts)
        lhs = robot.mass_matrix(q) @ answer.qdd + robot.bias_torques(q, v)
        assert relative_error(lhs, answer.tau + jac.T @ answer.forces) < TOLERANCE
        assert np.all(answer.tau[:6] == 0.0)
        assert answer.limited == (not np.array_equal(answer.qdd, qdd))
        row, scale = 0, 1.0 + np.abs(answer.forces).max()
        for contact in contacts:
            force = answer.forces[row:row + 3]
            if pair.kind == '6d':
                force = (robot.link_pose(q, contact.frame)[:3, :3]).T @ force
            if not contact.bilateral:
                assert np.hypot(force[0], force[1]) <= mu * force[2] + TOLERANCE * scale
            row += contact.size
        if case % 4 == 3:
            assert answer.limited
        back = robot.constrained_forward_dynamics(q, v, answer.tau, contacts)
        assert relative_error(back.qdd, answer.qdd) < 1e-7
