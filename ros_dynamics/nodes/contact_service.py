# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
``~/contact_inverse_dynamics``: contact-consistent inverse dynamics of a given state.

The request carries a state (the actuated joints by name, the base pose and
twist as ``~/inverse_dynamics`` takes them: nodes/base_state.py), the desired
accelerations (joints, and the base's as a spatial acceleration in the base
frame) and the active contacts (``ContactSpec``: link frame, kind, point in
the link, friction coefficient, bilateral, sole); the answer is what
``RobotModel.contact_inverse_dynamics`` (ros_dynamics.contacts.inverse)
returns: the actuated joints' torques, the contact forces, whether a
friction, unilateral or centre-of-pressure limit is active and whether the
desired acceleration had to be replaced by the closest feasible one
(``limited``). The equations are those of Featherstone, *Rigid Body
Dynamics Algorithms* (2008), ch. 8, M qdd + b = S^T tau + J^T f,
J qdd + gamma = 0, with the contact QP of TSID (Del Prete et al. 2016)
described in docs/contacts.md.

Each contact force goes out as a ``geometry_msgs/WrenchStamped`` in the
core's convention (Pinocchio's LOCAL_WORLD_ALIGNED): world axes
(``header.frame_id``: the node's ``world_frame``, the frame the base pose is
given in), the force (N) at the contact point for a point contact (torque
zero), the force and the moment (N m) about the contact frame's origin for a
6D contact; ``contact_points`` gives where each applies (m, world). The
unactuated coordinates are the base's (none for a fixed base).

A request the core cannot answer (an unknown frame, a friction <= 0, NaN,
a sole on a point contact, no acceleration holding the contacts) raises
``ValueError`` naming the request field (``contacts[2].friction``), which the
node's ``guarded`` wrapper turns into ``success: false`` with that message.
"""

import math
from typing import Sequence

from geometry_msgs.msg import Point, WrenchStamped
import numpy as np
from ros_dynamics.contacts import Contact
from ros_dynamics.nodes.common import doubles
from ros_dynamics.runtime.batches import did_you_mean

KINDS = ('point', '6d')
DEFAULT_FACETS = 4   # friction_facets 0 in a request
MAX_FACETS = 64      # a pyramid of 64 faces is within 0.12 % of the cone
CACHED_CONTACTS = 256   # distinct ContactSpec values kept (contact_from)
_CONTACTS: dict = {}


def contact_from(spec, links: Sequence[str], field: str) -> Contact:
    """
    Return the ``Contact`` of a ``ContactSpec`` message, or raise ValueError naming ``field``.

    links: the model's link names (``RobotModel.link_names``); field: the
    request field the message came in (``contacts[k]``). A point contact's
    normal is the world's +z; a 6D contact's the link frame's z axis.

    The same fields give the same (immutable) Contact object, kept in a
    bounded cache: its friction pyramid and the compiled contact rows are
    built once per contact set (ros_dynamics.contacts.forward.compiled_call
    binds per set of Contact objects), not once per request.
    """
    frame = spec.frame
    if frame not in links:
        raise ValueError(f'{field}.frame: {frame!r} is not a link of the model'
                         f'{did_you_mean(frame, tuple(links))}')
    key = (frame, spec.kind, spec.position.x, spec.position.y, spec.position.z,
           spec.friction, spec.bilateral, tuple(spec.sole))
    contact = _CONTACTS.get(key)   # NaN never matches: such fields go on to be refused
    if contact is None:
        contact = _contact(spec, field)
        if len(_CONTACTS) >= CACHED_CONTACTS:
            _CONTACTS.clear()
        _CONTACTS[key] = contact
    return contact


def _contact(spec, field: str) -> Contact:
    """Return ``contact_from``'s Contact, checking every field but the frame."""
    frame = spec.frame
    kind = spec.kind or 'point'
    if kind not in KINDS:
        raise ValueError(f'{field}.kind: expected one of {", ".join(KINDS)} (or empty: point), '
                         f'got {spec.kind!r}')
    position = (spec.position.x, spec.position.y, spec.position.z)
    if not all(map(math.isfinite, position)):
        raise ValueError(f'{field}.position: contains NaN or Inf ({list(position)})')
    friction = float(spec.friction)
    if spec.bilateral:
        if friction != 0.0 or len(spec.sole):
            raise ValueError(f'{field}.friction, {field}.sole: a bilateral contact has no '
                             f'friction or sole limit (give friction 0 and no sole), got '
                             f'friction {friction!r} and {len(spec.sole)} sole values')
        limit = None
    elif not (math.isfinite(friction) and friction > 0.0):
        raise ValueError(f'{field}.friction: a unilateral contact needs a finite friction '
                         f'coefficient > 0 (or bilateral true), got {friction!r}')
    else:
        limit = friction
    sole = None
    if len(spec.sole):
        if kind != '6d':
            raise ValueError(f'{field}.sole: applies to a 6d contact only (kind {kind!r})')
        if len(spec.sole) != 4 or not all(map(math.isfinite, spec.sole)):
            raise ValueError(f'{field}.sole: expected 4 finite numbers [x_min, x_max, y_min, '
                             f'y_max] (m), got {list(spec.sole)}')
        sole = tuple(spec.sole)
    try:
        return Contact(frame, kind, position=position, friction=limit, sole=sole,
                       bilateral=bool(spec.bilateral))
    except ValueError as error:   # e.g. a sole that does not contain the origin
        raise ValueError(f'{field}: {error}') from None


def contacts_from(specs: Sequence, links: Sequence[str], field: str = 'contacts') -> tuple:
    """Return the ``Contact`` tuple of a request's ``ContactSpec`` list (ValueError naming it)."""
    return tuple(contact_from(spec, links, f'{field}[{k}]') for k, spec in enumerate(specs))


def wrench_message(force: np.ndarray, frame_id: str, stamp) -> WrenchStamped:
    """Return a contact's force (3,) or wrench (6,) (N, N m; world axes) as a WrenchStamped."""
    message = WrenchStamped()
    message.header.frame_id = frame_id
    message.header.stamp = stamp
    wrench = message.wrench
    wrench.force.x, wrench.force.y, wrench.force.z = (float(f) for f in force[:3])
    if force.shape[0] == 6:
        wrench.torque.x, wrench.torque.y, wrench.torque.z = (float(f) for f in force[3:])
    return message


def application_point(model, q: np.ndarray, contact: Contact) -> Point:
    """Return where ``contact``'s force applies at q: its point in the world (m)."""
    pose = model.link_pose(q, contact.frame)
    x, y, z = pose[:3, :3] @ contact.position + pose[:3, 3]
    return Point(x=float(x), y=float(y), z=float(z))


def contact_inverse_dynamics(model, vectors, base, request, response, frame_id: str, stamp):
    """
    Fill ``response`` (ContactInverseDynamics) with the answer to ``request`` and return it.

    model: the RobotModel; vectors: the JointVectorMap of its actuated
    joints; base: its BaseJoint (nodes/base_state.py); frame_id: the
    wrenches' ``header.frame_id``; stamp: their ``header.stamp``
    (builtin_interfaces/Time). Raises ValueError naming the request field.
    """
    state, names = request.state, request.state.name
    q = base.configuration(vectors.vector(names, state.position, 'state.position'),
                           request.base_pose)
    v = base.velocity(vectors.vector(names, state.velocity, 'state.velocity', default=0.0),
                      request.base_twist, 'base_twist')
    qdd = base.velocity(vectors.vector(names, request.accelerations, 'accelerations',
                                       default=0.0),
                        request.base_acceleration, 'base_acceleration')
    contacts = contacts_from(request.contacts, model.link_names)
    facets = int(request.friction_facets) or DEFAULT_FACETS
    if not 3 <= facets <= MAX_FACETS:   # each facet is a row of the QP per contact
        raise ValueError(f'friction_facets: expected 0 (= {DEFAULT_FACETS}) or an integer in '
                         f'[3, {MAX_FACETS}], got {facets}')
    try:
        answer = model.contact_inverse_dynamics(q, v, qdd, contacts,
                                                unactuated=[base.name] if base.kind else [],
                                                friction_facets=facets)
    except ImportError as error:   # the QP solver (the contacts extra) is not installed
        raise RuntimeError(str(error)) from None
    response.joint_names = vectors.joint_name_list
    response.effort = doubles(base.joints(answer.tau))
    response.accelerations = doubles(base.joints(answer.qdd))
    response.base_acceleration = base.accel(answer.qdd)
    response.limited, response.limit_active = bool(answer.limited), bool(answer.active)
    wrenches, row = [], 0
    for contact in contacts:
        wrenches.append(wrench_message(answer.forces[row:row + contact.size], frame_id, stamp))
        row += contact.size
    response.contact_wrenches = wrenches
    response.contact_points = [application_point(model, q, c) for c in contacts]
    response.message = describe(answer, contacts)
    return response


def describe(answer, contacts: Sequence[Contact]) -> str:
    """Return the answer's message: the contact set and what was limited or active."""
    frames = ', '.join(c.frame for c in contacts) or 'none'
    if answer.limited:
        return (f'contacts {frames}: limited: the desired acceleration cannot be realised with '
                'these contacts within their limits; effort and the contact wrenches realise '
                'the closest feasible acceleration (accelerations, base_acceleration)')
    active = 'a friction, unilateral or sole limit is active' if answer.active else \
        'no limit active'
    return f'contacts {frames}: the desired acceleration is realised; {active}'
