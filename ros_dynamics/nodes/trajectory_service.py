# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
``~/trajectory_dynamics`` of the inverse-dynamics node: efforts along a JointTrajectory.

One batched RNEA over the points (``actuator_report.trajectory_efforts``:
efforts, a report per joint, the points over the URDF effort or velocity
limits). With a floating or planar base (nodes/base_state.py) the joint
vectors are the actuated joints' and the base comes per point from
``base_poses``, ``base_twists`` and ``base_accelerations``; the answer's
``base_wrenches`` are the base rows of the efforts, per point.
"""

from types import SimpleNamespace

import numpy as np
from ros_dynamics.control.actuator_report import trajectory_efforts
from ros_dynamics.msg import JointActuatorReport, LimitViolation
from ros_dynamics.nodes.base_state import BaseJoint
from ros_dynamics.nodes.common import matrix_message
from ros_dynamics.nodes.joint_vectors import JointVectorMap


def trajectory_dynamics(model, vectors: JointVectorMap, base: BaseJoint, request, response,
                        friction: bool):
    """
    Fill a TrajectoryDynamics response for ``request``; raise ValueError for a bad request.

    vectors: the name map of ``base.actuated``; friction: add the model's
    joint friction at each point's velocities.
    """
    trajectory = request.trajectory
    if not trajectory.points:
        raise ValueError('trajectory: no points')
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
    efforts, reports, violations, response.base_wrenches = efforts_with_base(
        base, times, q, qd, qdd, friction, request)
    response.friction_included = friction
    response.armature_included = bool(model.armature.any())
    response.joint_names = vectors.joint_name_list
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


def efforts_with_base(base: BaseJoint, times, q, qd, qdd, friction: bool, request) -> tuple:
    """
    Return (efforts, reports, violations, base wrenches) along a trajectory.

    ``actuator_report.trajectory_efforts`` on the actuated joints: q, qd,
    qdd (N, actuated) in ``base.actuated`` order, the base per point from the
    request's ``base_poses``, ``base_twists`` and ``base_accelerations``
    (``BaseJoint.base_states``); the base wrenches are the base rows of the
    rigid-body efforts (one geometry_msgs/Wrench per point; none for a fixed
    base).
    """
    model = base.model
    if not base.kind:
        return trajectory_efforts(model, times, q, qd, qdd, friction) + ([],)
    q_base, v_base, a_base = base.base_states(q.shape[0], request.base_poses,
                                              request.base_twists, request.base_accelerations)
    rigid_rows = []

    def rigid(q, qd, qdd):
        tau = model.inverse_dynamics(base.join(q_base, q, base.q_index, model.nq),
                                     base.join(v_base, qd, base.v_index, model.nv),
                                     base.join(a_base, qdd, base.v_index, model.nv))
        rigid_rows.append(tau)
        return base.joints(tau)

    index = base.v_index
    actuated = SimpleNamespace(   # what trajectory_efforts reads of a model
        joint_names=base.actuated, effort_limit=model.effort_limit[index],
        velocity_limit=model.velocity_limit[index],
        friction_torques=lambda qd: base.joints(model.friction_torques(base.generalized(qd))))
    efforts, reports, violations = trajectory_efforts(actuated, times, q, qd, qdd, friction,
                                                      rigid)
    return efforts, reports, violations, [base.wrench(tau) for tau in rigid_rows[0]]
