# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The inverse-dynamics node's feedforward law without a node (nodes/feedforward.py) vs Pinocchio.

Each mode's torque at a state and a reference, Panda arm (urdf/panda_arm.urdf), against
Pinocchio's RNEA, CRBA and g(q): computed torque is RNEA at the commanded acceleration
qdd_ref + Kd (qd_ref - qd) + Kp (q_ref - q) (Craig, section 10.6), the damped gravity
compensation g(q) - M(q) Kd qd; unlisted joints keep their measured positions.
"""

import os

import numpy as np
import pinocchio as pin
import pytest
from ros_dynamics import RobotModel
from ros_dynamics.nodes.feedforward import check_values, Feedforward
from trajectory_msgs.msg import JointTrajectoryPoint

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PANDA = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
RNG = np.random.default_rng(28)


@pytest.fixture(scope='module')
def panda():
    model = pin.buildModelFromUrdf(PANDA)
    return RobotModel.from_urdf_file(PANDA), model, model.createData()


def measured(robot, feedforward: Feedforward) -> tuple:
    """Merge a random state (inside the limits) into the stream's buffer; return q and qd."""
    q = RNG.uniform(robot.lower, robot.upper)
    qd = RNG.uniform(-1.0, 1.0, robot.dof)
    feedforward.state.merge(robot.joint_names, q, qd, 0.0)
    return q, qd


def reference(feedforward: Feedforward, joints: list, robot) -> tuple:
    index = [robot.joint_names.index(name) for name in joints]
    q, qd, qdd = (RNG.uniform(-1.0, 1.0, len(joints)) for _ in range(3))
    q = np.clip(q, robot.lower[index], robot.upper[index])
    feedforward.set_point(JointTrajectoryPoint(positions=q, velocities=qd, accelerations=qdd))
    return q, qd, qdd


def test_damped_gravity_compensation_is_g_minus_m_kd_qd(panda):
    robot, model, data = panda
    feedforward = Feedforward(robot, [], [0.0], [2.5])
    q, qd = measured(robot, feedforward)
    expected = (pin.computeGeneralizedGravity(model, data, q)
                - pin.crba(model, data, q) @ (2.5 * qd))
    tau = feedforward.torque('gravity_compensation', 'false', True)
    np.testing.assert_allclose(tau, expected, rtol=0, atol=1e-9)


def test_computed_torque_is_rnea_at_the_commanded_acceleration(panda):
    robot, model, data = panda
    kp, kd = RNG.uniform(10.0, 100.0, robot.dof), RNG.uniform(1.0, 20.0, robot.dof)
    feedforward = Feedforward(robot, [], kp, kd)
    q, qd = measured(robot, feedforward)
    q_ref, qd_ref, qdd_ref = reference(feedforward, robot.joint_names, robot)
    commanded = qdd_ref + kd * (qd_ref - qd) + kp * (q_ref - q)
    expected = pin.rnea(model, data, q, qd, commanded)
    np.testing.assert_allclose(feedforward.torque('computed_torque', 'false', True), expected,
                               rtol=0, atol=1e-8)
    without_gravity = expected - pin.computeGeneralizedGravity(model, data, q)
    np.testing.assert_allclose(feedforward.torque('computed_torque', 'false', False),
                               without_gravity, rtol=0, atol=1e-8)


def test_inverse_dynamics_holds_the_unlisted_joints_where_they_are(panda):
    robot, model, data = panda
    joints = robot.joint_names[:5]            # an arm's first five joints only
    feedforward = Feedforward(robot, joints, [0.0], [0.0], 'hold')
    q, _ = measured(robot, feedforward)
    q_ref, qd_ref, qdd_ref = reference(feedforward, joints, robot)
    full = [np.concatenate([values, rest]) for values, rest in
            ((q_ref, q[5:]), (qd_ref, np.zeros(2)), (qdd_ref, np.zeros(2)))]
    expected = pin.rnea(model, data, *full)
    np.testing.assert_allclose(feedforward.torque('inverse_dynamics', 'false', True), expected,
                               rtol=0, atol=1e-9)


def test_a_reference_of_the_wrong_size_names_the_field(panda):
    robot = panda[0]
    feedforward = Feedforward(robot, [], [0.0], [0.0])
    with pytest.raises(ValueError, match='reference velocities: expected 7 finite values'):
        feedforward.set_point(JointTrajectoryPoint(positions=[0.0] * 7, velocities=[0.0] * 3))
    assert feedforward.reference is None


@pytest.mark.parametrize('change, named', [
    ({'mode': 'torque'}, 'mode:'), ({'state_timeout': 0.0}, 'state_timeout:'),
    ({'unlisted_joints': 'drop'}, 'unlisted_joints:'),
    ({'friction_compensation': 'always'}, 'friction_compensation:'),
    ({'include_gravity': False}, 'include_gravity false in mode gravity_compensation'),
])
def test_check_values_names_the_parameter(change, named):
    values = {'mode': 'gravity_compensation', 'state_timeout': 0.1, 'on_stale': 'zero',
              'unlisted_joints': 'hold', 'include_gravity': True,
              'friction_compensation': 'false'}
    assert check_values(values) == ''
    assert check_values(dict(values, **change)).startswith(named)
