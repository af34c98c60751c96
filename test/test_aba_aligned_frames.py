# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""ABA in joint-aligned frames: the alignment rotations, and ABA against M^-1 (tau - b)."""

import numpy as np
import pytest

from ros_dynamics import RobotModel
from ros_dynamics.description.payload import with_body_inertia
from ros_dynamics.description.urdf import parse_urdf_string
from ros_dynamics.kernels import aba
from ros_dynamics.multibody.joints import (aligned_columns, axis_alignment, INERTIA_COLUMNS,
                                           one_dof_joints)
from ros_dynamics.multibody.layouts import ALIGN_FIRST_MOMENT, ALIGN_R, NABA, NCOL


@pytest.mark.parametrize('axis', [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1),
                                  (0, 0, -1), (0.6, 0.0, 0.8), (-0.2, 0.9, 0.3), (1, 1, 1)])
def test_axis_alignment_is_a_rotation_onto_the_axis(axis):
    """A is orthonormal with det +1 and A e_z = axis; a coordinate axis gives exact entries."""
    axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    turn = axis_alignment(axis)
    assert np.allclose(turn.T @ turn, np.eye(3), atol=1e-15)
    assert np.isclose(np.linalg.det(turn), 1.0, atol=1e-15)
    assert np.allclose(turn[:, 2], axis, atol=1e-15)
    if np.count_nonzero(axis) == 1:
        assert set(np.unique(turn)) <= {-1.0, 0.0, 1.0}
        assert np.array_equal(turn[:, 2], axis)


def tree_urdf(rng: np.random.Generator) -> str:
    """Return a URDF of a branching tree: general and coordinate axes, a prismatic joint."""
    axes = ['0.3 -0.5 0.8', '0 0 -1', '1 0 0', '0 1 0', '-0.7 0.1 0.2', '0 -1 0', '0 0 1']
    parents = ['base', 'l0', 'l1', 'l1', 'l3', 'l2', 'l5']
    kinds = ['revolute', 'revolute', 'prismatic', 'revolute', 'revolute', 'continuous',
             'prismatic']
    links = ['<link name="base"/>']
    joints = []
    for k, (axis, parent, kind) in enumerate(zip(axes, parents, kinds)):
        m = rng.uniform(0.5, 3.0)
        com = ' '.join(f'{x:.4f}' for x in rng.uniform(-0.1, 0.1, 3))
        links.append(f'<link name="l{k}"><inertial><origin xyz="{com}" rpy="0.1 0.2 0.3"/>'
                     f'<mass value="{m:.4f}"/><inertia ixx="0.03" ixy="0.001" ixz="-0.002" '
                     f'iyy="0.04" iyz="0.003" izz="0.05"/></inertial></link>')
        xyz = ' '.join(f'{x:.4f}' for x in rng.uniform(-0.3, 0.3, 3))
        rpy = ' '.join(f'{x:.4f}' for x in rng.uniform(-np.pi, np.pi, 3))
        joints.append(f'<joint name="j{k}" type="{kind}"><parent link="{parent}"/>'
                      f'<child link="l{k}"/><origin xyz="{xyz}" rpy="{rpy}"/>'
                      f'<axis xyz="{axis}"/><limit lower="-1" upper="1" effort="10" '
                      f'velocity="1"/></joint>')
    joints.append('<joint name="tool" type="fixed"><parent link="l4"/><child link="tool"/>'
                  '<origin xyz="0.1 0 0.05" rpy="0.3 0 0"/></joint>')
    links.append('<link name="tool"><inertial><mass value="0.4"/><inertia ixx="0.001" '
                 'ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial></link>')
    return '<robot name="tree">' + ''.join(links + joints) + '</robot>'


def dense_forward_dynamics(robot: RobotModel, q, qd, tau, wrenches=None) -> np.ndarray:
    """Return M^-1 (tau - ID(q, qd, 0, wrenches)): CRBA and RNEA, in URDF body frames."""
    bias = robot.inverse_dynamics(q, qd, np.zeros(robot.dof), external_wrenches=wrenches)
    return np.linalg.solve(robot.mass_matrix(q), tau - bias)


def test_aba_equals_the_dense_solution_with_armature_payloads_and_wrenches():
    """ABA (aligned frames) = M^-1 (tau - b) from the body-frame kernels, all terms on."""
    rng = np.random.default_rng(3)
    robot = RobotModel(parse_urdf_string(tree_urdf(rng)))
    for _ in range(5):
        q, qd, tau = (rng.uniform(-1.0, 1.0, robot.dof) for _ in range(3))
        assert np.allclose(robot.forward_dynamics(q, qd, tau),
                           dense_forward_dynamics(robot, q, qd, tau), rtol=0, atol=1e-10)
        wrenches = {'tool': rng.uniform(-5.0, 5.0, 6), 'l2': rng.uniform(-5.0, 5.0, 6)}
        assert np.allclose(robot.forward_dynamics(q, qd, tau, wrenches),
                           dense_forward_dynamics(robot, q, qd, tau, wrenches), rtol=0,
                           atol=1e-10)
    robot.set_payload('tool', 1.5, com=(0.02, -0.01, 0.03),
                      inertia=np.diag([0.002, 0.003, 0.004]))
    robot.set_payload('l5', 0.7)
    # armature below the joint's own inertia U_z (the structured path and its rank-one
    # term), zero (structured only) and far above it (the general path)
    for armature in (rng.uniform(0.0, 0.02, robot.dof) * (np.arange(robot.dof) % 2),
                     np.full(robot.dof, 50.0)):
        robot.armature = armature
        for _ in range(5):
            q, qd, tau = (rng.uniform(-1.0, 1.0, robot.dof) for _ in range(3))
            wrenches = {'tool': rng.uniform(-5.0, 5.0, 6)}
            assert np.allclose(robot.forward_dynamics(q, qd, tau, wrenches),
                               dense_forward_dynamics(robot, q, qd, tau, wrenches), rtol=0,
                               atol=1e-10)


@pytest.mark.parametrize('axis', [(1, 0, 0), (0, 1, 0), (0, 0, 1), (-1, 0, 0), (0, -1, 0),
                                  (0, 0, -1), (0.6, 0.0, 0.8), (0.2, -0.3, 0.9327379053)])
def test_one_body_inertia_update_equals_the_packed_columns(axis):
    """with_body_inertia (a payload change) writes what aligned_columns computes, bit for bit."""
    rng = np.random.default_rng(7)
    alignment = axis_alignment(np.array(axis) / np.linalg.norm(axis))
    for _ in range(50):
        model = np.zeros((2, NCOL))
        model[0, ALIGN_R:ALIGN_R + 9] = alignment.ravel()
        inertia = rng.normal(size=10)
        with_body_inertia(model, 0, inertia)
        expected = aligned_columns(model[:1], alignment[None], np.eye(3)[None])[0, 12:21]
        assert np.array_equal(model[0, INERTIA_COLUMNS], inertia)
        assert np.array_equal(model[0, ALIGN_FIRST_MOMENT:ALIGN_FIRST_MOMENT + 9], expected)


def test_one_dof_passes_give_the_general_passes_result_bit_for_bit():
    """aba_into's one_dof_ passes (pack-time flag) = the general passes, on a one-dof tree."""
    rng = np.random.default_rng(5)
    urdf = tree_urdf(rng)
    robot = RobotModel.from_urdf_string(urdf)
    model = robot.packed
    assert one_dof_joints.py_func(model)
    floating = RobotModel.from_urdf_string(urdf, root_joint='floating')
    assert not one_dof_joints.py_func(floating.packed)   # a free-flyer: the general passes
    nb = model.shape[0] - 1
    for forces in (rng.uniform(-2.0, 2.0, (nb, 6)), np.zeros((nb, 6))):
        q, qd, tau = (rng.uniform(-1.0, 1.0, robot.dof) for _ in range(3))
        results = []
        for passes in ((aba.one_dof_velocities, aba.one_dof_articulated,
                        aba.one_dof_accelerations),
                       (aba.aba_velocities, aba.aba_articulated, aba.aba_accelerations)):
            work, qdd = np.full((nb, NABA), np.nan), np.full(robot.dof, np.nan)
            passes[0](model, q, qd, forces, work)
            assert passes[1](model, tau, work) == -1
            passes[2](model, work, qdd)
            results.append(qdd)
        assert np.array_equal(results[0], results[1]) and np.all(np.isfinite(results[0]))
    assert np.allclose(results[0], dense_forward_dynamics(robot, q, qd, tau), rtol=0, atol=1e-10)
