# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Payload estimation against a URDF that carries the load as one more link.

The loaded robot is the Panda URDF with a link fixed to the flange
(panda_link8) holding the payload's inertial, parsed by our URDF reader, so
the reference is independent of the link-to-body map under test.
"""

import numpy as np
import pytest
from ros_dynamics import RobotModel
from ros_dynamics.identification.payload import (estimate_payload,
                                                 estimate_payload_from_samples, held_still)

PANDA = 'urdf/panda_arm.urdf'
ACTUATORS = 'config/panda_actuators.yaml'


def loaded_panda(mass: float, com, inertia=(0.004, 0.005, 0.003), actuators=None
                 ) -> RobotModel:
    """Return the Panda with a payload link fixed to panda_link8 (link-frame CoM ``com``)."""
    with open(PANDA) as stream:
        urdf = stream.read()
    ixx, iyy, izz = inertia
    payload = (f'<link name="payload"><inertial><origin xyz="{com[0]} {com[1]} {com[2]}" '
               f'rpy="0.3 -0.2 0.5"/><mass value="{mass}"/><inertia ixx="{ixx}" ixy="0" '
               f'ixz="0" iyy="{iyy}" iyz="0" izz="{izz}"/></inertial></link>'
               '<joint name="payload_mount" type="fixed"><parent link="panda_link8"/>'
               '<child link="payload"/></joint></robot>')
    return RobotModel.from_urdf_string(urdf.replace('</robot>', payload), actuators=actuators)


def poses(robot: RobotModel, count: int, rng: np.random.Generator) -> np.ndarray:
    """Return ``count`` random poses in the middle 80 % of every joint's range."""
    middle, half = 0.5 * (robot.lower + robot.upper), 0.4 * (robot.upper - robot.lower)
    return rng.uniform(middle - half, middle + half, (count, robot.dof))


def test_static_poses_give_mass_and_centre_of_mass():
    """1.5 kg, 8 cm out from the flange, 10 poses, 0.02 N m noise: 2 % and 5 mm."""
    robot = RobotModel.from_urdf_file(PANDA)
    loaded = loaded_panda(1.5, (0.0, 0.0, 0.08))
    rng = np.random.default_rng(4)
    q = poses(robot, 10, rng)
    tau = loaded.gravity_torques(q) + rng.normal(0.0, 0.02, q.shape)
    estimate = estimate_payload(robot, 'panda_link8', q, tau)
    assert estimate.static and estimate.inertia is None
    assert abs(estimate.mass - 1.5) < 0.02 * 1.5
    assert np.linalg.norm(estimate.com - [0.0, 0.0, 0.08]) < 0.005
    # the uncertainty is of the size of the error
    assert 1e-5 < estimate.mass_std < 0.02 and abs(estimate.mass - 1.5) < 5 * estimate.mass_std
    assert np.all(np.abs(estimate.com - [0, 0, 0.08]) < 5 * estimate.com_std + 1e-4)
    assert np.all(estimate.residual_rms < 0.04)


def test_the_same_payload_seen_from_another_link_of_the_same_body():
    """On the body's own link (panda_link7) the CoM is 0.107 m further out: the flange offset."""
    robot = RobotModel.from_urdf_file(PANDA)
    loaded = loaded_panda(1.5, (0.0, 0.0, 0.08))
    rng = np.random.default_rng(5)
    q = poses(robot, 10, rng)
    estimate = estimate_payload(robot, 'panda_link7', q, loaded.gravity_torques(q))
    assert estimate.mass == pytest.approx(1.5, rel=1e-9)
    assert np.allclose(estimate.com, [0.0, 0.0, 0.187], atol=1e-9)


def test_a_dynamic_run_gives_all_ten_parameters():
    robot = RobotModel.from_urdf_file(PANDA)
    com = np.array([0.02, -0.01, 0.08])
    loaded = loaded_panda(1.2, com)
    rng = np.random.default_rng(6)
    q = poses(robot, 400, rng)
    qd, qdd = rng.uniform(-2, 2, q.shape), rng.uniform(-8, 8, q.shape)
    tau = loaded.inverse_dynamics(q, qd, qdd) + rng.normal(0.0, 0.02, q.shape)
    estimate = estimate_payload(robot, 'panda_link8', q, tau, qd, qdd)
    assert not estimate.static
    assert abs(estimate.mass - 1.2) < 0.01 * 1.2
    assert np.linalg.norm(estimate.com - com) < 0.002
    # the URDF's inertia about the CoM in link axes: R diag(I) R^T with the payload's rpy
    from scipy.spatial.transform import Rotation
    rotation = Rotation.from_euler('xyz', [0.3, -0.2, 0.5]).as_matrix()
    expected = rotation @ np.diag([0.004, 0.005, 0.003]) @ rotation.T
    assert np.allclose(estimate.inertia, expected, atol=5e-4)


def test_bad_requests_are_named():
    robot = RobotModel.from_urdf_file(PANDA)
    q = np.zeros((10, 7))
    with pytest.raises(ValueError, match="link 'tool'"):
        estimate_payload(robot, 'tool', q, q)
    with pytest.raises(ValueError, match='fixed to the root'):
        estimate_payload(robot, 'panda_link0', q, q)
    with pytest.raises(ValueError, match='do not determine the payload'):
        estimate_payload(robot, 'panda_link8', q, q)   # one pose ten times
    with pytest.raises(ValueError, match='give both'):
        estimate_payload(robot, 'panda_link8', q, q, qd=q)
    with pytest.raises(ValueError, match='no load'):
        rng = np.random.default_rng(0)
        q = poses(robot, 10, rng)
        estimate_payload(robot, 'panda_link8', q, robot.gravity_torques(q) - 1.0)


def held_poses(robot: RobotModel, rng: np.random.Generator, count: int = 10,
               hold: int = 300, rate: float = 1000.0) -> tuple:
    """
    Return (t, q, qd) of a stream at ``rate`` Hz: ``count`` poses held ``hold`` states each.

    While held |qd| is about 1e-3 rad/s (a held arm's jitter); fast moves of
    20 states link the poses.
    """
    q, qd = [], []
    targets = poses(robot, count, rng)
    for k, target in enumerate(targets):
        if k:
            move = np.linspace(targets[k - 1], target, 20)
            q.append(move)
            qd.append(np.tile((target - targets[k - 1]) * rate / 20, (20, 1)))
        q.append(np.tile(target, (hold, 1)))
        qd.append(rng.uniform(-1e-3, 1e-3, (hold, robot.dof)))
    q, qd = np.concatenate(q), np.concatenate(qd)
    return np.arange(q.shape[0]) / rate, q, qd


def test_joint_states_held_still_with_friction_and_a_wrong_payload_on_the_link():
    """The stream a node receives: moves in between are left out, friction is the model's."""
    robot = RobotModel.from_urdf_file(PANDA, actuators=ACTUATORS)
    robot.set_payload('panda_link8', 0.4, (0.05, 0.0, 0.0))   # what the node believed so far
    robot.set_payload('panda_link3', 0.7, (0.0, 0.02, 0.0))   # another link's: known, kept
    loaded = loaded_panda(1.5, (0.0, 0.01, 0.08), actuators=ACTUATORS)
    loaded.set_payload('panda_link3', 0.7, (0.0, 0.02, 0.0))
    rng = np.random.default_rng(7)
    t, q, qd = held_poses(robot, rng)
    effort = (loaded.gravity_torques(q) + loaded.friction_torques(qd)
              + rng.normal(0.0, 0.02, q.shape))
    moving = np.abs(qd).max(axis=1) > 0.01
    effort[moving] += 5.0   # whatever the moves did: must not enter a static fit
    effort[150, 2] = np.nan   # a bad row is dropped
    estimate, samples = estimate_payload_from_samples(robot, 'panda_link8', t, q, qd, effort)
    # 0.1 s dropped at both ends of each 0.3 s hold
    assert samples == np.sum(held_still(t, qd, 0.01)) - 1 and 10 * 99 <= samples <= 10 * 101
    assert abs(estimate.mass - 1.5) < 0.02 * 1.5
    assert np.linalg.norm(estimate.com - [0.0, 0.01, 0.08]) < 0.005
    assert estimate.inertia is None and np.all(estimate.residual_rms < 0.03)
    # the model itself is untouched (the link's payload was taken out of a copy)
    assert robot.payload('panda_link8').mass == 0.4


def test_joint_states_of_a_motion_give_the_inertia_too():
    robot = RobotModel.from_urdf_file(PANDA, actuators=ACTUATORS)
    com = np.array([0.02, -0.01, 0.08])
    loaded = loaded_panda(1.2, com, inertia=(0.02, 0.03, 0.015), actuators=ACTUATORS)
    rate, duration = 500.0, 8.0
    t = np.arange(int(rate * duration)) / rate
    rng = np.random.default_rng(8)
    middle = 0.5 * (robot.lower + robot.upper)
    amplitude = 0.25 * (robot.upper - robot.lower)
    omega = 2 * np.pi * rng.uniform(0.2, 0.7, (3, robot.dof))
    phase = rng.uniform(0, 2 * np.pi, (3, robot.dof))
    arg = omega[:, None, :] * t[None, :, None] + phase[:, None, :]
    q = middle + amplitude / 3 * np.sin(arg).sum(axis=0)
    qd = (amplitude / 3 * omega[:, None, :] * np.cos(arg)).sum(axis=0)
    qdd = -(amplitude / 3 * omega[:, None, :] ** 2 * np.sin(arg)).sum(axis=0)
    effort = (loaded.inverse_dynamics(q, qd, qdd, friction=True)
              + rng.normal(0.0, 0.02, q.shape))
    estimate, samples = estimate_payload_from_samples(robot, 'panda_link8', t, q, qd, effort,
                                                      inertia=True)
    assert not estimate.static and samples == 2000   # thinned to MAX_SAMPLES
    assert abs(estimate.mass - 1.2) < 0.02 * 1.2
    assert np.linalg.norm(estimate.com - com) < 0.003
    from scipy.spatial.transform import Rotation
    rotation = Rotation.from_euler('xyz', [0.3, -0.2, 0.5]).as_matrix()
    expected = rotation @ np.diag([0.02, 0.03, 0.015]) @ rotation.T
    assert np.abs(estimate.inertia - expected).max() < 0.1 * 0.03


def test_joint_states_that_cannot_give_a_payload_are_named():
    robot = RobotModel.from_urdf_file(PANDA)
    rng = np.random.default_rng(9)
    t, q, qd = held_poses(robot, rng, count=3)
    effort = robot.gravity_torques(q)
    with pytest.raises(ValueError, match='held still'):
        estimate_payload_from_samples(robot, 'panda_link8', t, q, qd, effort,
                                      still_velocity=1e-4)
    missing = effort.copy()
    missing[:, 6] = np.nan
    with pytest.raises(ValueError, match='no finite effort .* panda_joint7'):
        estimate_payload_from_samples(robot, 'panda_link8', t, q, qd, missing)
    with pytest.raises(ValueError, match='fixed to the root'):
        estimate_payload_from_samples(robot, 'panda_link0', t, q, qd, effort)
    with pytest.raises(ValueError, match='do not determine'):   # one pose only
        estimate_payload_from_samples(robot, 'panda_link8', t[:300], q[:300], qd[:300],
                                      effort[:300])
    with pytest.raises(ValueError, match='too short'):
        estimate_payload_from_samples(robot, 'panda_link8', t[:60], q[:60], qd[:60],
                                      effort[:60], inertia=True)


def test_held_still_leaves_out_starting_and_stopping():
    t = np.arange(1000) * 1e-3
    qd = np.zeros((1000, 2))
    qd[400:450, 1] = 0.5            # a move between two holds
    qd[448, 1] = 0.0                # a zero crossing inside the move is no hold
    mask = held_still(t, qd, 0.01)
    kept = np.flatnonzero(mask)
    assert kept[0] == 100 and not mask[300:550].any() and mask[550:900].all()
    assert kept[-1] == 899 and mask.sum() == 200 + 350
