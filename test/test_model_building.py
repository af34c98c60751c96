# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
URDF semantics of the model, and the validation of every public argument.

Fixed joints, rotated inertials, root inertia, mimic joints, limits.
"""

import math

import numpy as np
import pytest

from ros_dynamics import RobotModel, URDFError

LIMIT = '<limit lower="-2" upper="2" effort="50" velocity="3"/>'


def inertial(mass, xyz='0 0 0', rpy='0 0 0', diag=(0.01, 0.02, 0.03), off=(0.0, 0.0, 0.0)):
    return (f'<inertial><origin xyz="{xyz}" rpy="{rpy}"/><mass value="{mass}"/>'
            f'<inertia ixx="{diag[0]}" iyy="{diag[1]}" izz="{diag[2]}" ixy="{off[0]}" '
            f'ixz="{off[1]}" iyz="{off[2]}"/></inertial>')


def arm(links: str, joints: str, name='arm') -> str:
    return f'<robot name="{name}">{links}{joints}</robot>'


def joint(name, parent, child, jtype='revolute', xyz='0 0 0', rpy='0 0 0', axis='0 0 1',
          extra=LIMIT):
    return (f'<joint name="{name}" type="{jtype}"><parent link="{parent}"/>'
            f'<child link="{child}"/><origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{axis}"/>'
            f'{extra}</joint>')


STATES = [np.array(v) for v in ([0.3, -0.7], [1.2, 0.4], [-2.0, 1.9])]


def two_link(payload_fixed: bool) -> RobotModel:
    """Build a 2-link arm whose forearm carries a payload, as a fixed child or merged by hand."""
    links = ('<link name="base">' + inertial(3.0, '0 0 0.1') + '</link>'
             '<link name="upper">' + inertial(2.0, '0.5 0 0', '0.1 0.2 0.3') + '</link>')
    joints = (joint('shoulder', 'base', 'upper', axis='0 1 0')
              + joint('elbow', 'upper', 'fore', xyz='1 0 0', rpy='0 0.3 0', axis='0 1 1'))
    if payload_fixed:
        links += '<link name="fore">' + inertial(1.0, '0.4 0 0') + '</link>'
        links += '<link name="payload">' + inertial(0.5, '0 0 0') + '</link>'
        joints += joint('mount', 'fore', 'payload', 'fixed', xyz='0.8 0 0.1', extra='')
    else:
        # same mass properties merged: m = 1.5, c = (1.0*(0.4,0,0) + 0.5*(0.8,0,0.1)) / 1.5
        c = np.array([0.4 * 1.0 + 0.8 * 0.5, 0.0, 0.05]) / 1.5
        inertia = np.diag([0.02, 0.04, 0.06])
        for m, p in ((1.0, np.array([0.4, 0, 0])), (0.5, np.array([0.8, 0, 0.1]))):
            d = p - c
            inertia = inertia + m * (d @ d * np.eye(3) - np.outer(d, d))
        links += ('<link name="fore">' + inertial(
            1.5, ' '.join(map(str, c)), diag=np.diag(inertia),
            off=(inertia[0, 1], inertia[0, 2], inertia[1, 2])) + '</link>')
    return RobotModel.from_urdf_string(arm(links, joints))


def test_fixed_joint_merges_inertia_and_keeps_the_frame():
    fixed, merged = two_link(True), two_link(False)
    assert fixed.dof == merged.dof == 2
    assert 'payload' in fixed.link_names
    for q in STATES:
        qd, qdd = q[::-1], np.array([0.5, -1.0])
        assert np.allclose(fixed.mass_matrix(q), merged.mass_matrix(q), atol=1e-12)
        assert np.allclose(fixed.inverse_dynamics(q, qd, qdd),
                           merged.inverse_dynamics(q, qd, qdd), atol=1e-12)
        offset = np.eye(4)
        offset[:3, 3] = [0.8, 0.0, 0.1]
        assert np.allclose(fixed.link_pose(q, 'payload'), fixed.link_pose(q, 'fore') @ offset)


def test_rotated_inertial_is_r_i_rt():
    """<inertial><origin rpy> rotates the tensor: equal to the same tensor written as R I R^T."""
    rpy = np.array([0.4, -0.3, 1.1])
    cr, sr, cp, sp, cy, sy = (f(a) for a in rpy for f in (math.cos, math.sin))
    rot = np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                    [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                    [-sp, cp * sr, cp * cr]])
    tensor = rot @ np.diag([0.01, 0.05, 0.09]) @ rot.T
    models = []
    for body in (inertial(2.0, '0.3 0.1 0', ' '.join(map(str, rpy)), (0.01, 0.05, 0.09)),
                 inertial(2.0, '0.3 0.1 0', '0 0 0', np.diag(tensor),
                          (tensor[0, 1], tensor[0, 2], tensor[1, 2]))):
        links = '<link name="base"/><link name="a">' + body + '</link><link name="b">' \
            + inertial(1.0, '0.2 0 0') + '</link>'
        joints = joint('j1', 'base', 'a', axis='1 0 0') + joint('j2', 'a', 'b', axis='0 1 0')
        models.append(RobotModel.from_urdf_string(arm(links, joints)))
    for q in STATES:
        assert np.allclose(models[0].mass_matrix(q), models[1].mass_matrix(q), atol=1e-12)
    assert not np.allclose(np.diag(tensor), [0.01, 0.05, 0.09])   # the rotation mattered


def test_root_inertia_is_kept():
    robot = two_link(True)
    mass, com, inertia = robot.root_inertia
    assert mass == 3.0
    assert np.allclose(com, [0.0, 0.0, 0.1])
    assert np.allclose(inertia, np.diag([0.01, 0.02, 0.03]))


def test_axis_is_normalised_and_prismatic_moves_along_it():
    links = ('<link name="base"/><link name="slider">' + inertial(2.0) + '</link>')
    robot = RobotModel.from_urdf_string(arm(links, joint('rail', 'base', 'slider', 'prismatic',
                                                         axis='0 0 2')))
    assert np.allclose(robot.link_pose([0.25], 'slider')[:3, 3], [0.0, 0.0, 0.25])
    assert np.allclose(robot.gravity_torques([0.1]), [2.0 * 9.81])
    assert np.allclose(robot.mass_matrix([0.1]), [[2.0]])


def mimic_robot(mimic: bool = True, leader='a') -> RobotModel:
    links = '<link name="base"/>' + ''.join(
        f'<link name="l{k}">' + inertial(1.0 + k, '0.3 0 0') + '</link>' for k in range(4))
    joints = (joint('a', 'base', 'l0', axis='0 1 0')
              + joint('b', 'l0', 'l1', xyz='0.6 0 0', axis='0 1 0',
                      extra=LIMIT + f'<mimic joint="{leader}" multiplier="2" offset="0.1"/>')
              + joint('c', 'l1', 'l2', xyz='0.6 0 0', axis='0 1 0',
                      extra=LIMIT + '<mimic joint="b" multiplier="-0.5" offset="0.3"/>')
              + joint('d', 'l2', 'l3', 'prismatic', xyz='0.6 0 0', axis='1 0 0'))
    return RobotModel.from_urdf_string(arm(links, joints), mimic=mimic)


def test_mimic_chain_reduces_coordinates():
    robot, full = mimic_robot(), mimic_robot(mimic=False)
    assert robot.joint_names == ('a', 'd') and full.joint_names == ('a', 'b', 'c', 'd')
    # b = 2 a + 0.1; c = -0.5 b + 0.3 = -a + 0.25
    g = np.array([[1, 0], [2, 0], [-1, 0], [0, 1]], dtype=float)
    o = np.array([0.0, 0.1, 0.25, 0.0])
    rng = np.random.default_rng(0)
    for _ in range(4):
        q, qd, qdd = (rng.uniform(-1, 1, 2) for _ in range(3))
        assert np.allclose(robot.all_joint_positions(q), g @ q + o)
        q_full = g @ q + o
        assert np.allclose(robot.inverse_dynamics(q, qd, qdd),
                           g.T @ full.inverse_dynamics(q_full, g @ qd, g @ qdd), atol=1e-12)
        assert np.allclose(robot.mass_matrix(q), g.T @ full.mass_matrix(q_full) @ g, atol=1e-12)
        tau = rng.uniform(-1, 1, 2)
        assert np.allclose(robot.inverse_dynamics(q, qd, robot.forward_dynamics(q, qd, tau)),
                           tau, atol=1e-10)
        assert np.allclose(robot.jacobian(q, 'l3'), full.jacobian(q_full, 'l3') @ g, atol=1e-12)


def test_mimic_of_unknown_joint_is_named():
    with pytest.raises(URDFError, match="joint 'b' mimics joint 'ghost', which does not exist"):
        mimic_robot(leader='ghost')
    assert mimic_robot(mimic=False, leader='ghost').dof == 4   # Pinocchio's default


def test_mimic_cycle_is_an_error():
    with pytest.raises(URDFError, match='cycle'):
        mimic_robot(leader='c')


def test_limits_damping_friction_and_continuous_are_kept():
    links = '<link name="base"/><link name="a">' + inertial(1.0) + '</link><link name="b">' \
        + inertial(1.0) + '</link>'
    joints = (joint('spin', 'base', 'a', 'continuous',
                    extra='<limit effort="7" velocity="4"/>'
                    '<dynamics damping="0.5" friction="0.2"/>')
              + joint('tilt', 'a', 'b', extra='<limit lower="-1" upper="1.5" effort="30" '
                      'velocity="2"/>'))
    robot = RobotModel.from_urdf_string(arm(links, joints))
    assert list(robot.continuous) == [True, False]
    assert list(robot.lower) == [-math.inf, -1.0] and list(robot.upper) == [math.inf, 1.5]
    assert list(robot.effort_limit) == [7.0, 30.0]
    assert list(robot.velocity_limit) == [4.0, 2.0]
    assert list(robot.damping) == [0.5, 0.0] and list(robot.friction) == [0.2, 0.0]


@pytest.mark.parametrize('jtype, nq, nv', [('floating', 7, 6), ('planar', 4, 3)])
def test_floating_and_planar_joints_load_with_their_coordinates(jtype, nq, nv):
    links = '<link name="world"/><link name="body">' + inertial(1.0) + '</link>'
    robot = RobotModel.from_urdf_string(arm(links, joint('free', 'world', 'body', jtype,
                                                         extra='')))
    assert (robot.nq, robot.nv) == (nq, nv)
    assert robot.q_slice('free') == slice(0, nq) and robot.v_slice('free') == slice(0, nv)
    assert list(robot.lower) == [-math.inf] * nq and list(robot.effort_limit) == [math.inf] * nv


@pytest.fixture(scope='module')
def robot():
    return two_link(True)


@pytest.mark.parametrize('method, args, fragment', [
    ('inverse_dynamics', ([0.0], [0.0, 0.0], [0.0, 0.0]), 'q: expected shape'),
    ('inverse_dynamics', ([0.0, 0.0], [0.0, float('nan')], [0.0, 0.0]), 'qd: contains NaN'),
    ('inverse_dynamics', ([0.0, 0.0], [0.0, 0.0], [float('inf'), 0.0]), 'qdd: contains NaN'),
    ('inverse_dynamics', ([[0.0, 0.0]] * 3, [[0.0, 0.0]] * 2, [[0.0, 0.0]] * 3), 'shapes differ'),
    ('inverse_dynamics', ([[0.0, 0.0], [0.0, float('nan')]], [[0.0, 0.0]] * 2,
                          [[0.0, 0.0]] * 2), 'q: row 1'),
    ('inverse_dynamics', ([[0.0], [0.0, 1.0]], [0.0, 0.0], [0.0, 0.0]), 'q: expected an array'),
    ('forward_dynamics', ([0.0, 0.0], [0.0, 0.0], [0.0, float('nan')]), 'tau: contains NaN'),
    ('mass_matrix', (np.zeros((2, 2, 2)),), 'q: expected shape'),
    ('gravity_torques', ([float('nan'), 0.0],), 'q: contains NaN'),
    ('coriolis_matrix', ([0.0, 0.0], [0.0]), 'qd: expected shape'),
    ('kinetic_energy', ([0.0, 0.0], [np.inf, 0.0]), 'qd: contains NaN'),
    ('potential_energy', ([0.0, 0.0, 0.0],), 'q: expected shape'),
    ('link_pose', ([0.0, 0.0], 'nowhere'), "link 'nowhere'"),
    ('jacobian', ([0.0, 0.0], 'fore', 'diagonal'), 'frame'),
    ('jacobian', ([0.0, 0.0], 'elbow'), "link 'elbow'"),
    ('jacobian_dot_qd', ([0.0, 0.0], [0.0, float('nan')], 'fore'), 'qd: contains NaN'),
])
def test_bad_arguments_are_named(robot, method, args, fragment):
    with pytest.raises(ValueError, match=fragment):
        getattr(robot, method)(*args)


@pytest.mark.parametrize('wrenches, fragment', [
    ({'nowhere': [0.0] * 6}, "link 'nowhere'"),
    ({'fore': [0.0] * 5}, r"external_wrenches\['fore'\]"),
    ({'fore': [0.0] * 5 + [float('nan')]}, r"external_wrenches\['fore'\]"),
    ([('fore', [0.0] * 6)], 'mapping'),
])
def test_bad_wrenches_are_named(robot, wrenches, fragment):
    with pytest.raises(ValueError, match=fragment):
        robot.inverse_dynamics([0.0, 0.0], [0.0, 0.0], [0.0, 0.0], wrenches)


def test_lists_and_batches_are_accepted(robot):
    tau = robot.inverse_dynamics([0.1, 0.2], (0.0, 0.0), np.array([1, 2]))   # ints convert
    assert tau.shape == (2,)
    batch = robot.inverse_dynamics([[0.1, 0.2]] * 3, np.zeros((3, 2)), np.zeros((3, 2)))
    assert batch.shape == (3, 2)
    assert np.allclose(batch[1], robot.gravity_torques([0.1, 0.2]))


def test_file_loader_names_a_missing_file(tmp_path):
    with pytest.raises(URDFError, match='does not exist'):
        RobotModel.from_urdf_file(str(tmp_path / 'missing.urdf'))
