# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The joint model: joint types live in ros_dynamics/multibody/joints.py only.

q and qd have their own sizes.

Pinocchio's idx_q / idx_v / nq / nv are the reference for the coordinate layout.
"""

import ast
import pathlib

import numpy as np
import pinocchio as pin
import pytest
from robot_data import example_urdf
from ros_dynamics import RobotModel
from ros_dynamics.multibody.layouts import MAX_JOINT_NV, SUBSPACE

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / 'ros_dynamics'
# the names that say which type a joint is: only the joint model may read them
JOINT_TYPE_NAMES = {'REVOLUTE', 'PRISMATIC', 'COL_JTYPE', 'JTYPE'}
# where they may appear: the joint model itself (its transforms and motion subspaces, and its
# configuration space: configuration.py, and manifold.py, its compiled integrate), and the model
# builder, which writes the type code of each joint from joints.JOINT_TYPES
ALLOWED = {'joints.py', 'configuration.py', 'manifold.py', 'model_build.py'}


def names_used(path: pathlib.Path) -> set:
    """Return the identifiers a module reads or imports."""
    tree = ast.parse(path.read_text(), str(path))
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    used |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
             for alias in node.names}
    return used


def test_only_the_joint_model_knows_joint_types():
    offenders = {str(path.relative_to(PACKAGE)): sorted(names_used(path) & JOINT_TYPE_NAMES)
                 for path in PACKAGE.rglob('*.py') if path.name not in ALLOWED}
    offenders = {path: names for path, names in offenders.items() if names}
    assert not offenders, f'joint types read outside ros_dynamics/multibody/joints.py: {offenders}'


def test_the_check_sees_a_branch_on_the_joint_type(tmp_path):
    """The structural test above is not vacuous: a pass that branches on the type is found."""
    module = tmp_path / 'pass.py'
    module.write_text('from ros_dynamics.multibody.joints import COL_JTYPE, REVOLUTE\n\n'
                      'def f(model, i):\n    return model[i, COL_JTYPE] == REVOLUTE\n')
    assert names_used(module) & JOINT_TYPE_NAMES == {'COL_JTYPE', 'REVOLUTE'}


ROBOTS = ['ur_description/urdf/ur5_robot.urdf', 'panda_description/urdf/panda.urdf',
          'talos_data/robots/talos_reduced.urdf', 'solo_description/robots/solo12.urdf']


@pytest.mark.parametrize('relative', ROBOTS)
def test_coordinate_layout_is_pinocchios(relative):
    """nq, nv and each joint's slices of q and qd: Pinocchio's nq, nv, idx_q, idx_v."""
    path = example_urdf(relative)
    robot = RobotModel.from_urdf_file(path, mimic=False)   # Pinocchio's default too
    model = pin.buildModelFromUrdf(path)
    assert (robot.nq, robot.nv) == (model.nq, model.nv)
    for joint in robot.joint_names:
        k = model.getJointId(joint)
        assert robot.q_slice(joint) == slice(model.idx_qs[k], model.idx_qs[k] + model.nqs[k])
        assert robot.v_slice(joint) == slice(model.idx_vs[k], model.idx_vs[k] + model.nvs[k])


@pytest.mark.parametrize('relative', ROBOTS)
def test_motion_subspaces_are_pinocchios(relative):
    """
    S_i (body coordinates, packed columns) is the joint's own column of its LOCAL Jacobian.

    Bodies are numbered as Pinocchio numbers joints (depth first), so body i is joint i + 1;
    Pinocchio writes motion vectors (linear; angular), the packed model (angular, linear).
    """
    path = example_urdf(relative)
    robot = RobotModel.from_urdf_file(path, mimic=False)
    model = pin.buildModelFromUrdf(path)
    data = model.createData()
    q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
    pin.computeJointJacobians(model, data, q)
    columns = robot.packed[:-1, SUBSPACE:SUBSPACE + 6 * MAX_JOINT_NV]
    assert columns.shape[0] == model.njoints - 1
    for i in range(columns.shape[0]):
        k = i + 1
        nv = model.nvs[k]
        local = pin.getJointJacobian(model, data, k, pin.LOCAL)
        own = local[:, model.idx_vs[k]:model.idx_vs[k] + nv]
        ours = columns[i, :6 * nv].reshape(nv, 6).T
        np.testing.assert_allclose(ours[[3, 4, 5, 0, 1, 2]], own, atol=1e-12)
        assert np.all(columns[i, 6 * nv:] == 0.0)


def test_mimic_followers_own_no_coordinates():
    """A gripper's mimic finger shares its leader's coordinate: nq = nv = independent joints."""
    robot = RobotModel.from_urdf_file(example_urdf('panda_description/urdf/panda.urdf'))
    assert robot.nq == robot.nv == len(robot.joint_names)
    assert len(robot.all_joint_names) == len(robot.joint_names) + 1
    follower = robot.all_joint_names[-1]
    with pytest.raises(ValueError, match='not an independent joint'):
        robot.q_slice(follower)
