# Copyright 2026 The ros_dynamics Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
Machinery shared by the ros_dynamics nodes: model source, guards, conversions, main loop.

* ``ModelSource``: the URDF comes from, in order of precedence, the
  ``robot_description`` string parameter, the ``urdf_path`` parameter (a
  path or ``package://`` URL), or the ``robot_description`` topic
  (``std_msgs/String``, transient local, as robot_state_publisher publishes
  it); the ``actuators`` parameter (a path or ``package://`` URL of an
  actuators YAML, actuators/description.py) adds armature and friction. A
  new description replaces the model atomically: a request already being
  served keeps the model it started with. A malformed description keeps the
  previous model and is logged with the reason. Payloads set on the node
  (``set_payload``, nodes/payloads.py) are kept and applied to every model
  loaded later.
* ``guarded``: a service callback wrapper that turns any error into
  ``success: false`` with a message, so a bad request never kills a node.
* ``matrix_message`` / ``matrix_from_message``: ``Float64MultiArray`` with
  ``layout.dim = [rows, cols]``, row-major.
* ``spin``: the main loop ROS_ENV.md found robust under SIGINT/SIGTERM.
"""

import array
import functools
import os
import threading
import time
import traceback
from typing import Callable, Optional

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
import numpy as np
import rclpy
from rclpy.executors import (ExternalShutdownException, MultiThreadedExecutor,
                             SingleThreadedExecutor)
from rclpy.experimental import EventsExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_dynamics import RobotModel
from ros_dynamics.nodes.urdf_source import resolve_package_url
from std_msgs.msg import Float64MultiArray, MultiArrayDimension, String

DESCRIPTION_QOS = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                             reliability=ReliabilityPolicy.RELIABLE)


class ModelSource:
    """Keep a node's RobotModel loaded from its parameters or the description topic."""

    def __init__(self, node: Node, on_change: Optional[Callable[[RobotModel], None]] = None
                 ) -> None:
        """Declare ``robot_description`` and ``urdf_path`` and load from the first one set."""
        self._node = node
        self._on_change = on_change
        self._lock = threading.Lock()
        self.model: Optional[RobotModel] = None
        self.source = 'none'
        self.error = ''
        self.payloads = {}   # link -> (mass, com, inertia), applied to every model loaded
        self.actuators = node.declare_parameter('actuators', '').value
        # a payload from the start: the link and [m, cx, cy, cz, ixx, ixy, ixz, iyy, iyz, izz]
        # (kg, m in the link frame, kg m^2 about the centre of mass), geometry_msgs/Inertia's order
        link = node.declare_parameter('payload_link', '').value
        values = list(node.declare_parameter('payload_inertia', [0.0] * 10).value)
        if link:
            if len(values) != 10:
                raise ValueError(f'payload_inertia: expected 10 numbers [m, cx, cy, cz, ixx, '
                                 f'ixy, ixz, iyy, iyz, izz], got {len(values)}')
            m, cx, cy, cz, ixx, ixy, ixz, iyy, iyz, izz = (float(v) for v in values)
            tensor = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
            self.payloads[link] = (m, (cx, cy, cz), tensor if tensor.any() else None)
        description = node.declare_parameter('robot_description', '').value
        urdf_path = node.declare_parameter('urdf_path', '').value
        if description:
            self._load(description, 'parameter robot_description')
        elif urdf_path:
            try:
                with open(resolve_package_url(urdf_path), encoding='utf-8') as stream:
                    self._load(stream.read(), f'urdf_path {urdf_path}')
            except (OSError, UnicodeDecodeError) as error:
                self._fail(f'urdf_path {urdf_path!r}: {error}')
        else:
            node.create_subscription(String, 'robot_description', self._on_description,
                                     DESCRIPTION_QOS)
            self.error = 'waiting for a URDF on the robot_description topic'
            node.get_logger().info(self.error)

    def _on_description(self, message: String) -> None:
        self._load(message.data, 'topic robot_description')

    def _fail(self, reason: str) -> None:
        self.error = reason
        kept = 'keeping the previous model' if self.model is not None else 'no model loaded'
        self._node.get_logger().error(f'cannot load the robot model: {reason} ({kept})')

    def _load(self, xml: str, source: str) -> None:
        try:
            actuators = None
            if self.actuators:
                try:
                    actuators = resolve_package_url(self.actuators)
                except FileNotFoundError as error:
                    raise ValueError(f'parameter actuators: {error}'.replace(
                        'URDF file', 'file')) from None
            model = RobotModel.from_urdf_string(xml, actuators=actuators)
        except ValueError as error:
            self._fail(f'{source}: {error}')
            return
        model.warm_up()   # compile before serving: the first request must not wait for it
        with self._lock:
            for link, payload in list(self.payloads.items()):
                try:
                    model.set_payload(link, *payload)
                except ValueError as error:
                    del self.payloads[link]
                    self._node.get_logger().error(f'the new model drops a payload: {error}')
            self.model, self.source, self.error = model, source, ''
        self._node.get_logger().info(
            f'loaded {model.name!r} from {source}: {model.dof} joints, '
            f'{len(model.link_names)} links')
        if self._on_change is not None:
            self._on_change(model)

    def set_payload(self, link: str, mass: float, com=(0.0, 0.0, 0.0), inertia=None) -> str:
        """
        Attach a payload to ``link`` of the current model and keep it for models loaded later.

        An empty link removes every payload; mass 0 removes the link's. Raises
        ValueError (the model unchanged) or RuntimeError without a model;
        returns what was done.
        """
        with self._lock:
            model = self.require()
            if not link:
                model.clear_payload()
                self.payloads = {}
                return 'removed every payload'
            if mass == 0.0:
                model.clear_payload(link)
                self.payloads.pop(link, None)
                return f'removed the payload of link {link!r}'
            model.set_payload(link, mass, com, inertia)
            self.payloads[link] = (mass, tuple(com), inertia)
            return (f'payload on link {link!r}: {mass:g} kg at {list(com)} m (link frame)')

    def require(self) -> RobotModel:
        """Return the current model, or raise RuntimeError saying why there is none."""
        model = self.model
        if model is None:
            raise RuntimeError(f'no robot model loaded yet: {self.error}')
        return model


def guarded(callback: Callable) -> Callable:
    """
    Wrap a service callback so that every failure becomes ``success: false``.

    ValueError and RuntimeError are the caller's fault or the node's state and
    give their message; anything else is a bug and is logged with its
    traceback, and the node keeps serving.
    """
    @functools.wraps(callback)
    def wrapper(self, request, response):
        try:
            response = callback(self, request, response)
            response.success = True
        except (ValueError, RuntimeError) as error:
            response.success = False
            response.message = str(error)
        except Exception as error:  # noqa: B902 - a service must answer whatever happens
            self.get_logger().error(f'{callback.__name__} failed: {traceback.format_exc()}')
            response.success = False
            response.message = f'internal error: {type(error).__name__}: {error}'
        return response
    return wrapper


def doubles(values: np.ndarray) -> array.array:
    """
    Return a float64 vector as array.array('d'), the type rclpy stores float64[] in.

    Assigning it to a float64[] field skips the per-element checks a list gets.
    """
    out = array.array('d')
    out.frombytes(np.ascontiguousarray(values, dtype=np.float64).tobytes())
    return out


def matrix_message(matrix: np.ndarray) -> Float64MultiArray:
    """Return a 2-D array as Float64MultiArray, layout.dim = [rows, cols], row-major."""
    matrix = np.atleast_2d(np.asarray(matrix, dtype=float))
    rows, cols = matrix.shape
    message = Float64MultiArray()
    message.layout.dim = [MultiArrayDimension(label='rows', size=rows, stride=rows * cols),
                          MultiArrayDimension(label='cols', size=cols, stride=cols)]
    message.data = matrix.ravel().tolist()
    return message


def matrix_from_message(message: Float64MultiArray) -> np.ndarray:
    """Return the 2-D array a Float64MultiArray with dims [rows, cols] holds."""
    dims = message.layout.dim
    if len(dims) != 2:
        raise ValueError(f'expected layout.dim [rows, cols], got {len(dims)} dimensions')
    rows, cols = dims[0].size, dims[1].size
    data = np.asarray(message.data, dtype=float)
    if data.size != rows * cols:
        raise ValueError(f'{data.size} values for a {rows} x {cols} matrix')
    return data.reshape(rows, cols)


class Timing:
    """Rolling compute-time statistics (ms) for diagnostics."""

    def __init__(self, window: int = 1000) -> None:
        """Keep the last ``window`` samples."""
        self._samples = np.zeros(window)
        self._count = 0

    def add(self, seconds: float) -> None:
        """Record one duration in seconds."""
        self._samples[self._count % self._samples.shape[0]] = seconds * 1e3
        self._count += 1

    def summary(self) -> dict:
        """Return count, p50, p99 and max over the window, in ms."""
        n = min(self._count, self._samples.shape[0])
        if n == 0:
            return {'count': '0'}
        window = self._samples[:n]
        return {'count': str(self._count), 'p50_ms': f'{np.percentile(window, 50):.4f}',
                'p99_ms': f'{np.percentile(window, 99):.4f}', 'max_ms': f'{window.max():.4f}'}


def timed(timing: Timing) -> Callable:
    """Decorate a callback to record its duration in ``timing``."""
    def decorate(function: Callable) -> Callable:
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                timing.add(time.perf_counter() - start)
        return wrapper
    return decorate


def diagnostics_message(node: Node, models: ModelSource, what: str, values: dict,
                        warning: str = '') -> DiagnosticArray:
    """
    Return a one-status DiagnosticArray: the model's state, a warning if any, key values.

    ERROR while no model is loaded (with the reason), WARN with ``warning``,
    else OK naming the model's source.
    """
    model = models.model
    status = DiagnosticStatus(name=f'{node.get_fully_qualified_name()}: {what}',
                              hardware_id=model.name if model else '')
    if model is None:
        status.level, status.message = DiagnosticStatus.ERROR, models.error or 'no model'
    elif warning:
        status.level, status.message = DiagnosticStatus.WARN, warning
    else:
        status.level, status.message = DiagnosticStatus.OK, f'model from {models.source}'
    status.values = [KeyValue(key=k, value=str(v)) for k, v in values.items()]
    array = DiagnosticArray(status=[status])
    array.header.stamp = node.get_clock().now().to_msg()
    return array


def spin(node: Node, threads: int = 1) -> None:
    """Spin ``node`` until shutdown; exit cleanly on SIGINT or SIGTERM (see ROS_ENV.md)."""
    # Per callback, rclpy's SingleThreadedExecutor costs a third of the multi-threaded one
    # (ROS_ENV.md: 0.26 vs 0.85 ms service round trips), and the EventsExecutor (rclpy's
    # C++ event queue, rclpy.experimental) less again (benchmarks/RESULTS.md); the
    # environment variable ROS_DYNAMICS_EXECUTOR=single falls back to the former.
    if threads > 1:
        executor = MultiThreadedExecutor(num_threads=threads)
    elif os.environ.get('ROS_DYNAMICS_EXECUTOR', 'events') == 'single':
        executor = SingleThreadedExecutor()
    else:
        executor = EventsExecutor()
    executor.add_node(node)
    try:
        while rclpy.ok():
            executor.spin_once(timeout_sec=0.1)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except RuntimeError as error:
        # RCLError (a RuntimeError; rclpy.exceptions has no RCLError), or pybind11's
        # RuntimeError wrapping the signal that interrupted a take: expected while shutting down
        if rclpy.ok() and not isinstance(error.__context__, KeyboardInterrupt):
            raise
    finally:
        executor.shutdown(timeout_sec=1.0)
        node.destroy_node()
        rclpy.try_shutdown()


def main_for(node_class: type) -> Callable:
    """Return a console-script ``main`` that runs ``node_class``."""
    def main(args=None) -> None:
        rclpy.init(args=args)
        try:
            node = node_class()
        except Exception:
            rclpy.try_shutdown()
            raise
        spin(node)
    return main
