# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The joint torque regressor against Pinocchio's and against our inverse dynamics.

Pinocchio's ``computeJointTorqueRegressor`` has 10 columns per joint (its
joint order); ours 10 per body in ``body_names`` order, matched through the
body's joint name. Through Twin's coordinate map (v = G qd, tau = G^T
tau_full) the comparison covers robots with mimic joints too.
"""

import warnings

import numpy as np
import pinocchio as pin
import pytest

from robot_data import example_urdfs
from ros_dynamics import RobotModel, URDFWarning
from test_against_pinocchio import relative_error, twin

URDFS = example_urdfs()
TOLERANCE = 1e-10
PANDA = 'urdf/panda_arm.urdf'


@pytest.mark.parametrize('path', URDFS)
def test_regressor_equals_pinocchio_and_inverse_dynamics(path):
    """Y equals Pinocchio's regressor column by column, and Y theta equals RNEA, on one and N."""
    t = twin(path)
    robot, model, data, g = t.robot, t.pin_model, t.pin_data, t.g
    theta = robot.inertial_parameters()
    assert theta.shape == (len(robot.body_names), 10)
    columns = []
    for name in robot.all_joint_names:
        joint = model.getJointId(name)
        columns += list(range(10 * (joint - 1), 10 * joint))
        # the parameters are Pinocchio's toDynamicParameters of the same body
    pin_theta = np.concatenate([model.inertias[model.getJointId(name)].toDynamicParameters()
                                for name in robot.all_joint_names]) if theta.size else []
    assert relative_error(theta.ravel(), pin_theta) < TOLERANCE
    rng = np.random.default_rng(3)
    states = [t.random_state(rng) for _ in range(3)]
    batch = robot.regressor(*(np.array(s) for s in zip(*states)))
    assert batch.shape == (3, robot.dof, 10 * len(robot.body_names))
    for k, (q, qd, qdd) in enumerate(states):
        ours = robot.regressor(q, qd, qdd)
        reference = g.T @ pin.computeJointTorqueRegressor(
            model, data, t.configuration(q), g @ qd, g @ qdd)[:, columns]
        assert relative_error(ours, reference) < TOLERANCE
        assert np.array_equal(batch[k], ours)
        tau = robot.inverse_dynamics(q, qd, qdd)
        assert relative_error(ours @ theta.ravel(), tau) < TOLERANCE


def test_body_names_are_the_links_that_carry_the_bodies():
    robot = RobotModel.from_urdf_file(PANDA)
    assert robot.body_names == tuple(f'panda_link{k}' for k in range(1, 8))


def test_every_robot_with_mimic_joints_is_covered():
    """Y theta = ID also where mimic followers add into their leaders' rows."""
    covered = 0
    for param in URDFS:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', URDFWarning)
            try:
                robot = RobotModel.from_urdf_file(param.values[0])
            except Exception:
                continue
        if not robot.has_mimic or robot.dof == 0:
            continue
        covered += 1
        rng = np.random.default_rng(5)
        q, qd, qdd = (rng.uniform(-1, 1, (4, robot.dof)) for _ in range(3))
        tau = np.einsum('nij,j->ni', robot.regressor(q, qd, qdd),
                        robot.inertial_parameters().ravel())
        assert relative_error(tau, robot.inverse_dynamics(q, qd, qdd)) < TOLERANCE
    assert covered >= 1


def test_friction_and_armature_columns():
    """Documented order: 10 nb inertial, then (viscous, Coulomb, offset) per joint, then qdd."""
    robot = RobotModel.from_urdf_file(PANDA)
    rng = np.random.default_rng(1)
    q, qd, qdd = (rng.uniform(-1, 1, 7) for _ in range(3))
    y = robot.regressor(q, qd, qdd, friction=True, armature=True, friction_velocity=0.02)
    assert y.shape == (7, 70 + 21 + 7)
    viscous, coulomb, offset = rng.uniform(0, 1, (3, 7))
    armature = rng.uniform(0, 0.5, 7)
    friction = np.ravel(np.column_stack([viscous, coulomb, offset]))
    theta = np.concatenate([robot.inertial_parameters().ravel(), friction, armature])
    expected = (robot.inverse_dynamics(q, qd, qdd) + viscous * qd
                + coulomb * np.tanh(qd / 0.02) + offset + armature * qdd)
    assert relative_error(y @ theta, expected) < TOLERANCE
    assert np.array_equal(y[:, :70], robot.regressor(q, qd, qdd))
    only_armature = robot.regressor(q, qd, qdd, armature=True)
    assert np.array_equal(only_armature[:, 70:], np.diag(qdd))


def test_bad_arguments_are_named():
    robot = RobotModel.from_urdf_file(PANDA)
    zero = np.zeros(7)
    with pytest.raises(ValueError, match='qd: expected shape'):
        robot.regressor(zero, np.zeros(6), zero)
    with pytest.raises(ValueError, match='qdd: contains NaN'):
        robot.regressor(zero, zero, np.full(7, np.nan))
    with pytest.raises(ValueError, match='friction_velocity'):
        robot.regressor(zero, zero, zero, friction=True, friction_velocity=0.0)
