# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Floating, planar and ball joints against Pinocchio, single states and batches.

Legged robots and humanoids with a free-flyer root (``root_joint='floating'``, Pinocchio's
``JointModelFreeFlyer``), TIAGo with a planar root (``JointModelPlanar``), and a ball joint
written in the URDF (``type="spherical"``, as PyBullet reads it). Our coordinates are
Pinocchio's but for continuous joints (one angle here, (cos, sin) there).
"""

import os
import warnings

import numpy as np
import pinocchio as pin
import pytest
from robot_data import example_urdf
from ros_dynamics import RobotModel, SingularMassMatrixError, URDFWarning

TOLERANCE = 1e-9
FLOATING = ['solo_description/robots/solo12.urdf',
            'anymal_b_simple_description/robots/anymal.urdf',
            'talos_data/robots/talos_reduced.urdf',
            'hyq_description/robots/hyq_no_sensors.urdf',
            'bolt_description/robots/bolt.urdf']
ROOTS = ([(path, 'floating', pin.JointModelFreeFlyer()) for path in FLOATING]
         + [('tiago_description/robots/tiago.urdf', 'planar', pin.JointModelPlanar())])

BALL = """<robot name="ball">
  <link name="base"/>
  <link name="arm">
    <inertial><origin xyz="0.1 0.02 -0.3"/><mass value="2.0"/>
      <inertia ixx="0.3" ixy="0.01" ixz="0.02" iyy="0.2" iyz="0.03" izz="0.1"/></inertial>
  </link>
  <link name="hand">
    <inertial><origin xyz="0 0 -0.1"/><mass value="0.5"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.02"/></inertial>
  </link>
  <joint name="shoulder" type="spherical">
    <parent link="base"/><child link="arm"/><origin xyz="0 0 1" rpy="0.1 0.2 0.3"/>
  </joint>
  <joint name="elbow" type="revolute">
    <parent link="arm"/><child link="hand"/><origin xyz="0 0 -0.6"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="10" velocity="3"/>
  </joint>
</robot>
"""


def relative_error(ours, reference) -> float:
    return float(np.max(np.abs(ours - reference)) / max(1.0, np.max(np.abs(reference))))


class Twin:
    """Our model and Pinocchio's of one robot, with our q mapped to Pinocchio's."""

    def __init__(self, robot: RobotModel, model) -> None:
        self.robot, self.model, self.data = robot, model, model.createData()
        assert robot.nv == model.nv
        self.joints = [model.joints[model.getJointId(name)] for name in robot.joint_names]

    def pin_q(self, q: np.ndarray) -> np.ndarray:
        out = np.empty(self.model.nq)
        for name, joint in zip(self.robot.joint_names, self.joints):
            ours = q[self.robot.q_slice(name)]
            if joint.nq == 2 and ours.size == 1:   # a continuous joint
                out[joint.idx_q:joint.idx_q + 2] = np.cos(ours[0]), np.sin(ours[0])
            else:
                out[joint.idx_q:joint.idx_q + joint.nq] = ours
        return out

    def random_state(self, rng: np.random.Generator) -> tuple:
        """Return a random q of ours (unit quaternions, cos^2 + sin^2 = 1), qd and qdd."""
        pin.seed(int(rng.integers(2 ** 31)))   # Pinocchio's own generator, from ours
        qp = pin.randomConfiguration(self.model, -np.ones(self.model.nq), np.ones(self.model.nq))
        q = np.empty(self.robot.nq)
        for name, joint in zip(self.robot.joint_names, self.joints):
            part = qp[joint.idx_q:joint.idx_q + joint.nq]
            slot = self.robot.q_slice(name)
            q[slot] = np.arctan2(part[1], part[0]) if joint.nq == 2 and \
                slot.stop - slot.start == 1 else part
        return q, rng.standard_normal(self.robot.nv), rng.standard_normal(self.robot.nv)


def twin_of(relative: str, root: str, joint_model) -> Twin:
    path = example_urdf(relative)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', URDFWarning)
        robot = RobotModel.from_urdf_file(path, mimic=False, root_joint=root)
    return Twin(robot, pin.buildModelFromUrdf(path, joint_model))


@pytest.fixture(scope='module', params=ROOTS, ids=lambda p: p[0].split('/')[-1] if
                isinstance(p, tuple) else str(p))
def twin(request) -> Twin:
    return twin_of(*request.param)


def test_coordinates_are_pinocchios(twin):
    robot, model = twin.robot, twin.model
    root = model.joints[model.getJointId('root_joint')]
    assert robot.joint_names[0] == 'root_joint'
    assert robot.q_slice('root_joint') == slice(0, root.nq)
    assert robot.v_slice('root_joint') == slice(0, root.nv)
    assert robot.nq == robot.nv + root.nq - root.nv


def test_joint_space_dynamics(twin):
    """RNEA, g, the bias, CRBA and ABA at random states, one and batched."""
    robot, model, data = twin.robot, twin.model, twin.data
    rng = np.random.default_rng(3)
    states = [twin.random_state(rng) for _ in range(4)]
    for q, qd, qdd in states:
        qp = twin.pin_q(q)
        assert relative_error(robot.inverse_dynamics(q, qd, qdd),
                              pin.rnea(model, data, qp, qd, qdd)) < TOLERANCE
        assert relative_error(robot.gravity_torques(q),
                              pin.computeGeneralizedGravity(model, data, qp)) < TOLERANCE
        assert relative_error(robot.bias_torques(q, qd), pin.nle(model, data, qp, qd)) < TOLERANCE
        mass = pin.crba(model, data, qp)
        mass = np.triu(mass) + np.triu(mass, 1).T
        assert relative_error(robot.mass_matrix(q), mass) < TOLERANCE
        assert relative_error(robot.forward_dynamics(q, qd, qdd),
                              pin.aba(model, data, qp, qd, qdd)) < TOLERANCE
        assert robot.kinetic_energy(q, qd) == pytest.approx(
            pin.computeKineticEnergy(model, data, qp, qd), rel=TOLERANCE)
    q, qd, qdd = (np.array(x) for x in zip(*states))
    single = np.array([robot.inverse_dynamics(*state) for state in states])
    assert relative_error(robot.inverse_dynamics(q, qd, qdd), single) < 1e-12
    single = np.array([robot.forward_dynamics(*state) for state in states])
    assert relative_error(robot.forward_dynamics(q, qd, qdd), single) < 1e-12
    single = np.array([robot.mass_matrix(state[0]) for state in states])
    assert relative_error(robot.mass_matrix(q), single) < 1e-12


def test_link_poses_and_jacobians(twin):
    """Every link's pose and LOCAL_WORLD_ALIGNED Jacobian (base links included)."""
    robot, model, data = twin.robot, twin.model, twin.data
    q, _, _ = twin.random_state(np.random.default_rng(5))
    qp = twin.pin_q(q)
    pin.computeJointJacobians(model, data, qp)
    pin.updateFramePlacements(model, data)
    for link in robot.link_names[1:]:
        frame = model.getFrameId(link)
        pose = robot.link_pose(q, link)
        assert relative_error(pose[:3, :3], data.oMf[frame].rotation) < TOLERANCE
        assert relative_error(pose[:3, 3], data.oMf[frame].translation) < TOLERANCE
        jacobian = pin.getFrameJacobian(model, data, frame, pin.LOCAL_WORLD_ALIGNED)
        assert relative_error(robot.jacobian(q, link), jacobian) < TOLERANCE


def ball_model():
    """Pinocchio's model of BALL, built by hand (urdfdom knows no spherical joint)."""
    model = pin.Model()
    placement = pin.SE3(pin.rpy.rpyToMatrix(0.1, 0.2, 0.3), np.array([0.0, 0.0, 1.0]))
    shoulder = model.addJoint(0, pin.JointModelSpherical(), placement, 'shoulder')
    inertia = np.array([[0.3, 0.01, 0.02], [0.01, 0.2, 0.03], [0.02, 0.03, 0.1]])
    model.appendBodyToJoint(shoulder, pin.Inertia(2.0, np.array([0.1, 0.02, -0.3]), inertia),
                            pin.SE3.Identity())
    elbow = model.addJoint(shoulder, pin.JointModelRY(),
                           pin.SE3(np.eye(3), np.array([0.0, 0.0, -0.6])), 'elbow')
    model.appendBodyToJoint(elbow, pin.Inertia(0.5, np.array([0.0, 0.0, -0.1]),
                                               np.diag([0.01, 0.01, 0.02])), pin.SE3.Identity())
    return model


def test_centroidal_dynamics(twin):
    """Centre of mass, its Jacobian, A_G, h_G and dA_G/dt qd (Orin et al. 2013) as Pinocchio's."""
    robot, model, data = twin.robot, twin.model, twin.data
    rng = np.random.default_rng(13)
    for _ in range(3):
        q, qd, qdd = twin.random_state(rng)
        qp = twin.pin_q(q)
        assert relative_error(robot.center_of_mass(q), pin.centerOfMass(model, data, qp)) \
            < TOLERANCE
        assert relative_error(robot.com_jacobian(q),
                              pin.jacobianCenterOfMass(model, data, qp)) < TOLERANCE
        matrix = pin.ccrba(model, data, qp, qd)
        assert relative_error(robot.centroidal_momentum_matrix(q), matrix) < TOLERANCE
        momentum = pin.computeCentroidalMomentum(model, data, qp, qd)
        assert relative_error(robot.centroidal_momentum(q, qd), momentum.vector) < TOLERANCE
        rate = pin.computeCentroidalMomentumTimeVariation(model, data, qp, qd, np.zeros(robot.nv))
        assert relative_error(robot.centroidal_momentum_bias(q, qd), data.dhg.vector) \
            < TOLERANCE
        del rate


def test_integrate_and_difference_are_pinocchios(twin):
    """Integrate and difference on the manifold, as pin.integrate and pin.difference."""
    robot, model = twin.robot, twin.model
    rng = np.random.default_rng(17)
    for _ in range(3):
        q, v, _ = twin.random_state(rng)
        moved = robot.integrate(q, v)
        assert relative_error(twin.pin_q(moved), pin.integrate(model, twin.pin_q(q), v)) \
            < TOLERANCE or relative_error(   # a quaternion and its negative are one rotation
                np.abs(twin.pin_q(moved)), np.abs(pin.integrate(model, twin.pin_q(q), v))) \
            < TOLERANCE
        other, _, _ = twin.random_state(rng)
        # a continuous joint is one angle here: its difference is q1 - q0, Pinocchio's the
        # shortest turn, equal modulo 2 pi
        theirs = pin.difference(model, twin.pin_q(q), twin.pin_q(other))
        gap = robot.difference(q, other) - theirs
        assert np.max(np.abs(np.angle(np.exp(1j * gap)))) < 1e-7
        assert relative_error(robot.difference(q, robot.integrate(q, 0.3 * v)), 0.3 * v) < 1e-9
    batch = np.array([q, other])
    np.testing.assert_allclose(robot.interpolate(batch, batch[::-1], 0.0), batch, atol=1e-12)
    unit = robot.normalize(2.0 * robot.neutral_configuration())
    np.testing.assert_allclose(robot.gravity_torques(unit),
                               robot.gravity_torques(robot.neutral_configuration()), atol=1e-9)


def test_a_ball_joint_in_the_urdf():
    robot = RobotModel.from_urdf_string(BALL)
    model = ball_model()
    assert (robot.nq, robot.nv) == (model.nq, model.nv) == (5, 4)
    twin = Twin(robot, model)
    rng = np.random.default_rng(11)
    for _ in range(3):
        q, qd, qdd = twin.random_state(rng)
        qp = twin.pin_q(q)
        assert relative_error(robot.inverse_dynamics(q, qd, qdd),
                              pin.rnea(model, twin.data, qp, qd, qdd)) < TOLERANCE
        assert relative_error(robot.forward_dynamics(q, qd, qdd),
                              pin.aba(model, twin.data, qp, qd, qdd)) < TOLERANCE


def test_pybullet_datas_spherical_joint_urdf():
    """
    The ball-joint URDF of PyBullet (pybullet_data/spherical_joint_limit.urdf), as we read it.

    Compared with Pinocchio's model of the same numbers built by hand (urdfdom
    reads no spherical joint): the neck on a JointModelSpherical 1 m above the
    chest, 1 kg at (0, 0, 0.3), inertia diag(0.01, 0.001, 0.001); the file's
    ``<limit lower upper twist>`` (PyBullet's cone limits) is not a dynamics term.
    """
    pybullet_data = pytest.importorskip('pybullet_data')
    path = os.path.join(pybullet_data.getDataPath(), 'spherical_joint_limit.urdf')
    robot = RobotModel.from_urdf_file(path)
    model = pin.Model()
    neck = model.addJoint(0, pin.JointModelSpherical(),
                          pin.SE3(np.eye(3), np.array([0.0, 0.0, 1.0])), 'neck')
    model.appendBodyToJoint(neck, pin.Inertia(1.0, np.array([0.0, 0.0, 0.3]),
                                              np.diag([0.01, 0.001, 0.001])), pin.SE3.Identity())
    assert (robot.nq, robot.nv, tuple(robot.joint_names)) == (4, 3, ('neck',))
    twin = Twin(robot, model)
    rng = np.random.default_rng(23)
    states = [twin.random_state(rng) for _ in range(4)]
    for q, qd, qdd in states:
        qp = twin.pin_q(q)
        assert relative_error(robot.inverse_dynamics(q, qd, qdd),
                              pin.rnea(model, twin.data, qp, qd, qdd)) < TOLERANCE
        assert relative_error(robot.mass_matrix(q), pin.crba(model, twin.data, qp)) < TOLERANCE
        assert relative_error(robot.forward_dynamics(q, qd, qdd),
                              pin.aba(model, twin.data, qp, qd, qdd)) < TOLERANCE
    q, qd, qdd = (np.array(column) for column in zip(*states))
    batched = robot.inverse_dynamics(q, qd, qdd)
    assert relative_error(batched, np.array([pin.rnea(model, twin.data, twin.pin_q(a), b, c)
                                             for a, b, c in zip(q, qd, qdd)])) < TOLERANCE


def test_neutral_configuration_is_pinocchios(twin):
    robot = twin.robot
    np.testing.assert_array_equal(twin.pin_q(robot.neutral_configuration()),
                                  pin.neutral(twin.model))
    robot.warm_up()   # the single-state calls, at the neutral configuration
    assert relative_error(robot.gravity_torques(robot.neutral_configuration()),
                          pin.computeGeneralizedGravity(twin.model, twin.data,
                                                        pin.neutral(twin.model))) < TOLERANCE


def test_wrong_sizes_name_nq_and_nv():
    robot = RobotModel.from_urdf_string(BALL)
    with pytest.raises(ValueError, match=r'q: expected shape \(5,\).*nq = 5'):
        robot.inverse_dynamics(np.zeros(4), np.zeros(4), np.zeros(4))
    with pytest.raises(ValueError, match=r'qd: expected shape \(4,\)'):
        robot.inverse_dynamics(np.array([0, 0, 0, 1.0, 0]), np.zeros(5), np.zeros(4))
    with pytest.raises(ValueError, match='root_joint'):
        RobotModel.from_urdf_string(BALL, root_joint='ball')


def test_forward_dynamics_after_inverse_dynamics_with_wrenches(twin):
    """The general joint step of ABA with link wrenches: FD(q, qd, ID(q, qd, qdd, w), w) = qdd."""
    robot = twin.robot
    rng = np.random.default_rng(17)
    links = robot.link_names[1:]
    for _ in range(3):
        q, qd, qdd = twin.random_state(rng)
        wrenches = {links[k]: rng.standard_normal(6) * 20.0
                    for k in rng.choice(len(links), size=3, replace=False)}
        tau = robot.inverse_dynamics(q, qd, qdd, external_wrenches=wrenches)
        again = robot.forward_dynamics(q, qd, tau, external_wrenches=wrenches)
        assert relative_error(again, qdd) < TOLERANCE


def test_a_ball_joint_that_moves_no_inertia_is_named():
    """
    A ball joint whose subtree turns only about the elbow's axis: ABA's D_i (3 x 3) is singular.

    The elbow's own D is the hand's 0.01 kg m^2; what the ball joint sees
    through it has no inertia about the two other axes.
    """
    xml = BALL.replace('<origin xyz="0.1 0.02 -0.3"/><mass value="2.0"/>',
                       '<origin xyz="0 0 0"/><mass value="2.0"/>').replace(
        'ixx="0.3" ixy="0.01" ixz="0.02" iyy="0.2" iyz="0.03" izz="0.1"',
        'ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"').replace(
        '<origin xyz="0 0 -0.1"/><mass value="0.5"/>', '<origin xyz="0 0 0"/><mass value="0"/>'
    ).replace('ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.02"',
              'ixx="0" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0"').replace(
        '<origin xyz="0 0 -0.6"/><axis', '<origin xyz="0 0 0"/><axis')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', URDFWarning)
        robot = RobotModel.from_urdf_string(xml)
    q = robot.neutral_configuration()
    with pytest.raises(SingularMassMatrixError, match="joint 'shoulder'"):
        robot.forward_dynamics(q, np.zeros(4), np.zeros(4))
