# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""ModelSource and the service guard in a real rclpy context (no node processes)."""

import os
import time
import uuid

os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')

import pytest  # noqa: E402
import rclpy  # noqa: E402
from rclpy.context import Context  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.node import Node  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from ros_dynamics.nodes.common import (DESCRIPTION_QOS, guarded, ModelSource,  # noqa: E402
                                       NodeTime, Watchdog)
from std_msgs.msg import String  # noqa: E402

ONE_JOINT = """<robot name="{name}"><link name="base"/><link name="arm"><inertial>
  <origin xyz="0.5 0 0"/><mass value="{mass}"/>
  <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
  <limit lower="-1" upper="1" effort="10" velocity="1"/></joint></robot>"""


@pytest.fixture
def ros():
    context = Context()
    rclpy.init(context=context)
    executor = SingleThreadedExecutor(context=context)
    namespace = f'/t{uuid.uuid4().hex[:8]}'
    nodes = []

    def make(name, **kwargs):
        node = Node(name, namespace=namespace, context=context, **kwargs)
        executor.add_node(node)
        nodes.append(node)
        return node

    def spin_until(condition, timeout=10.0):
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline, 'timed out'
            executor.spin_once(timeout_sec=0.05)

    yield make, spin_until
    for node in nodes:
        node.destroy_node()
    executor.shutdown()
    rclpy.shutdown(context=context)


def test_model_from_topic_reloads_and_survives_bad_descriptions(ros):
    make, spin_until = ros
    source = ModelSource(make('dynamics'))
    assert source.model is None and 'waiting' in source.error
    with pytest.raises(RuntimeError, match='no robot model loaded yet'):
        source.require()
    publisher = make('describer').create_publisher(String, 'robot_description', DESCRIPTION_QOS)
    publisher.publish(String(data=ONE_JOINT.format(name='first', mass=1.0)))
    spin_until(lambda: source.model is not None)
    first = source.model
    assert first.name == 'first'
    publisher.publish(String(data='<robot name="broken"><joint name="x" type="revolute"/>'))
    spin_until(lambda: 'broken' in source.error or 'not well-formed' in source.error)
    assert source.model is first   # the previous model is kept
    publisher.publish(String(data=ONE_JOINT.format(name='second', mass=2.0)))
    spin_until(lambda: source.model is not first)
    assert source.model.name == 'second' and source.error == ''


def test_parameter_takes_precedence(ros):
    make, _ = ros
    node = make('dynamics', parameter_overrides=[
        Parameter('robot_description', value=ONE_JOINT.format(name='from_param', mass=1.0)),
        Parameter('urdf_path', value='/nonexistent.urdf')])
    source = ModelSource(node)
    assert source.model.name == 'from_param' and source.source == 'parameter robot_description'


def test_bad_urdf_path_is_reported(ros):
    make, _ = ros
    source = ModelSource(make('dynamics', parameter_overrides=[
        Parameter('urdf_path', value='/nonexistent/arm.urdf')]))
    assert source.model is None and '/nonexistent/arm.urdf' in source.error


class _Response:
    success = None
    message = ''


class _Server:
    def get_logger(self):
        return rclpy.logging.get_logger('test_guard')

    @guarded
    def bad_request(self, request, response):
        raise ValueError("q: joint 'x' is nan")

    @guarded
    def bug(self, request, response):
        return {}['missing']

    @guarded
    def fine(self, request, response):
        response.message = 'ok'
        return response


def test_guard_turns_errors_into_answers():
    server = _Server()
    response = server.bad_request(None, _Response())
    assert response.success is False and "joint 'x'" in response.message
    response = server.bug(None, _Response())
    assert response.success is False and 'internal error: KeyError' in response.message
    assert server.fine(None, _Response()).success is True


def test_node_time_follows_the_switch_to_simulated_time_and_back(ros):
    """The NodeTime reads what the node clock reads: system time, /clock time if simulated."""
    make, _ = ros
    node = make('node_time')
    clock = NodeTime(node)
    assert abs(clock.nanoseconds() - node.get_clock().now().nanoseconds) < 50_000_000
    node.set_parameters([Parameter('use_sim_time', value=True)])
    assert clock.nanoseconds() == node.get_clock().now().nanoseconds == 0   # no /clock yet
    node.set_parameters([Parameter('use_sim_time', value=False)])
    assert abs(clock.nanoseconds() - time.time_ns()) < 50_000_000


def test_watchdog_checks_periodically_and_stops(ros):
    """The watchdog thread calls its check every period, survives a failing one, and stops."""
    make, _ = ros
    node = make('watchdog')
    calls = []

    def check():
        calls.append(time.monotonic())
        if len(calls) == 2:
            raise RuntimeError('a failing check is logged, not fatal')
    watchdog = Watchdog(node, 0.01, check)
    deadline = time.monotonic() + 10.0
    while len(calls) < 5:
        assert time.monotonic() < deadline, 'the watchdog stopped calling'
        time.sleep(0.01)
    watchdog.stop()
    count = len(calls)
    time.sleep(0.05)
    assert len(calls) == count


def test_inverse_dynamics_node_stops_its_service_thread_when_destroyed():
    """
    Destroying the node ends ~/estimate_payload's thread; the context then shuts down at once.

    Left to the context's shutdown, the thread waited for the context's lock
    (held while the shutdown callbacks run) until the 5 s join timeout.
    """
    from ros_dynamics.nodes.inverse_dynamics_node import InverseDynamicsNode
    urdf = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'urdf',
                        'planar_2r.urdf')
    rclpy.init(args=['--ros-args', '-p', f'urdf_path:={urdf}', '-r',
                     f'__ns:=/t{uuid.uuid4().hex[:8]}'])
    try:
        node = InverseDynamicsNode()
        thread = node._estimation._thread
        assert thread.is_alive()
        node.destroy_node()
        assert not thread.is_alive()
        start = time.monotonic()
    finally:
        rclpy.try_shutdown()
    assert time.monotonic() - start < 2.5   # not the 5 s join timeout
