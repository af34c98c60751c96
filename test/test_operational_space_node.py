# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""The installed operational_space_node over ROS: equal to the core, identities, errors."""

import os

import numpy as np
import pytest
from ros_dynamics import RobotModel
from ros_dynamics.srv import OperationalSpace
from ros_helpers import NodeProcess, RosClient, unique_namespace
from sensor_msgs.msg import JointState

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URDF = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
ROBOT = RobotModel.from_urdf_file(URDF)
JOINTS = list(ROBOT.joint_names)
SERVICE = 'operational_space/operational_space'
Q = np.array([0.1, -0.4, 0.2, -2.0, 0.3, 1.7, 0.6])
QD = np.linspace(-0.3, 0.3, 7)


@pytest.fixture(scope='module')
def ros():
    namespace = unique_namespace()
    with NodeProcess('operational_space_node', namespace, {'urdf_path': URDF}) as node:
        with RosClient(namespace) as client:
            yield client
        assert node.alive(), node.output()


def request_for(link='panda_hand_tcp', q=Q, qd=QD, **fields):
    request = OperationalSpace.Request(link=link)
    request.state = JointState(name=JOINTS, position=q.tolist(), velocity=qd.tolist())
    for key, value in fields.items():
        setattr(request, key, value)
    return request


def matrix(message):
    rows, cols = message.layout.dim[0].size, message.layout.dim[1].size
    return np.array(message.data).reshape(rows, cols)


def test_service_equals_the_core_and_satisfies_the_identities(ros):
    response = ros.call(OperationalSpace, SERVICE, request_for())
    assert response.success, response.message
    core = ROBOT.operational_space(Q, QD, 'panda_hand_tcp')
    for name, value in (('jacobian', core.J), ('task_inertia', core.Lambda),
                        ('dynamically_consistent_inverse', core.J_bar),
                        ('null_space_projector', core.N)):
        assert np.allclose(matrix(getattr(response, name)), value, rtol=0, atol=1e-12), name
    for name, value in (('mu', core.mu), ('p', core.p), ('jacobian_dot_qd', core.jdot_qd)):
        assert np.allclose(getattr(response, name), value, rtol=0, atol=1e-12), name
    jac, j_bar, null = (matrix(response.jacobian),
                        matrix(response.dynamically_consistent_inverse),
                        matrix(response.null_space_projector))
    assert np.allclose(jac @ j_bar, np.eye(6), atol=1e-9)
    assert np.allclose(null @ null, null, atol=1e-9)
    assert np.allclose(null @ j_bar, 0.0, atol=1e-9)
    assert not response.degenerate and response.regularization == ''
    pose = core.pose
    assert np.allclose([response.pose.position.x, response.pose.position.y,
                        response.pose.position.z], pose[:3, 3], atol=1e-12)


def test_torque_for_a_wrench_and_for_an_acceleration(ros):
    request = request_for(has_wrench=True)
    request.wrench.force.x, request.wrench.force.z, request.wrench.torque.y = 3.0, -5.0, 0.4
    tau0 = np.linspace(1.0, -1.0, 7)
    request.null_space_joint_names = JOINTS[::-1]
    request.null_space_torque = tau0[::-1].tolist()
    response = ros.call(OperationalSpace, SERVICE, request)
    assert response.success, response.message
    core = ROBOT.operational_space(Q, QD, 'panda_hand_tcp')
    force = np.array([3.0, 0.0, -5.0, 0.0, 0.4, 0.0])
    assert np.allclose(response.effort, core.J.T @ force + core.N.T @ tau0, atol=1e-12)
    acceleration = [0.1, 0.0, -0.2, 0.0, 0.0, 0.3]
    response = ros.call(OperationalSpace, SERVICE,
                        request_for(has_acceleration=True, acceleration=acceleration))
    assert np.allclose(response.effort, core.J.T @ core.task_force(acceleration), atol=1e-12)


def test_task_axes_reference_and_merged_links(ros):
    response = ros.call(OperationalSpace, SERVICE, request_for(
        link='panda_link8', axes=[0, 1, 2], reference_link='panda_link0', frame='local'))
    assert response.success, response.message
    core = ROBOT.operational_space(Q, QD, 'panda_link8', frame='local', axes=(0, 1, 2),
                                   reference_link='panda_link0')
    assert matrix(response.task_inertia).shape == (3, 3)
    assert np.allclose(matrix(response.task_inertia), core.Lambda, atol=1e-12)


@pytest.mark.parametrize('fields, fragment', [
    ({'link': 'nowhere'}, "link 'nowhere'"),
    ({'frame': 'sideways'}, 'frame'),
    ({'axes': [0, 9]}, 'axes'),
    ({'q': np.append(Q[:6], np.nan)}, 'is nan'),
    ({'has_acceleration': True, 'acceleration': [1.0, 2.0]}, 'acceleration'),
    ({'reference_link': 'panda_link4'}, 'rigidly attached'),
])
def test_bad_requests_are_answered(ros, fields, fragment):
    response = ros.call(OperationalSpace, SERVICE, request_for(**fields))
    assert not response.success and fragment in response.message, response.message
    assert ros.call(OperationalSpace, SERVICE, request_for()).success


def test_wrong_lengths_and_singular_configurations(ros):
    request = request_for()
    request.state.position = Q[:5].tolist()
    response = ros.call(OperationalSpace, SERVICE, request)
    assert not response.success and '5 values for 7 joint names' in response.message
    # stretched straight up (every elbow at 0): the hand loses task directions
    straight = np.zeros(7)
    response = ros.call(OperationalSpace, SERVICE, request_for(q=straight, qd=np.zeros(7)))
    assert response.success and response.degenerate and 'damped' in response.regularization
    assert np.all(np.isfinite(matrix(response.task_inertia)))
