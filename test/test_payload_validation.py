# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Payload validation and the cheap model updates of ``set_payload`` and ``armature``.

The closed-form consistency check (the LDL^T pivots of Sigma + tol E)
against numpy's eigvalsh of Sigma = tr(I)/2 E - I on random inertias,
boundary cases (rods, plates) and matrices within a hair of the tolerance;
every rejection names its problem; inputs read without numpy equal numpy's
conversion; and the packed model after any sequence of payload and
armature changes (each writing one row or column of a copy) equals, bit for
bit, the one packed from scratch.
"""

import os
import threading

import numpy as np
import pytest
from robot_data import example_urdf
from ros_dynamics import RobotModel
from ros_dynamics.description.payload import (consistency_tolerance, is_consistent,
                                              validated_parts, validated_payload)
from scipy.spatial.transform import Rotation

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PANDA = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
MIMIC_PANDA = 'panda_description/urdf/panda.urdf'   # fingers: one joint mimics the other


def moments_of(inertia: np.ndarray) -> tuple:
    """Return (xx, yy, zz, xy, xz, yz) of a symmetric 3x3."""
    return (inertia[0, 0], inertia[1, 1], inertia[2, 2],
            inertia[0, 1], inertia[0, 2], inertia[1, 2])


def smallest_sigma_eigenvalue(inertia: np.ndarray) -> float:
    """Return the smallest eigenvalue of Sigma = tr(I)/2 E - I by numpy (LAPACK)."""
    sigma = 0.5 * np.trace(inertia) * np.eye(3) - inertia
    return float(np.linalg.eigvalsh(sigma)[0])


def random_inertias(rng, count: int):
    """
    Yield symmetric 3x3 matrices, a quarter of each kind, scales 1e-8 to 1e3 kg m^2.

    Unconstrained symmetric matrices; rotated bodies on and around the
    triangle-inequality boundary (a flat plate, I3 = I1 + I2, moved by
    +-1e-16 to +-1e-3 of I1 + I2); rotated thin rods (0, m, m) and rods with
    a moment a hair below zero; and Sigma with its smallest eigenvalue within
    10 % or 1 % of -tol on either side.
    """
    for k in range(count):
        scale = 10.0 ** rng.uniform(-8.0, 3.0)
        rotation = Rotation.random(random_state=rng).as_matrix()
        kind = k % 4
        if kind == 0:
            a = rng.normal(size=(3, 3)) * scale
            inertia = a + a.T
        elif kind == 1:
            i1, i2 = rng.uniform(0.0, 1.0, 2) * scale
            delta = rng.choice([0.0, 1e-16, 1e-15, 1e-14, 1e-13, 5e-13, 1e-12, 2e-12, 1e-11,
                                1e-9, 1e-6, 1e-3]) * rng.choice([-1.0, 1.0])
            principal = rng.permutation([i1, i2, (i1 + i2) * (1.0 + delta)])
            inertia = rotation @ np.diag(principal) @ rotation.T
        elif kind == 2:
            m = rng.uniform(0.0, 1.0) * scale
            delta = rng.choice([0.0, 1e-15, 1e-13, 1e-12, 3e-12, 1e-9]) * rng.choice([-1, 1])
            principal = [delta * m, m, m] if rng.uniform() < 0.5 else [0.0, m, m * (1 + delta)]
            inertia = rotation @ np.diag(principal) @ rotation.T
        else:
            sigma = np.sort(rng.uniform(0.0, 1.0, 3) * scale)
            tol = consistency_tolerance(2.0 * sigma.sum())
            sigma[0] = -tol * (1.0 + rng.choice([-0.1, -0.01, 0.01, 0.1]))
            sigma = rotation @ np.diag(sigma) @ rotation.T
            inertia = np.trace(sigma) * np.eye(3) - sigma
        yield 0.5 * (inertia + inertia.T)


def test_fast_consistency_check_agrees_with_eigvalsh():
    """
    Accepted exactly when eigvalsh(Sigma).min() >= -tol, outside a 1e-14 band around -tol.

    The band is rounding (both computations are backward stable to about
    1e-15 of the entries); the test also checks that it is rare and that
    both answers occur plenty.
    """
    rng = np.random.default_rng(20261125)
    accepted = rejected = in_band = 0
    for inertia in random_inertias(rng, 20000):
        smallest = smallest_sigma_eigenvalue(inertia)
        tol = consistency_tolerance(np.trace(inertia))
        fast = is_consistent(moments_of(inertia))
        if abs(smallest + tol) <= 1e-14 * np.abs(inertia).sum():
            in_band += 1
            continue
        assert fast == (smallest >= -tol), (inertia.tolist(), smallest, tol)
        accepted += fast
        rejected += not fast
    assert accepted > 5000 and rejected > 5000 and in_band < 1000, (accepted, rejected, in_band)


def test_bodies_on_the_boundary_pass_and_a_hair_beyond_fails():
    """Rotated rods and plates (an eigenvalue of Sigma exactly 0) and zero pass, at any scale."""
    rng = np.random.default_rng(7)
    for _ in range(2000):
        rotation = Rotation.random(random_state=rng).as_matrix()
        scale = 10.0 ** rng.uniform(-9.0, 4.0)
        i1, i2 = rng.uniform(0.0, 1.0, 2) * scale
        for principal in ([i1, i2, i1 + i2], [0.0, i1, i1], [i1, i1, 2.0 * i1], [0.0] * 3):
            inertia = rotation @ np.diag(principal) @ rotation.T
            assert is_consistent(moments_of(0.5 * (inertia + inertia.T))), principal
            beyond = rotation @ np.diag(np.array(principal) * [1, 1, 1 + 1e-9]) @ rotation.T
            if principal[2] > 0.0 and principal[2] == principal[0] + principal[1]:
                assert not is_consistent(moments_of(0.5 * (beyond + beyond.T)))
    # eigenvalues (-eps, eps, 1) of Sigma at 45 degrees: every diagonal entry and principal
    # minor of Sigma is within 1e-12 of zero or positive, but Sigma is indefinite
    rotation = Rotation.from_euler('z', 45.0, degrees=True).as_matrix()
    for eps in (1e-9, 1e-7, 1e-6):
        sigma = rotation @ np.diag([-eps, eps, 1.0]) @ rotation.T
        assert not is_consistent(moments_of(np.trace(sigma) * np.eye(3) - sigma))


@pytest.mark.parametrize('inertia, message', [
    (np.diag([-1e-3, 1e-3, 1e-3]), r'principal moment -0\.001 kg m\^2 is negative'),
    ([[1e-3, 2e-3, 0], [2e-3, 1e-3, 0], [0, 0, 1e-3]], 'is negative .*positive semi-definite'),
    (np.diag([1e-3, 1e-3, 3e-3]),
     r'principal moment 0\.003 kg m\^2 exceeds the sum of the other two, 0\.002 '
     r'\(triangle inequality'),
    (Rotation.from_euler('xyz', [0.3, 0.2, 0.1]).as_matrix() @ np.diag([1, 2, 3.5])
     @ Rotation.from_euler('xyz', [0.3, 0.2, 0.1]).as_matrix().T, 'triangle inequality'),
    ([[1e-3, 5e-4, 0], [0, 1e-3, 0], [0, 0, 1e-3]], r'must be symmetric \(\|I - I\^T\| = 0\.0005'),
    ([[1e-3, 0, 0], [0, np.nan, 0], [0, 0, 1e-3]], 'inertia must be a finite 3x3'),
    (np.diag([1e-3, np.inf, 1e-3]), 'inertia must be a finite 3x3'),
    ([[1e-3, 0, 0], [0, 1e-3, 0]], 'inertia must be a finite 3x3'),
    ([[1e-3, 0, 0], [0, 1e-3, 0], [0, 0, '1e-3']], 'inertia must be a finite 3x3'),
    (np.eye(3) * (1 + 1j), 'inertia must be a finite 3x3'),
    ('diag(1, 1, 1)', 'inertia must be a finite 3x3'),
])
def test_inertia_rejections_name_the_problem_and_change_nothing(inertia, message):
    robot = RobotModel.from_urdf_file(PANDA)
    robot.set_payload('panda_link5', 1.0)
    model, payloads = robot._model, robot.payloads
    with pytest.raises(ValueError, match=r"payload on link 'panda_hand': .*" + message):
        robot.set_payload('panda_hand', 1.0, (0.0, 0.0, 0.1), inertia)
    assert robot._model is model and robot.payloads.keys() == payloads.keys()


@pytest.mark.parametrize('mass, com, message', [
    (float('nan'), (0, 0, 0), 'mass must be finite and >= 0'),
    (-1e-9, (0, 0, 0), 'mass must be finite and >= 0'),
    (10 ** 400, (0, 0, 0), 'mass must be finite and >= 0'),
    (None, (0, 0, 0), 'mass must be a number'),
    (1.0, [0, 0, 10 ** 400], 'com must be 3 finite numbers'),
    (1.0, (0, float('nan'), 0), 'com must be 3 finite numbers'),
    (1.0, '0 0 0', 'com must be 3 finite numbers'),
    (1.0, [[0, 0, 0]], 'com must be 3 finite numbers'),
    (1e300, (1e10, 0, 0), 'overflows its inertia about the body origin'),
])
def test_mass_and_com_rejections_name_the_problem(mass, com, message):
    robot = RobotModel.from_urdf_file(PANDA)
    model = robot._model
    with pytest.raises(ValueError, match=message):
        robot.set_payload('panda_hand', mass, com)
    assert robot._model is model and robot.payloads == {}


def test_inputs_read_directly_equal_numpy_s_conversion():
    """Lists, tuples, ints, bools, float32 and object arrays give numpy's floats."""
    inertia = np.array([[4e-3, 1e-4, -2e-4], [1e-4, 5e-3, 3e-4], [-2e-4, 3e-4, 3e-3]])
    reference = validated_payload('l', 1.5, np.array([0.0, 0.01, 0.05]), inertia)
    forms = [inertia.tolist(), tuple(map(tuple, inertia.tolist())), inertia.astype(object),
             [list(row) for row in inertia], list(inertia), np.asfortranarray(inertia)]
    for form in forms:
        payload = validated_payload('l', 1.5, [0.0, 0.01, 0.05], form)
        assert payload.mass == reference.mass and np.array_equal(payload.com, reference.com)
        assert np.array_equal(payload.inertia, reference.inertia)
        assert not payload.com.flags.writeable and not payload.inertia.flags.writeable
    integers = validated_parts('l', 2, (1, 0, True), [[2, 0, 0], [0, 2, 0], [0, 0, 3]])
    assert integers == (2.0, [1.0, 0.0, 1.0], (2.0, 2.0, 3.0, 0.0, 0.0, 0.0))
    assert all(type(v) is float for v in integers[1] + list(integers[2]))
    single = inertia.astype(np.float32)
    assert validated_parts('l', np.float32(1.5), single[0], single)[2] == \
        tuple(float(v) for v in single[[0, 1, 2, 0, 0, 1], [0, 1, 2, 1, 2, 2]])
    point = validated_payload('l', 1.0)
    assert point.inertia.shape == (3, 3) and not point.inertia.any()


def packed_from_scratch(robot: RobotModel) -> np.ndarray:
    """Return the packed model ``robot`` would get from a full repack (robot unchanged)."""
    with robot._update_lock:
        model = robot._model
        robot._repack()
        fresh, robot._model = robot._model, model
    return fresh


@pytest.mark.parametrize('mimic', [False, True])
def test_changes_write_one_row_and_equal_a_full_repack_bit_for_bit(mimic):
    """Any sequence of set_payload, clear_payload and armature changes: the model packed anew."""
    robot = (RobotModel.from_urdf_file(example_urdf(MIMIC_PANDA)) if mimic
             else RobotModel.from_urdf_file(PANDA))
    links = [link for link in robot.link_names if robot._body_of(link) >= 0]
    assert len({robot._body_of(link) for link in links}) < len(links)   # shared bodies
    initial, initial_armature = robot._model, robot.armature
    rng = np.random.default_rng(3)
    q = rng.uniform(-1.0, 1.0, robot.dof)
    for step in range(300):
        action = rng.integers(0, 5)
        before = robot._model
        if action <= 1:
            link = links[rng.integers(len(links))]
            rotation = Rotation.random(random_state=rng).as_matrix()
            inertia = (rotation @ np.diag(rng.uniform(1e-3, 2e-3, 3)) @ rotation.T
                       if action else None)
            robot.set_payload(link, rng.uniform(0.0, 3.0), rng.uniform(-0.1, 0.1, 3), inertia)
        elif action == 2 and robot.payloads:
            robot.clear_payload(list(robot.payloads)[rng.integers(len(robot.payloads))])
        elif action == 3:
            robot.armature = rng.uniform(0.0, 0.5, robot.dof) * rng.integers(0, 2)
        elif rng.uniform() < 0.2:
            robot.clear_payload()
        else:
            robot.clear_payload(links[0])
        assert not robot._model.flags.writeable and not before.flags.writeable
        assert np.array_equal(robot._model, packed_from_scratch(robot)), step
        robot.gravity_torques(q)   # binds the new model
    robot.clear_payload()
    robot.armature = initial_armature
    assert np.array_equal(robot._model, initial)


def test_armature_and_payload_changes_are_atomic_for_calls_on_other_threads():
    """While a thread toggles armature and a payload, every M is one of the four models'."""
    robot = RobotModel.from_urdf_file(PANDA)
    q = np.array([0.1, -0.5, 0.3, -2.0, 0.2, 1.5, 0.4])
    armature = np.full(robot.dof, 0.2)
    expected = []
    for with_armature in (False, True):
        for with_payload in (False, True):
            robot.armature = armature if with_armature else np.zeros(robot.dof)
            robot.clear_payload()
            if with_payload:
                robot.set_payload('panda_hand_tcp', 3.0, (0, 0, 0.1), np.diag([1e-2, 1e-2, 2e-2]))
            expected.append(robot.mass_matrix(q))
    stop = threading.Event()
    seen = []

    def toggle():
        rng = np.random.default_rng(0)
        while not stop.is_set():
            if rng.uniform() < 0.5:
                robot.armature = armature if robot.armature[0] == 0.0 else np.zeros(robot.dof)
            elif robot.payload('panda_hand_tcp') is None:
                robot.set_payload('panda_hand_tcp', 3.0, (0, 0, 0.1), np.diag([1e-2, 1e-2, 2e-2]))
            else:
                robot.clear_payload('panda_hand_tcp')

    thread = threading.Thread(target=toggle)
    thread.start()
    try:
        for _ in range(2000):
            seen.append(robot.mass_matrix(q))
        for _ in range(50):
            seen.extend(robot.mass_matrix(np.tile(q, (64, 1))))
    finally:
        stop.set()
        thread.join()
    kinds = {next((k for k, m in enumerate(expected) if np.array_equal(s, m)), None)
             for s in seen}
    assert None not in kinds
