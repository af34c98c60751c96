# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

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
* ``spin`` and ``main_for`` (from ``process``): the main loop, and a process
  that exits 0 on SIGINT and SIGTERM at any moment.
"""

import array
import functools
import logging
import math
import threading
import time
import traceback
from typing import Callable, Optional

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
import numpy as np
from rcl_interfaces.msg import SetParametersResult
import rclpy
from rclpy.clock import JumpThreshold
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_dynamics import RobotModel
from ros_dynamics.nodes.base_state import base_kind
from ros_dynamics.nodes.parameters import declare, ParameterError
from ros_dynamics.nodes.process import Interrupted, interruptible, main_for, spin  # noqa: F401
from ros_dynamics.nodes.urdf_source import resolve_package_url
from std_msgs.msg import Float64MultiArray, MultiArrayDimension, String

DESCRIPTION_QOS = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                             reliability=ReliabilityPolicy.RELIABLE)


class RosLogHandler(logging.Handler):
    """Forward the core's Python log records (``ros_dynamics.*``) to rclpy's loggers."""

    def emit(self, record: logging.LogRecord) -> None:
        """Log ``record`` through rclpy at the nearest severity."""
        ros_logger = rclpy.logging.get_logger(record.name)
        if record.levelno >= logging.ERROR:
            ros_logger.error(self.format(record))
        elif record.levelno >= logging.WARNING:
            ros_logger.warning(self.format(record))
        else:
            ros_logger.info(self.format(record))


logging.getLogger('ros_dynamics').addHandler(RosLogHandler())   # e.g. "compiling kernels ..."


class ModelSource:
    """Keep a node's RobotModel loaded from its parameters or the description topic."""

    def __init__(self, node: Node, on_change: Optional[Callable[[RobotModel], None]] = None,
                 strict: bool = False, bases: bool = False) -> None:
        """
        Declare ``robot_description`` and ``urdf_path`` and load from the first one set.

        Either parameter set at runtime loads that model at once; the set is
        refused, with the reason, when the new model does not load (the
        current one keeps serving). ``strict``: a model given by parameter
        that does not load at start-up raises ParameterError (a node that
        cannot do its job stops with that one line; with neither parameter
        set it waits for the topic). ``bases``: the node serves a floating or
        planar base (nodes/base_state.py) and declares ``root_joint``; other
        nodes refuse models with nq != nv.
        """
        self._node = node
        self._strict = strict
        self._on_change = on_change
        self._lock = threading.Lock()
        self.model: Optional[RobotModel] = None
        self.source = 'none'
        self.error = ''
        self.payloads = {}   # link -> (mass, com, inertia), applied to every model loaded
        self.actuators = declare(
            node, 'actuators', '',
            'actuator parameters YAML (path or package:// URL: gear ratios, rotor inertia or '
            'armature, friction) applied to every model loaded', read_only=True)
        # a payload from the start: the link and [m, cx, cy, cz, ixx, ixy, ixz, iyy, iyz, izz]
        # (kg, m in the link frame, kg m^2 about the centre of mass), geometry_msgs/Inertia's order
        link = declare(node, 'payload_link', '',
                       'link carrying a payload from the start (empty: none); ~/set_payload and '
                       'the payload topic change it at runtime', read_only=True)
        values = list(declare(node, 'payload_inertia', [0.0] * 10,
                              'the start-up payload: [m, cx, cy, cz, ixx, ixy, ixz, iyy, iyz, '
                              'izz] (kg, m in the link frame, kg m^2 about its centre of mass)',
                              read_only=True, flexible=True))
        if link:
            if len(values) != 10:
                raise ParameterError(f'parameter payload_inertia: expected 10 numbers [m, cx, '
                                     f'cy, cz, ixx, ixy, ixz, iyy, iyz, izz], got {len(values)}',
                                     node.get_logger().name)
            m, cx, cy, cz, ixx, ixy, ixz, iyy, iyz, izz = (float(v) for v in values)
            tensor = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
            self.payloads[link] = (m, (cx, cy, cz), tensor if tensor.any() else None)
        self.root_joint = declare(
            node, 'root_joint', '', "the joint added between the world and the URDF's root "
            "link: '' (none: the URDF as written), floating (a free-flyer) or planar",
            read_only=True, constraints="one of '', floating, planar") if bases else ''
        if self.root_joint not in ('', 'floating', 'planar'):
            raise ParameterError(f"parameter root_joint: {self.root_joint!r} is not one of '', "
                                 'floating, planar', node.get_logger().name)
        self._bases = bases
        description = declare(
            node, 'robot_description', '',
            'URDF XML of the robot (first choice of model source); setting it at runtime '
            'loads that model, refused if it does not load')
        urdf_path = declare(
            node, 'urdf_path', '',
            'URDF file path or package://<package>/<path> URL, used when robot_description '
            'is empty (else the robot_description topic, transient local); setting it at '
            'runtime loads that file, refused if it does not load')
        if description:
            self._load(description, 'parameter robot_description')
        elif urdf_path:
            self._load_path(urdf_path)
        self._strict = False   # from now on a description that fails keeps the previous model
        if not (description or urdf_path):
            node.create_subscription(String, 'robot_description', self._on_description,
                                     DESCRIPTION_QOS)
            self.error = 'waiting for a URDF on the robot_description topic'
            node.get_logger().info(self.error)
        node.add_on_set_parameters_callback(self._on_parameters)

    def _on_description(self, message: String) -> None:
        try:
            self._load(message.data, 'topic robot_description')
        except Interrupted:
            self._node.get_logger().info('model loading abandoned: the node is stopping')

    def _on_parameters(self, parameters) -> SetParametersResult:
        for parameter in parameters:
            if parameter.name not in ('robot_description', 'urdf_path'):
                continue
            value = parameter.value
            if not isinstance(value, str) or not value:
                return SetParametersResult(
                    successful=False, reason=f'{parameter.name}: give a URDF '
                    f'{"text" if parameter.name == "robot_description" else "path"}; the '
                    'current model stays loaded')
            loaded = (self._load(value, 'parameter robot_description')
                      if parameter.name == 'robot_description' else self._load_path(value))
            if not loaded:
                return SetParametersResult(successful=False, reason=self.error)
        return SetParametersResult(successful=True)

    def _fail(self, reason: str) -> None:
        if self._strict:
            raise ParameterError(f'no robot model: {reason} (give a loadable urdf_path or '
                                 'robot_description, or neither to wait for the '
                                 'robot_description topic)', self._node.get_logger().name)
        self.error = reason
        kept = 'keeping the previous model' if self.model is not None else 'no model loaded'
        self._node.get_logger().error(f'cannot load the robot model: {reason} ({kept})')

    def _load_path(self, urdf_path: str) -> bool:
        try:
            with open(resolve_package_url(urdf_path), encoding='utf-8') as stream:
                xml = stream.read()
        except (OSError, UnicodeDecodeError) as error:
            self._fail(f'urdf_path {urdf_path!r}: {error}')
            return False
        return self._load(xml, f'urdf_path {urdf_path}')

    def _load(self, xml: str, source: str) -> bool:
        """
        Load, compile and publish a new model; return False (logged) if it fails.

        Any exception while loading keeps the previous model: a published
        description must never end a node. A stop signal abandons the load
        (``Interrupted`` propagates).
        """
        try:
            with interruptible():
                actuators = None
                if self.actuators:
                    try:
                        actuators = resolve_package_url(self.actuators)
                    except FileNotFoundError as error:
                        raise ValueError(f'parameter actuators: {error}'.replace(
                            'URDF file', 'file')) from None
                model = RobotModel.from_urdf_string(xml, actuators=actuators,
                                                    root_joint=self.root_joint or None)
                if self._bases:
                    base_kind(model)   # a floating or planar base and one-dof joints
                elif model.nq != model.nv:
                    raise ValueError(f'floating, planar or ball joints (nq {model.nq}, nv '
                                     f'{model.nv}): the nodes serve robots with one coordinate '
                                     'per joint (the core computes their dynamics in Python)')
                model.warm_up()   # compile before serving: the first request must not wait
        except ValueError as error:   # URDFError and the core's checks
            self._fail(f'{source}: {error}')
            return False
        except Exception as error:  # noqa: B902 - a description must never end the node
            self._node.get_logger().debug(traceback.format_exc())
            self._fail(f'{source}: {type(error).__name__}: {error}')
            return False
        if self._on_change is not None:
            try:
                self._on_change(model)
            except Exception as error:  # noqa: B902 - the node keeps its previous model
                self._node.get_logger().error(traceback.format_exc())
                self._fail(f'{source}: the node cannot use {model.name!r}: '
                           f'{type(error).__name__}: {error}')
                return False
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
        return True

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


OVERFLOW = 'the result overflowed (inputs too large?)'


def require_finite(**results) -> None:
    """
    Raise ValueError naming the first non-finite result (finite inputs whose result overflowed).

    Each keyword is a result's name and its value (a number or an array).
    """
    for name, value in results.items():
        if not np.all(np.isfinite(value)):
            raise ValueError(f'{OVERFLOW}: {name} is not finite')


def non_finite_field(message, path: str = '') -> str:
    """
    Return the dotted name of the first non-finite float field of a ROS message, or ''.

    Walks nested messages and sequences of messages, so that no answer with
    NaN or Inf goes out marked as a success; a ``...limit`` field may be +inf
    (the message definitions' "inf when none").
    """
    fields = getattr(message, 'get_fields_and_field_types', None)
    for name, kind in (fields() if fields is not None else {}).items():
        value = getattr(message, name)
        where = f'{path}{name}'
        if kind in ('double', 'float'):
            if not math.isfinite(value) and not (name.endswith('limit') and value == math.inf):
                return where   # (a URDF without a limit reports it as +inf)
        elif kind.startswith(('sequence<double', 'sequence<float', 'double[', 'float[')):
            if len(value) and not np.all(np.isfinite(np.asarray(value, dtype=float))):
                return where
        elif hasattr(value, 'get_fields_and_field_types'):
            found = non_finite_field(value, where + '.')
            if found:
                return found
        elif isinstance(value, list) and value and \
                hasattr(value[0], 'get_fields_and_field_types'):
            for k, item in enumerate(value):
                found = non_finite_field(item, f'{where}[{k}].')
                if found:
                    return found
    return ''


def guarded(callback: Callable) -> Callable:
    """
    Wrap a service callback so that every failure becomes ``success: false``.

    ValueError and RuntimeError are the caller's fault or the node's state and
    give their message; anything else is a bug and is logged with its
    traceback, and the node keeps serving. A response holding a non-finite
    number (finite inputs so large that the result overflowed) is a failure
    too: a client must never receive NaN or Inf with ``success: true``.
    """
    @functools.wraps(callback)
    def wrapper(self, request, response):
        try:
            response = callback(self, request, response)
            field = non_finite_field(response)
            if field:
                raise ValueError(f'{OVERFLOW}: {field} is not finite')
            response.success = True
        except (ValueError, RuntimeError) as error:
            response = _failure(response, str(error))
        except Exception as error:  # noqa: B902 - a service must answer whatever happens
            self.get_logger().error(f'{callback.__name__} failed: {traceback.format_exc()}')
            response = _failure(response, f'internal error: {type(error).__name__}: {error}')
        return response
    return wrapper


def _failure(response, message: str):
    """Return a fresh response (no partial results) with ``success: false`` and ``message``."""
    try:
        response = type(response)()
    except TypeError:   # not a generated message type: keep the object
        pass
    response.success, response.message = False, message
    return response


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


class NodeTime:
    """
    The node clock's time in nanoseconds, at the cost of ``time.time_ns`` when it can.

    A node's ROS clock reads the system clock (CLOCK_REALTIME, what
    ``time.time_ns`` reads) unless simulated time is active (``use_sim_time``
    and /clock); ``Clock.now`` builds a ``Time`` object either way (4-6 us
    of CPU, a hundredth of a 1 kHz stream's budget per message). This
    follows the switch through the clock's jump callback for activation and
    deactivation, and reads ``Clock.now`` only while simulated time is active.
    """

    def __init__(self, node: Node) -> None:
        """Follow ``node``'s clock."""
        self._clock = node.get_clock()
        self._simulated = self._clock.ros_time_is_active
        self._jump = self._clock.create_jump_callback(
            JumpThreshold(min_forward=None, min_backward=None, on_clock_change=True),
            post_callback=self._on_clock_change)

    def _on_clock_change(self, jump) -> None:
        self._simulated = self._clock.ros_time_is_active

    def nanoseconds(self) -> int:
        """Return the node clock's time (int ns since the epoch, or of simulated time)."""
        if self._simulated:
            return self._clock.now().nanoseconds
        return time.time_ns()


class Watchdog:
    """
    Call ``check()`` every ``period`` seconds of steady time in a thread of its own.

    An rclpy timer would do the same on the executor, at 140-350 us of CPU
    per firing with the EventsExecutor (990 us with the single-threaded one,
    benchmarks/RESULTS.md): at 50 Hz that is more CPU than a 1 kHz stream's
    own work. A thread sleeping on an event costs a few microseconds a
    wake-up. ``check`` must be thread-safe against the executor's callbacks
    (rclpy's publishers are). ``stop()`` ends the thread; a failing check
    is logged and the watchdog keeps running.
    """

    def __init__(self, node: Node, period: float, check: Callable[[], None]) -> None:
        """Start calling ``check`` every ``period`` s (> 0)."""
        self._node, self._period, self._check = node, float(period), check
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f'{node.get_name()}_watchdog')
        self._thread.start()

    def _run(self) -> None:
        while not self._stopped.wait(self._period):
            try:
                self._check()
            except Exception:  # noqa: B902 - a failing check must not end the watchdog
                if self._stopped.is_set() or not self._node.context.ok():
                    return
                self._node.get_logger().error(f'watchdog: {traceback.format_exc()}',
                                              throttle_duration_sec=5.0)

    def stop(self) -> None:
        """Stop the thread and wait for it (at most one period and one check)."""
        self._stopped.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=5.0)


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
