# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The ROS test machinery itself, over real rclpy (no node executable involved).

Two ``RosClient`` contexts in this process (two DDS participants): one offers
a std_srvs/Trigger service, the other calls it. Checks that conftest isolated
the graph (random domain, localhost discovery, log directory) before rclpy
was imported, and that closing a context leaves no spinning thread behind.
"""

import os
import threading

import pytest
from ros_helpers import RosClient, unique_namespace, wait_for
from std_srvs.srv import Trigger

pytestmark = pytest.mark.ros


def test_conftest_isolated_the_ros_graph():
    assert 1 <= int(os.environ['ROS_DOMAIN_ID']) <= 100
    assert os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] == 'LOCALHOST'
    assert os.path.isdir(os.environ['ROS_LOG_DIR'])
    assert os.environ.get('HOME')


def test_trigger_service_round_trip_between_two_contexts():
    namespace = unique_namespace()
    calls = []

    def answer(request, response):
        calls.append(threading.get_ident())
        response.success = True
        response.message = f'call {len(calls)}'
        return response

    with RosClient(namespace) as server, RosClient(namespace) as client:
        server.node.create_service(Trigger, 'smoke_trigger', answer)
        for expected in (1, 2, 3):
            response = client.call(Trigger, 'smoke_trigger', Trigger.Request(), timeout=15.0)
            assert response.success
            assert response.message == f'call {expected}'
        assert len(calls) == 3
        server_thread = server._thread
    wait_for(lambda: not server_thread.is_alive(), 10.0, 'the spinning thread to end')


def test_missing_service_times_out_with_its_name():
    with RosClient(unique_namespace()) as client:
        with pytest.raises(AssertionError, match='no_such_service'):
            client.call(Trigger, 'no_such_service', Trigger.Request(), timeout=0.5,
                        appear=0.5)
