# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Every parameter of every node describes itself, and a set is applied or refused.

Through the nodes' own parameter services (what ``ros2 param describe`` and
``ros2 param set`` call): each parameter has a description, a type, and a
range when it is a number; setting one that is read once at start-up is
refused (read-only); ``urdf_path`` set at runtime loads that model, or is
refused with the reason.
"""

import os

import numpy as np
import pytest
from rcl_interfaces.msg import ParameterType
from rcl_interfaces.srv import DescribeParameters, ListParameters, SetParameters
from rclpy.parameter import Parameter
from ros_dynamics import RobotModel
from ros_dynamics.srv import InverseDynamics
from ros_helpers import NodeProcess, RosClient, unique_namespace
from sensor_msgs.msg import JointState

pytestmark = pytest.mark.ros

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PANDA = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
TWO_R = os.path.join(ROOT, 'urdf', 'planar_2r.urdf')
RCLPY_OWN = {'use_sim_time', 'start_type_description_service'}   # declared by rclpy itself
NUMBERS = (ParameterType.PARAMETER_DOUBLE, ParameterType.PARAMETER_INTEGER)
NODES = {
    'inverse_dynamics_node': ('inverse_dynamics', {}, 'diagnostics_period'),
    'operational_space_node': ('operational_space', {}, 'diagnostics_period'),
    'simulator_node': ('simulator', {}, 'dt'),
    'cartesian_impedance_controller': ('cartesian_impedance_controller',
                                       {'link': 'panda_link8'}, None),
}


def set_parameter(ros, node, name, value):
    request = SetParameters.Request(parameters=[Parameter(name, value=value).to_parameter_msg()])
    (result,) = ros.call(SetParameters, f'{node}/set_parameters', request).results
    return result


@pytest.mark.parametrize('executable', sorted(NODES))
def test_every_parameter_is_described(executable):
    name, parameters, read_only = NODES[executable]
    namespace = unique_namespace()
    with NodeProcess(executable, namespace, dict(parameters, urdf_path=PANDA)) as node, \
            RosClient(namespace) as ros:
        names = ros.call(ListParameters, f'{name}/list_parameters',
                         ListParameters.Request()).result.names
        names = [n for n in names if n not in RCLPY_OWN]
        assert 'urdf_path' in names and 'robot_description' in names
        descriptors = ros.call(DescribeParameters, f'{name}/describe_parameters',
                               DescribeParameters.Request(names=names)).descriptors
        for descriptor in descriptors:
            assert descriptor.description.strip(), f'{descriptor.name} has no description'
            assert descriptor.type != ParameterType.PARAMETER_NOT_SET, descriptor.name
            if descriptor.type in NUMBERS and not descriptor.name.startswith('initial_posit'):
                assert descriptor.floating_point_range or descriptor.integer_range, \
                    f'{descriptor.name}: a number without a range'
        if read_only is not None:
            described = {d.name: d for d in descriptors}
            assert described[read_only].read_only
            result = set_parameter(ros, name, read_only, 0.5)
            assert not result.successful, f'{read_only} set at runtime must be refused'
        assert node.alive(), node.output()


def test_urdf_path_at_runtime_loads_or_is_refused():
    namespace = unique_namespace()
    with NodeProcess('inverse_dynamics_node', namespace, {'urdf_path': PANDA}) as node, \
            RosClient(namespace) as ros:
        two_r = RobotModel.from_urdf_file(TWO_R)
        request = InverseDynamics.Request(state=JointState(name=['shoulder', 'elbow'],
                                                           position=[0.3, -0.7]))
        service = 'inverse_dynamics/inverse_dynamics'
        assert not ros.call(InverseDynamics, service, request).success   # the Panda serves
        result = set_parameter(ros, 'inverse_dynamics', 'urdf_path', '/no/such/arm.urdf')
        assert not result.successful and 'does not exist' in result.reason, result.reason
        result = set_parameter(ros, 'inverse_dynamics', 'urdf_path', TWO_R)
        assert result.successful, result.reason
        answer = ros.call(InverseDynamics, service, request)   # applied: the 2R arm serves
        assert answer.success, answer.message
        assert np.allclose(answer.effort, two_r.gravity_torques([0.3, -0.7]), atol=1e-12)
        result = set_parameter(ros, 'inverse_dynamics', 'robot_description', '<robot name="x"/>')
        assert not result.successful and result.reason
        assert ros.call(InverseDynamics, service, request).success   # still the 2R arm
        result = set_parameter(ros, 'inverse_dynamics', 'state_timeout', -1.0)
        assert not result.successful
        assert node.alive(), node.output()
