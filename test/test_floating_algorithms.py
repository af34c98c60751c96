# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Every algorithm with floating, planar and ball joints, against Pinocchio (issue 29).

test_floating_base.py checks inverse and forward dynamics, g, the bias, M, the kinetic
energy, poses, LOCAL_WORLD_ALIGNED Jacobians, centroidal quantities and the configuration
space; this file the rest: inverse dynamics with external wrenches, the Coriolis matrix (and
dM/dt - 2C skew), the potential energy, Jacobians in every frame (base and world links
included) and J-dot qd, Khatib's operational space, the regressor with its base rows,
payloads, armature and friction (actuated joints only), mimic joints and a closed chain on a
floating base, at random states, single and batched, on solo12 (free-flyer), TIAGo (planar),
a ball joint and a ball joint below a free-flyer (both built by hand in Pinocchio: urdfdom
reads no spherical joint; pybullet_data's spherical_joint_limit.urdf is in
test_floating_base.py).

Which example-robot-data robots load with a free-flyer root (Pinocchio's
``buildModelFromUrdf(path, JointModelFreeFlyer())``, ours ``root_joint='floating'``): all 39
legged robots, humanoids and flying robots of FREE_FLYER_ROBOTS load in both and agree to
1e-9 (test_every_floating_robot); romeo.urdf and romeo_laas_small.urdf have massless finger
links, so M is singular (in Pinocchio too) and our forward dynamics refuses them with a
SingularMassMatrixError naming the joint. The five mobile manipulators of PLANAR_ROBOTS (PR2
and the four TIAGos) load with a planar root. Not listed: the fixed-base arms, hands and
pendulums (ur*, panda, kinova, xarm7, z1, so10x, allegro, baxter, double_pendulum*,
finger_edu, asr_twodof, talos_left_arm); a test below keeps the lists complete.
"""

import os
import warnings

import numpy as np
import pinocchio as pin
import pytest
from ros_dynamics import RobotModel, SingularMassMatrixError, URDFWarning
from ros_dynamics.simulation.closed_chain import ClosedChain, Closure
from test_floating_base import BALL, ball_model, relative_error, Twin, twin_of

TOLERANCE = 1e-9
FREE_FLYER_ROBOTS = [
    'a1_description/urdf/a1.urdf', 'alex_description/urdf/alex_nub_hands.urdf',
    'alex_description/urdf/alex_psyonic_hands.urdf', 'alex_description/urdf/alex_sake_hands.urdf',
    'alexander_description/urdf/alexander_v1.lowerBodyOnly.urdf',
    'anymal_b_simple_description/robots/anymal-kinova.urdf',
    'anymal_b_simple_description/robots/anymal.urdf',
    'anymal_c_simple_description/urdf/anymal.urdf',
    'b1_description/urdf/b1-z1.urdf', 'b1_description/urdf/b1.urdf',
    'bolt_description/robots/bolt.urdf', 'borinot_description/urdf/borinot_flying_arm_2.urdf',
    'centauro_description/urdf/centauro.urdf', 'g1_description/urdf/g1_29dof_rev_1_0.urdf',
    'g1_description/urdf/g1_29dof_with_hand_rev_1_0.urdf', 'go1_description/urdf/go1.urdf',
    'go2_description/urdf/go2.urdf', 'hector_description/robots/quadrotor_base.urdf',
    'hextilt_description/urdf/hextilt_flying_arm_5.urdf', 'human_description/robots/human.urdf',
    'hyq_description/robots/hyq_no_sensors.urdf', 'icub_description/robots/icub.urdf',
    'icub_description/robots/icub_reduced.urdf', 'iris_description/robots/iris.urdf',
    'iris_description/robots/iris_simple.urdf', 'laikago_description/urdf/laikago.urdf',
    'quadruped_description/urdf/quadruped.urdf', 'romeo_description/urdf/romeo.urdf',
    'romeo_description/urdf/romeo_laas_small.urdf', 'romeo_description/urdf/romeo_small.urdf',
    'simple_humanoid_description/urdf/simple_humanoid.urdf',
    'simple_humanoid_description/urdf/simple_humanoid_classical.urdf',
    'solo_description/robots/solo.urdf', 'solo_description/robots/solo12.urdf',
    'talos_data/robots/talos_full_v2.urdf', 'talos_data/robots/talos_full_v2_box.urdf',
    'talos_data/robots/talos_reduced.urdf', 'talos_data/robots/talos_reduced_box.urdf',
    'talos_data/robots/talos_reduced_corrected.urdf']
PLANAR_ROBOTS = ['pr2_description/urdf/pr2.urdf', 'tiago_description/robots/tiago.urdf',
                 'tiago_description/robots/tiago_dual.urdf',
                 'tiago_description/robots/tiago_no_hand.urdf',
                 'tiago_pro_description/robots/tiago_pro.urdf']
EVERY_ROBOT = ([(path, 'floating', pin.JointModelFreeFlyer()) for path in FREE_FLYER_ROBOTS]
               + [(path, 'planar', pin.JointModelPlanar()) for path in PLANAR_ROBOTS])
FRAMES = {'world': pin.WORLD, 'local': pin.LOCAL, 'world_aligned': pin.LOCAL_WORLD_ALIGNED}
SCALE = float(os.environ.get('ROS_DYNAMICS_FUZZ_SCALE', '1'))


def ball_twin() -> Twin:
    """Return the BALL robot and its Pinocchio model with a frame per link (for Jacobians)."""
    model = ball_model()
    for name, joint in (('base', 0), ('arm', model.getJointId('shoulder')),
                        ('hand', model.getJointId('elbow'))):
        model.addFrame(pin.Frame(name, joint, 0, pin.SE3.Identity(), pin.FrameType.BODY))
    return Twin(RobotModel.from_urdf_string(BALL), model)


# BALL on a free-flying base: two quaternions in q, a ball joint below a free-flyer
FLOATING_BALL = BALL.replace('<link name="base"/>', """<link name="base">
    <inertial><origin xyz="0.02 -0.01 0.05"/><mass value="5.0"/>
      <inertia ixx="0.1" ixy="0.002" ixz="0.001" iyy="0.12" iyz="0.003" izz="0.08"/></inertial>
  </link>""")


def floating_ball_twin() -> Twin:
    """Return FLOATING_BALL and its Pinocchio model, built by hand (urdfdom reads no ball)."""
    model = pin.Model()
    base = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), 'root_joint')
    model.appendBodyToJoint(base, pin.Inertia(5.0, np.array([0.02, -0.01, 0.05]), np.array(
        [[0.1, 0.002, 0.001], [0.002, 0.12, 0.003], [0.001, 0.003, 0.08]])), pin.SE3.Identity())
    arm = ball_model()   # its joints below the free-flyer
    for joint in range(1, arm.njoints):
        parent = base if arm.parents[joint] == 0 else base + arm.parents[joint]
        added = model.addJoint(parent, arm.joints[joint], arm.jointPlacements[joint],
                               arm.names[joint])
        model.appendBodyToJoint(added, arm.inertias[joint], pin.SE3.Identity())
    for name in ('base', 'arm', 'hand'):
        joint = {'base': base, 'arm': base + 1, 'hand': base + 2}[name]
        model.addFrame(pin.Frame(name, joint, 0, pin.SE3.Identity(), pin.FrameType.BODY))
    return Twin(RobotModel.from_urdf_string(FLOATING_BALL, root_joint='floating'), model)


TWINS = {'floating_ball': floating_ball_twin,
         'solo12': lambda: twin_of('solo_description/robots/solo12.urdf', 'floating',
                                   pin.JointModelFreeFlyer()),
         'tiago': lambda: twin_of('tiago_description/robots/tiago.urdf', 'planar',
                                  pin.JointModelPlanar()),
         'ball': ball_twin}


@pytest.fixture(scope='module', params=sorted(TWINS))
def twin(request) -> Twin:
    return TWINS[request.param]()


def frame_id(twin: Twin, link: str) -> int:
    """Return Pinocchio's frame of our link (the world link added by root_joint: universe)."""
    return twin.model.getFrameId('universe' if link == 'world' and not
                                 twin.model.existFrame('world') else link)


def pin_kinematics(twin: Twin, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
    """Run Pinocchio's kinematics at (q, qd, qdd = 0) for frame Jacobians and accelerations."""
    qp = twin.pin_q(q)
    pin.computeJointJacobians(twin.model, twin.data, qp)
    pin.forwardKinematics(twin.model, twin.data, qp, qd, np.zeros(twin.model.nv))
    pin.updateFramePlacements(twin.model, twin.data)
    return qp


def states(twin: Twin, count: int, seed: int) -> tuple:
    rng = np.random.default_rng(seed)
    return tuple(np.array(x) for x in zip(*[twin.random_state(rng) for _ in range(count)]))


def test_coriolis_matrix(twin):
    """C as Pinocchio's computeCoriolisMatrix, single and batched; dM/dt = C + C^T."""
    robot, model, data = twin.robot, twin.model, twin.data
    q, qd, _ = states(twin, 3, 1)
    batch = robot.coriolis_matrix(q, qd)
    for k in range(3):
        reference = pin.computeCoriolisMatrix(model, data, twin.pin_q(q[k]), qd[k])
        assert relative_error(robot.coriolis_matrix(q[k], qd[k]), reference) < TOLERANCE
        assert relative_error(batch[k], reference) < TOLERANCE
        # dM/dt along q(t) = q (+) t qd, central differences: dM/dt - 2C skew <=> dM/dt = C + C^T
        h = 1e-6
        rate = (robot.mass_matrix(robot.integrate(q[k], h * qd[k]))
                - robot.mass_matrix(robot.integrate(q[k], -h * qd[k]))) / (2.0 * h)
        assert relative_error(rate, batch[k] + batch[k].T) < 1e-6


def test_potential_energy(twin):
    robot, model, data = twin.robot, twin.model, twin.data
    q, _, _ = states(twin, 3, 2)
    reference = [pin.computePotentialEnergy(model, data, twin.pin_q(x)) for x in q]
    np.testing.assert_allclose(robot.potential_energy(q), reference, rtol=TOLERANCE, atol=1e-9)
    assert robot.potential_energy(q[0]) == pytest.approx(reference[0], rel=TOLERANCE, abs=1e-9)


def test_jacobians_in_every_frame(twin):
    """Every link (the world and base links included), world, local and world-aligned frames."""
    robot, model, data = twin.robot, twin.model, twin.data
    q, qd, _ = states(twin, 2, 3)
    pin_kinematics(twin, q[0], qd[0])
    for link in robot.link_names:
        frame = frame_id(twin, link)
        for name, reference_frame in FRAMES.items():
            assert relative_error(robot.jacobian(q[0], link, name), pin.getFrameJacobian(
                model, data, frame, reference_frame)) < TOLERANCE, (link, name)
    for name in FRAMES:   # batched, the last link (a leaf) and the base link
        for link in (robot.link_names[1], robot.link_names[-1]):
            batch = robot.jacobian(q, link, name)
            assert batch.shape == (2, 6, robot.nv)
            for k in range(2):
                assert relative_error(batch[k], robot.jacobian(q[k], link, name)) < 1e-12


def test_jacobian_dot_qd(twin):
    """
    dJ/dt qd as documented: 'world_aligned' the classical acceleration of the link origin.

    (pin.getFrameClassicalAcceleration, LOCAL_WORLD_ALIGNED), 'local' and 'world' the spatial
    acceleration (pin.getFrameAcceleration, LOCAL and WORLD), all at qdd = 0.
    """
    robot, model, data = twin.robot, twin.model, twin.data
    q, qd, _ = states(twin, 2, 4)
    for k in range(2):
        pin_kinematics(twin, q[k], qd[k])
        for link in robot.link_names:
            frame = frame_id(twin, link)
            expected = {
                'world_aligned': pin.getFrameClassicalAcceleration(
                    model, data, frame, pin.LOCAL_WORLD_ALIGNED).vector,
                'local': pin.getFrameAcceleration(model, data, frame, pin.LOCAL).vector,
                'world': pin.getFrameAcceleration(model, data, frame, pin.WORLD).vector}
            for name, reference in expected.items():
                assert relative_error(robot.jacobian_dot_qd(q[k], qd[k], link, name),
                                      reference) < TOLERANCE, (link, name)
    for name in FRAMES:   # batched
        batch = robot.jacobian_dot_qd(q, qd, robot.link_names[-1], name)
        assert batch.shape == (2, 6)
        for k in range(2):
            assert relative_error(batch[k], robot.jacobian_dot_qd(
                q[k], qd[k], robot.link_names[-1], name)) < 1e-12


def test_operational_space(twin):
    """Khatib's Lambda, mu and p against numpy from Pinocchio's M, J, Jdot qd, C qd and g."""
    robot, model, data = twin.robot, twin.model, twin.data
    q, qd, _ = states(twin, 1, 5)
    q, qd = q[0], qd[0]
    link = next(name for name in ('FL_FOOT', 'arm_7_link', 'hand') if name in robot.link_names)
    qp = pin_kinematics(twin, q, qd)
    frame = frame_id(twin, link)
    jac = pin.getFrameJacobian(model, data, frame, pin.LOCAL_WORLD_ALIGNED)
    jdot_qd = pin.getFrameClassicalAcceleration(model, data, frame,
                                                pin.LOCAL_WORLD_ALIGNED).vector
    mass = pin.crba(model, data, qp)
    mass = np.triu(mass) + np.triu(mass, 1).T
    gravity = pin.computeGeneralizedGravity(model, data, qp)
    coriolis = pin.nle(model, data, qp, qd) - gravity
    axes = [3, 4, 5] if robot.nv < 10 else list(range(6))   # the ball's 4 dof: orientation
    jac, jdot_qd = jac[axes], jdot_qd[axes]
    inverse = np.linalg.solve(mass, jac.T)
    task_inertia = np.linalg.inv(jac @ inverse)
    j_bar = inverse @ task_inertia
    ours = robot.operational_space(q, qd, link, axes=axes)
    assert not ours.degenerate
    assert relative_error(ours.Lambda, task_inertia) < 1e-8
    assert relative_error(ours.mu, j_bar.T @ coriolis - task_inertia @ jdot_qd) < 1e-8
    assert relative_error(ours.p, j_bar.T @ gravity) < 1e-8


def test_inverse_dynamics_with_external_wrenches(twin):
    """A wrench on the last link and one on the base link, as pin.rnea's fext (joint frames)."""
    robot, model, data = twin.robot, twin.model, twin.data
    q, qd, qdd = states(twin, 2, 14)
    wrenches = {robot.link_names[-1]: np.array([3.0, -2.0, 5.0, 0.3, 0.2, -0.1]),
                robot.link_names[1]: np.array([-1.0, 4.0, 2.0, 0.5, -0.4, 0.2])}
    tau = robot.inverse_dynamics(q, qd, qdd, wrenches)
    for k in range(2):
        qp = twin.pin_q(q[k])
        pin.framesForwardKinematics(model, data, qp)
        fext = [pin.Force.Zero() for _ in range(model.njoints)]
        for link, (force, torque) in ((name, (w[:3], w[3:])) for name, w in wrenches.items()):
            frame = model.frames[frame_id(twin, link)]
            point = data.oMf[frame_id(twin, link)].translation   # world axes, about the origin
            world = pin.Force(force, torque + np.cross(point, force))
            fext[frame.parentJoint] += data.oMi[frame.parentJoint].actInv(world)
        reference = pin.rnea(model, data, qp, qd[k], qdd[k], fext)
        assert relative_error(tau[k], reference) < TOLERANCE
        assert relative_error(robot.inverse_dynamics(q[k], qd[k], qdd[k], wrenches), reference) \
            < TOLERANCE


def test_regressor_with_base_rows(twin):
    """Y as pin.computeJointTorqueRegressor (base rows included), single and batched."""
    robot, model, data = twin.robot, twin.model, twin.data
    q, qd, qdd = states(twin, 2, 6)
    batch = robot.regressor(q, qd, qdd)
    for k in range(2):
        reference = pin.computeJointTorqueRegressor(model, data, twin.pin_q(q[k]), qd[k], qdd[k])
        assert relative_error(robot.regressor(q[k], qd[k], qdd[k]), reference) < TOLERANCE
        assert relative_error(batch[k], reference) < TOLERANCE
        assert relative_error(batch[k] @ robot.inertial_parameters().ravel(),
                              robot.inverse_dynamics(q[k], qd[k], qdd[k])) < TOLERANCE


def test_payloads_on_the_base_and_a_leaf(twin):
    """set_payload on the base link and on the last link: Pinocchio with the inertia added."""
    robot, model = twin.robot, twin.model.copy()
    q, qd, qdd = states(twin, 2, 7)
    inertia = np.array([[0.02, 0.001, 0.0], [0.001, 0.03, 0.002], [0.0, 0.002, 0.025]])
    try:
        for link in (robot.link_names[1], robot.link_names[-1]):
            robot.set_payload(link, 1.5, (0.05, -0.02, 0.1), inertia)
            frame = model.frames[frame_id(twin, link)]
            model.inertias[frame.parentJoint] += frame.placement.act(
                pin.Inertia(1.5, np.array([0.05, -0.02, 0.1]), inertia))
        data = model.createData()
        tau = robot.inverse_dynamics(q, qd, qdd)
        for k in range(2):
            qp = twin.pin_q(q[k])
            assert relative_error(tau[k], pin.rnea(model, data, qp, qd[k], qdd[k])) < TOLERANCE
            mass = pin.crba(model, data, qp)
            assert relative_error(robot.mass_matrix(q[k]),
                                  np.triu(mass) + np.triu(mass, 1).T) < TOLERANCE
            assert relative_error(robot.forward_dynamics(q[k], qd[k], qdd[k]),
                                  pin.aba(model, data, qp, qd[k], qdd[k])) < TOLERANCE
            assert relative_error(robot.centroidal_momentum_matrix(q[k]),
                                  pin.ccrba(model, data, qp, qd[k])) < TOLERANCE
    finally:
        robot.clear_payload()
    assert relative_error(robot.inverse_dynamics(q[0], qd[0], qdd[0]), pin.rnea(
        twin.model, twin.data, twin.pin_q(q[0]), qd[0], qdd[0])) < TOLERANCE


def test_armature_on_the_actuated_joints_only(twin):
    """Armature per joint as Pinocchio's model.armature (nv); a multi-dof joint takes none."""
    robot, model = twin.robot, twin.model.copy()
    one_dof = [k for k, kind in enumerate(robot.joint_types)
               if kind not in ('floating', 'planar', 'spherical')]
    armature = np.zeros(len(robot.joint_names))
    armature[one_dof] = 0.05 + 0.01 * np.arange(len(one_dof))
    reference = np.zeros(robot.nv)
    for k in one_dof:
        reference[robot.v_slice(robot.joint_names[k])] = armature[k]
    model.armature = reference
    data = model.createData()
    q, qd, qdd = states(twin, 2, 8)
    try:
        robot.armature = armature
        for k in range(2):
            qp = twin.pin_q(q[k])
            assert relative_error(robot.inverse_dynamics(q[k], qd[k], qdd[k]),
                                  pin.rnea(model, data, qp, qd[k], qdd[k])) < TOLERANCE
            mass = pin.crba(model, data, qp)
            mass = np.triu(mass) + np.triu(mass, 1).T
            assert relative_error(robot.mass_matrix(q[k]), mass) < TOLERANCE
            assert relative_error(robot.forward_dynamics(q[k], qd[k], qdd[k]),
                                  pin.aba(model, data, qp, qd[k], qdd[k])) < TOLERANCE
            assert robot.kinetic_energy(q[k], qd[k]) == pytest.approx(
                0.5 * qd[k] @ mass @ qd[k], rel=TOLERANCE)
        base = robot.joint_names[0] if robot.joint_types[0] != 'revolute' else 'shoulder'
        wrong = armature.copy()
        wrong[robot.joint_names.index(base)] = 0.1
        with pytest.raises(ValueError, match=f"armature: joint '{base}' is a .* joint, which "
                                             'is not actuated'):
            robot.armature = wrong
        with pytest.raises(ValueError, match=f"armature: joint '{base}'"):
            robot.actuators = robot.actuators.replace(armature=wrong)
        with pytest.raises(ValueError, match=r'armature: expected shape \(%d,\)'
                           % len(robot.joint_names)):
            robot.armature = np.zeros(robot.nv + 1)
        np.testing.assert_array_equal(robot.armature, armature)   # unchanged by the refusals
    finally:
        robot.armature = np.zeros(len(robot.joint_names))


def test_friction_on_the_actuated_joints_only(twin):
    """Viscous and Coulomb friction of the one-dof joints; the base rows get none."""
    robot = twin.robot
    before = robot.actuators
    one_dof = np.array([kind not in ('floating', 'planar', 'spherical')
                        for kind in robot.joint_types])
    viscous, coulomb = 0.3 * one_dof, 0.7 * one_dof
    q, qd, qdd = states(twin, 2, 9)
    try:
        robot.actuators = before.replace(viscous=viscous, coulomb=coulomb)
        per_coordinate = np.zeros((2, robot.nv))
        for k, joint in enumerate(robot.joint_names):
            part = robot.v_slice(joint)
            per_coordinate[:, part] = viscous[k] * qd[:, part] + coulomb[k] * np.tanh(
                qd[:, part] / before.friction_velocity)
        np.testing.assert_allclose(robot.friction_torques(qd), per_coordinate, atol=1e-12)
        np.testing.assert_allclose(robot.inverse_dynamics(q, qd, qdd, friction=True)
                                   - robot.inverse_dynamics(q, qd, qdd), per_coordinate,
                                   atol=1e-9)
        with pytest.raises(ValueError, match=r'viscous: joint .* is not actuated'):
            robot.actuators = before.replace(viscous=np.full(len(robot.joint_names), 0.3))
    finally:
        robot.actuators = before


def test_urdf_dynamics_on_a_ball_joint_is_ignored_with_a_warning():
    xml = BALL.replace('<origin xyz="0 0 1" rpy="0.1 0.2 0.3"/>',
                       '<origin xyz="0 0 1" rpy="0.1 0.2 0.3"/><dynamics damping="0.5"/>')
    with pytest.warns(URDFWarning, match="joint 'shoulder': a spherical joint is not actuated "
                                         'and takes no joint friction'):
        robot = RobotModel.from_urdf_string(xml)
    np.testing.assert_array_equal(robot.actuators.viscous, 0.0)
    np.testing.assert_array_equal(robot.friction_torques(np.ones(robot.nv)), 0.0)


MIMIC = """<robot name="mimic_gripper">
  <link name="body">
    <inertial><origin xyz="0.01 0.02 0.03"/><mass value="3.0"/>
      <inertia ixx="0.05" ixy="0.001" ixz="0" iyy="0.04" iyz="0.002" izz="0.03"/></inertial>
  </link>
  <link name="left">
    <inertial><origin xyz="0 0.05 -0.02"/><mass value="0.4"/>
      <inertia ixx="0.002" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.002"/></inertial>
  </link>
  <link name="right">
    <inertial><origin xyz="0 -0.05 -0.02"/><mass value="0.3"/>
      <inertia ixx="0.002" ixy="0" ixz="0.0003" iyy="0.001" iyz="0" izz="0.002"/></inertial>
  </link>
  <link name="tip">
    <inertial><origin xyz="0 -0.02 0"/><mass value="0.1"/>
      <inertia ixx="0.0002" ixy="0" ixz="0" iyy="0.0001" iyz="0" izz="0.0002"/></inertial>
  </link>
  <joint name="left_joint" type="revolute">
    <parent link="body"/><child link="left"/><origin xyz="0.1 0.05 0" rpy="0.2 0 0.1"/>
    <axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="5" velocity="2"/>
  </joint>
  <joint name="right_joint" type="revolute">
    <parent link="body"/><child link="right"/><origin xyz="0.1 -0.05 0"/>
    <axis xyz="0.6 0 0.8"/><limit lower="-2" upper="2" effort="5" velocity="2"/>
    <mimic joint="left_joint" multiplier="-1.5" offset="0.2"/>
  </joint>
  <joint name="tip_joint" type="prismatic">
    <parent link="right"/><child link="tip"/><origin xyz="0 -0.1 0"/>
    <axis xyz="0 1 0"/><limit lower="0" upper="0.05" effort="5" velocity="2"/>
  </joint>
</robot>
"""


def test_mimic_joints_in_a_floating_robot():
    """
    A follower in a free-flying robot: Pinocchio's model without mimic, reduced by G.

    With q_all = (base, left, -1.5 left + 0.2, tip) and v_all = G v, G constant, the reduced
    dynamics are tau = G^T ID(q_all, G v, G a), M = G^T M_all G, C = G^T C_all G, J = J_all G,
    Y = G^T Y_all, and forward dynamics solves G^T M_all G a = tau - G^T b_all.
    """
    robot = RobotModel.from_urdf_string(MIMIC, root_joint='floating')
    model = pin.buildModelFromXML(MIMIC, pin.JointModelFreeFlyer())
    data = model.createData()
    assert (robot.nq, robot.nv, model.nv) == (9, 8, 9)
    assert robot.joint_names == ('root_joint', 'left_joint', 'tip_joint')
    index = {name: model.joints[model.getJointId(name)].idx_v
             for name in ('left_joint', 'right_joint', 'tip_joint')}
    spread = np.zeros((model.nv, robot.nv))
    spread[:6, :6] = np.eye(6)
    spread[index['left_joint'], 6] = 1.0
    spread[index['right_joint'], 6] = -1.5
    spread[index['tip_joint'], 7] = 1.0
    rng = np.random.default_rng(10)
    q = robot.random_configuration(rng, count=2)
    qd, qdd = rng.standard_normal((2, robot.nv)), rng.standard_normal((2, robot.nv))

    def full(x):
        out = np.empty(model.nq)
        out[:7] = x[:7]
        for name, value in (('left_joint', x[7]), ('right_joint', -1.5 * x[7] + 0.2),
                            ('tip_joint', x[8])):
            out[model.joints[model.getJointId(name)].idx_q] = value
        return out

    tau = robot.inverse_dynamics(q, qd, qdd)
    for k in range(2):
        qp, v, a = full(q[k]), spread @ qd[k], spread @ qdd[k]
        assert relative_error(tau[k], spread.T @ pin.rnea(model, data, qp, v, a)) < TOLERANCE
        mass = pin.crba(model, data, qp)
        mass = spread.T @ (np.triu(mass) + np.triu(mass, 1).T) @ spread
        assert relative_error(robot.mass_matrix(q[k]), mass) < TOLERANCE
        bias = spread.T @ pin.nle(model, data, qp, v)
        assert relative_error(robot.forward_dynamics(q[k], qd[k], tau[k]),
                              np.linalg.solve(mass, tau[k] - bias)) < 1e-8
        assert relative_error(robot.coriolis_matrix(q[k], qd[k]), spread.T @ pin.
                              computeCoriolisMatrix(model, data, qp, v) @ spread) < TOLERANCE
        assert relative_error(robot.regressor(q[k], qd[k], qdd[k]), spread.T @ pin.
                              computeJointTorqueRegressor(model, data, qp, v, a)) < TOLERANCE
        assert robot.potential_energy(q[k]) == pytest.approx(
            pin.computePotentialEnergy(model, data, qp), rel=TOLERANCE)
        pin.computeJointJacobians(model, data, qp)
        pin.updateFramePlacements(model, data)
        for link in ('body', 'right', 'tip'):
            for name, frame in FRAMES.items():
                reference = pin.getFrameJacobian(model, data, model.getFrameId(link), frame)
                assert relative_error(robot.jacobian(q[k], link, name), reference @ spread) \
                    < TOLERANCE
        assert relative_error(robot.centroidal_momentum_matrix(q[k]),
                              pin.ccrba(model, data, qp, v) @ spread) < TOLERANCE


def test_a_closed_chain_on_a_floating_base():
    """
    A foot of a free-flying solo12 pinned to a world point: the KKT system from Pinocchio.

    ClosedChain's kinematics, forward and inverse dynamics take a floating root (the
    actuated joints are velocity coordinates); project and simulate step q additively and
    refuse it with a message that says so.
    """
    twin = twin_of('solo_description/robots/solo12.urdf', 'floating', pin.JointModelFreeFlyer())
    robot, model, data = twin.robot, twin.model, twin.data
    q, qd, tau = (x[0] for x in states(twin, 1, 11))
    foot = 'FL_FOOT'
    where = robot.link_pose(q, foot)[:3, 3]
    legs = [name for name in robot.joint_names if name != 'root_joint']
    chain = ClosedChain(robot, [Closure('pin', foot, np.zeros(3), 'world', where, (0, 1, 2))],
                        legs)
    np.testing.assert_allclose(chain.residual(q), 0.0, atol=1e-12)
    qp = pin_kinematics(twin, q, qd)
    frame = model.getFrameId(foot)
    jac = pin.getFrameJacobian(model, data, frame, pin.LOCAL_WORLD_ALIGNED)[:3]
    gamma = pin.getFrameClassicalAcceleration(model, data, frame,
                                              pin.LOCAL_WORLD_ALIGNED).linear
    assert relative_error(chain.jacobian(q), jac) < TOLERANCE
    mass = pin.crba(model, data, qp)
    mass = np.triu(mass) + np.triu(mass, 1).T
    tau[:6] = 0.0   # the base is not actuated
    kkt = np.block([[mass, -jac.T], [jac, np.zeros((3, 3))]])
    solution = np.linalg.solve(kkt, np.concatenate([tau - pin.nle(model, data, qp, qd),
                                                    -gamma]))
    qdd, force = chain.forward_dynamics(q, qd, tau)
    assert relative_error(qdd, solution[:robot.nv]) < 1e-8
    assert relative_error(force, solution[robot.nv:]) < 1e-8
    torques, force = chain.inverse_dynamics(q, qd, qdd)   # 12 joints + 3 forces for 18 rows
    assert relative_error(torques, tau[6:]) < 1e-8
    with pytest.raises(ValueError, match="actuated: joint 'root_joint' is a floating joint"):
        ClosedChain(robot, chain.closures, ['root_joint'])
    with pytest.raises(ValueError, match=r'project: .*nq = 19, nv = 18'):
        chain.project(q)
    with pytest.raises(ValueError, match=r'simulate: .*nq = 19, nv = 18'):
        chain.simulate(q, qd, 0.1, lambda t, q, qd: np.zeros(12))


def check_every_algorithm(twin: Twin, count: int, seed: int) -> None:
    """ID, M, FD, C, g, V, the regressor, A_G and two links' Jacobians at ``count`` states."""
    robot, model, data = twin.robot, twin.model, twin.data
    q, qd, qdd = states(twin, count, seed)
    batched = {'id': robot.inverse_dynamics(q, qd, qdd), 'mass': robot.mass_matrix(q),
               'coriolis': robot.coriolis_matrix(q, qd), 'regressor': robot.regressor(q, qd, qdd)}
    eigenvalues = np.linalg.eigvalsh(batched['mass'][0])
    if eigenvalues[0] > 1e-10 * eigenvalues[-1]:
        batched['fd'] = robot.forward_dynamics(q, qd, qdd)
    else:   # romeo's massless fingers: M is singular, in Pinocchio too; refused, or else (a
        # tiny inertia above ABA's tolerance, iCub's) the answer M qdd = tau - b to rounding
        try:
            fd = robot.forward_dynamics(q, qd, qdd)
        except SingularMassMatrixError as error:
            assert 'moves no inertia' in str(error)
        else:
            assert relative_error(robot.inverse_dynamics(q, qd, fd), qdd) < 1e-6
    for k in range(count):
        qp = pin_kinematics(twin, q[k], qd[k])
        mass = pin.crba(model, data, qp)
        expected = {'id': pin.rnea(model, data, qp, qd[k], qdd[k]),
                    'mass': np.triu(mass) + np.triu(mass, 1).T,
                    'coriolis': pin.computeCoriolisMatrix(model, data, qp, qd[k]),
                    'regressor': pin.computeJointTorqueRegressor(model, data, qp, qd[k], qdd[k])}
        if 'fd' in batched:
            expected['fd'] = pin.aba(model, data, qp, qd[k], qdd[k])
        for name, reference in expected.items():
            assert relative_error(batched[name][k], reference) < TOLERANCE, name
        single = {'id': robot.inverse_dynamics(q[k], qd[k], qdd[k]),
                  'mass': robot.mass_matrix(q[k]), 'coriolis': robot.coriolis_matrix(q[k], qd[k]),
                  'regressor': robot.regressor(q[k], qd[k], qdd[k])}
        if 'fd' in batched:
            single['fd'] = robot.forward_dynamics(q[k], qd[k], qdd[k])
        for name, value in single.items():   # the single-state paths (compiled entries)
            assert relative_error(value, expected[name]) < TOLERANCE, name
        assert robot.potential_energy(q[k]) == pytest.approx(
            pin.computePotentialEnergy(model, data, qp), rel=TOLERANCE, abs=1e-9)
        assert relative_error(robot.gravity_torques(q[k]),
                              pin.computeGeneralizedGravity(model, data, qp)) < TOLERANCE
        assert relative_error(robot.centroidal_momentum_matrix(q[k]),
                              pin.ccrba(model, data, qp, qd[k])) < TOLERANCE
        pin_kinematics(twin, q[k], qd[k])
        for link in (robot.link_names[1], robot.link_names[-1]):
            frame = frame_id(twin, link)
            for name, reference_frame in FRAMES.items():
                assert relative_error(robot.jacobian(q[k], link, name), pin.getFrameJacobian(
                    model, data, frame, reference_frame)) < TOLERANCE, (link, name)
            assert relative_error(robot.jacobian_dot_qd(q[k], qd[k], link),
                                  pin.getFrameClassicalAcceleration(
                                      model, data, frame, pin.LOCAL_WORLD_ALIGNED).vector) \
                < TOLERANCE


def load(path: str, root: str, joint_model) -> Twin:
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', URDFWarning)
        return twin_of(path, root, joint_model)


@pytest.mark.parametrize('path, root, joint_model', EVERY_ROBOT,
                         ids=[entry[0].split('/')[-1] for entry in EVERY_ROBOT])
def test_every_floating_robot(path, root, joint_model):
    """Every example-robot-data floating-base robot, one state (the fuzz version: more)."""
    check_every_algorithm(load(path, root, joint_model), 1, 12)


@pytest.mark.fuzz
@pytest.mark.parametrize('path, root, joint_model', EVERY_ROBOT,
                         ids=[entry[0].split('/')[-1] for entry in EVERY_ROBOT])
def test_every_floating_robot_at_many_states(path, root, joint_model):
    """As test_every_floating_robot at 2 x ROS_DYNAMICS_FUZZ_SCALE states per robot."""
    check_every_algorithm(load(path, root, joint_model), max(2, int(2 * SCALE)), 13)


def test_example_robot_data_has_no_other_floating_base_robot():
    """The lists above are complete: every other URDF of the package has a fixed base."""
    from robot_data import example_robot_data_dir
    base = example_robot_data_dir()
    fixed = {'ur_description', 'panda_description', 'kinova_description', 'xarm_description',
             'z1_description', 'so_arm_description', 'allegro_hand_description',
             'baxter_description', 'double_pendulum_description',
             'finger_edu_description', 'asr_twodof_description'}
    listed = {path for path, _, _ in EVERY_ROBOT} | {'talos_data/robots/talos_left_arm.urdf'}
    for directory, _, files in os.walk(base):
        for name in files:
            path = os.path.relpath(os.path.join(directory, name), base)
            if name.endswith('.urdf') and path.split('/')[0] not in fixed:
                assert path in listed, path
