# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The inverse-dynamics node's feedforward torque: the stream's index maps, reference and law.

On every joint state the node (nodes/inverse_dynamics_node.py) sends the torque of its
``mode`` (joint space, N m or N, model order; the node reorders it by ``joints``):

* ``gravity_compensation``: tau = g(q) - M(q) Kd qd (``kd`` 0 by default: g(q));
* ``inverse_dynamics``: tau = RNEA(q_ref, qd_ref, qdd_ref) (Featherstone 2008, table 5.1);
* ``computed_torque``: tau = M(q) (qdd_ref + Kd (qd_ref - qd) + Kp (q_ref - q)) + C qd + g
  (Craig, *Introduction to Robotics*, 3rd ed., section 10.6; ros_dynamics.control.impedance).

The damping term of ``gravity_compensation`` (Kd = diag(``kd``), 1/s, qd the measured
velocity) is computed-torque's velocity feedback with a zero reference velocity and no
Coriolis term: under exact gravity compensation the kinetic energy T = qd^T M qd / 2 then
obeys dT/dt = -qd^T M Kd qd (the skew symmetry of dM/dt - 2 C cancels the rest), so with one
gain for every joint T(t) = T(0) exp(-2 kd t): a disturbed arm comes to rest with the time
constant 1 / kd whatever its pose, where the pure g(q) keeps any momentum it is given.
``friction_compensation`` ``reference`` (``measured``) adds the model's joint friction
(RobotModel.friction_torques) at the reference (measured) velocity in every mode. With
contacts (nodes/contact_stream.py) the contact-consistent torques replace these.

The compiled stream (nodes/gravity_stream.py) answers the usual message of
``gravity_compensation`` without this module; everything else comes here.
"""

import math
from typing import Optional

import numpy as np
from ros_dynamics.control.impedance import computed_torque
from ros_dynamics.nodes import gravity_stream
from ros_dynamics.nodes.joint_vectors import JointStateBuffer, JointVectorMap
from ros_dynamics.nodes.stale import ON_STALE

MODES = ('gravity_compensation', 'inverse_dynamics', 'computed_torque')
UNLISTED = ('hold', 'require', 'ignore')
FRICTION_COMPENSATION = ('false', 'reference', 'measured')


def check_values(values: dict) -> str:
    """
    Return what is wrong with the stream's parameters (``parameter: why``), or ''.

    values: ``mode``, ``state_timeout`` (s), ``on_stale``, ``unlisted_joints``,
    ``include_gravity`` and ``friction_compensation``, by their parameter names.
    """
    mode, timeout = values['mode'], float(values['state_timeout'])
    if mode not in MODES:
        return f'mode: {mode!r} is not one of {", ".join(MODES)}'
    if not (math.isfinite(timeout) and timeout > 0.0):
        return f'state_timeout: must be > 0 s, got {timeout}'
    if values['on_stale'] not in ON_STALE:
        return f'on_stale: {values["on_stale"]!r} is not one of {", ".join(ON_STALE)}'
    if values['unlisted_joints'] not in UNLISTED:
        return (f'unlisted_joints: {values["unlisted_joints"]!r} is not one of '
                f'{", ".join(UNLISTED)}')
    if mode == 'gravity_compensation' and not values['include_gravity']:
        return ('include_gravity false in mode gravity_compensation leaves nothing to send; '
                'use inverse_dynamics or computed_torque')
    friction = str(values['friction_compensation']).lower()
    if friction not in FRICTION_COMPENSATION:
        return (f'friction_compensation: {friction!r} is not one of '
                f'{", ".join(FRICTION_COMPENSATION)}')
    return ''


class Feedforward:
    """
    Precomputed index maps of the stream for one model and one ``joints`` list.

    ``joints`` may be a subset of the model's joints (a ros2_control
    controller's arm joints without the gripper's): the others (``unlisted``)
    are ``hold`` (their latest received position, 0 clamped into their limits
    until one arrives; they never make the state stale), ``require`` (they
    must be fresh in ``joint_states`` like the listed ones) or ``ignore``
    (always 0 clamped into their limits).
    """

    def __init__(self, model, joints: list, kp: list, kd: list,
                 unlisted: str = 'hold') -> None:
        """Check ``joints``, ``unlisted`` and the gains against the model and build the maps."""
        if unlisted not in UNLISTED:
            raise ValueError(f'unlisted_joints: {unlisted!r} is not one of {", ".join(UNLISTED)}')
        self.model = model   # a RobotModel, or the ActuatedModel of a base (nodes/base_stream.py)
        self.base = getattr(model, 'odometry', None)
        self.vectors = JointVectorMap(model.joint_names)
        self.joints = list(joints) or list(model.joint_names)
        self.output = self.vectors.indices(self.joints, 'joints')
        self.output_index = np.array(self.output, dtype=np.intp)
        listed = np.zeros(model.dof, bool)
        listed[self.output] = True
        self.listed = listed
        self.unlisted = [name for name, out in zip(model.joint_names, listed) if not out]
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
        self.damped = bool(self.kd.any())   # gravity_compensation's -M(q) kd qd
        self.effort_bounds = (-model.effort_limit, model.effort_limit)
        rest = np.clip(np.zeros(model.dof), model.lower, model.upper)
        self.state = JointStateBuffer(
            self.vectors, required=listed | (unlisted == 'require'),
            ignored=self.unlisted if unlisted == 'ignore' else (),
            initial=np.where(listed | (unlisted == 'require'), np.nan, rest))
        self.reference: Optional[tuple] = None
        # the compiled stream (nodes/gravity_stream.py), armed by the node on names seen
        # twice in a row (last_names) at most once a second (armed_at, node-clock s)
        self.compiled: Optional[gravity_stream.CompiledGravityStream] = None
        self.last_names: tuple = ()
        self.armed_at = -math.inf

    def set_point(self, point) -> None:
        """
        Take a ``JointTrajectoryPoint`` ordered by ``joints`` as the reference.

        Positions (rad or m) are required, velocities and accelerations default to 0;
        ValueError (naming the field) for a wrong count or a non-finite value.
        """
        n = len(self.joints)
        vectors = []
        for field in ('positions', 'velocities', 'accelerations'):
            values = list(getattr(point, field))
            if not values and field != 'positions':
                values = [0.0] * n
            if len(values) != n or not all(map(math.isfinite, values)):
                raise ValueError(f'reference {field}: expected {n} finite values ordered '
                                 f'by `joints`')
            vector = np.zeros(self.model.dof)
            vector[self.output] = values
            vectors.append(vector)
        self.reference = tuple(vectors)

    def set_trajectory(self, trajectory) -> None:
        """Take a ``JointTrajectory``'s first point (joints by name) as the reference."""
        if not trajectory.points:
            return
        point, names, vectors = trajectory.points[0], trajectory.joint_names, self.vectors
        q = vectors.vector(names, point.positions, 'reference positions')
        qd = vectors.vector(names, point.velocities, 'reference velocities', default=0.0)
        qdd = vectors.vector(names, point.accelerations, 'reference accelerations',
                             default=0.0)
        self.reference = (q, qd, qdd)

    def torque(self, mode: str, friction: str, include_gravity: bool,
               contacts=None) -> Optional[np.ndarray]:
        """
        Return the torque of ``mode`` (model order, (dof,)) at the state and the reference.

        friction: ``friction_compensation``; contacts: the node's ContactStream when it is
        enabled, else None. A mode that follows a reference needs one (``reference`` not
        None: the caller checks).
        """
        tau = self._rigid_torque(mode, include_gravity, contacts)
        if tau is None or friction == 'false':
            return tau
        if friction == 'measured':
            velocity = self.state.qd
        else:   # the reference velocity (zero when holding still under gravity compensation)
            reference = self.reference
            velocity = reference[1] if reference is not None else np.zeros(tau.shape)
        return tau + self.model.friction_torques(velocity)

    def _rigid_torque(self, mode: str, include_gravity: bool,
                      contacts) -> Optional[np.ndarray]:
        model, q, qd = self.model, self.state.q, self.state.qd
        if mode == 'gravity_compensation':
            if contacts is not None:
                return contacts.torque(self, q, qd, -self.kd * qd)
            if not self.damped:
                return model.gravity_torques(q)
            return model.gravity_torques(q) - model.mass_matrix(q) @ (self.kd * qd)
        reference = self.reference
        if not self.listed.all():   # unlisted joints: their held positions
            reference = (np.where(self.listed, reference[0], q),) + reference[1:]
        if contacts is not None:
            return contacts.tracking(self, mode, q, qd, reference)
        if mode == 'inverse_dynamics':
            tau = model.inverse_dynamics(*reference)
            return tau if include_gravity else tau - model.gravity_torques(reference[0])
        tau = computed_torque(model, q, qd, *reference, self.kp, self.kd)
        return tau if include_gravity else tau - model.gravity_torques(q)
