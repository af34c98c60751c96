# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The inverse-dynamics node as a managed (lifecycle) node, driven through its services.

With ``autostart: false`` it waits unconfigured (``~/get_state``), sends no
command and serves no dynamics; ``configure`` (``~/change_state``) loads the
model (the services answer, still no command), ``activate`` starts the
stream, ``deactivate`` stops it and applies ``on_stale`` (a ramp here: the
last command ramped to an exact zero, then silence); ``cleanup`` is refused.
The cartesian impedance controller is managed the same way. A configure that cannot load
the model fails (the node stays unconfigured,
one ``[ERROR]`` line), and with ``autostart`` true the same is one line and
exit status 1.
"""

import os
import time

from lifecycle_msgs.msg import State, Transition
from lifecycle_msgs.srv import ChangeState, GetState
import numpy as np
import pytest
from rclpy.qos import qos_profile_sensor_data
from ros_dynamics.srv import InverseDynamics
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

pytestmark = pytest.mark.ros

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TWO_R = os.path.join(ROOT, 'urdf', 'planar_2r.urdf')
Q = [0.4, -0.9]


def state_of(ros, node: str = 'inverse_dynamics') -> int:
    return ros.call(GetState, f'{node}/get_state', GetState.Request()).current_state.id


def change(ros, transition: int, node: str = 'inverse_dynamics') -> bool:
    request = ChangeState.Request(transition=Transition(id=transition))
    return ros.call(ChangeState, f'{node}/change_state', request, timeout=60.0,
                    once=True).success


def test_transitions_through_the_lifecycle_services():
    namespace = unique_namespace()
    parameters = {'urdf_path': TWO_R, 'autostart': False, 'on_stale': 'ramp',
                  'stale_duration': 0.3, 'state_timeout': 0.1}
    with NodeProcess('inverse_dynamics_node', namespace, parameters) as node, \
            RosClient(namespace) as ros:
        received = []
        ros.node.create_subscription(
            Float64MultiArray, 'commands',
            lambda m: received.append((time.monotonic(), np.array(m.data))), 100)
        states = ros.node.create_publisher(JointState, 'joint_states', qos_profile_sensor_data)

        def publish(count: int = 1) -> None:
            for _ in range(count):
                message = JointState(name=['shoulder', 'elbow'], position=Q,
                                     velocity=[0.0, 0.0])
                message.header.stamp = ros.node.get_clock().now().to_msg()
                states.publish(message)
                time.sleep(0.01)

        assert state_of(ros) == State.PRIMARY_STATE_UNCONFIGURED
        names = [name for name, _ in ros.node.get_service_names_and_types()]
        assert f'{namespace}/inverse_dynamics/inverse_dynamics' not in names
        assert change(ros, Transition.TRANSITION_CONFIGURE)
        assert state_of(ros) == State.PRIMARY_STATE_INACTIVE
        request = InverseDynamics.Request(gravity_only=True)
        request.state.name, request.state.position = ['shoulder', 'elbow'], Q
        answer = ros.call(InverseDynamics, 'inverse_dynamics/inverse_dynamics', request)
        assert answer.success, answer.message
        publish(50)   # inactive: the services answer, the stream sends nothing
        time.sleep(0.3)
        assert received == []
        assert change(ros, Transition.TRANSITION_ACTIVATE)
        assert state_of(ros) == State.PRIMARY_STATE_ACTIVE

        def streamed() -> bool:
            publish()
            return len(received) >= 20
        wait_for(streamed, 30.0, '20 commands once active')
        held = received[-1][1]
        assert np.allclose(held, answer.effort, atol=1e-9)
        count = len(received)
        deactivated = time.monotonic()
        assert change(ros, Transition.TRANSITION_DEACTIVATE)   # states keep coming
        assert state_of(ros) == State.PRIMARY_STATE_INACTIVE

        def released() -> bool:
            publish()
            return any(not c.any() for t, c in received[count:])
        wait_for(released, 30.0, 'the ramp to zero')
        publish(30)
        time.sleep(0.3)
        assert not change(ros, Transition.TRANSITION_CLEANUP)
        assert state_of(ros) == State.PRIMARY_STATE_INACTIVE
        assert node.alive(), node.output()
    after = [c for t, c in received[count:] if t > deactivated]
    factors = [float(c @ held / (held @ held)) for c in after]
    ramp = [f for f in factors if f < 1.0 - 1e-12]   # before it: commands in flight
    assert all(abs(f - 1.0) < 1e-12 for f in factors[:len(factors) - len(ramp)]), factors
    assert len(ramp) >= 3 and ramp[-1] == 0.0 and ramp.count(0.0) == 1, factors
    assert all(b <= a for a, b in zip(ramp, ramp[1:])), factors
    for command, factor in zip(after, factors):
        assert np.allclose(command, factor * held, atol=1e-12)


def test_a_configure_that_cannot_load_the_model_fails_in_one_line():
    namespace = unique_namespace()
    missing = os.path.join(ROOT, 'urdf', 'no_such_arm.urdf')
    with NodeProcess('inverse_dynamics_node', namespace,
                     {'urdf_path': missing, 'autostart': False}) as node, \
            RosClient(namespace) as ros:
        assert not change(ros, Transition.TRANSITION_CONFIGURE)
        assert state_of(ros) == State.PRIMARY_STATE_UNCONFIGURED
        assert not change(ros, Transition.TRANSITION_CONFIGURE)   # restart it instead
        errors = [line for line in node.output().splitlines() if '[ERROR]' in line]
        assert len(errors) == 2 and 'no_such_arm.urdf' in errors[0], errors
        assert 'restart the node' in errors[1], errors
        assert node.alive()
    started = NodeProcess('inverse_dynamics_node', unique_namespace(), {'urdf_path': missing})
    with started:
        wait_for(lambda: not started.alive(), 60.0, 'the refused start')
    errors = [line for line in started.output().splitlines() if '[ERROR]' in line]
    assert started.process.returncode == 1, started.output()
    assert len(errors) == 1 and 'cannot start' in errors[0] and 'no_such_arm.urdf' in errors[0]
    assert 'Traceback' not in started.output(), started.output()


def test_the_impedance_controller_is_managed_too():
    namespace, node = unique_namespace(), 'cartesian_impedance_controller'
    parameters = {'urdf_path': TWO_R, 'autostart': False, 'link': 'tool', 'axes': [0, 2],
                  'on_stale': 'zero', 'state_timeout': 0.1}
    with NodeProcess(node, namespace, parameters) as process, RosClient(namespace) as ros:
        received = []
        ros.node.create_subscription(Float64MultiArray, 'commands',
                                     lambda m: received.append(np.array(m.data)), 100)
        states = ros.node.create_publisher(JointState, 'joint_states', qos_profile_sensor_data)

        def publish() -> bool:
            message = JointState(name=['shoulder', 'elbow'], position=Q, velocity=[0.0, 0.0])
            message.header.stamp = ros.node.get_clock().now().to_msg()
            states.publish(message)
            time.sleep(0.01)
            return len(received) >= 20
        assert state_of(ros, node) == State.PRIMARY_STATE_UNCONFIGURED
        assert change(ros, Transition.TRANSITION_CONFIGURE, node)
        for _ in range(30):
            publish()
        assert received == [] and state_of(ros, node) == State.PRIMARY_STATE_INACTIVE
        assert change(ros, Transition.TRANSITION_ACTIVATE, node)
        wait_for(publish, 30.0, '20 commands once active')
        count = len(received)
        assert change(ros, Transition.TRANSITION_DEACTIVATE, node)
        wait_for(lambda: publish() or any(not c.any() for c in received[count:]), 30.0,
                 'the zero')
        assert process.alive(), process.output()
    assert np.abs(received[count - 1]).max() > 1.0
    zeros = [k for k in range(count, len(received)) if not received[k].any()]
    assert len(zeros) == 1 and zeros[0] == len(received) - 1, 'one zero, then nothing'
