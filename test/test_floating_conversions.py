# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Random configurations, MuJoCo's and the mixed representation, and quaternions of any length.

The MuJoCo converters are checked against MuJoCo itself (test-only): solo12 with a free
joint (MuJoCo reads the URDF ``floating`` joint as one), a ball joint and a planar base in
MJCF written here; link poses from ``mj_forward``, the bias C qd + g and M mapped by the
velocity map T (v_mujoco = T v), and the kinetic energy. The mixed velocity (iDynTree's and
adam's) by its definition: the base link's world-aligned twist, and the mixed Jacobian's base
block [[1, -[p - p_b]x], [0, 1]].
"""

import re

import mujoco
from mujoco_models import COMPILER
import numpy as np
import pytest
from robot_data import example_urdf
from ros_dynamics import RobotModel
from ros_dynamics.model.floating_base import BASE_BOX, MUJOCO_SIZES, rotation_slices
from scipy.spatial.transform import Rotation
from test_floating_base import BALL

SOLO = example_urdf('solo_description/robots/solo12.urdf')
# test_floating_base's ball robot with an arm inertia MuJoCo accepts (A + B >= C)
BALL_URDF = BALL.replace('iyy="0.2" iyz="0.03" izz="0.1"', 'iyy="0.25" iyz="0.03" izz="0.2"')

BALL_MJCF = """<mujoco>
  <compiler angle="radian"/>
  <worldbody>
    <body name="arm" pos="0 0 1" euler="{rpy}">
      <joint name="shoulder" type="ball"/>
      <inertial pos="0.1 0.02 -0.3" mass="2.0" fullinertia="{arm}"/>
      <body name="hand" pos="0 0 -0.6">
        <joint name="elbow" type="hinge" axis="0 1 0"/>
        <inertial pos="0 0 -0.1" mass="0.5" diaginertia="0.01 0.01 0.02"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""
FLOATING_BALL_URDF = BALL_URDF.replace('<link name="base"/>', """<link name="base">
    <inertial><origin xyz="0.02 -0.01 0.05"/><mass value="5.0"/>
      <inertia ixx="0.1" ixy="0.002" ixz="0.001" iyy="0.12" iyz="0.003" izz="0.08"/></inertial>
  </link>""")
FLOATING_BALL_MJCF = BALL_MJCF.replace('<worldbody>', """<worldbody>
    <body name="base">
      <freejoint name="root_joint"/>
      <inertial pos="0.02 -0.01 0.05" mass="5.0" fullinertia="0.1 0.12 0.08 0.002 0.001 0.003"/>
""").replace('</worldbody>', '</body></worldbody>')
PLANAR_URDF = """<robot name="rover">
  <link name="chassis">
    <inertial><origin xyz="0.05 -0.02 0.1"/><mass value="8.0"/>
      <inertia ixx="0.3" ixy="0.01" ixz="0.02" iyy="0.4" iyz="0.03" izz="0.5"/></inertial>
  </link>
  <link name="boom">
    <inertial><origin xyz="0.2 0 0"/><mass value="1.0"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial>
  </link>
  <joint name="boom_joint" type="revolute">
    <parent link="chassis"/><child link="boom"/><origin xyz="0.1 0 0.3"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="10" velocity="2"/>
  </joint>
</robot>
"""
PLANAR_MJCF = """<mujoco>
  <worldbody>
    <body name="chassis">
      <joint name="root_joint_x" type="slide" axis="1 0 0"/>
      <joint name="root_joint_y" type="slide" axis="0 1 0"/>
      <joint name="root_joint_theta" type="hinge" axis="0 0 1"/>
      <inertial pos="0.05 -0.02 0.1" mass="8.0" fullinertia="0.3 0.4 0.5 0.01 0.02 0.03"/>
      <body name="boom" pos="0.1 0 0.3">
        <joint name="boom_joint" type="hinge" axis="0 1 0"/>
        <inertial pos="0.2 0 0" mass="1.0" diaginertia="0.01 0.02 0.02"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def solo_in_mujoco(robot: RobotModel) -> mujoco.MjModel:
    """solo12 in MuJoCo: bare bodies, the URDF floating joint 'root_joint' (a free joint)."""
    with open(SOLO) as stream:
        xml = stream.read()
    for element in ('visual', 'collision'):
        xml = re.sub(rf'<{element}\b.*?</{element}>', '', xml, flags=re.S)
    root = ('<link name="world"/><joint name="root_joint" type="floating"><parent link="world"/>'
            f'<child link="{robot.link_names[1]}"/></joint>')
    xml = re.sub(r'(<robot\b[^>]*>)', lambda match: match.group(1) + COMPILER + root, xml,
                 count=1)
    return mujoco.MjModel.from_xml_string(xml)


def ball_in_mujoco(floating: bool = False) -> mujoco.MjModel:
    # URDF rpy turns about the fixed x, y, z axes: MJCF's eulerseq 'XYZ' (capitals: fixed)
    xml = (FLOATING_BALL_MJCF if floating else BALL_MJCF).format(
        rpy='0.1 0.2 0.3', arm='0.3 0.25 0.2 0.01 0.02 0.03').replace(
            '<compiler angle="radian"/>', '<compiler angle="radian" eulerseq="XYZ"/>')
    return mujoco.MjModel.from_xml_string(xml)


def mujoco_layout(robot: RobotModel, model: mujoco.MjModel) -> tuple:
    """
    Return (qpos index, qvel index) arrays: where each entry of to_mujoco's output goes.

    to_mujoco keeps our joint order; MuJoCo's model has its own, found by joint name (the
    planar joint: MJCF joints <name>_x, <name>_y, <name>_theta).
    """
    qpos, qvel = [], []
    for joint, kind in zip(robot.joint_names, robot.joint_types):
        names = [f'{joint}_x', f'{joint}_y', f'{joint}_theta'] if kind == 'planar' else [joint]
        for name in names:
            j = model.joint(name).id
            nq, nv = MUJOCO_SIZES.get(kind, (1, 1)) if kind != 'planar' else (1, 1)
            qpos.extend(range(model.jnt_qposadr[j], model.jnt_qposadr[j] + nq))
            qvel.extend(range(model.jnt_dofadr[j], model.jnt_dofadr[j] + nv))
    return np.array(qpos), np.array(qvel)


def velocity_map(robot: RobotModel, q: np.ndarray) -> np.ndarray:
    """Return T (nv, nv) with to_mujoco(q, v)[1] = T v (it is linear in v)."""
    return np.array([robot.to_mujoco(q, column)[1] for column in np.eye(robot.nv)]).T


def velocity_map_rate(robot: RobotModel, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """
    Return (dT/dt) v, to_mujoco's order: d/dt (R v_lin) = R (w x v_lin) at constant v.

    A free joint's world-frame linear velocity R v_lin and a planar joint's Rz(theta) (vx, vy)
    turn with the body; the other rows of T are constant.
    """
    out = []
    for joint, kind in zip(robot.joint_names, robot.joint_types):
        k, j = robot.q_slice(joint).start, robot.v_slice(joint).start
        if kind == 'floating':
            rotation = Rotation.from_quat(q[k + 3:k + 7]).as_matrix()
            out += list(rotation @ np.cross(v[j + 3:j + 6], v[j:j + 3])) + [0.0] * 3
        elif kind == 'planar':
            c, s = q[k + 2], q[k + 3]
            vx, vy, w = v[j:j + 3]
            out += [w * (-c * vy - s * vx), w * (c * vx - s * vy), 0.0]
        else:
            out += [0.0] * MUJOCO_SIZES.get(kind, (1, 1))[1]
    return np.array(out)


CASES = {'solo12': lambda: RobotModel.from_urdf_file(SOLO, root_joint='floating'),
         'ball': lambda: RobotModel.from_urdf_string(BALL_URDF),
         'planar': lambda: RobotModel.from_urdf_string(PLANAR_URDF, root_joint='planar'),
         'floating_ball': lambda: RobotModel.from_urdf_string(FLOATING_BALL_URDF,
                                                              root_joint='floating')}
MUJOCO = {'solo12': solo_in_mujoco, 'ball': lambda robot: ball_in_mujoco(),
          'planar': lambda robot: mujoco.MjModel.from_xml_string(PLANAR_MJCF),
          'floating_ball': lambda robot: ball_in_mujoco(floating=True)}


@pytest.mark.parametrize('case', sorted(CASES))
def test_to_mujoco_against_mujoco(case):
    """Poses, bias, M and kinetic energy of MuJoCo at to_mujoco's state, as ours."""
    robot = CASES[case]()
    model = MUJOCO[case](robot)
    model.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
    data = mujoco.MjData(model)
    qpos_index, qvel_index = mujoco_layout(robot, model)
    assert (len(qpos_index), len(qvel_index)) == (model.nq, model.nv)
    rng = np.random.default_rng(21)
    q = robot.random_configuration(rng, count=3)
    v = rng.standard_normal((3, robot.nv))
    qpos, qvel = robot.to_mujoco(q, v)
    for k in range(3):
        data.qpos[qpos_index], data.qvel[qvel_index] = qpos[k], qvel[k]
        mujoco.mj_forward(model, data)
        for body in range(1, model.nbody):
            pose = robot.link_pose(q[k], model.body(body).name)
            np.testing.assert_allclose(data.xpos[body], pose[:3, 3], atol=1e-12)
            np.testing.assert_allclose(data.xmat[body].reshape(3, 3), pose[:3, :3], atol=1e-12)
        assert data.energy[1] == pytest.approx(robot.kinetic_energy(q[k], v[k]), rel=1e-10)
        assert data.energy[0] == pytest.approx(robot.potential_energy(q[k]), rel=1e-10,
                                               abs=1e-10)
        # v_mujoco = T v: tau = T^T tau_mujoco, M = T^T M_mujoco T, and the bias picks up
        # M_mujoco (dT/dt) v (a_mujoco = T a + (dT/dt) v)
        transform = velocity_map(robot, q[k])
        mass = np.empty((model.nv, model.nv))
        mujoco.mj_fullM(model, data, mass)
        mass = mass[np.ix_(qvel_index, qvel_index)]
        np.testing.assert_allclose(robot.mass_matrix(q[k]), transform.T @ mass @ transform,
                                   rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(
            robot.bias_torques(q[k], v[k]), transform.T @ (
                data.qfrc_bias[qvel_index] + mass @ velocity_map_rate(robot, q[k], v[k])),
            rtol=1e-9, atol=1e-9)
        single = robot.to_mujoco(q[k], v[k])
        np.testing.assert_allclose(single[0], qpos[k], rtol=1e-15, atol=1e-15)
        np.testing.assert_allclose(single[1], qvel[k], rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize('case', sorted(CASES))
def test_from_mujoco_inverts_to_mujoco(case):
    robot = CASES[case]()
    rng = np.random.default_rng(22)
    q = robot.random_configuration(rng, count=4)
    v = rng.standard_normal((4, robot.nv))
    back_q, back_v = robot.from_mujoco(*robot.to_mujoco(q, v))
    np.testing.assert_allclose(back_q, q, atol=1e-12)
    np.testing.assert_allclose(back_v, v, atol=1e-12)
    qpos, qvel = robot.to_mujoco(q[0])
    assert qvel is None
    back_q, back_v = robot.from_mujoco(qpos)
    assert back_v is None
    np.testing.assert_allclose(back_q, q[0], atol=1e-12)
    with pytest.raises(ValueError, match=r'qpos: expected finite numbers of shape'):
        robot.from_mujoco(qpos[:-1])


def test_mujoco_quaternions_put_w_first():
    robot = RobotModel.from_urdf_file(SOLO, root_joint='floating')
    q = robot.neutral_configuration()
    q[:3] = 1.0, 2.0, 3.0
    q[3:7] = 0.0, 0.0, np.sin(0.25), np.cos(0.25)   # 0.5 rad about z
    qpos, qvel = robot.to_mujoco(q, np.r_[1.0, 0.0, 0.0, np.zeros(robot.nv - 3)])
    np.testing.assert_allclose(qpos[:7], [1, 2, 3, np.cos(0.25), 0, 0, np.sin(0.25)])
    # the base moving along its own x axis moves along (cos 0.5, sin 0.5, 0) in the world
    np.testing.assert_allclose(qvel[:3], [np.cos(0.5), np.sin(0.5), 0.0], atol=1e-15)
    with pytest.raises(ValueError, match='qpos: a quaternion of length 0 names no rotation'):
        robot.from_mujoco(np.zeros_like(qpos))


@pytest.mark.parametrize('case', ['solo12', 'planar'])
def test_mixed_velocity_is_the_base_twist_in_world_axes(case):
    """The mixed base velocity is the base link's world-aligned twist; J_mixed's base block."""
    robot = CASES[case]()
    base = robot.link_names[1]
    rng = np.random.default_rng(23)
    q = robot.random_configuration(rng, count=3)
    v = rng.standard_normal((3, robot.nv))
    mixed = robot.to_mixed_velocity(q, v)
    nb = 6 if case == 'solo12' else 3
    rows = [0, 1, 2, 3, 4, 5] if case == 'solo12' else [0, 1, 5]
    for k in range(3):
        twist = robot.jacobian(q[k], base) @ v[k]
        np.testing.assert_allclose(mixed[k, :nb], twist[rows], atol=1e-12)
        np.testing.assert_allclose(mixed[k, nb:], v[k, nb:], atol=0)
        if case == 'planar':
            np.testing.assert_allclose(twist[[2, 3, 4]], 0.0, atol=1e-12)
        inverse = np.array([robot.from_mixed_velocity(q[k], column)
                            for column in np.eye(robot.nv)]).T
        foot = robot.link_names[-1]
        jac = robot.jacobian(q[k], foot) @ inverse   # the mixed Jacobian (iDynTree's)
        lever = robot.link_pose(q[k], foot)[:3, 3] - robot.link_pose(q[k], base)[:3, 3]
        if case == 'solo12':
            np.testing.assert_allclose(jac[:3, :3], np.eye(3), atol=1e-12)
            minus_skew = np.array([[0.0, lever[2], -lever[1]], [-lever[2], 0.0, lever[0]],
                                   [lever[1], -lever[0], 0.0]])   # v = v_b - lever x w
            np.testing.assert_allclose(jac[:3, 3:6], minus_skew, atol=1e-12)
            np.testing.assert_allclose(jac[3:, 3:6], np.eye(3), atol=1e-12)
            np.testing.assert_allclose(jac[3:, :3], 0.0, atol=1e-12)
    np.testing.assert_allclose(robot.from_mixed_velocity(q, mixed), v, atol=1e-12)
    np.testing.assert_allclose(robot.to_mixed_velocity(q[0], v[0]), mixed[0], atol=0)


def test_mixed_velocity_leaves_a_fixed_base_alone():
    robot = RobotModel.from_urdf_string(BALL_URDF)
    q = robot.random_configuration(1)
    v = np.arange(robot.nv, dtype=float)
    np.testing.assert_array_equal(robot.to_mixed_velocity(q, v), v)


@pytest.mark.parametrize('case', sorted(CASES))
def test_random_configuration_within_the_limits(case):
    robot = CASES[case]()
    q = robot.random_configuration(np.random.default_rng(24), count=2000)
    assert q.shape == (2000, robot.nq)
    np.testing.assert_array_equal(q, robot.random_configuration(24, count=2000))   # a seed
    assert robot.random_configuration(5).shape == (robot.nq,)
    np.testing.assert_array_equal(robot.random_configuration(5),
                                  robot.random_configuration(5, count=1)[0])
    for joint, kind in zip(robot.joint_names, robot.joint_types):
        part = q[:, robot.q_slice(joint)]
        if kind == 'floating':
            assert np.all(np.abs(part[:, :3]) <= BASE_BOX)
            np.testing.assert_allclose(np.linalg.norm(part[:, 3:], axis=1), 1.0, atol=1e-12)
            rotations = part[:, 3:]
        elif kind == 'spherical':
            np.testing.assert_allclose(np.linalg.norm(part, axis=1), 1.0, atol=1e-12)
            rotations = part
        elif kind == 'planar':
            assert np.all(np.abs(part[:, :2]) <= BASE_BOX)
            np.testing.assert_allclose(np.hypot(part[:, 2], part[:, 3]), 1.0, atol=1e-12)
            assert abs(np.mean(part[:, 2])) < 0.1 and abs(np.mean(part[:, 3])) < 0.1
        else:
            start = robot.q_slice(joint).start
            assert np.all(part >= robot.lower[start]) and np.all(part <= robot.upper[start])
    if case != 'planar':   # uniform on SO(3): E[R] = 0 (each entry's sd 1/3: 3 sd at 2000)
        assert np.max(np.abs(np.mean(Rotation.from_quat(rotations).as_matrix(), axis=0))) \
            < 4.0 * np.sqrt(1.0 / 3.0 / 2000)
    with pytest.raises(ValueError, match='count: expected None or a non-negative integer'):
        robot.random_configuration(count=-1)


def public_calls(robot: RobotModel, link: str) -> dict:
    """Every public RobotModel entry that takes q (the others: qd, qdd, tau fixed)."""
    qd = np.linspace(-1.0, 1.0, robot.nv)
    qdd = np.linspace(0.5, -0.5, robot.nv)

    def batch(x):
        return np.array([x, x]) if np.ndim(x) == 1 else x

    return {
        'inverse_dynamics': lambda q: robot.inverse_dynamics(q, qd + 0 * q[..., :1], qdd + 0 * q[
            ..., :1]),
        'inverse_dynamics wrenches': lambda q: robot.inverse_dynamics(
            q, qd + 0 * q[..., :1], qdd + 0 * q[..., :1], {link: [1, 2, 3, 0.1, 0.2, 0.3]}),
        'gravity_torques': robot.gravity_torques,
        'bias_torques': lambda q: robot.bias_torques(q, qd + 0 * q[..., :1]),
        'mass_matrix': robot.mass_matrix,
        'coriolis_matrix': lambda q: robot.coriolis_matrix(q, qd + 0 * q[..., :1]),
        'forward_dynamics': lambda q: robot.forward_dynamics(q, qd + 0 * q[..., :1],
                                                             qdd + 0 * q[..., :1]),
        'kinetic_energy': lambda q: robot.kinetic_energy(q, qd + 0 * q[..., :1]),
        'potential_energy': robot.potential_energy,
        'link_pose': lambda q: robot.link_pose(q, link),
        'jacobian': lambda q: robot.jacobian(q, link),
        'jacobian local': lambda q: robot.jacobian(q, link, 'local'),
        'jacobian world': lambda q: robot.jacobian(q, link, 'world'),
        'jacobian_dot_qd': lambda q: robot.jacobian_dot_qd(q, qd, link),
        'operational_space': lambda q: robot.operational_space(q, qd, link, axes=(3, 4, 5)).Lambda,
        'regressor': lambda q: robot.regressor(q, qd + 0 * q[..., :1], qdd + 0 * q[..., :1]),
        'center_of_mass': robot.center_of_mass,
        'com_jacobian': robot.com_jacobian,
        'centroidal_momentum_matrix': robot.centroidal_momentum_matrix,
        'centroidal_momentum': lambda q: robot.centroidal_momentum(q, qd),
        'centroidal_momentum_bias': lambda q: robot.centroidal_momentum_bias(q, qd),
        'integrate': lambda q: robot.integrate(q, qd + 0 * q[..., :1]),
        'difference': lambda q: robot.difference(robot.neutral_configuration() + 0 * q, q),
        'interpolate': lambda q: robot.interpolate(q, robot.neutral_configuration() + 0 * q,
                                                   0.3),
        'normalize': robot.normalize,
        'to_mujoco': lambda q: robot.to_mujoco(q, qd + 0 * q[..., :1])[1],
        'to_mixed_velocity': lambda q: robot.to_mixed_velocity(q, qd + 0 * q[..., :1]),
        'batch inverse_dynamics': lambda q: robot.inverse_dynamics(batch(q), batch(qd),
                                                                   batch(qdd)),
        'batch mass_matrix': lambda q: robot.mass_matrix(batch(q)),
        'batch forward_dynamics': lambda q: robot.forward_dynamics(batch(q), batch(qd),
                                                                   batch(qdd)),
        'batch jacobian': lambda q: robot.jacobian(batch(q), link),
        'batch coriolis_matrix': lambda q: robot.coriolis_matrix(batch(q), batch(qd)),
        'batch potential_energy': lambda q: robot.potential_energy(batch(q)),
    }


@pytest.mark.parametrize('case', sorted(CASES))
def test_a_quaternion_of_any_length_is_normalised_and_a_zero_one_refused(case):
    """Every public entry that takes q: q with its rotations scaled by 2.5 gives the same."""
    robot = CASES[case]()
    q = robot.random_configuration(25)
    scaled, zero = q.copy(), q.copy()
    for _, start, stop in rotation_slices(robot):
        scaled[start:stop] *= 2.5
        zero[start:stop] = 0.0
    link = robot.link_names[-1]
    for name, call in public_calls(robot, link).items():
        expected = call(q)
        np.testing.assert_allclose(call(scaled), expected, rtol=1e-12, atol=1e-12,
                                   err_msg=name)
        with pytest.raises(ValueError, match=r'q(0|1)?:( row \d+:)? the (quaternion|\(cos '
                                             r"theta, sin theta\)) of joint '\w+' .* has "
                                             r'length 0: it names no rotation'):
            call(zero)
        np.testing.assert_allclose(call(scaled), expected, rtol=1e-12, atol=1e-12,
                                   err_msg=name)   # the fast paths, once bound
