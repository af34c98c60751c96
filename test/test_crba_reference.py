# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
CRBA's two passes: in each tree's reference frame (contiguous subtrees) and up the ancestors.

``RobotModel.mass_matrix`` takes the reference-frame pass for models whose subtrees own
contiguous coordinate ranges (joints.contiguous_subtrees) and the ancestor walk of
Featherstone's table 6.2 otherwise (mimic joints). Both are compared here on the same
models and states, with the reference pass also from a pass's body transforms
(``crba_from_transforms``, the contact kernel's entry); test_against_pinocchio and
test_floating_base compare the result with Pinocchio.
"""

import os
import sys
import warnings

import numpy as np
import pytest
from robot_data import example_urdf
from ros_dynamics import RobotModel, URDFWarning
from ros_dynamics.kernels import crba, kinematics
from ros_dynamics.multibody import layouts
from ros_dynamics.multibody.joints import contiguous_subtrees
from ros_dynamics.multibody.layouts import H_SUBTREES, JOINT_NQ, JOINT_NV, NINT, PARENT, VINDEX
from test_aba_aligned_frames import tree_urdf
from test_floating_base import BALL

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), 'benchmarks'))
from chains import serial_chain_urdf  # noqa: E402, I100


def load(source: str, root=None, mimic: bool = True) -> RobotModel:
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', URDFWarning)
        if source.lstrip().startswith('<'):
            return RobotModel.from_urdf_string(source, root_joint=root)
        return RobotModel.from_urdf_file(example_urdf(source), mimic=mimic, root_joint=root)


MODELS = {'talos_floating': ('talos_data/robots/talos_reduced.urdf', 'floating'),
          'tiago_planar': ('tiago_description/robots/tiago.urdf', 'planar'),
          'talos_fixed': ('talos_data/robots/talos_reduced.urdf', None),   # several trees
          'ball': (BALL, None),
          'branching_tree': (tree_urdf(np.random.default_rng(5)), None),
          'chain30': (serial_chain_urdf(30), None)}


def ancestor_walk(packed: np.ndarray, q: np.ndarray, nv: int) -> np.ndarray:
    """Return H(q) by the general pass (body coordinates, forces carried up the ancestors)."""
    work = np.empty((packed.shape[0] - 1, layouts.NCRBA))
    kinematics.transforms(packed, q, work)
    mass = np.full((nv, nv), np.nan)
    crba.ancestor_crba(packed, work, mass)
    return mass


def from_transforms(packed: np.ndarray, q: np.ndarray, nv: int) -> np.ndarray:
    """Return H(q) by the reference pass from body transforms (``crba_from_transforms``)."""
    work = np.empty((packed.shape[0] - 1, layouts.NCRBA))
    kinematics.transforms(packed, q, work)
    mass = np.full((nv, nv), np.nan)
    crba.crba_from_transforms(packed, work, mass)
    return mass


def relative_error(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / max(1.0, np.max(np.abs(b))))


@pytest.mark.parametrize('name', sorted(MODELS))
def test_reference_pass_equals_the_ancestor_walk(name):
    """Same H from both passes (and from body transforms), SPD, exactly symmetric."""
    robot = load(*MODELS[name])
    packed = robot.packed
    assert packed[-1, H_SUBTREES] == 1.0   # these models take the reference pass
    rng = np.random.default_rng(11)
    q = robot.random_configuration(rng, count=4)
    masses = robot.mass_matrix(q)
    for k in range(q.shape[0]):
        mass = masses[k]
        assert relative_error(mass, ancestor_walk(packed, q[k], robot.nv)) < 1e-12
        assert relative_error(from_transforms(packed, q[k], robot.nv), mass) < 1e-12
        assert np.array_equal(mass, mass.T)
        assert np.linalg.eigvalsh(mass)[0] > 0.0
        assert np.array_equal(robot.mass_matrix(q[k]), mass)


def test_payload_and_armature_reach_the_reference_pass():
    """A payload (the joint-aligned inertia columns) and armature (the diagonal) as the walk's."""
    robot = load(serial_chain_urdf(12))
    q = robot.random_configuration(np.random.default_rng(2), count=3)
    bare = robot.mass_matrix(q)
    robot.set_payload('link11', 2.5, com=(0.03, -0.02, 0.1),
                      inertia=[[0.03, 0.001, 0.0], [0.001, 0.025, 0.002], [0.0, 0.002, 0.02]])
    loaded = robot.mass_matrix(q)
    assert np.all(np.abs(loaded - bare).max(axis=(1, 2)) > 1e-3)   # the payload is seen
    armature = np.linspace(0.1, 1.2, robot.nv)
    robot.armature = armature
    for k, state in enumerate(q):
        mass = robot.mass_matrix(state)
        assert relative_error(mass, ancestor_walk(robot.packed, state, robot.nv)) < 1e-12
        assert relative_error(mass - loaded[k], np.diag(armature)) < 1e-12


def test_a_far_base_gives_the_same_mass_matrix():
    """The root body's frame is the reference: H does not see the base position at all."""
    robot = load(*MODELS['talos_floating'])
    q = robot.random_configuration(np.random.default_rng(4))
    far = q.copy()
    far[:3] = (1.0e4, -3.0e3, 50.0)
    assert np.array_equal(robot.mass_matrix(far), robot.mass_matrix(q))


def test_mimic_models_take_the_ancestor_walk():
    """Mimic followers share a coordinate: no contiguous ranges, the general pass, same H."""
    robot = load('panda_description/urdf/panda.urdf', mimic=True)
    assert robot.packed[-1, H_SUBTREES] == 0.0
    q = robot.random_configuration(np.random.default_rng(3))
    assert relative_error(robot.mass_matrix(q), ancestor_walk(robot.packed, q, robot.nv)) == 0.0
    assert load('panda_description/urdf/panda.urdf', mimic=False).packed[-1, H_SUBTREES] == 1.0


def ints_of(parents: list, coordinates: list) -> np.ndarray:
    """Return model ints of one-dof joints with these parents and first coordinates."""
    ints = np.zeros((len(parents), NINT), dtype=np.int64)
    ints[:, PARENT] = parents
    ints[:, VINDEX] = coordinates
    ints[:, JOINT_NQ] = ints[:, JOINT_NV] = 1
    return ints


@pytest.mark.parametrize('parents, coordinates, expected', [
    ([-1, 0, 1, 0, 3], [0, 1, 2, 3, 4], True),     # depth-first: 0 (1 (2)) (3 (4))
    ([-1, 0, 0, 1, 2], [0, 1, 2, 3, 4], False),    # breadth-first: 1's subtree is {1, 3}
    ([-1, 0, 1, 0, 3], [0, 2, 1, 3, 4], False),    # coordinates not in body order
    ([-1, -1, 1], [0, 1, 2], True),                # two trees on the fixed root
    ([-1, 0, 0, 2, 1], [0, 1, 2, 3, 4], False),    # 4 hangs from 1 after 2's subtree
])
def test_contiguous_subtrees(parents, coordinates, expected):
    assert contiguous_subtrees(ints_of(parents, coordinates)) is expected


def test_a_mimic_follower_is_not_contiguous():
    ints = ints_of([-1, 0, 1], [0, 1, 1])
    ints[2, JOINT_NQ] = 0   # a follower owns no position coordinate
    assert contiguous_subtrees(ints) is False
