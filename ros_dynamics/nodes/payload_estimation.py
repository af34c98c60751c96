# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
On-line payload estimation: the ``~/estimate_payload`` service and the joint states it uses.

The node hands every fresh joint state to ``PayloadEstimation.add(t, q, qd,
effort, names)`` (node-clock seconds, merged positions and velocities in
model order, the message's efforts: the measured joint torques). They go
into a ring buffer of the last ``payload_estimation_window`` seconds (at
most ``KEPT_SAMPLES`` states) and into the collection of a request in
progress. ``~/estimate_payload`` (``ros_dynamics/srv/EstimatePayload``)
then fits the load on a link (``identification.payload``:
``estimate_payload_from_samples``) either on the last ``window`` s of
states, or on the states of the ``duration`` s after the call, and with
``apply`` attaches the result as ``~/set_payload`` does.

The node spins on one thread (nodes/process.py: rclpy's EventsExecutor or
SingleThreadedExecutor), and a collection takes seconds: so the service
lives on a small node of its own (``<node>_payload_estimation``, global
ROS arguments not applied) spun by its own executor in a daemon thread,
under the name ``<node's full name>/estimate_payload``; that thread first
imports the estimation (scipy: seconds), so the node's start-up does not
wait for it. Its callback may
then wait for the collection (bounded by ``timeout`` s of wall clock) and
run the fit while the node's executor keeps serving the joint states and
publishing commands. (An ``async`` callback awaiting the collection on the
node's own executor starved every other callback under rclpy's
SingleThreadedExecutor, which polls the pending task instead of waiting.)
One estimate runs at a time; a failure of any kind answers ``success:
false`` and leaves the node's model as it was.
"""

import atexit
import math
import threading
import time
import traceback
from typing import Optional

from geometry_msgs.msg import Inertia
import numpy as np
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from ros_dynamics.nodes.common import ModelSource
from ros_dynamics.nodes.parameters import declare, NON_NEGATIVE
from ros_dynamics.nodes.payloads import PayloadInterface
from ros_dynamics.srv import EstimatePayload

KEPT_SAMPLES = 20000      # ring buffer size: 10 s of joint states at 2 kHz
MAX_DURATION = 60.0       # s: the longest collection a request may ask for
MAX_COLLECTED = 200000    # joint states one collection keeps at most


class JointSampleBuffer:
    """
    The last ``capacity`` joint states (t, q, qd, effort), model order, in a ring.

    ``add`` copies one state in (a few microseconds, no allocation);
    ``since(start)`` returns copies of the states with t >= start, oldest
    first. Efforts come by name: joints a message does not carry (or carries
    as NaN) are NaN in that state.
    """

    def __init__(self, joint_names, capacity: int) -> None:
        """Allocate the ring for ``capacity`` states of the model's joints."""
        self.joint_names = tuple(joint_names)
        self.dof = len(self.joint_names)
        self.capacity = int(capacity)
        self.times = np.full(max(self.capacity, 1), -math.inf)
        self.rows = np.zeros((max(self.capacity, 1), 3 * self.dof))
        # [next, count, capacity]: an array, so that the compiled stream appends too
        # (nodes/stream_kernel.py gravity_command, under ``lock``)
        self.cursor = np.array([0, 0, self.capacity], dtype=np.int64)
        self._index = {name: k for k, name in enumerate(self.joint_names)}
        self._orders: dict = {}   # a message's name tuple -> (model indices, message indices)
        self._effort = np.zeros(self.dof)
        self.lock = threading.Lock()   # add (the node's thread) against since (the service's)

    def efforts(self, names, effort) -> np.ndarray:
        """Return the message's efforts in model order (NaN for the joints it lacks)."""
        if len(effort) != len(names):
            self._effort.fill(np.nan)
            return self._effort
        key = tuple(names)
        if key == self.joint_names:
            self._effort[:] = effort
            return self._effort
        order = self._orders.get(key)
        if order is None:
            if len(self._orders) >= 64:   # garbage name lists must not grow it without bound
                self._orders.clear()
            pairs = [(self._index[n], i) for i, n in enumerate(names) if n in self._index]
            order = tuple(np.array(v, dtype=np.intp) for v in zip(*pairs)) if pairs else \
                (np.zeros(0, np.intp), np.zeros(0, np.intp))
            self._orders[key] = order
        self._effort.fill(np.nan)
        self._effort[order[0]] = np.asarray(effort, dtype=float)[order[1]]
        return self._effort

    def add(self, t: float, q: np.ndarray, qd: np.ndarray, effort: np.ndarray) -> None:
        """Keep one state: t (s), q, qd, effort (dof,) in model order."""
        if self.capacity == 0:
            return
        with self.lock:
            cursor, n = self.cursor, self.dof
            k = int(cursor[0])
            row = self.rows[k]
            row[:n], row[n:2 * n], row[2 * n:] = q, qd, effort
            self.times[k] = t
            cursor[0] = (k + 1) % self.capacity
            cursor[1] = min(int(cursor[1]) + 1, self.capacity)

    def __len__(self) -> int:
        """Return how many states the ring holds."""
        return int(self.cursor[1])

    def since(self, start: float) -> tuple:
        """Return (t (N,), q, qd, effort (N, dof)) of the states with t >= start, oldest first."""
        with self.lock:
            following, count = int(self.cursor[0]), int(self.cursor[1])
            if count < self.capacity:
                order = np.arange(count)
            else:
                order = (following + np.arange(self.capacity)) % self.capacity
            keep = order[self.times[order] >= start]
            return split(self.times[keep], self.rows[keep], self.dof)


def split(t: np.ndarray, rows: np.ndarray, dof: int) -> tuple:
    """Return (t, q, qd, effort) from stacked rows [q, qd, effort] (N, 3 dof)."""
    return t, rows[:, :dof], rows[:, dof:2 * dof], rows[:, 2 * dof:]


class Collection:
    """The joint states of one request's ``duration``: [start, end) of the node clock."""

    def __init__(self, start: float, end: float) -> None:
        """Collect from ``start`` until a state at or after ``end`` sets ``done``."""
        self.start, self.end = start, end
        self.times: list = []
        self.rows: list = []
        self.done = threading.Event()

    def add(self, t: float, q: np.ndarray, qd: np.ndarray, effort: np.ndarray) -> None:
        """Keep a state inside the interval; set ``done`` at the end."""
        if self.done.is_set() or t < self.start:
            return
        if t >= self.end or len(self.rows) >= MAX_COLLECTED:
            self.done.set()
            return
        self.times.append(t)
        self.rows.append(np.concatenate((q, qd, effort)))


class PayloadEstimation:
    """The ``~/estimate_payload`` service of a node, fed by ``add`` from its joint states."""

    def __init__(self, node: Node, models: ModelSource, payloads: PayloadInterface) -> None:
        """Declare ``payload_estimation_window`` and create the service."""
        self._node, self._models, self._payloads = node, models, payloads
        self._window = float(declare(
            node, 'payload_estimation_window', 10.0,
            'joint states kept for ~/estimate_payload requests with a window (s of the node '
            f'clock, at most {KEPT_SAMPLES} states; 0: keep none, only collect on request)',
            read_only=True, value_range=NON_NEGATIVE))
        if not (math.isfinite(self._window) and self._window >= 0.0):
            raise ValueError(f'payload_estimation_window: expected >= 0 s, got {self._window}')
        self._buffer: Optional[JointSampleBuffer] = None
        self._collection: Optional[Collection] = None
        self._busy = threading.Lock()
        # the service's own node and executor thread (module docstring)
        self._server = Node(f'{node.get_name()}_payload_estimation',
                            namespace=node.get_namespace(), context=node.context,
                            use_global_arguments=False, start_parameter_services=False)
        self._server.create_service(EstimatePayload,
                                    f'{node.get_fully_qualified_name()}/estimate_payload',
                                    self._on_request)
        self._executor = SingleThreadedExecutor(context=node.context)
        self._executor.add_node(self._server)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._spin, daemon=True, name='estimate_payload')
        # the way out is known before the thread runs: a stop signal may end the owner's
        # constructor anywhere after this, and the owner then never calls close()
        node.context.on_shutdown(self.close)
        atexit.register(self._close_at_exit)
        self._thread.start()

    def close(self) -> None:
        """
        Stop the service thread and destroy its node; closing twice does nothing.

        Called by the owning node's ``destroy_node``, by the context's shutdown,
        and at the interpreter's exit, whichever comes first. The executor is
        shut down before the thread is woken, so the thread mostly leaves its
        wait without asking ``context.ok()``; called from the context's
        shutdown (which holds the context's lock) while the thread waits for
        that lock, the join waits out its timeout and the atexit hook joins
        the thread. A collection in progress is abandoned (the request answers
        ``success: false``).
        """
        if self._stop.is_set():
            return
        self._stop.set()
        collection = self._collection
        if collection is not None:
            collection.done.set()
        self._executor.shutdown(timeout_sec=0.0)   # marks it shut down and wakes its wait
        self._join(timeout=5.0)
        self._server.destroy_node()
        if not self._thread.is_alive():
            atexit.unregister(self._close_at_exit)

    def _close_at_exit(self) -> None:
        """
        Close, and wait for the thread's end before the interpreter finalises (atexit).

        A daemon thread still inside rclpy's wait set when the interpreter
        finalises is ended by CPython from within a C++ frame of rclpy, and
        the process aborts ("terminate called without an active exception",
        exit -6) instead of exiting 0. Once stopped, the thread ends within
        one ``spin_once`` (0.1 s), or when the estimation's import (seconds)
        is over.
        """
        self.close()
        self._join(timeout=None)

    def _join(self, timeout: Optional[float]) -> None:
        thread = self._thread
        if thread is threading.current_thread():
            return
        try:
            thread.join(timeout)
        except RuntimeError:   # never started: nothing to wait for
            pass

    def _spin(self) -> None:
        """Import the estimation (scipy: seconds), then serve the requests until shutdown."""
        # here rather than at the top: the node's start-up does not wait for it
        from ros_dynamics.identification import payload
        self._library = payload
        context = self._server.context
        while not self._stop.is_set() and context.ok():   # close() never waits on ok()'s lock
            try:
                self._executor.spin_once(timeout_sec=0.1)
            except Exception:  # noqa: B902 - shutting down (or a failed callback: keep serving)
                if self._stop.is_set() or not context.ok():
                    return
                self._node.get_logger().error(f'estimate_payload: {traceback.format_exc()}',
                                              throttle_duration_sec=5.0)

    # ------------------------------------------------------------------ the joint states
    def add(self, t: float, q: np.ndarray, qd: np.ndarray, effort, names) -> None:
        """
        Take one fresh joint state: node-clock t (s), q, qd (model order), the message's efforts.

        ``names`` orders ``effort`` (the message's name list). Called from the
        node's joint-state callback, in the executor's thread.
        """
        model = self._models.model
        if model is None or model.nq != model.nv:   # a floating base: not estimated (yet)
            return
        buffer = self.samples(model)
        effort = buffer.efforts(names, effort)
        buffer.add(t, q, qd, effort)
        collection = self._collection
        if collection is not None:
            collection.add(t, q, qd, effort)

    def samples(self, model) -> JointSampleBuffer:
        """Return the ring of joint states ``add`` fills for ``model``'s joints (made once)."""
        buffer = self._buffer
        if buffer is None or buffer.joint_names != model.joint_names:
            capacity = KEPT_SAMPLES if self._window > 0.0 else 0
            buffer = self._buffer = JointSampleBuffer(model.joint_names, capacity)
        return buffer

    @property
    def collecting(self) -> bool:
        """Return True while a request collects the states after it (``add`` must see them)."""
        return self._collection is not None

    # ------------------------------------------------------------------ the service
    def _on_request(self, request, response):
        if not self._busy.acquire(blocking=False):
            return _failed(response, 'an estimate is already running: call again when it has '
                                     'answered')
        try:
            return self._estimate(request, response)
        except (ValueError, RuntimeError) as error:
            return _failed(response, str(error))
        except ImportError as error:   # cvxpy, for a physically consistent inertia
            return _failed(response, f'{error}: install the identification extra (pip install '
                                     '"ros_dynamics[identification]")')
        except Exception as error:  # noqa: B902 - a service must answer whatever happens
            self._node.get_logger().error(f'estimate_payload failed: {traceback.format_exc()}')
            return _failed(response, f'internal error: {type(error).__name__}: {error}')
        finally:
            self._collection = None
            self._busy.release()

    def _check(self, request, model) -> tuple:
        """Return (window, duration, timeout, still_velocity); ValueError names a bad field."""
        link = request.link
        if not link:
            raise ValueError('link: name the link the payload is attached to')
        model.payload(link)   # ValueError naming an unknown link
        if model.link_attachment(link)[0] < 0:
            raise ValueError(f'link {link!r} is fixed to the root: a payload on it moves no '
                             'joint')
        window, duration = float(request.window), float(request.duration)
        for name, value in (('window', window), ('duration', duration),
                            ('timeout', request.timeout),
                            ('still_velocity', request.still_velocity)):
            if not (math.isfinite(value) and value >= 0.0):
                raise ValueError(f'{name}: expected a finite value >= 0, got {value}')
        if (window > 0.0) == (duration > 0.0):
            raise ValueError('give either window > 0 (the last window s of joint states) or '
                             'duration > 0 (collect for duration s after the call), not '
                             f'{"both" if window > 0.0 else "neither"}')
        if window > 0.0 and self._window == 0.0:
            raise ValueError('window: this node keeps no joint states (parameter '
                             'payload_estimation_window is 0); ask for a duration instead')
        if window > self._window:
            raise ValueError(f'window: {window:g} s is longer than the {self._window:g} s this '
                             'node keeps (parameter payload_estimation_window)')
        if duration > MAX_DURATION:
            raise ValueError(f'duration: {duration:g} s is longer than the {MAX_DURATION:g} s '
                             'a request may collect')
        timeout = float(request.timeout) or 2.0 * duration + 5.0
        still = float(request.still_velocity) or self._library.STILL_VELOCITY
        return window, duration, timeout, still

    def _estimate(self, request, response):
        model = self._models.require()
        if model.nq != model.nv:
            raise ValueError('the model has a floating or planar base (root_joint): payload '
                             'estimation serves fixed-base robots only')
        window, duration, timeout, still = self._check(request, model)
        now = self._node.get_clock().now().nanoseconds * 1e-9
        if window > 0.0:
            buffer = self._buffer
            if buffer is None or len(buffer) == 0:
                raise ValueError('no joint states received yet (the node keeps only fresh '
                                 'ones of a loaded model)')
            t, q, qd, effort = buffer.since(now - window)
        else:
            t, q, qd, effort = self._collect(now, duration, timeout)
        started = time.monotonic()
        estimate, samples = self._library.estimate_payload_from_samples(
            model, request.link, t, q, qd, effort, inertia=request.estimate_inertia,
            still_velocity=still)
        inertia = Inertia(m=float(estimate.mass))
        inertia.com.x, inertia.com.y, inertia.com.z = (float(v) for v in estimate.com)
        if estimate.inertia is not None:
            tensor = estimate.inertia
            inertia.ixx, inertia.ixy, inertia.ixz = (float(v) for v in tensor[0])
            inertia.iyy, inertia.iyz, inertia.izz = (float(tensor[1, 1]), float(tensor[1, 2]),
                                                     float(tensor[2, 2]))
        values = [inertia.m, inertia.com.x, inertia.com.y, inertia.com.z, estimate.mass_std,
                  *estimate.com_std, *estimate.residual_rms]
        if not all(map(math.isfinite, values)):
            raise ValueError('the fit gave a non-finite estimate (the samples do not determine '
                             'the payload)')
        response.inertia = inertia
        response.mass_std = float(estimate.mass_std)
        response.com_std.x, response.com_std.y, response.com_std.z = (
            float(v) for v in estimate.com_std)
        response.joint_names = list(model.joint_names)
        response.residual_rms = [float(v) for v in estimate.residual_rms]
        response.samples = int(samples)
        what = (f'{estimate.mass:.4g} kg (std {estimate.mass_std:.2g}) at '
                f'[{", ".join(f"{c:.4g}" for c in estimate.com)}] m on link {request.link!r}'
                f'{" with its inertia" if estimate.inertia is not None else ""}, from '
                f'{samples} joint states (fit {time.monotonic() - started:.3g} s)')
        if request.apply:
            try:
                self._payloads.apply(request.link, inertia, 'estimate_payload')
            except (ValueError, RuntimeError) as error:
                return _failed(response, f'estimated {what}, but not applied: {error}',
                               keep=True)
            response.applied = True
            what += '; applied'
        response.success = True
        response.message = what
        return response

    def _collect(self, now: float, duration: float, timeout: float) -> tuple:
        """Return the joint states of [now, now + duration) of the node clock, or raise."""
        collection = Collection(now, now + duration)
        self._collection = collection
        try:
            finished = collection.done.wait(timeout)
        finally:
            self._collection = None
        if self._stop.is_set():
            raise RuntimeError('the node is shutting down')
        if not finished:
            raise ValueError(f'timeout: {timeout:g} s of wall clock passed before the '
                             f'{duration:g} s of joint states were collected '
                             f'({len(collection.rows)} received; are joint states arriving, and '
                             'fresh?)')
        if not collection.rows:
            raise ValueError(f'no joint states in the {duration:g} s after the call')
        rows = np.array(collection.rows)
        return split(np.array(collection.times), rows, rows.shape[1] // 3)


def _failed(response, message: str, keep: bool = False):
    """Return ``response`` (fresh unless ``keep``) with ``success: false`` and ``message``."""
    if not keep:
        response = EstimatePayload.Response()
    response.success, response.applied, response.message = False, False, message
    return response
