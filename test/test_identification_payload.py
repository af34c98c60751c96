# Copyright 2026 The ros_dynamics Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
Payload estimation against a URDF that carries the load as one more link.

The loaded robot is the Panda URDF with a link fixed to the flange
(panda_link8) holding the payload's inertial, parsed by our URDF reader, so
the reference is independent of the link-to-body map under test.
"""

import numpy as np
import pytest
from ros_dynamics import RobotModel
from ros_dynamics.identification.payload import estimate_payload

PANDA = 'urdf/panda_arm.urdf'


def loaded_panda(mass: float, com, inertia=(0.004, 0.005, 0.003)) -> RobotModel:
    """Return the Panda with a payload link fixed to panda_link8 (link-frame CoM ``com``)."""
    with open(PANDA) as stream:
        urdf = stream.read()
    ixx, iyy, izz = inertia
    payload = (f'<link name="payload"><inertial><origin xyz="{com[0]} {com[1]} {com[2]}" '
               f'rpy="0.3 -0.2 0.5"/><mass value="{mass}"/><inertia ixx="{ixx}" ixy="0" '
               f'ixz="0" iyy="{iyy}" iyz="0" izz="{izz}"/></inertial></link>'
               '<joint name="payload_mount" type="fixed"><parent link="panda_link8"/>'
               '<child link="payload"/></joint></robot>')
    return RobotModel.from_urdf_string(urdf.replace('</robot>', payload))


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
