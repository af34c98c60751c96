# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
RobotModel: the public face of the core.

A ``RobotModel``'s bodies and joints are fixed at construction; ``gravity``,
``armature``, ``actuators`` (friction) and payloads (``set_payload``) may be
changed at any time. Every call allocates its own workspace inside the
compiled kernel, so one model can serve several threads at once; a change
builds a new packed kernel model and swaps it in by one reference
assignment, so a call in flight on another thread finishes with the model it
started with and every later call sees the change. Conventions (see README "Conventions"):

* SI units; angles in rad; the root link frame is the world frame.
* ``q``, ``qd``, ``qdd``, ``tau`` are ordered as ``joint_names`` and may be
  ``(dof,)`` or ``(N, dof)`` for a batch; results keep the leading shape.
* ``gravity_torques(q)`` is the joint torque that holds the robot still:
  tau = M qdd + C qd + g(q) with g the gravity term.
* Wrenches are ``[force; torque]`` applied at a link frame origin, in world
  axes; Jacobians have rows ``[linear; angular]``.

Where the specification is silent the behaviour is Pinocchio's.
"""

import copy
import dataclasses
import math
import operator
import threading
from typing import Optional

import numpy as np

from ros_dynamics.description.actuator_parameters import ActuatorParameters
from ros_dynamics.description.actuators import actuator_parameters, transmissions_of
from ros_dynamics.description.model_build import build_model_arrays, limits
from ros_dynamics.description.payload import (body_inertia_row, Payload, payload_of,
                                              validated_parts, with_body_inertia)
from ros_dynamics.description.urdf import (parse_urdf_string, read_urdf_file, RobotSpec,
                                           with_root_joint)
from ros_dynamics.exceptions import SingularMassMatrixError
from ros_dynamics.kernels import aba
from ros_dynamics.model import floating_base
from ros_dynamics.model.configuration_space import ConfigurationSpace
from ros_dynamics.model.dynamics import JointSpaceDynamics
from ros_dynamics.model.frames import FrameMethods, LINK_ENTRIES
from ros_dynamics.multibody.joints import INERTIA_COLUMNS, neutral_positions, pack
from ros_dynamics.multibody.layouts import COL_ARMATURE, IBAR, JOINT_NQ, JOINT_NV, MASS, NACTUATOR
from ros_dynamics.runtime.batches import as_array, BoundCalls, unbound

# Fast paths: a single state of float64 C-contiguous vectors goes straight to
# the compiled single-state kernel through a StateCall (statecall.py), which returns None
# for anything else (lists, batches, wrong shapes, NaN, a singular M) and for
# every call before this model has bound the kernel; then the general path
# converts, validates, binds and raises the documented errors. The attributes
# holding a model's bound single-state calls (per link: _link_calls), each
# runtime.unbound until bound from the model's runtime.BoundCalls (``state_calls``):
_CALLS = ('_id_call', '_gravity_call', '_mass_call', '_fd_call', '_idf_call',
          '_friction_call', '_centroidal_call')
_UNBOUND = dict.fromkeys(_CALLS, unbound)


def _singular_tolerance(reals: np.ndarray) -> float:
    """Return ABA's and Cholesky's threshold 1e-12 (1 + sum of masses and inertia diagonals)."""
    return 1e-12 * (1.0 + float(np.sum(reals[:, MASS]) + np.sum(reals[:, IBAR:IBAR + 3])))


class RobotModel(JointSpaceDynamics, FrameMethods, ConfigurationSpace):
    """
    Rigid-body dynamics model of a fixed-base robot built from a URDF.

    The algorithms' public methods live in mixins by concern:
    ``JointSpaceDynamics`` (model_dynamics.py), ``FrameMethods``
    (model_frames.py), ``ConfigurationSpace`` (model_configuration.py); this
    class holds the model, its changes and its bound calls.
    """

    def __init__(self, spec: RobotSpec, gravity=(0.0, 0.0, -9.81), mimic: bool = True,
                 actuators=None, transmissions: Optional[dict] = None) -> None:
        """
        Build the model from a parsed URDF (use the ``from_urdf_*`` constructors).

        mimic: follow ``<mimic>`` tags (the ROS meaning: the follower is not a
        coordinate). False treats every mimic joint as independent, like
        Pinocchio's default ``buildModelFromUrdf(..., mimic=False)``; use it for
        URDFs whose mimic tags are broken. actuators: an ActuatorParameters, or
        the actuators YAML (a mapping or a file path, see
        actuators/description.py); transmissions: the URDF's, from
        ``parse_transmissions``.
        """
        arrays = build_model_arrays(spec, mimic)
        self.name = spec.name
        self.root_link = spec.root
        self._arrays = arrays
        self._ints = arrays.ints
        self._reals = arrays.reals
        self._ints.setflags(write=False)
        self._reals.setflags(write=False)
        self._nq, self._nv = arrays.nq, arrays.nv
        self._dof = self._nv   # qd, qdd, tau (dof,); q (nq,)
        self._shape = (self._dof,)
        nb = self._ints.shape[0]
        self._mass_shape = (self._dof, self._dof)
        self._jacobian_shape = (6, self._dof)
        self._no_wrench_batch = np.zeros((1, nb, 6))   # also the state entries' extra
        self._no_wrench_batch.setflags(write=False)
        self._zero_state = np.zeros(self._dof)
        self._zero_state.setflags(write=False)
        self._neutral = neutral_positions(self._ints)
        self._neutral.setflags(write=False)
        self._has_mimic = bool(np.any(self._ints[:, JOINT_NQ] == 0))   # a follower owns no q
        # forward dynamics by M qdd = tau - b: ABA has no joint model for mimic joints
        self._dense_forward = self._has_mimic
        self._singular_tolerance = _singular_tolerance(self._reals)
        for key, value in limits(arrays.joint_specs).items():
            setattr(self, key, value)
        self._gravity = np.zeros(3)
        self._model = None   # the packed kernel model, rebuilt on every change (_repack)
        # the body row of each coordinate's independent joint (its actuator terms go there)
        independent = set(arrays.joint_names)
        self._coordinate_body = np.array([i for i, name in enumerate(arrays.body_joints)
                                          if name in independent], dtype=np.int64)
        joint_nq = self._ints[self._coordinate_body, JOINT_NQ]
        self._joint_nv = self._ints[self._coordinate_body, JOINT_NV]
        self._rotations = floating_base.rotation_slices(self)   # quaternions, planar (cos, sin)
        self.continuous = np.repeat([spec.type == 'continuous' for spec in arrays.joint_specs],
                                    joint_nq).astype(bool)
        self.continuous.setflags(write=False)
        self._update_lock = threading.Lock()
        # link -> (body, (mass, com, moments) as validated_parts, its (10,) inertia row);
        # replaced, never changed in place
        self._payloads = {}
        if not isinstance(actuators, ActuatorParameters):
            followers = {name: spec.joints[name].mimic.joint for name in arrays.body_joints
                         if name not in independent}
            actuators = actuator_parameters(arrays.joint_specs, transmissions, actuators,
                                            followers, spec.joints)
        elif actuators.joint_names != arrays.joint_names:
            raise ValueError(f'actuators: parameters for joints {list(actuators.joint_names)}, '
                             f'expected {list(arrays.joint_names)}')
        floating_base.check_actuation(actuators, self.joint_types)
        self._actuators = actuators
        self.effort_limit = np.repeat(actuators.effort_limit, self._joint_nv)   # (nv,)
        self.effort_limit.setflags(write=False)
        self._fd_entry = (aba.forward_dynamics_dense_entry if self._dense_forward
                          else aba.forward_dynamics_entry)
        self._fd_batch = (aba.forward_dynamics_dense_batch if self._dense_forward
                          else aba.forward_dynamics_batch)
        self.gravity = gravity

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_urdf_string(cls, xml: str, gravity=(0.0, 0.0, -9.81), mimic: bool = True,
                         actuators=None, root_joint: Optional[str] = None) -> 'RobotModel':
        """
        Build a model from URDF text (what the ``robot_description`` parameter holds).

        actuators: None, or the actuators YAML as a mapping or a file path
        (gear ratios, rotor inertia or armature, friction, effort limits per
        joint; actuators/description.py). The URDF's transmissions and
        ``<dynamics>`` are read either way; the YAML takes precedence.
        root_joint: None (the URDF as written: its root link is fixed to the
        world unless a joint says otherwise), 'floating' or 'planar': that
        joint, named 'root_joint', between the world and the root link, as
        Pinocchio's ``buildModelFromUrdf(path, JointModelFreeFlyer())`` (legged
        and humanoid URDFs describe no base joint). Conventions:
        docs/conventions.md.
        """
        spec = with_root_joint(parse_urdf_string(xml), root_joint)
        return cls(spec, gravity, mimic, actuators, transmissions_of(xml))

    @classmethod
    def from_urdf_file(cls, path: str, gravity=(0.0, 0.0, -9.81), mimic: bool = True,
                       actuators=None, root_joint: Optional[str] = None) -> 'RobotModel':
        """Build a model from a URDF file (actuators, root_joint: as ``from_urdf_string``)."""
        return cls.from_urdf_string(read_urdf_file(path), gravity, mimic, actuators, root_joint)

    # ------------------------------------------------------------------ description
    @property
    def dof(self) -> int:
        """Return the number of independent joint coordinates (nv: velocities, torques)."""
        return self._dof

    @property
    def nq(self) -> int:
        """Return nq, the size of a position vector q."""
        return self._nq

    @property
    def has_mimic(self) -> bool:
        """Return True if a joint follows another (``<mimic>``: it is not a coordinate)."""
        return self._has_mimic

    @property
    def nv(self) -> int:
        """Return nv, the size of a velocity, acceleration or torque vector."""
        return self._nv

    packed = property(operator.attrgetter('_model'), doc="""
        The packed model the kernels read: float64 (bodies + 1, NCOL), read-only.

        Payload and actuator changes swap in a new one (``_swap``) and never
        write it afterwards: a compiled caller outside this class reads this
        again for every call (``state_calls.model`` is the same array).
        """)

    @property
    def joint_names(self) -> tuple:
        """Independent joints (revolute, continuous, prismatic; not mimic), in coordinate order."""
        return self._arrays.joint_names

    @property
    def joint_types(self) -> tuple:
        """Return the URDF type of each of ``joint_names`` ('revolute', 'floating', ...)."""
        return tuple(spec.type for spec in self._arrays.joint_specs)

    @property
    def link_names(self) -> tuple:
        """Every URDF link (root first, depth-first); each is a frame for poses and Jacobians."""
        return self._arrays.link_names

    @property
    def all_joint_names(self) -> tuple:
        """Every moving joint, mimic followers included, in body order."""
        return self._arrays.body_joints

    @property
    def root_inertia(self) -> tuple:
        """
        Return (mass, centre of mass, inertia about it) of the fixed root body, root frame.

        The root link and everything fixed to it; it does not move, so it
        enters no joint-space quantity, but it is kept (KDL drops it) for
        whole-robot mass properties and floating bases.
        """
        arrays = self._arrays
        mass = arrays.root_mass
        com = arrays.root_first_moment / mass if mass > 0.0 else np.zeros(3)
        inertia = arrays.root_ibar - mass * (np.dot(com, com) * np.eye(3) - np.outer(com, com))
        return mass, com, inertia

    @property
    def gravity(self) -> np.ndarray:
        """Gravity acceleration in the root frame (m/s^2), default (0, 0, -9.81)."""
        return self._gravity.copy()

    @gravity.setter
    def gravity(self, value) -> None:
        value = as_array(value, 'gravity')
        if value.shape != (3,) or not np.all(np.isfinite(value)):
            raise ValueError(f'gravity: expected 3 finite numbers, got {value!r}')
        with self._update_lock:
            self._gravity = value.copy()
            self._repack()

    def _repack(self, payloads_only: bool = False) -> None:
        """
        Swap in a packed model of the current gravity, actuators and payloads (hold the lock).

        The model without payloads is kept (``_unloaded``): payloads_only
        copies it and writes the rows of the bodies carrying payloads. A single
        payload or the armature changes only a row or a column of a copy
        (``_with_body_row``, the ``armature`` setter); the result is the same,
        bit for bit. Swapped in by ``_swap``.
        """
        if not payloads_only:
            actuator = np.zeros((self._ints.shape[0], NACTUATOR))
            actuator[self._coordinate_body] = self._actuators.columns()
            self._unloaded = pack(self._ints, self._reals, self._nq, self._nv, self._gravity,
                                  self._singular_tolerance, actuator,
                                  self._actuators.friction_velocity)
        model = self._unloaded
        if self._payloads:
            model = model.copy()
            for body in {body for body, _, _ in self._payloads.values()}:
                with_body_inertia(model, body, self._loaded_row(body))
            model.setflags(write=False)
        self._swap(model)

    def _loaded_row(self, body: int) -> np.ndarray:
        """Return the (m, h, ibar) columns of ``body`` with its payloads (hold the lock)."""
        row = self._unloaded[body, INERTIA_COLUMNS]
        for carrier, _, payload_row in self._payloads.values():
            if carrier == body:
                row = row + payload_row
        return row

    def _swap(self, model: np.ndarray) -> None:
        """
        Make ``model`` the packed model every later call uses (hold the lock).

        A new read-only array is swapped in by one reference assignment and
        never written afterwards: a call in flight on another thread keeps
        the array it started with (writing the live array in place could let
        it read half a row, e.g. the new mass with the old first moment).
        Then the bound calls, which hold the old array, are dropped; a call
        that bound the old model while this ran drops its binding again (_bind).
        """
        self._model = model
        self._unbind()

    def _with_body_row(self, body: int) -> None:
        """Swap in a copy of the model with ``body``'s inertia row recomputed (hold the lock)."""
        model = self._model.copy()   # (nb + 1, NCOL): a few hundred floats, well under 1 us
        with_body_inertia(model, body, self._loaded_row(body))
        model.setflags(write=False)
        self._swap(model)

    # ------------------------------------------------------------------ actuators
    @property
    def actuators(self) -> ActuatorParameters:
        """
        Gear ratio, armature, friction and effort limit per joint (actuators/parameters.py).

        Set a new ActuatorParameters (e.g. ``robot.actuators.replace(viscous=b)``)
        to change them; the change is atomic and cheap (no recompilation).
        """
        return self._actuators

    @actuators.setter
    def actuators(self, value: ActuatorParameters) -> None:
        if not isinstance(value, ActuatorParameters):
            raise TypeError(f'actuators: expected an ActuatorParameters, got '
                            f'{type(value).__name__}')
        if value.joint_names != self.joint_names:
            raise ValueError(f'actuators: parameters for joints {list(value.joint_names)}, '
                             f'expected {list(self.joint_names)}')
        floating_base.check_actuation(value, self.joint_types)
        with self._update_lock:
            self._actuators = value
            self.effort_limit = np.repeat(value.effort_limit, self._joint_nv)
            self.effort_limit.setflags(write=False)
            self._repack()

    @property
    def armature(self) -> np.ndarray:
        """
        Reflected rotor inertia per joint, I_a = G^2 J_m (kg m^2; kg for prismatic), (joints,).

        One entry per ``joint_names`` (dof entries but for floating, planar
        and ball joints, which take none: a nonzero one is refused).

        Pinocchio's ``model.armature``: it adds I_a qdd to inverse dynamics,
        diag(I_a) to M (and so to forward dynamics, ABA's D_i, the kinetic
        energy, operational space and the simulator). Settable; default from
        the description (transmissions, actuators YAML), else zeros.
        """
        return self._actuators.armature

    @armature.setter
    def armature(self, value) -> None:
        array = as_array(value, 'armature')
        if array.shape != (len(self.joint_names),):
            raise ValueError(f'armature: expected shape ({len(self.joint_names)},) for joints '
                             f'{list(self.joint_names)}, got shape {array.shape}')
        with self._update_lock:
            actuators = self._actuators.with_armature(array)   # validates before any change
            floating_base.check_actuation(actuators, self.joint_types)
            # only the armature column changes: copy both packed models and write it
            unloaded, model = self._unloaded.copy(), self._model.copy()
            unloaded[self._coordinate_body, COL_ARMATURE] = actuators.armature
            model[self._coordinate_body, COL_ARMATURE] = actuators.armature
            unloaded.setflags(write=False)
            model.setflags(write=False)
            self._actuators, self._unloaded = actuators, unloaded
            self._swap(model)

    # ------------------------------------------------------------------ payloads
    def set_payload(self, link: str, mass: float, com=(0.0, 0.0, 0.0), inertia=None) -> None:
        """
        Attach a rigid payload to ``link`` (replacing the one it had).

        mass in kg (>= 0); com (3,) its centre of mass in the link frame (m);
        inertia (3, 3) about that centre in the link's axes (kg m^2; None: a
        point mass), symmetric and physically consistent (payload.py). Any
        link but those fixed to the root, including links merged through
        fixed joints (a tool frame). Every algorithm sees it from the next
        call on; ValueError (naming the link) leaves the model unchanged.
        """
        body = self._body_of(link)
        if body < 0:
            raise ValueError(f'link {link!r} is fixed to the root link {self.root_link!r}: a '
                             'payload there does not move and changes no joint torque')
        mass, centre, moments = validated_parts(link, mass, com, inertia)
        row = body_inertia_row(mass, centre, moments, self._arrays.link_offset[link][0].tolist())
        if not math.isfinite(sum(row)):
            raise ValueError(f'payload on link {link!r}: mass {mass!r} kg at com {com!r} m '
                             'overflows its inertia about the body origin; give SI values')
        row = np.array(row)
        with self._update_lock:
            payloads = dict(self._payloads)
            payloads[link] = (body, (mass, centre, moments), row)
            self._payloads = payloads
            self._with_body_row(body)

    def payload(self, link: str) -> Optional[Payload]:
        """Return the Payload (mass, com, inertia) attached to ``link``, or None."""
        self._body_of(link)
        entry = self._payloads.get(link)
        return None if entry is None else payload_of(*entry[1])

    @property
    def payloads(self) -> dict:
        """Return every attached payload, {link: Payload}."""
        return {link: payload_of(*parts) for link, (_, parts, _) in self._payloads.items()}

    def clear_payload(self, link: Optional[str] = None) -> None:
        """Remove the payload of ``link`` (None: every payload); no error if it has none."""
        if link is not None:
            self._body_of(link)
        with self._update_lock:
            if link is None:
                self._payloads = {}
                self._repack(payloads_only=True)
                return
            payloads = dict(self._payloads)
            entry = payloads.pop(link, None)
            if entry is None:
                return
            self._payloads = payloads
            self._with_body_row(entry[0])

    def _unbind(self) -> None:
        """Forget the bound single-state calls (they hold the packed model): new BoundCalls."""
        self._calls = BoundCalls(self._model, self._dof, self._nq, self._no_wrench_batch)
        self.__dict__.update(_UNBOUND)
        self._link_calls = {kind: {} for kind in LINK_ENTRIES}   # kind -> link -> call
        self._jacobian_calls = self._link_calls['jacobian']

    def _bind(self, name: str, entry, inputs: int, out_shape: tuple, first: int = -1):
        """
        Return the single-state call ``name`` bound to this model, binding it on first use.

        ``first``: the size of its first state argument, nq (q) unless given.
        """
        call = getattr(self, name)
        if call is unbound:
            calls = self._calls
            call = calls.bind(entry, inputs, out_shape, first)
            setattr(self, name, call)
            if self._calls is not calls:   # swapped meanwhile (_repack): bind again next time
                setattr(self, name, unbound)
        return call

    @property
    def state_calls(self) -> BoundCalls:
        """
        Return the single-state calls bound to the current packed model (runtime.BoundCalls).

        For compiled single-state entry points of the layers above the model
        (the regressor): ``robot.state_calls.bind(entry, inputs, out_shape)``
        binds one to ``state_calls.model`` (== ``packed``) with this model's nv,
        nq and zero external forces. A change of the model (gravity, payload,
        actuators) swaps in a new object: read this again for every call.
        """
        return self._calls

    def __getstate__(self) -> dict:
        """Pickle without the bound calls (C objects; rebound on first use)."""
        return {k: v for k, v in self.__dict__.items()
                if k not in _CALLS and k not in ('_calls', '_link_calls', '_jacobian_calls',
                                                 '_update_lock')}

    def __setstate__(self, state: dict) -> None:
        """Restore a pickled model; its single-state calls bind again on first use."""
        self.__dict__.update(state)
        self._update_lock = threading.Lock()
        self._unbind()

    # ------------------------------------------------------------------ identification
    @property
    def body_names(self) -> tuple:
        """Return the moving bodies in regressor column order, each named by its link."""
        names = [None] * self._ints.shape[0]
        for link in self.link_names:   # depth-first: a body's joint child comes first
            body = self._arrays.link_body[link]
            if body >= 0 and names[body] is None:
                names[body] = link
        return tuple(names)

    def inertial_parameters(self) -> np.ndarray:
        """
        Return the (nb, 10) inertial parameters of ``body_names``, Pinocchio's order.

        [m, m cx, m cy, m cz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz] (kg, kg m, kg m^2),
        inertia about the body frame origin in body axes, links merged through
        fixed joints included; ``regressor(...) @ inertial_parameters().ravel()``
        is the inverse dynamics.
        """
        from ros_dynamics.kernels.regressor import inertial_parameters_of
        return inertial_parameters_of(self._reals)

    def with_inertial_parameters(self, parameters) -> 'RobotModel':
        """
        Return a copy of this model whose bodies carry ``parameters`` (nb, 10).

        Order and frames as ``inertial_parameters``; joints, limits and gravity
        are kept. Not checked for physical consistency (identification results
        are checked by the identification).
        """
        from ros_dynamics.kernels.regressor import reals_with_parameters
        nb = self._ints.shape[0]
        parameters = as_array(parameters, 'parameters')
        if parameters.size != 10 * nb or not np.all(np.isfinite(parameters)):
            raise ValueError(f'parameters: expected {nb} x 10 finite numbers (one row per '
                             f'body of body_names), got shape {parameters.shape}')
        model = copy.copy(self)
        reals = reals_with_parameters(self._reals, parameters)
        reals.setflags(write=False)
        model._reals = reals
        model._arrays = dataclasses.replace(self._arrays, reals=reals)
        model._singular_tolerance = _singular_tolerance(reals)
        model.gravity = self._gravity   # packs the kernel model, unbinds the copied calls
        return model

    def warm_up(self) -> None:
        """
        Compile (or load from the kernel cache) the single-state kernels, binding them.

        Evaluates inverse dynamics (with and without friction), the friction,
        forward dynamics, gravity, M and the operational space of the last
        link once at the neutral q and qd = 0, so that the first real call
        does not wait for a compile (seconds with a cold cache). The nodes call
        it before they serve a model. A singular M at q = 0 is not an error here.
        """
        zero, q = self._zero_state, self._neutral
        link = self.link_names[-1]
        for call in (lambda: self.inverse_dynamics(q, zero, zero),
                     lambda: self.inverse_dynamics(q, zero, zero, friction=True),
                     lambda: self.friction_torques(zero),
                     lambda: self.gravity_torques(q), lambda: self.mass_matrix(q),
                     lambda: self.forward_dynamics(q, zero, zero),
                     lambda: self.operational_space(q, zero, link)):
            try:
                call()
            except SingularMassMatrixError:
                pass

    def __repr__(self) -> str:
        """Describe the model briefly."""
        return (f'RobotModel({self.name!r}, dof={self.dof}, links={len(self.link_names)}, '
                f'root={self.root_link!r})')
