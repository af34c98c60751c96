# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
How a node process starts, spins and stops: SIGINT and SIGTERM at any moment exit 0.

rclpy's own signal handlers raise ``KeyboardInterrupt`` wherever the main
thread happens to be (inside an executor's callback, or while pybind11
converts a callback's argument) and shut the context down under a node that
is still being built ("failed to create timer: the given context is not
valid"). So a node process takes over SIGINT and SIGTERM itself, right
after ``rclpy.init`` (the ``with rclpy.init()`` idiom does the cleanup;
rclpy's handlers are installed first because the EventsExecutor dispatched
nothing in a process initialised without them):

* a signal only *requests* the stop (``stop_requested``); the spin loop
  (``executor.spin_once`` with a 0.1 s timeout, the pattern that held up
  under load where ``rclpy.spin`` hung) sees it within one timeout, and
  every callback that was running finishes normally;
* work that may be abandoned at once -- building the node, and loading and
  compiling a model (10-30 s on a cold kernel cache) -- runs inside
  ``interruptible()``: there (and only in the main thread) a signal raises
  ``Interrupted``, which ``main_for`` and ``ModelSource`` catch.
"""

import contextlib
import gc
import os
import signal
import sys
import threading
import traceback
from typing import Callable, Iterator

import rclpy
from rclpy.exceptions import InvalidParameterTypeException, InvalidParameterValueException
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.experimental import EventsExecutor
from rclpy.node import Node
from ros_dynamics.nodes.parameters import ParameterError

_stop = threading.Event()
_interruptible_depth = 0   # > 0 while the main thread runs work a signal may abandon


class Interrupted(BaseException):
    """
    A stop signal arrived during work that may be abandoned (building a node, loading a model).

    A BaseException, like KeyboardInterrupt, so that the ``except Exception``
    guards which keep a node alive do not swallow the stop.
    """


def stop_requested() -> bool:
    """Return True once SIGINT or SIGTERM arrived (or ``request_stop`` was called)."""
    return _stop.is_set()


def request_stop() -> None:
    """Ask the spin loop to stop (what a signal does)."""
    _stop.set()


def _on_signal(signum: int, frame) -> None:
    _stop.set()
    if _interruptible_depth > 0:   # Python runs signal handlers in the main thread only
        sys.unraisablehook = _abandoned_object
        raise Interrupted(signal.Signals(signum).name)


def _abandoned_object(unraisable) -> None:
    """
    Drop what finalizers report once a signal has abandoned work (sys.unraisablehook).

    ``Interrupted`` can land inside any constructor of the abandoned work (a
    numba/llvmlite object half built while the kernels compile); collecting
    that object later prints "Exception ignored in ... __del__" with a
    traceback on the way out of a clean stop.
    """


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """
    Run a block that a stop signal may abandon by raising ``Interrupted`` inside it.

    Only the main thread can be interrupted (Python delivers signals there);
    in another thread the block runs to its end. Raises ``Interrupted`` at
    once when the stop was already requested.
    """
    global _interruptible_depth
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _stop.is_set():
        raise Interrupted('stop requested')
    _interruptible_depth += 1
    try:
        yield
    finally:
        _interruptible_depth -= 1


def install_signal_handlers() -> None:
    """Make SIGINT and SIGTERM request the stop (see the module docstring)."""
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)


def make_executor():
    """
    Return the executor a node spins on.

    Per callback, rclpy's SingleThreadedExecutor costs a third of the
    multi-threaded one (0.26 vs 0.85 ms service round trips), and the
    EventsExecutor (rclpy's C++ event queue, rclpy.experimental) less again
    (benchmarks/RESULTS.md); ``ROS_DYNAMICS_EXECUTOR=single`` selects the former.
    """
    if os.environ.get('ROS_DYNAMICS_EXECUTOR', 'events') == 'single':
        return SingleThreadedExecutor()
    return EventsExecutor()


def spin(node: Node) -> None:
    """
    Spin ``node`` until a stop is requested or its context shuts down; destroy it.

    The objects made while starting (the modules of numpy, scipy, numba and
    rclpy, the compiled kernels) are moved out of the garbage collector's
    reach first (``gc.freeze``): a full collection would otherwise walk all
    of them: 176 000 objects, 125 ms, in a node process with the Panda loaded
    (measured with ``gc.collect(2)``; 0.01 ms after the freeze), which would
    drop a hundred states of a 1 kHz stream.
    """
    gc.collect()
    gc.freeze()
    executor = make_executor()
    executor.add_node(node)
    try:
        while not _stop.is_set() and node.context.ok():
            try:
                executor.spin_once(timeout_sec=0.1)
            except (ExternalShutdownException, Interrupted):
                raise
            except Exception:  # noqa: B902 - a failing callback must not end the node
                if _stop.is_set() or not node.context.ok():
                    raise
                node.get_logger().error(f'a callback failed (the node keeps running): '
                                        f'{traceback.format_exc()}', throttle_duration_sec=5.0)
    except (ExternalShutdownException, Interrupted):
        pass
    except RuntimeError:
        # RCLError (a RuntimeError) from a context shut down under the executor: expected
        # when stopping, a bug otherwise
        if node.context.ok() and not _stop.is_set():
            raise
    finally:
        executor.shutdown(timeout_sec=1.0)
        node.destroy_node()


def main_for(node_class: type) -> Callable:
    """
    Return a console-script ``main`` that builds ``node_class`` and spins it until a signal.

    A node that cannot start for an invalid parameter (``ParameterError``, or
    rclpy's own parameter exceptions) logs one ``[ERROR]`` line naming it
    and what it allows, and ``main`` returns 1 (the process's exit status).
    """
    def main(args=None) -> int:
        try:
            with rclpy.init(args=args):   # installs rclpy's handlers: replaced at once
                install_signal_handlers()
                try:
                    with interruptible():
                        node = node_class()
                except (ParameterError, InvalidParameterTypeException,
                        InvalidParameterValueException) as error:
                    logger = getattr(error, 'logger', '') or node_class.__name__
                    rclpy.logging.get_logger(logger).error(
                        f'cannot start: {str(error).splitlines()[0]}')
                    return 1
                spin(node)
        except (Interrupted, ExternalShutdownException):
            pass   # stopped while starting: nothing to clean up beyond the context
        return 0
    return main
