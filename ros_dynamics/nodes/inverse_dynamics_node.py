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
Inverse-dynamics node: dynamics services and a feedforward torque stream.

Services (``ros_dynamics_interfaces``):

* ``~/inverse_dynamics``: a JointState (+ accelerations, wrenches) to efforts,
  and on request g(q), C qd + g, M(q) and C(q, qd);
* ``~/forward_dynamics``: a JointState with efforts (+ wrenches) to accelerations;
* ``~/trajectory_dynamics``: a JointTrajectory to efforts at every point (one
  batched RNEA call) and an actuator report per joint with the points that
  exceed the URDF effort or velocity limits.

Feedforward stream: on every ``joint_states`` message (partial messages are
merged by name, unknown joints ignored) publish on ``commands``
(``std_msgs/Float64MultiArray`` ordered by the ``joints`` parameter, what a
ros2_control ForwardCommandController with ``interface_name: effort``
expects) the torque of the ``mode``:

* ``gravity_compensation``: tau = g(q);
* ``inverse_dynamics``: tau = RNEA(q_ref, qd_ref, qdd_ref);
* ``computed_torque``: tau = M(q) (qdd_ref + Kd (qd_ref - qd) + Kp (q_ref - q)) + C qd + g,

with the reference from ``reference`` (``trajectory_msgs/JointTrajectoryPoint``
ordered by ``joints``) or ``reference_trajectory`` (``JointTrajectory``, its
first point, joints by name). With ``friction_compensation`` ``reference``
(``measured``) the joint friction of the model (``actuators`` parameter:
the actuators YAML; RobotModel.friction_torques) at the reference (measured)
velocity is added in every mode; the services then add it at the request's
velocity and say so in ``message``. Payloads: ``~/set_payload`` and the
``payload`` topic (nodes/payloads.py). Efforts are clamped to the effort limits
unless ``clamp_effort`` is false. Nothing is published while the state is
stale: a joint not updated for ``state_timeout`` s, or a message stamped
older than that (node clock, so ``use_sim_time`` works).
"""

import math
import threading
import time
from typing import Optional

from diagnostic_msgs.msg import DiagnosticArray
import numpy as np
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.time import Time
from ros_dynamics.actuator_report import trajectory_efforts
from ros_dynamics.control import computed_torque
from ros_dynamics.nodes.common import (diagnostics_message, doubles, guarded, main_for,
                                       matrix_message, ModelSource, Timing)
from ros_dynamics.nodes.joint_vectors import JointStateBuffer, JointVectorMap
from ros_dynamics.nodes.payloads import PayloadInterface
from ros_dynamics_interfaces.msg import JointActuatorReport, LimitViolation
from ros_dynamics_interfaces.srv import ForwardDynamics, InverseDynamics, TrajectoryDynamics
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

MODES = ('gravity_compensation', 'inverse_dynamics', 'computed_torque')
FRICTION_COMPENSATION = ('false', 'reference', 'measured')


def wrenches_from(link_wrenches) -> dict:
    """Return {link: [f; t]} from LinkWrench messages (names checked by the core)."""
    out = {}
    for item in link_wrenches:
        f, t = item.wrench.force, item.wrench.torque
        out[item.link] = np.array([f.x, f.y, f.z, t.x, t.y, t.z])
    return out


class Feedforward:
    """Precomputed index maps of the stream for one model and one ``joints`` list."""

    def __init__(self, model, joints: list, kp: list, kd: list) -> None:
        """Check ``joints`` and the gains against the model and build the maps."""
        self.model = model
        self.vectors = JointVectorMap(model.joint_names)
        self.joints = list(joints) or list(model.joint_names)
        self.output = self.vectors.indices(self.joints, 'joints')
        missing = set(model.joint_names) - set(self.joints)
        if missing:
            raise ValueError(f'joints: model joints {sorted(missing)} are not in the output; '
                             'list every model joint')
        n = len(self.joints)
        gains = {}
        for name, values in (('kp', kp), ('kd', kd)):
            values = [float(v) for v in values]
            if len(values) == 1:
                values = values * n
            if len(values) != n:
                raise ValueError(f'{name}: expected {n} gains (one per joint of `joints`) '
                                 f'or one for all, got {len(values)}')
            if any(v < 0 or not math.isfinite(v) for v in values):
                raise ValueError(f'{name}: gains must be finite and >= 0')
            gain = np.zeros(model.dof)
            gain[self.output] = values
            gains[name] = gain
        self.kp, self.kd = gains['kp'], gains['kd']
        self.state = JointStateBuffer(self.vectors)
        self.reference: Optional[tuple] = None


class InverseDynamicsNode(Node):
    """Serve inverse/forward/trajectory dynamics and stream feedforward torques."""

    def __init__(self) -> None:
        """Declare parameters, load the model, create services, topics and timers."""
        super().__init__('inverse_dynamics')
        declare = self.declare_parameter
        self._mode = declare('mode', 'gravity_compensation').value
        self._joints = [j for j in declare('joints', ['']).value if j]
        self._kp = list(declare('kp', [0.0]).value)
        self._kd = list(declare('kd', [0.0]).value)
        self._clamp = bool(declare('clamp_effort', True).value)
        self._timeout = float(declare('state_timeout', 0.1).value)
        self._publish_joint_state = bool(declare('publish_joint_state', False).value)
        self._friction = str(declare('friction_compensation', 'false').value).lower()
        period = float(declare('diagnostics_period', 1.0).value)
        self._lock = threading.Lock()
        self._feedforward: Optional[Feedforward] = None
        self._vectors: Optional[tuple] = None
        self._stream_error = ''
        self._timing = Timing(10000)
        self._service_timing = Timing()
        self._published = 0
        self._skipped_stale = 0
        problem = self._check(self._mode, self._timeout, self._friction)
        if problem:
            raise ValueError(problem)

        self._commands = self.create_publisher(Float64MultiArray, 'commands', 10)
        self._effort_states = self.create_publisher(JointState, 'effort_commands', 10)
        self._diagnostics = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        fast = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
        self.create_subscription(JointState, 'joint_states', self._on_joint_state, fast)
        self.create_subscription(JointTrajectoryPoint, 'reference', self._on_point, fast)
        self.create_subscription(JointTrajectory, 'reference_trajectory', self._on_trajectory,
                                 fast)
        self.create_service(InverseDynamics, '~/inverse_dynamics', self._inverse_dynamics)
        self.create_service(ForwardDynamics, '~/forward_dynamics', self._forward_dynamics)
        self.create_service(TrajectoryDynamics, '~/trajectory_dynamics',
                            self._trajectory_dynamics)
        self.add_on_set_parameters_callback(self._on_parameters)
        self._models = ModelSource(self, on_change=self._on_model)
        self._payloads = PayloadInterface(self, self._models)
        self.create_timer(period, self._publish_diagnostics)

    # ------------------------------------------------------------------ configuration
    @staticmethod
    def _check(mode: str, timeout: float, friction: str = 'false') -> str:
        if mode not in MODES:
            return f'mode: {mode!r} is not one of {", ".join(MODES)}'
        if not (math.isfinite(timeout) and timeout > 0.0):
            return f'state_timeout: must be > 0 s, got {timeout}'
        if friction not in FRICTION_COMPENSATION:
            return (f'friction_compensation: {friction!r} is not one of '
                    f'{", ".join(FRICTION_COMPENSATION)}')
        return ''

    def _configure(self, model, joints, kp, kd) -> None:
        try:
            feedforward = Feedforward(model, joints, kp, kd)
        except ValueError as error:
            self._stream_error = str(error)
            self.get_logger().error(f'feedforward stream disabled: {error}')
            feedforward = None
        else:
            self._stream_error = ''
        with self._lock:
            self._feedforward = feedforward

    def _on_model(self, model) -> None:
        self._vectors = (model, JointVectorMap(model.joint_names))
        self._configure(model, self._joints, self._kp, self._kd)

    def _model_and_vectors(self) -> tuple:
        """Return the current model and its name map (built once per model)."""
        model = self._models.require()
        cached = self._vectors
        if cached is None or cached[0] is not model:
            cached = (model, JointVectorMap(model.joint_names))
        return cached

    def _on_parameters(self, parameters) -> SetParametersResult:
        values = {p.name: p.value for p in parameters}
        mode = values.get('mode', self._mode)
        timeout = float(values.get('state_timeout', self._timeout))
        friction = str(values.get('friction_compensation', self._friction)).lower()
        problem = self._check(mode, timeout, friction)
        joints = [j for j in values.get('joints', self._joints) if j]
        kp, kd = list(values.get('kp', self._kp)), list(values.get('kd', self._kd))
        model = self._models.model if hasattr(self, '_models') else None
        if not problem and model is not None:
            try:
                Feedforward(model, joints, kp, kd)
            except ValueError as error:
                problem = str(error)
        if problem:
            return SetParametersResult(successful=False, reason=problem)
        self._mode, self._timeout, self._joints, self._kp, self._kd = mode, timeout, joints, kp, kd
        self._friction = friction
        self._clamp = bool(values.get('clamp_effort', self._clamp))
        self._publish_joint_state = bool(values.get('publish_joint_state',
                                                    self._publish_joint_state))
        if model is not None:
            self._configure(model, joints, kp, kd)
        return SetParametersResult(successful=True)

    # ------------------------------------------------------------------ feedforward stream
    def _on_point(self, point: JointTrajectoryPoint) -> None:
        feedforward = self._feedforward
        if feedforward is None:
            return
        n = len(feedforward.joints)
        try:
            vectors = []
            for field in ('positions', 'velocities', 'accelerations'):
                values = list(getattr(point, field))
                if not values and field != 'positions':
                    values = [0.0] * n
                if len(values) != n or not all(map(math.isfinite, values)):
                    raise ValueError(f'reference {field}: expected {n} finite values ordered '
                                     f'by `joints`')
                vector = np.zeros(feedforward.model.dof)
                vector[feedforward.output] = values
                vectors.append(vector)
        except ValueError as error:
            self.get_logger().warning(str(error), throttle_duration_sec=5.0)
            return
        feedforward.reference = tuple(vectors)

    def _on_trajectory(self, trajectory: JointTrajectory) -> None:
        feedforward = self._feedforward
        if feedforward is None or not trajectory.points:
            return
        point = trajectory.points[0]
        try:
            vectors = feedforward.vectors
            q = vectors.vector(trajectory.joint_names, point.positions, 'reference positions')
            qd = vectors.vector(trajectory.joint_names, point.velocities,
                                'reference velocities', default=0.0)
            qdd = vectors.vector(trajectory.joint_names, point.accelerations,
                                 'reference accelerations', default=0.0)
        except ValueError as error:
            self.get_logger().warning(str(error), throttle_duration_sec=5.0)
            return
        feedforward.reference = (q, qd, qdd)

    def _on_joint_state(self, message: JointState) -> None:
        start = time.perf_counter()
        feedforward = self._feedforward
        if feedforward is None:
            return
        now = self.get_clock().now()
        seconds = now.nanoseconds * 1e-9
        stamp = Time.from_msg(message.header.stamp).nanoseconds * 1e-9
        if stamp > 0.0 and seconds - stamp > self._timeout:
            self._skipped_stale += 1
            return
        feedforward.state.merge(message.name, message.position, message.velocity, seconds)
        if not feedforward.state.fresh(seconds, self._timeout):
            self._skipped_stale += 1   # a joint never or not recently received
            return
        tau = self._torque(feedforward)
        if tau is None:
            return
        if self._clamp:
            limit = feedforward.model.effort_limit
            tau = np.clip(tau, -limit, limit)
        out = tau[feedforward.output]
        command = Float64MultiArray()
        command.data = out.tolist()
        self._commands.publish(command)
        if self._publish_joint_state:
            state = JointState()
            state.header.stamp = now.to_msg()
            state.name = feedforward.joints
            state.effort = command.data
            self._effort_states.publish(state)
        self._published += 1
        self._timing.add(time.perf_counter() - start)

    def _torque(self, feedforward: Feedforward) -> Optional[np.ndarray]:
        tau = self._rigid_torque(feedforward)
        if tau is None or self._friction == 'false':
            return tau
        if self._friction == 'measured':
            velocity = feedforward.state.qd
        else:   # the reference velocity (zero when holding still under gravity compensation)
            reference = feedforward.reference
            velocity = reference[1] if reference is not None else np.zeros(tau.shape)
        return tau + feedforward.model.friction_torques(velocity)

    def _rigid_torque(self, feedforward: Feedforward) -> Optional[np.ndarray]:
        model, q, qd = feedforward.model, feedforward.state.q, feedforward.state.qd
        if self._mode == 'gravity_compensation':
            return model.gravity_torques(q)
        reference = feedforward.reference
        if reference is None:
            self.get_logger().warning(f'mode {self._mode}: no reference received yet',
                                      throttle_duration_sec=5.0)
            return None
        if self._mode == 'inverse_dynamics':
            return model.inverse_dynamics(*reference)
        return computed_torque(model, q, qd, *reference, feedforward.kp, feedforward.kd)

    # ------------------------------------------------------------------ services
    @guarded
    def _inverse_dynamics(self, request, response):
        start = time.perf_counter()
        model, vectors = self._model_and_vectors()
        state = request.state
        names = state.name
        q = vectors.vector(names, state.position, 'state.position')
        friction = self._friction != 'false'
        if request.gravity_only:
            effort = model.gravity_torques(q)
            qd = np.zeros(model.dof)
            if friction:
                effort = effort + model.friction_torques(
                    vectors.vector(names, state.velocity, 'state.velocity', default=0.0))
        else:
            qd = vectors.vector(names, state.velocity, 'state.velocity', default=0.0)
            qdd = vectors.vector(names, request.accelerations, 'accelerations', default=0.0)
            wrenches = wrenches_from(request.external_wrenches)
            effort = model.inverse_dynamics(q, qd, qdd, wrenches or None, friction=friction)
        included = 'included at state.velocity' if friction else 'not included'
        response.message = (f'friction {included}; armature '
                            f'{"included" if model.armature.any() else "zero"}; '
                            f'payloads on {sorted(model.payloads) or "no link"}')
        response.joint_names = vectors.joint_name_list
        response.effort = doubles(effort)
        if request.want_gravity_torques:
            response.gravity_torques = model.gravity_torques(q).tolist()
        if request.want_bias_torques:
            response.bias_torques = model.bias_torques(q, qd).tolist()
        if request.want_mass_matrix:
            response.mass_matrix = matrix_message(model.mass_matrix(q))
        if request.want_coriolis_matrix:
            response.coriolis_matrix = matrix_message(model.coriolis_matrix(q, qd))
        self._service_timing.add(time.perf_counter() - start)
        return response

    @guarded
    def _forward_dynamics(self, request, response):
        model, vectors = self._model_and_vectors()
        state = request.state
        names = list(state.name)
        q = vectors.vector(names, state.position, 'state.position')
        qd = vectors.vector(names, state.velocity, 'state.velocity', default=0.0)
        tau = vectors.vector(names, state.effort, 'state.effort', default=0.0)
        wrenches = wrenches_from(request.external_wrenches)
        response.joint_names = list(model.joint_names)
        response.accelerations = model.forward_dynamics(q, qd, tau, wrenches or None).tolist()
        return response

    @guarded
    def _trajectory_dynamics(self, request, response):
        model = self._models.require()
        trajectory = request.trajectory
        if not trajectory.points:
            raise ValueError('trajectory: no points')
        vectors = JointVectorMap(model.joint_names)
        names = list(trajectory.joint_names)
        index = vectors.indices(names, 'trajectory.joint_names')
        rows = {'positions': [], 'velocities': [], 'accelerations': []}
        times = []
        for k, point in enumerate(trajectory.points):
            for field, rows_of in rows.items():
                default = None if field == 'positions' else 0.0
                rows_of.append(vectors.vector(names, getattr(point, field),
                                              f'points[{k}].{field}', default, index))
            times.append(point.time_from_start.sec + point.time_from_start.nanosec * 1e-9)
        q, qd, qdd = (np.array(rows[f]) for f in ('positions', 'velocities', 'accelerations'))
        efforts, reports, violations = trajectory_efforts(model, times, q, qd, qdd)
        response.joint_names = list(model.joint_names)
        response.times = times
        response.efforts = matrix_message(efforts)
        response.report = [JointActuatorReport(
            joint=r.joint, peak_effort=r.peak_effort, rms_effort=r.rms_effort,
            peak_velocity=r.peak_velocity, peak_power=r.peak_power,
            effort_limit=r.effort_limit, velocity_limit=r.velocity_limit) for r in reports]
        response.violations = [LimitViolation(
            joint=v.joint, point_index=v.index, time=v.time, kind=v.kind, value=v.value,
            limit=v.limit) for v in violations]
        return response

    # ------------------------------------------------------------------ diagnostics
    def _publish_diagnostics(self) -> None:
        values = {'mode': self._mode, 'published': self._published,
                  'skipped_stale': self._skipped_stale}
        values.update({f'stream_{k}': v for k, v in self._timing.summary().items()})
        values.update({f'service_{k}': v for k, v in self._service_timing.summary().items()})
        self._diagnostics.publish(diagnostics_message(self, self._models, 'dynamics', values,
                                                      self._stream_error))


main = main_for(InverseDynamicsNode)
