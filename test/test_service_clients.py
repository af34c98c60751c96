# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
nodes/clients.py: a lost response is sent for again; a request sent once stays one.

The client here stands for rclpy's: ``call_async`` returns an rclpy Future
that a server thread completes, or never (the response Fast DDS dropped).
"""

import threading

import pytest
from rclpy.task import Future
from ros_dynamics.nodes import clients

pytestmark = pytest.mark.ros


class Server:
    """Answers request k after ``delays[k]`` s (None: the answer is lost); counts copies."""

    def __init__(self, delays) -> None:
        self.delays, self.sent, self.removed = list(delays), [], []

    def call_async(self, request) -> Future:
        future = Future()
        delay = self.delays[len(self.sent)] if len(self.sent) < len(self.delays) else None
        self.sent.append(request)
        if delay is not None:
            threading.Timer(delay, future.set_result, (f'{request} #{len(self.sent)}',)).start()
        return future

    def remove_pending_request(self, future: Future) -> None:
        self.removed.append(future)


def test_a_lost_answer_is_sent_for_again_and_the_copy_is_withdrawn():
    server = Server([None, 0.0])
    assert clients.answer(server, 'q', timeout=5.0, resend_after=0.2) == 'q #2'
    assert len(server.sent) == 2 and len(server.removed) == 1


def test_the_first_answer_to_any_copy_is_taken():
    # a slow server: the first copy's answer comes after the second was sent, and wins
    server = Server([1.5, 5.0])
    assert clients.answer(server, 'q', timeout=10.0, resend_after=1.0) == 'q #1'
    assert len(server.sent) == 2 and len(server.removed) == 1


def test_a_request_sent_once_times_out_to_none():
    server = Server([None, 0.0])
    assert clients.answer(server, 'step', timeout=0.5, resend_after=None) is None
    assert server.sent == ['step'] and len(server.removed) == 1


def test_check_raises_through():
    def exited() -> None:
        raise RuntimeError('the server exited')
    with pytest.raises(RuntimeError, match='exited'):
        clients.answer(Server([None]), 'q', timeout=5.0, check=exited)
