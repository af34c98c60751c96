# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0


"""
Payloads and friction in the nodes over real ROS: ``~/set_payload``, ``~/payload``.

The former topic ``payload`` still works, deprecated (one warning).

The inverse-dynamics node runs the Panda with the Gaz et al. friction of
config/panda_actuators.yaml (``actuators`` parameter) and
``friction_compensation: measured``; a payload set through the service or
the topic changes its efforts exactly as the core predicts; a bad payload
gets ``success: false`` and changes nothing. The operational-space and
simulator nodes offer the same service.
"""

import os

from geometry_msgs.msg import Inertia, InertiaStamped
import numpy as np
import pytest
from rclpy.qos import QoSProfile, ReliabilityPolicy
from ros_dynamics import RobotModel
from ros_dynamics.srv import InverseDynamics, OperationalSpace, SetPayload
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from sensor_msgs.msg import JointState

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URDF = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
ACTUATORS = os.path.join(ROOT, 'config', 'panda_actuators.yaml')
JOINTS = ['panda_joint%d' % k for k in range(1, 8)]
Q = np.array([0.2, -0.4, 0.1, -2.0, 0.3, 1.6, 0.5])
QD = np.array([0.3, -0.2, 0.4, 0.1, -0.5, 0.2, 0.6])
# a payload from the start (parameters payload_link, payload_inertia): m, com, then ixx ixy
# ixz iyy iyz izz
STARTUP = [0.5, 0.0, 0.02, 0.04, 2e-3, 0.0, 0.0, 3e-3, 0.0, 2e-3]


@pytest.fixture(scope='module')
def ros():
    namespace = unique_namespace()
    common = {'urdf_path': URDF, 'actuators': ACTUATORS}
    with NodeProcess('inverse_dynamics_node', namespace,
                     dict(common, friction_compensation='measured')) as dynamics, \
            NodeProcess('operational_space_node', namespace,
                        dict(common, payload_link='panda_link7',
                             payload_inertia=STARTUP)) as space, \
            NodeProcess('simulator_node', namespace,
                        dict(common, start_paused=True, publish_clock=False)) as simulator:
        with RosClient(namespace) as client:
            client.nodes = (dynamics, space, simulator)
            yield client
        for node in (dynamics, space, simulator):
            assert node.alive(), node.output()


def inertia(mass, com=(0.0, 0.0, 0.0), tensor=None):
    message = Inertia(m=float(mass))
    message.com.x, message.com.y, message.com.z = (float(v) for v in com)
    if tensor is not None:
        t = np.asarray(tensor, dtype=float)
        message.ixx, message.ixy, message.ixz = t[0]
        message.iyy, message.iyz, message.izz = t[1, 1], t[1, 2], t[2, 2]
    return message


PATIENCE = 60.0   # s: the machine may be shared; a loaded one answers late, not wrongly


def set_payload(ros, node, link, message):
    return ros.call(SetPayload, f'{node}/set_payload',
                    SetPayload.Request(link=link, inertia=message), timeout=PATIENCE)


def efforts(ros, q=Q, qd=QD):
    request = InverseDynamics.Request(state=JointState(name=JOINTS, position=q.tolist(),
                                                       velocity=qd.tolist()))
    response = ros.call(InverseDynamics, 'inverse_dynamics/inverse_dynamics', request,
                        timeout=PATIENCE)
    assert response.success, response.message
    return np.array(response.effort), response.message


def test_payload_service_and_topic_change_the_efforts_as_the_core_predicts(ros):
    for node in ros.nodes:
        assert node.alive(), node.output()
    core = RobotModel.from_urdf_file(URDF, actuators=ACTUATORS)
    before, message = efforts(ros)
    assert np.allclose(before, core.inverse_dynamics(Q, QD, 0 * Q, friction=True),
                       rtol=0, atol=1e-12)
    assert 'friction included' in message
    tensor = np.diag([4e-3, 5e-3, 3e-3])
    answer = set_payload(ros, 'inverse_dynamics', 'panda_hand_tcp',
                         inertia(1.5, (0.0, 0.01, 0.05), tensor))
    assert answer.success, answer.message
    core.set_payload('panda_hand_tcp', 1.5, (0.0, 0.01, 0.05), tensor)
    after, message = efforts(ros)
    assert np.allclose(after, core.inverse_dynamics(Q, QD, 0 * Q, friction=True),
                       rtol=0, atol=1e-12)
    assert np.abs(after - before).max() > 0.5 and "['panda_hand_tcp']" in message
    # bad payloads: success false naming the problem, efforts unchanged
    for link, bad, fragment in (
            ('panda_hand_tcp', inertia(-1.0), 'mass must be finite and >= 0'),
            ('panda_hand_tcp', inertia(1.0, tensor=np.diag([1e-3, 1e-3, 5e-3])),
             'triangle inequality'),
            ('panda_hand_tcp', inertia(1.0, tensor=np.diag([-1e-3, 1e-3, 1e-3])),
             'not physically consistent'),
            ('no_such_link', inertia(1.0), "link 'no_such_link' is not a link")):
        answer = set_payload(ros, 'inverse_dynamics', link, bad)
        assert not answer.success and fragment in answer.message, answer.message
    assert np.array_equal(efforts(ros)[0], after)
    # the topic: a 0.8 kg point mass on panda_link5 (header.frame_id = the link)
    publisher = ros.node.create_publisher(InertiaStamped, 'payload',
                                          QoSProfile(depth=5,
                                                     reliability=ReliabilityPolicy.RELIABLE))
    wait_for(lambda: publisher.get_subscription_count() >= 3, PATIENCE,
             'the payload subscribers')
    message = InertiaStamped(inertia=inertia(0.8, (0.0, 0.0, 0.1)))
    message.header.frame_id = 'panda_link5'
    publisher.publish(message)
    core.set_payload('panda_link5', 0.8, (0.0, 0.0, 0.1))
    expected = core.inverse_dynamics(Q, QD, 0 * Q, friction=True)
    wait_for(lambda: np.allclose(efforts(ros)[0], expected, rtol=0, atol=1e-12), PATIENCE,
             'the topic payload applied')
    # clearing: mass 0 removes one link's, an empty link every payload
    assert set_payload(ros, 'inverse_dynamics', 'panda_link5', inertia(0.0)).success
    assert set_payload(ros, 'inverse_dynamics', '', inertia(0.0)).success
    assert np.array_equal(efforts(ros)[0], before)


def test_operational_space_and_simulator_nodes_take_payloads(ros):
    core = RobotModel.from_urdf_file(URDF, actuators=ACTUATORS)
    core.set_payload('panda_link7', 0.5, (0.0, 0.02, 0.04), np.diag([2e-3, 3e-3, 2e-3]))
    core.set_payload('panda_hand_tcp', 2.0, (0.0, 0.0, 0.03))
    # the payload topic of the first test reached every node of the namespace; the first
    # test waited for the inverse-dynamics node only, and a topic is delivered to each
    # subscriber in its own time (a CI run asked this node before its copy arrived)
    core.set_payload('panda_link5', 0.8, (0.0, 0.0, 0.1))
    answer = set_payload(ros, 'operational_space', 'panda_hand_tcp', inertia(2.0, (0, 0, 0.03)))
    assert answer.success, answer.message
    request = OperationalSpace.Request(link='panda_link6')
    request.state = JointState(name=JOINTS, position=Q.tolist(), velocity=QD.tolist())
    expected = core.operational_space(Q, QD, 'panda_link6').p

    def p_as_the_core_predicts():
        response = ros.call(OperationalSpace, 'operational_space/operational_space', request,
                            timeout=PATIENCE)
        assert response.success, response.message
        return np.allclose(response.p, expected, rtol=0, atol=1e-12)

    wait_for(p_as_the_core_predicts, PATIENCE, 'the operational-space p with every payload')
    bad = set_payload(ros, 'operational_space', 'panda_hand_tcp', inertia(float('nan')))
    assert not bad.success and 'mass must be finite' in bad.message
    answer = set_payload(ros, 'simulator', 'panda_hand_tcp', inertia(1.5, (0, 0, 0.05)))
    assert answer.success, answer.message
    bad = set_payload(ros, 'simulator', 'panda_link0', inertia(1.0))
    assert not bad.success and 'fixed to the root' in bad.message


def test_each_node_has_its_own_payload_topic_and_logs_every_change(ros):
    """``~/payload`` reaches one node; every change is one INFO line; ``payload`` warns."""
    dynamics, space, simulator = ros.nodes
    assert set_payload(ros, 'inverse_dynamics', '', inertia(0.0)).success
    publisher = ros.node.create_publisher(InertiaStamped, 'inverse_dynamics/payload',
                                          QoSProfile(depth=5,
                                                     reliability=ReliabilityPolicy.RELIABLE))
    wait_for(lambda: publisher.get_subscription_count() == 1, PATIENCE, 'the one subscriber')
    message = InertiaStamped(inertia=inertia(1.2, (0.0, 0.05, 0.0)))
    message.header.frame_id = 'panda_link3'
    publisher.publish(message)
    core = RobotModel.from_urdf_file(URDF, actuators=ACTUATORS)
    core.set_payload('panda_link3', 1.2, (0.0, 0.05, 0.0))
    expected = core.inverse_dynamics(Q, QD, 0 * Q, friction=True)
    wait_for(lambda: np.allclose(efforts(ros)[0], expected, rtol=0, atol=1e-12), PATIENCE,
             'the private topic payload applied')
    ns = dynamics.namespace
    lines = dynamics.output().splitlines()
    assert any("payload on link 'panda_link3': 1.2 kg" in line and '[INFO]' in line
               and f'(from {ns}/inverse_dynamics/payload)' in line for line in lines), lines
    assert any('removed every payload' in line and '[INFO]' in line
               and f'(from {ns}/inverse_dynamics/set_payload)' in line for line in lines), lines
    for node, name in zip(ros.nodes, ('inverse_dynamics', 'operational_space', 'simulator')):
        # the first test published on the former name, `payload`: it works, and warns once
        warnings = [line for line in node.output().splitlines()
                    if f'the payload topic {ns}/payload is deprecated: publish on '
                    f'{ns}/{name}/payload' in line]
        assert len(warnings) == 1 and '[WARN]' in warnings[0], node.output()
    assert 'panda_link3' not in space.output() + simulator.output()
    assert set_payload(ros, 'inverse_dynamics', '', inertia(0.0)).success
