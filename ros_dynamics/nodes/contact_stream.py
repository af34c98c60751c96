# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The inverse-dynamics stream with contacts: a legged robot held on its feet.

Parameters of ``inverse_dynamics_node`` (docs/contacts.md, "Over ROS"):

* ``contacts`` (string list, default none): the link frames that may touch
  the world (a quadruped's feet). When set, every command of the stream is
  the contact-consistent inverse dynamics of the current state
  (``RobotModel.contact_inverse_dynamics``) with the active contacts: the
  actuated joints' torques that, with contact forces inside the friction
  pyramids, realise the mode's acceleration (below) with the base's
  acceleration zero. The base state comes from ``odometry_topic``
  (nodes/base_stream.py), the joints from ``joint_states``;
* ``contact_kind``: ``point`` (a foot: its origin held, 3 force rows,
  normal world +z) or ``6d`` (a flat sole: the frame held, 6 rows, normal
  the frame's z axis), for every contact;
* ``contact_friction``: the Coulomb coefficient mu > 0 of every contact
  (the inscribed pyramid of 4 facets, docs/contacts.md);
* ``world_frame``: ``header.frame_id`` of ``~/contact_inverse_dynamics``'s
  wrenches (nodes/contact_service.py), the frame of the base pose.

The desired acceleration of the actuated joints per ``mode``: zero in
``gravity_compensation``, or -kd qd with ``kd`` (the joint damping of that
mode); qdd_ref + kd (qd_ref - qd) + kp (q_ref - q) in ``computed_torque``
(computed torque's acceleration, measured state); the reference state and
acceleration in ``inverse_dynamics``. With every foot on the ground the
joints' accelerations are fixed by the base's (J qdd + gamma = 0), so a
non-zero desired joint acceleration is generally not realisable: the core
then returns the closest feasible one (``limited``, counted in the
diagnostics as ``contact_limited``). The torques are those of Featherstone,
*Rigid Body Dynamics Algorithms* (2008), ch. 8, with the QP of TSID (Del
Prete et al. 2016): M qdd + b = S^T tau + J^T f.

The topic ``~/contacts`` (``std_msgs/String``, reliable): the active subset
of ``contacts`` as frame names separated by spaces or commas, as a gait
publishes it at each touchdown and lift-off (``'FL_FOOT HR_FOOT'``; an empty
string: no foot on the ground). A name not in ``contacts`` or named twice
refuses the message (warning, ``contact_switches_refused``) and the active
set stays. Setting ``contacts``, ``contact_kind`` or ``contact_friction``
makes every contact of ``contacts`` active again (other parameters' sets
keep the active set). A parameter mistake at start-up (an unknown frame,
mu <= 0, ``include_gravity`` false with contacts) is one ``[ERROR]`` line
and exit status 1; at runtime the set is refused with the reason.
"""

import math
import threading
from typing import Callable, Optional

import numpy as np
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from ros_dynamics.contacts import Contact
from ros_dynamics.control.impedance import wrap_angles
from ros_dynamics.nodes.base_state import BaseJoint
from ros_dynamics.nodes.parameters import (checked, declare, guard_parameters, NON_NEGATIVE,
                                           ParameterError)
from ros_dynamics.runtime.batches import did_you_mean
from std_msgs.msg import String

KINDS = ('point', '6d')
NAMES = ('contacts', 'contact_kind', 'contact_friction', 'include_gravity')


def contact_set(frames, kind: str, friction: float, links) -> dict:
    """
    Return {frame: Contact} of the ``contacts`` parameters, or raise ValueError naming them.

    frames: link names (no duplicate); kind: 'point' or '6d'; friction: mu
    (> 0, finite); links: the model's link names, or None (not checked).
    """
    if kind not in KINDS:
        raise ValueError(f'contact_kind: {kind!r} is not one of {", ".join(KINDS)}')
    if not (math.isfinite(friction) and friction > 0.0):
        raise ValueError(f'contact_friction: must be a finite coefficient > 0, got {friction!r}')
    out = {}
    for frame in frames:
        if frame in out:
            raise ValueError(f'contacts: {frame!r} appears twice')
        if links is not None and frame not in links:
            raise ValueError(f'contacts: {frame!r} is not a link of the model'
                             f'{did_you_mean(frame, tuple(links))}')
        out[frame] = Contact(frame, kind, friction=friction)
    return out


class ContactStream:
    """The contact parameters and topic of the stream, and its torque (module doc)."""

    def __init__(self, node: Node, model: Callable) -> None:
        """
        Declare the parameters (ParameterError for a bad value) and hook their runtime sets.

        model: a callable returning the node's current RobotModel or None.
        """
        self._node, self._model = node, model
        self.frames = tuple(f for f in declare(
            node, 'contacts', [''],
            "link frames that may touch the world (a legged robot's feet); when set, the stream "
            'sends the contact-consistent inverse dynamics of the current state with the active '
            'ones (~/contacts switches them); [] or [""] = none, the stream without contacts',
            flexible=True) if f)
        self.kind = declare(node, 'contact_kind', 'point',
                            'kind of every contact of contacts: point (the frame origin held, '
                            '3 force rows, normal world +z) or 6d (the frame held, 6 rows, '
                            "normal the frame's z axis)", constraints='one of point, 6d')
        self.friction = declare(node, 'contact_friction', 0.7,
                                'Coulomb friction coefficient of every contact of contacts '
                                '(friction pyramid of 4 facets)', value_range=NON_NEGATIVE,
                                constraints='> 0')
        self.world_frame = declare(node, 'world_frame', 'world',
                                   'header.frame_id of the contact wrenches of '
                                   '~/contact_inverse_dynamics: the frame of the base pose',
                                   read_only=True)
        try:
            self._all = contact_set(self.frames, self.kind, self.friction, None)
        except ValueError as error:   # one [ERROR] line and exit 1 (process.main_for)
            raise ParameterError(f'parameter {error}', node.get_logger().name) from None
        self.active = tuple(self._all.values())
        self._base: Optional[BaseJoint] = None
        self._checked = None   # the model the contacts were checked against
        self._lock = threading.Lock()
        self._subscribed = False
        self.counts = {'contact_answers': 0, 'contact_limited': 0, 'contact_failed': 0,
                       'contact_switches': 0, 'contact_switches_refused': 0}
        node.add_on_set_parameters_callback(guard_parameters(self._check_set))
        node.add_post_set_parameters_callback(self._apply_set)

    @property
    def enabled(self) -> bool:
        """Return True when ``contacts`` names frames: the stream is contact-consistent."""
        return bool(self.frames)

    def configure(self, model, include_gravity: bool) -> None:
        """Check the contacts against a newly loaded ``model`` (ValueError naming a parameter)."""
        if not self.enabled:
            return
        if not include_gravity:
            raise ValueError('contacts: the contact-consistent stream carries the robot with '
                             'gravity; include_gravity false cannot go with it')
        if model is not self._checked:   # a new model (the node reconfigures on every set)
            contacts = contact_set(self.frames, self.kind, self.friction, model.link_names)
            with self._lock:   # the gait's active set stays through other parameters' sets
                self._all, self._checked = contacts, model
                self._base = BaseJoint(model)
                self.active = tuple(contacts.values())
        self._subscribe()

    def _subscribe(self) -> None:
        if not self._subscribed:   # created once contacts are used, as the node's other topics
            self._subscribed = True
            self._node.create_subscription(String, '~/contacts', self._on_contacts,
                                           QoSProfile(depth=10,
                                                      reliability=ReliabilityPolicy.RELIABLE))

    # ------------------------------------------------------------------ runtime changes
    def _values(self, parameters, names: tuple = NAMES) -> Optional[dict]:
        """Return the contact parameters after ``parameters``, None if none of ``names`` is set."""
        changes = {p.name: checked(self._node, p.name, p.value) for p in parameters
                   if p.name in NAMES}
        if not any(name in changes for name in names):
            return None
        values = {'contacts': self.frames, 'contact_kind': self.kind,
                  'contact_friction': self.friction,
                  'include_gravity': self._node.get_parameter('include_gravity').value}
        values.update(changes)
        values['contacts'] = tuple(f for f in values['contacts'] if f)
        return values

    def _check_set(self, parameters) -> SetParametersResult:
        values = self._values(parameters)
        if values is not None:
            model = self._model()
            contact_set(values['contacts'], values['contact_kind'],
                        float(values['contact_friction']),
                        None if model is None else model.link_names)
            if values['contacts'] and not values['include_gravity']:
                raise ValueError('include_gravity: false cannot go with contacts (the '
                                 'contact-consistent stream carries the robot with gravity)')
        return SetParametersResult(successful=True)

    def _apply_set(self, parameters) -> None:
        values = self._values(parameters, NAMES[:3])   # include_gravity alone changes nothing
        if values is None:
            return
        model = self._model()
        with self._lock:
            self.frames, self.kind = values['contacts'], values['contact_kind']
            self.friction = float(values['contact_friction'])
            self._all = contact_set(self.frames, self.kind, self.friction,
                                    None if model is None else model.link_names)
            self.active = tuple(self._all.values())
            if model is not None:
                self._base, self._checked = BaseJoint(model), model
        if self.enabled:
            self._subscribe()

    def _on_contacts(self, message: String) -> None:
        """Switch the active contacts to the frames named in ``message.data`` (module doc)."""
        names = message.data.replace(',', ' ').split()
        with self._lock:
            unknown = [n for n in names if n not in self._all]
            if unknown or len(set(names)) != len(names):
                self.counts['contact_switches_refused'] += 1
                why = (f'{", ".join(map(repr, unknown))} not in the contacts parameter '
                       f'({", ".join(self.frames) or "none"})' if unknown else 'a frame twice')
                self._node.get_logger().warning(
                    f'~/contacts: refused {message.data!r}: {why}; the active contacts stay',
                    throttle_duration_sec=2.0)
                return
            self.active = tuple(self._all[n] for n in names)
            self.counts['contact_switches'] += 1

    # ------------------------------------------------------------------ the stream's torque
    def torque(self, feedforward, q: np.ndarray, qd: np.ndarray,
               qdd: np.ndarray) -> Optional[np.ndarray]:
        """
        Return the actuated joints' torques (N m or N, (dof,)) holding the active contacts.

        feedforward: the node's Feedforward (its model: the RobotModel, or the
        ActuatedModel of a base with the odometry's state); q, qd, qdd (dof,):
        the actuated joints' positions, velocities and desired accelerations.
        The base's desired acceleration is zero. None (and a warning) when the
        core finds no acceleration holding the contacts.
        """
        model = feedforward.model
        base = self._base
        if feedforward.base is not None:   # an ActuatedModel: the odometry's base state
            robot = model.model
            q, v = model.full_state(q, qd)
        else:
            robot, v = model, qd
        if base is None or base.model is not robot:
            base = self._base = BaseJoint(robot)
        a = base.join(np.zeros(base.nv_base), qdd, base.v_index, robot.nv)
        try:
            answer = robot.contact_inverse_dynamics(q, v, a, self.active,
                                                    unactuated=[base.name] if base.kind else [])
        except (ValueError, ImportError) as error:
            self.counts['contact_failed'] += 1
            self._node.get_logger().warning(f'no command: {error}', throttle_duration_sec=5.0)
            return None
        self.counts['contact_answers'] += 1
        self.counts['contact_limited'] += bool(answer.limited)
        return base.joints(answer.tau)

    def tracking(self, feedforward, mode: str, q: np.ndarray, qd: np.ndarray,
                 reference: tuple) -> Optional[np.ndarray]:
        """
        Return ``torque`` for the reference modes (module doc): q, qd measured (dof,).

        reference: (q_ref, qd_ref, qdd_ref), each (dof,), unlisted joints at q.
        """
        q_ref, qd_ref, qdd_ref = reference
        if mode == 'inverse_dynamics':
            return self.torque(feedforward, q_ref, qd_ref, qdd_ref)
        error = wrap_angles(q_ref - q, feedforward.model.continuous)
        return self.torque(feedforward, q, qd,
                           qdd_ref + feedforward.kd * (qd_ref - qd) + feedforward.kp * error)

    def summary(self) -> dict:
        """Return the diagnostics' values: the active contacts and the counts."""
        if not self.enabled:
            return {}
        return dict(self.counts, contacts_active=' '.join(c.frame for c in self.active))
