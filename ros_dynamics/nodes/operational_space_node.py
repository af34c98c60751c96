# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Operational-space dynamics service: ``~/operational_space`` (Khatib 1987).

Payloads at runtime: ``~/set_payload`` and the ``payload`` topic (nodes/payloads.py).

For a JointState and a task link (any URDF link, fixed-merged ones too) it
answers the pose, J, Jdot qd, Lambda, mu, p, J_bar and N of
``RobotModel.operational_space`` (matrices as Float64MultiArray [rows, cols],
row-major), and, when a task wrench F or a task acceleration a is given
(F = Lambda a + mu + p), the joint torque tau = J^T F + N^T tau0. Degenerate
tasks (fewer reachable directions than task rows, or near-singular) are
flagged with the regularisation used. Same model sources, validation and
diagnostics as the other nodes.
"""

import time

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import Pose
import numpy as np
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from ros_dynamics.nodes.base_state import BaseJoint
from ros_dynamics.nodes.common import (diagnostics_message, guarded, main_for, matrix_message,
                                       ModelSource, require_finite, Timing)
from ros_dynamics.nodes.joint_vectors import JointVectorMap
from ros_dynamics.nodes.parameters import checked, declare, NON_NEGATIVE, ParameterError
from ros_dynamics.nodes.payloads import PayloadInterface
from ros_dynamics.srv import OperationalSpace
from scipy.spatial.transform import Rotation


def pose_message(matrix: np.ndarray) -> Pose:
    """Return a 4x4 homogeneous transform as geometry_msgs/Pose."""
    pose = Pose()
    pose.position.x, pose.position.y, pose.position.z = (float(v) for v in matrix[:3, 3])
    x, y, z, w = Rotation.from_matrix(matrix[:3, :3]).as_quat()
    pose.orientation.x, pose.orientation.y = float(x), float(y)
    pose.orientation.z, pose.orientation.w = float(z), float(w)
    return pose


class OperationalSpaceNode(Node):
    """Serve task-space inertia, forces and projectors of any link."""

    def __init__(self) -> None:
        """Declare parameters, load the model, create the service."""
        super().__init__('operational_space')
        self._threshold = declare(
            self, 'singular_threshold', 1e-6,
            'a task counts as degenerate when the smallest eigenvalue of J M^-1 J^T is below '
            'this fraction of the largest (dimensionless, >= 0)', value_range=NON_NEGATIVE)
        self._damping = declare(
            self, 'damping', 1e-3,
            'damping of the regularised inverse of a degenerate task, relative to the largest '
            'eigenvalue (dimensionless, > 0)', value_range=NON_NEGATIVE, constraints='> 0')
        period = declare(self, 'diagnostics_period', 1.0, 'period of /diagnostics (s, > 0)',
                         read_only=True, value_range=NON_NEGATIVE, constraints='> 0')
        if not (self._threshold >= 0.0 and self._damping > 0.0):
            raise ValueError('singular_threshold must be >= 0 and damping > 0')
        self.add_on_set_parameters_callback(self._on_parameters)
        self._timing = Timing()
        self._models = ModelSource(self, strict=True, bases=True)
        self._base = None   # (model, its BaseJoint), nodes/base_state.py
        self._payloads = PayloadInterface(self, self._models)
        self._diagnostics = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.create_service(OperationalSpace, '~/operational_space', self._operational_space)
        self.create_timer(period, self._publish_diagnostics)

    def _on_parameters(self, parameters) -> SetParametersResult:
        try:   # values as declared (an integer for a double), refused with the reason
            values = {p.name: checked(self, p.name, p.value) for p in parameters}
        except ParameterError as error:
            return SetParametersResult(successful=False, reason=str(error))
        threshold = float(values.get('singular_threshold', self._threshold))
        damping = float(values.get('damping', self._damping))
        if not damping > 0.0:
            return SetParametersResult(successful=False, reason='damping must be > 0')
        self._threshold, self._damping = threshold, damping
        return SetParametersResult(successful=True)

    @guarded
    def _operational_space(self, request, response):
        start = time.perf_counter()
        model = self._models.require()
        cached = self._base
        if cached is None or cached[0] is not model:
            cached = self._base = (model, BaseJoint(model))
        base = cached[1]   # the actuated joints in the joint vectors, the base in base_*
        vectors = JointVectorMap(base.actuated)
        names = list(request.state.name)
        q = base.configuration(vectors.vector(names, request.state.position, 'state.position'),
                               request.base_pose)
        qd = base.velocity(vectors.vector(names, request.state.velocity, 'state.velocity',
                                          default=0.0), request.base_twist, 'base_twist')
        axes = list(request.axes) or None
        space = model.operational_space(
            q, qd, request.link, frame=request.frame or 'world_aligned', axes=axes,
            reference_link=request.reference_link or None,
            singular_threshold=self._threshold, damping=self._damping)
        require_finite(pose=space.pose, jacobian_dot_qd=space.jdot_qd, task_inertia=space.Lambda,
                       mu=space.mu, p=space.p)
        rows = list(space.axes)
        response.joint_names, response.base_dof = list(base.actuated), base.nv_base
        response.pose = pose_message(space.pose)
        response.jacobian = matrix_message(space.J)
        response.jacobian_dot_qd = space.jdot_qd.tolist()
        response.task_inertia = matrix_message(space.Lambda)
        response.mu = space.mu.tolist()
        response.p = space.p.tolist()
        response.dynamically_consistent_inverse = matrix_message(space.J_bar)
        response.null_space_projector = matrix_message(space.N)
        response.degenerate = space.degenerate
        response.regularization = space.regularization
        response.friction_included = False   # no friction_compensation here: effort is rigid-body
        response.armature_included = bool(model.armature.any())
        if request.has_wrench and request.has_acceleration:
            raise ValueError('give a task wrench or a task acceleration, not both')
        force = None
        if request.has_wrench:
            f, t = request.wrench.force, request.wrench.torque
            force = np.array([f.x, f.y, f.z, t.x, t.y, t.z])[rows]
        elif request.has_acceleration:
            force = space.task_force(list(request.acceleration))
            require_finite(**{'the task force Lambda a + mu + p': force})
        if force is not None:
            tau0 = base.generalized(vectors.vector(list(request.null_space_joint_names),
                                                   request.null_space_torque,
                                                   'null_space_torque', default=0.0))
            effort = space.joint_torque(force, tau0)
            response.effort = base.joints(effort).tolist()
            response.base_wrench = base.wrench(effort)
        self._timing.add(time.perf_counter() - start)
        return response

    def _publish_diagnostics(self) -> None:
        values = {f'service_{k}': v for k, v in self._timing.summary().items()}
        self._diagnostics.publish(diagnostics_message(self, self._models, 'operational space',
                                                      values))


main = main_for(OperationalSpaceNode)
