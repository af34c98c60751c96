# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
``~/inverse_dynamics`` and ``~/forward_dynamics`` of the inverse-dynamics node.

Each fills its response from the request and the node's model, like trajectory_service.py and
contact_service.py: the state's joints by name (the actuated joints of a floating or planar
base, whose pose, twist and acceleration come in their own fields: nodes/base_state.py),
external wrenches on links (``LinkWrench``: force N, torque N m at the link origin, world
axes). Inverse dynamics is RNEA, tau = M(q) qdd + C(q, qd) qd + g(q) - sum J_i^T f_i
(Featherstone 2008, table 5.1); forward dynamics is ABA (table 7.1), qdd = M^-1 (tau - C qd -
g + sum J_i^T f_i). With friction, the model's joint friction at the request's velocity is
added to the effort (inverse) or taken off the given efforts (forward). A bad request raises
ValueError naming the field, which the node's ``guarded`` wrapper answers with
``success: false``.
"""

import numpy as np
from ros_dynamics.nodes.base_state import BaseJoint
from ros_dynamics.nodes.common import doubles, matrix_message
from ros_dynamics.nodes.joint_vectors import JointVectorMap


def wrenches_from(link_wrenches) -> dict:
    """Return {link: [f; t]} (6,) from LinkWrench messages (names checked by the core)."""
    out = {}
    for item in link_wrenches:
        f, t = item.wrench.force, item.wrench.torque
        out[item.link] = np.array([f.x, f.y, f.z, t.x, t.y, t.z])
    return out


def inverse_dynamics(model, vectors: JointVectorMap, base: BaseJoint, request, response,
                     friction: bool):
    """
    Fill an InverseDynamics response: the efforts, and on request g, C qd + g, M and C.

    vectors: the name map of ``base.actuated``; friction: add the model's joint friction at
    ``state.velocity``. Joint vectors in the response are the actuated joints'; the base's
    rows of the effort are ``base_wrench`` (its frame).
    """
    state = request.state
    names = state.name
    q = base.configuration(vectors.vector(names, state.position, 'state.position'),
                           request.base_pose)
    if request.gravity_only:
        effort = model.gravity_torques(q)
        qd = np.zeros(model.dof)
        if friction:
            effort = effort + model.friction_torques(base.velocity(vectors.vector(
                names, state.velocity, 'state.velocity', default=0.0), request.base_twist,
                'base_twist'))
    else:
        qd = base.velocity(vectors.vector(names, state.velocity, 'state.velocity',
                                          default=0.0), request.base_twist, 'base_twist')
        qdd = base.velocity(vectors.vector(names, request.accelerations, 'accelerations',
                                           default=0.0),
                            request.base_acceleration, 'base_acceleration')
        wrenches = wrenches_from(request.external_wrenches)
        effort = model.inverse_dynamics(q, qd, qdd, wrenches or None, friction=friction)
    included = 'included at state.velocity' if friction else 'not included'
    armature = bool(model.armature.any())
    response.message = (f'friction {included}; armature '
                        f'{"included" if armature else "zero"}; '
                        f'payloads on {sorted(model.payloads) or "no link"}')
    response.friction_included = friction
    # g(q) alone has no armature term; M has it
    response.armature_included = armature and (not request.gravity_only
                                               or request.want_mass_matrix)
    response.joint_names = vectors.joint_name_list
    response.effort = doubles(base.joints(effort))
    response.base_wrench, response.base_dof = base.wrench(effort), base.nv_base
    if request.want_gravity_torques:
        response.gravity_torques = base.joints(model.gravity_torques(q)).tolist()
    if request.want_bias_torques:
        response.bias_torques = base.joints(model.bias_torques(q, qd)).tolist()
    if request.want_mass_matrix:
        response.mass_matrix = matrix_message(model.mass_matrix(q))
    if request.want_coriolis_matrix:
        response.coriolis_matrix = matrix_message(model.coriolis_matrix(q, qd))
    return response


def forward_dynamics(model, vectors: JointVectorMap, base: BaseJoint, request, response,
                     friction: bool):
    """
    Fill a ForwardDynamics response: the accelerations of ``state.effort`` (+ wrenches).

    The base is not actuated (zero generalised force on its rows); its acceleration is
    ``base_acceleration``. friction: the motors' efforts lose the model's friction at qd.
    """
    state = request.state
    names = list(state.name)
    q = base.configuration(vectors.vector(names, state.position, 'state.position'),
                           request.base_pose)
    qd = base.velocity(vectors.vector(names, state.velocity, 'state.velocity', default=0.0),
                       request.base_twist, 'base_twist')
    tau = base.generalized(vectors.vector(names, state.effort, 'state.effort', default=0.0))
    wrenches = wrenches_from(request.external_wrenches)
    if friction:
        tau = tau - model.friction_torques(qd)
    response.joint_names = vectors.joint_name_list
    qdd = model.forward_dynamics(q, qd, tau, wrenches or None)
    response.accelerations, response.base_acceleration = (base.joints(qdd).tolist(),
                                                          base.accel(qdd))
    response.friction_included = friction
    response.armature_included = bool(model.armature.any())
    return response
