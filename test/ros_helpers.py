# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Helpers for tests that talk to real nodes over ROS.

* ``NodeProcess``: start an installed executable
  (``<prefix>/lib/ros_dynamics/<name>``) in its own session with parameters and
  a namespace; stop it with SIGINT, then kill its process group if needed.
* ``RosClient``: an rclpy context of its own with a node spinning in a daemon
  thread, for clients, publishers and subscribers in the test process.
* ``wait_for``: poll a condition with a timeout (no fixed sleeps).
"""

import os
import signal
import subprocess
import tempfile
import threading
import time
from typing import Callable, Optional
import uuid

import rclpy
from rclpy.context import Context
from rclpy.executors import MultiThreadedExecutor, SingleThreadedExecutor
from rclpy.node import Node
from ros_dynamics.nodes.clients import answer, RESEND_AFTER

TIMEOUT = 30.0   # generous: a loaded 2-core machine (load 10-15) slows every process
START_TIMEOUT = 60.0   # a node's services appear after it has loaded (and compiled) its model


def unique_namespace() -> str:
    """Return a fresh namespace so tests sharing a ROS domain never see each other."""
    return f'/test_{uuid.uuid4().hex[:10]}'


def installed_executable(name: str, package: str = 'ros_dynamics') -> str:
    """Return the path of an installed node executable, searching AMENT_PREFIX_PATH."""
    for prefix in filter(None, os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep)):
        path = os.path.join(prefix, 'lib', package, name)
        if os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(f'{package}/{name} is not installed: run `make build` '
                            '(and source install/setup.bash)')


def wait_for(condition: Callable[[], bool], timeout: float = TIMEOUT, what: str = '',
             details: Callable[[], str] = str) -> None:
    """
    Poll ``condition`` every 10 ms until true; fail the test after ``timeout`` s.

    ``details()``: appended to the failure (e.g. what the nodes printed).
    """
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f'timed out after {timeout} s waiting for '
                                 f'{what or condition}\n{details()}')
        time.sleep(0.01)


class NodeProcess:
    """An installed node executable running in a subprocess (a context manager)."""

    def __init__(self, executable: str, namespace: str, parameters: Optional[dict] = None,
                 remappings: Optional[dict] = None, params_file: Optional[str] = None,
                 name: Optional[str] = None, env: Optional[dict] = None) -> None:
        """Prepare the command line; start with ``start`` or ``with``."""
        self.namespace = namespace
        args = [installed_executable(executable), '--ros-args', '-r', f'__ns:={namespace}']
        if name:
            args += ['-r', f'__node:={name}']
        if params_file:
            args += ['--params-file', params_file]
        self._param_file = None
        if parameters:
            # a YAML file: values such as whole URDFs do not fit on a command line
            handle = tempfile.NamedTemporaryFile('w', suffix='.yaml', delete=False)
            handle.write('/**:\n  ros__parameters:\n')
            for key, value in parameters.items():
                handle.write(f'    {key}: {_yaml(value)}\n')
            handle.close()
            self._param_file = handle.name
            args += ['--params-file', handle.name]
        for source, target in (remappings or {}).items():
            args += ['-r', f'{source}:={target}']
        self.args = args
        self.env = dict(os.environ, **(env or {}))
        self.process: Optional[subprocess.Popen] = None
        self.log_path = tempfile.NamedTemporaryFile(suffix='.log', delete=False).name

    def start(self) -> 'NodeProcess':
        """Start the process in its own session, output to a log file."""
        self._log = open(self.log_path, 'w')
        self.process = subprocess.Popen(self.args, stdout=self._log, stderr=subprocess.STDOUT,
                                        start_new_session=True, env=self.env)
        return self

    def output(self) -> str:
        """Return what the node printed so far."""
        with open(self.log_path, encoding='utf-8', errors='replace') as stream:
            return stream.read()

    def alive(self) -> bool:
        """Return True while the process runs."""
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout: float = 10.0, signum: int = signal.SIGINT) -> int:
        """Send ``signum``, wait, kill the process group if needed; return the exit code."""
        if self.process is None:
            return 0
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signum)
                self.process.wait(timeout=timeout)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                pass
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.wait(timeout=timeout)
        self._log.close()
        if self._param_file and os.path.exists(self._param_file):
            os.unlink(self._param_file)
        return self.process.returncode

    def __enter__(self) -> 'NodeProcess':
        """Start."""
        return self.start()

    def __exit__(self, *exc) -> None:
        """Stop, whatever happened."""
        self.stop()


def _yaml(value) -> str:
    if isinstance(value, str):
        if '\n' in value:
            body = '\n'.join('      ' + line for line in value.splitlines())
            return '|\n' + body
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, (list, tuple)):
        return '[' + ', '.join(_yaml(v) for v in value) + ']'
    return repr(float(value)) if isinstance(value, float) else repr(value)


class RosClient:
    """A node in its own rclpy context, spun by a MultiThreadedExecutor in a daemon thread."""

    def __init__(self, namespace: str, threads: int = 2) -> None:
        """Create the context, the node and the spinning thread (1 thread: single-threaded)."""
        self.context = Context()
        rclpy.init(context=self.context)
        self.node = Node(f'test_client_{uuid.uuid4().hex[:6]}', namespace=namespace,
                         context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context) if threads == 1 else \
            MultiThreadedExecutor(num_threads=threads, context=self.context)
        self.executor.add_node(self.node)
        self._clients: dict = {}
        self._stopping = False
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        while self.context.ok() and not self._stopping:
            try:
                self.executor.spin_once(timeout_sec=0.05)
            except Exception:  # noqa: B902 - shutting down
                if not self.context.ok():
                    return
                raise

    def call(self, service_type, name: str, request, timeout: float = TIMEOUT,
             appear: Optional[float] = None, once: bool = False):
        """
        Call a service (waiting for it first) and return the response.

        ``appear``: how long the service may take to appear (s; default the
        longer of ``timeout`` and START_TIMEOUT, a node loading its model).
        The request is sent again when no answer came within
        clients.RESEND_AFTER s (Fast DDS drops a response when the server has
        not matched a new client yet: nodes/clients.py); ``once``: send it
        once (a request that must not be served twice: a step, a transition).

        One client per service, kept for the node's life: destroying a client
        while the spinning thread waits on it leaves rclpy a task that fails
        ("cannot use Destroyable because destruction was requested").
        """
        key = (service_type, name)
        client = self._clients.get(key)
        if client is None:
            client = self._clients[key] = self.node.create_client(service_type, name)
        wait = max(timeout, START_TIMEOUT) if appear is None else appear
        if not client.wait_for_service(timeout_sec=wait):
            raise AssertionError(f'service {name} not available after {wait} s')
        response = answer(client, request, timeout, None if once else RESEND_AFTER)
        if response is None:
            raise AssertionError(f'timed out after {timeout} s waiting for an answer from {name}')
        return response

    def close(self) -> None:
        """Stop the spinning thread, then destroy the node and the context."""
        self._stopping = True
        self._thread.join(timeout=5.0)
        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
        rclpy.try_shutdown(context=self.context)

    def __enter__(self) -> 'RosClient':
        """Return self."""
        return self

    def __exit__(self, *exc) -> None:
        """Close."""
        self.close()
