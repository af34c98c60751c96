# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The sparse L^T D L factorization of the mass matrix (ltdl.py) against numpy.

On floating-base robots (solo12, TALOS reduced), TIAGo on a planar root, a ball joint and a
mimic-joint arm (panda: the dense chain), at random configurations: the factor rebuilds M,
matches numpy's Cholesky of M with its coordinates reversed, has no fill-in (M is zero off
the tree's pattern, so L is too), and its solves match ``np.linalg.solve``.
"""

import warnings

import numpy as np
import pytest
from robot_data import example_urdf
from ros_dynamics import RobotModel, URDFWarning
from ros_dynamics.kernels.ltdl import (factor_mass_matrix, last_coordinate, solve_l, solve_lt,
                                       solve_lt_chain, solve_mass)
from test_floating_algorithms import MIMIC
from test_floating_base import BALL

# MIMIC with the follower's branch first (children go in the alphabetical order of their joint
# names): its child's coordinate comes before the leader's, so the child's Jacobian reaches past
# its own last coordinate (the dense chain must cover it)
FOLLOWER_FIRST = MIMIC.replace('left_joint', 'z_left_joint')

MODELS = {'solo12': ('solo_description/robots/solo12.urdf', 'floating'),
          'talos_reduced': ('talos_data/robots/talos_reduced.urdf', 'floating'),
          'tiago_planar': ('tiago_description/robots/tiago.urdf', 'planar'),
          'ball': (None, None),
          'panda_mimic': ('panda_description/urdf/panda.urdf', None),
          'follower_first': (None, 'floating')}


def load(name: str) -> RobotModel:
    relative, root = MODELS[name]
    if name == 'follower_first':
        return RobotModel.from_urdf_string(FOLLOWER_FIRST, root_joint=root)
    if relative is None:
        return RobotModel.from_urdf_string(BALL)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', URDFWarning)
        if root is None:
            return RobotModel.from_urdf_file(example_urdf(relative))
        return RobotModel.from_urdf_file(example_urdf(relative), root_joint=root)


def ancestors(parents: np.ndarray, k: int) -> list:
    chain = []
    while k >= 0:
        chain.append(k)
        k = parents[k]
    return chain


@pytest.fixture(scope='module', params=list(MODELS))
def named(request) -> tuple:
    return request.param, load(request.param)


def test_factor_against_numpy(named):
    name, robot = named
    rng = np.random.default_rng(3)
    n = robot.nv
    for q in robot.random_configuration(rng, count=3):
        mass = robot.mass_matrix(q)
        factor, parents, tree = factor_mass_matrix(robot.packed, mass)
        assert tree == (name not in ('panda_mimic', 'follower_first'))   # mimic: no tree
        assert all(parents[k] < k for k in range(n))
        lower = np.tril(factor, -1) + np.eye(n)
        pattern = np.zeros((n, n), bool)
        for k in range(n):
            pattern[k, ancestors(parents, k)] = True
        lower[~pattern] = 0.0
        d = np.diag(factor)
        scale = np.max(np.abs(mass))
        assert np.max(np.abs(lower.T @ np.diag(d) @ lower - mass)) < 1e-12 * scale
        # no fill-in: M is zero off the pattern, so L^T D L needs nothing there
        assert np.all(mass[~(pattern | pattern.T)] == 0.0)
        if not tree:
            assert (pattern | pattern.T).all()   # the chain: a dense factorization
        # reversing the coordinates makes L^T D L numpy's L L^T: chol(P M P) = P L^T P sqrt(D)
        cholesky = np.linalg.cholesky(mass[::-1, ::-1])
        ours = lower.T[::-1, ::-1] * np.sqrt(d[::-1])
        assert np.max(np.abs(cholesky - ours)) < 1e-10 * np.sqrt(scale)
        b = rng.standard_normal(n)
        x = b.copy()
        solve_mass(factor, parents, x)
        reference = np.linalg.solve(mass, b)
        assert np.max(np.abs(x - reference)) < 1e-9 * np.max(np.abs(reference))
        x = b.copy()
        solve_lt(factor, parents, x)
        assert np.max(np.abs(lower.T @ x - b)) < 1e-12 * np.max(np.abs(b)) * n
        x = b.copy()
        solve_l(factor, parents, x)
        assert np.max(np.abs(lower @ x - b)) < 1e-12 * np.max(np.abs(b)) * n


def test_chain_solve_is_the_full_solve_on_a_link_chain(named):
    """L^-T of a vector on one link's chain to the root (a Jacobian row) stays on it."""
    robot = named[1]
    rng = np.random.default_rng(4)
    q = robot.random_configuration(rng)
    factor, parents, tree = factor_mass_matrix(robot.packed, robot.mass_matrix(q))
    n = robot.nv
    for link in robot.link_names:
        body, _ = robot.link_attachment(link)
        last = last_coordinate(robot.packed, body, tree)
        column = robot.jacobian(q, link)[int(rng.integers(6))]
        moving = np.flatnonzero(column)
        chain = ancestors(parents, last)
        assert set(moving) <= set(chain), link
        x, y = column.copy(), np.stack([column, 2.0 * column])
        solve_lt(factor, parents, x)
        solve_lt_chain(factor, parents, last, y)
        assert np.array_equal(x, y[0]) and np.array_equal(2.0 * x, y[1]), link
        off = np.ones(n, bool)
        off[chain] = False
        assert np.all(y[:, off] == 0.0)


def test_not_positive_definite_is_refused():
    robot = load('solo12')
    mass = robot.mass_matrix(robot.neutral_configuration())
    mass[10, 10] = -1.0
    with pytest.raises(ValueError, match='mass: not positive definite'):
        factor_mass_matrix(robot.packed, mass)
    mass[10, 10] = np.nan
    with pytest.raises(ValueError, match='mass: not positive definite'):
        factor_mass_matrix(robot.packed, mass)


@pytest.mark.parametrize('name, links, kinds', [
    ('talos_reduced', ('left_sole_link', 'right_sole_link'), ('point', '6d')),
    ('panda_mimic', ('panda_link5', 'panda_leftfinger'), ('point',)),
    ('follower_first', ('tip', 'left'), ('point',))])
def test_contact_kernel_is_the_dense_solve(name, links, kinds):
    """The compiled constrained dynamics (LTDL) against the Python path's LAPACK dposv."""
    from ros_dynamics.contacts import Contact
    from ros_dynamics.contacts.forward import compiled_call
    robot = load(name)
    if name == 'follower_first':
        assert robot.v_slice('tip_joint').start < robot.v_slice('z_left_joint').start
    rng = np.random.default_rng(5)
    for kind in kinds:
        contacts = [Contact(links[0], kind), Contact(links[1], 'point')]
        call = compiled_call(robot, contacts)
        for q in robot.random_configuration(rng, count=3):
            v, tau = rng.standard_normal(robot.nv), rng.standard_normal(robot.nv)
            out = call(q, v, tau)
            assert out is not None
            qdd, forces = robot.constrained_forward_dynamics(q, v, tau, contacts,
                                                             baumgarte=(0.0, 0.0))
            reference = np.concatenate([qdd, forces])
            assert np.max(np.abs(out - reference)) < 1e-9 * max(1.0, np.max(np.abs(reference)))


def test_random_trees_recover_their_factors():
    """M = L^T D L built from a random tree's L and D: the factor is L and D."""
    from ros_dynamics.kernels.ltdl import ltdl_into
    rng = np.random.default_rng(6)
    for n in (1, 2, 7, 30, 60):
        parents = np.empty(n, np.int64)
        for k in range(n):   # any parent before k (breadth or depth first alike)
            parents[k] = int(rng.integers(-1, k))
        lower = np.eye(n)
        for k in range(n):
            for i in ancestors(parents, k)[1:]:
                lower[k, i] = rng.uniform(-1.0, 1.0)
        d = rng.uniform(0.1, 2.0, n)
        mass = lower.T @ np.diag(d) @ lower
        factor = mass.copy()
        assert ltdl_into(factor, parents)
        assert np.max(np.abs(np.diag(factor) - d)) < 1e-10
        assert np.max(np.abs(np.tril(factor, -1) - np.tril(lower, -1))) < 1e-10
        assert np.array_equal(np.triu(factor, 1), np.triu(mass, 1))   # left untouched
