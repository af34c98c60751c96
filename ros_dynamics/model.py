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
import threading
from typing import Callable, Mapping, Optional, Sequence

import numpy as np

from ros_dynamics import (aba, centroidal, coriolis, crba, energy, floating_base, jacobian,
                          kinematics, layouts, manifold, rnea)
from ros_dynamics._jit import ensure_compiled
from ros_dynamics.actuators import friction as friction_kernels
from ros_dynamics.actuators.description import actuator_parameters, transmissions_of
from ros_dynamics.actuators.parameters import ActuatorParameters
from ros_dynamics.exceptions import SingularMassMatrixError
from ros_dynamics.joints import INERTIA_COLUMNS, neutral_positions, pack
from ros_dynamics.layouts import (COL_ARMATURE, IBAR, JOINT_NQ, JOINT_NV, MASS, MIMIC_GAIN,
                                  MIMIC_OFFSET, NACTUATOR, QINDEX, VINDEX)
from ros_dynamics.model_build import build_model_arrays, limits
from ros_dynamics.payload import (body_inertia_row, Payload, payload_of, validated_parts,
                                  with_body_inertia)
from ros_dynamics.runtime import as_array, did_you_mean, empty, run_batch, zeros
from ros_dynamics.statecall import StateCall
from ros_dynamics.urdf import parse_urdf_string, read_urdf_file, RobotSpec, with_root_joint

FRAMES = ('world_aligned', 'local', 'world')
_ARGUMENT_NAMES = {
    'inverse_dynamics': ('q', 'qd', 'qdd'),
    'forward_dynamics': ('q', 'qd', 'tau'),
}
# Batches run as blocks of rows on this many threads (the kernels release the GIL, and
# each call allocates its own workspace, so any number of callers may do this at once).
# states whose body forces are computed at once (a batch with external wrenches)
_FORCE_ROWS = 1024
# functions of the layers above the model (contacts) once imported: {name: function}
_ABOVE = {}


# Fast paths: a single state of float64 C-contiguous vectors goes straight to
# the compiled single-state kernel through a StateCall (_jit), which returns None
# for anything else (lists, batches, wrong shapes, NaN, a singular M) and for
# every call before this model has bound the kernel; then the general path
# converts, validates, binds and raises the documented errors. The attributes
# holding a model's bound single-state calls (per link: _link_calls):
_CALLS = ('_id_call', '_gravity_call', '_mass_call', '_fd_call', '_regressor_call', '_idf_call',
          '_friction_call', '_centroidal_call')
# per-link quantities: entry point and output shape (None: the Jacobian's, 6 x dof)
_LINK_ENTRIES = {'pose': (jacobian.link_transform_entry, (4, 4)),
                 'jacobian': (jacobian.jacobian_entry, None),
                 'bias': (jacobian.link_bias_acceleration_entry, (3, 3))}


def _unbound(*states) -> None:
    """Stand in for a single-state call not bound yet: always take the general path."""
    return None


_UNBOUND = dict.fromkeys(_CALLS, _unbound)


def _singular_tolerance(reals: np.ndarray) -> float:
    """Return ABA's and Cholesky's threshold 1e-12 (1 + sum of masses and inertia diagonals)."""
    return 1e-12 * (1.0 + float(np.sum(reals[:, MASS]) + np.sum(reals[:, IBAR:IBAR + 3])))


class RobotModel:
    """Rigid-body dynamics model of a fixed-base robot built from a URDF."""

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

    @property
    def packed(self) -> np.ndarray:
        """
        Return the packed model the kernels read: float64 (bodies + 1, NCOL).

        Payload and actuator changes swap in a new one (``_swap``) and never
        write it afterwards: a compiled caller outside this class reads this
        again for every call.
        """
        return self._model

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

    def friction_torques(self, qd) -> np.ndarray:
        """
        Return the joint friction torques tau_f(qd) (N m or N), (dof,) or (N, dof).

        Per joint: b qd + f_c tanh(qd / v_s) + o + Gaz et al.'s sigmoid
        phi1 / (1 + exp(-phi2 (qd + phi3))) - phi1 / (1 + exp(-phi2 phi3))
        (RA-L 2019), with the parameters of ``actuators``: the torque friction
        takes, so the motors must deliver inverse dynamics + tau_f.
        """
        tau = self._friction_call(qd)
        if tau is not None:
            return tau
        qd = self._state(qd, 'qd')
        out = np.empty(qd.shape)
        if qd.ndim == 1:
            call = self._bind('_friction_call', friction_kernels.friction_torques_entry, 1,
                              self._shape, first=self._nv)
            self._check_status(call.into(out, qd), ('qd',), (qd,))
            return out
        ensure_compiled(friction_kernels.friction_torques_batch)
        friction_kernels.friction_torques_batch(self._model, qd, out)
        return out

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
        """Forget the bound single-state calls (they hold the packed model)."""
        self.__dict__.update(_UNBOUND)
        self._link_calls = {kind: {} for kind in _LINK_ENTRIES}   # kind -> link -> call
        self._jacobian_calls = self._link_calls['jacobian']

    def _bind(self, name: str, entry, inputs: int, out_shape: tuple, first: int = -1):
        """
        Return the single-state call ``name`` bound to this model, binding it on first use.

        ``first``: the size of its first state argument, nq (q) unless given.
        """
        call = getattr(self, name)
        if call is _unbound:
            ensure_compiled(entry)
            model = self._model
            call = StateCall(entry.address, model, self._dof, inputs, out_shape,
                             self._no_wrench_batch, self._nq if first < 0 else first)
            setattr(self, name, call)
            if self._model is not model:   # swapped meanwhile (_repack): bind again next time
                setattr(self, name, _unbound)
        return call

    def __getstate__(self) -> dict:
        """Pickle without the bound calls (C objects; rebound on first use)."""
        return {k: v for k, v in self.__dict__.items()
                if k not in _CALLS and k not in ('_link_calls', '_jacobian_calls', '_update_lock')}

    def __setstate__(self, state: dict) -> None:
        """Restore a pickled model; its single-state calls bind again on first use."""
        self.__dict__.update(state)
        self._update_lock = threading.Lock()
        self._unbind()

    def joint_index(self, name: str) -> int:
        """Return the coordinate index of an independent joint."""
        try:
            return self.joint_names.index(name)
        except ValueError:
            raise ValueError(f'joint {name!r} is not an independent joint of this robot'
                             f'{did_you_mean(name, self.joint_names)} '
                             f'(joints: {", ".join(self.joint_names)})') from None

    def integrate(self, q, v) -> np.ndarray:
        """
        Return q (+) v: the configuration reached from q by the velocity v in unit time.

        q (nq,) or (N, nq), v (nv,) or (N, nv); on the manifold for floating,
        planar and ball joints (Pinocchio's ``integrate``), quaternions and
        planar (cos, sin) normalised: the simulator's compiled law
        (manifold.integrate_batch).
        """
        q, v = self._states(('q', 'qd'), q, v)
        single = q.ndim == 1
        q2 = np.ascontiguousarray(np.atleast_2d(q), dtype=float)
        v2 = np.ascontiguousarray(np.atleast_2d(v), dtype=float)
        out = np.empty(q2.shape)
        ensure_compiled(manifold.integrate_batch)
        if manifold.integrate_batch(self._model, q2, v2, out):
            for name, array in (('q', q2), ('v', v2)):
                if not np.all(np.isfinite(array)):
                    raise ValueError(f'{name}: contains NaN or Inf')
            raise ValueError('q: a zero quaternion or planar (cos, sin): not a configuration')
        return out[0] if single else out

    def difference(self, q0, q1) -> np.ndarray:
        """Return v (nv,) or (N, nv) with integrate(q0, v) = q1 (Pinocchio's ``difference``)."""
        from ros_dynamics import configuration
        q0, q1 = self._state(q0, 'q'), self._state(q1, 'q')
        if q0.shape != q1.shape:
            raise ValueError(f'q0, q1: shapes differ ({q0.shape}, {q1.shape})')
        return self._rows(lambda a, b: configuration.difference(self._ints, a, b, self._nv),
                          q0, q1)

    def interpolate(self, q0, q1, u: float) -> np.ndarray:
        """Return integrate(q0, u difference(q0, q1)): q0 at u = 0, q1 at u = 1."""
        return self.integrate(q0, float(u) * self.difference(q0, q1))

    def normalize(self, q) -> np.ndarray:
        """Return q with every quaternion and planar (cos, sin) scaled to unit length."""
        from ros_dynamics import configuration
        q = self._state(q, 'q')
        return self._rows(lambda a: configuration.normalized(self._ints, a), q)

    @staticmethod
    def _rows(function: Callable, *arrays) -> np.ndarray:
        """Apply ``function`` to one state, or to each row of a batch."""
        if arrays[0].ndim == 1:
            return function(*arrays)
        return np.array([function(*row) for row in zip(*arrays)])

    def random_configuration(self, rng=None, count: Optional[int] = None) -> np.ndarray:
        """
        Return a random q (nq,), or (count, nq), within the joint limits.

        One-dof joints uniform between their limits ([-pi, pi) rad or [-1, 1] m
        without limits), a free-flyer's or planar base's position uniform in
        the box [-1, 1] m per axis (floating_base.BASE_BOX), rotations uniform
        (scipy ``Rotation.random``). rng: None, a seed or a numpy Generator.
        """
        return floating_base.random_configuration(self, rng, count)

    def to_mujoco(self, q, v=None) -> tuple:
        """
        Return (qpos, qvel) in MuJoCo's conventions, in ``joint_names`` order (qvel None if v is).

        Free joint qpos (x, y, z, qw, qx, qy, qz) (m, unit quaternion), qvel
        (linear velocity of the base origin in world axes, m/s; angular
        velocity in base axes, rad/s); ball qpos (qw, qx, qy, qz), qvel the
        angular velocity in child axes; planar (x, y, theta), (vx, vy) in
        the joint frame's axes and omega. q (nq,) or (N, nq), v (nv,) or
        (N, nv). Place them in a MuJoCo model by joint name (jnt_qposadr).
        """
        return floating_base.converted(self, floating_base.to_mujoco, q, v)

    def from_mujoco(self, qpos, qvel=None) -> tuple:
        """Return (q, v) from MuJoCo's (qpos, qvel) in joint_names order (to_mujoco inverted)."""
        return floating_base.converted(self, floating_base.from_mujoco, qpos, qvel, 'mujoco')

    def to_mixed_velocity(self, q, v) -> np.ndarray:
        """
        Return v (nv,) or (N, nv) in the mixed representation of iDynTree and adam.

        A free-flyer root's (v_lin, omega) in base axes becomes (R v_lin,
        R omega): the base origin's velocity (m/s) and the angular velocity
        (rad/s) in world-aligned axes, R the base rotation; a planar root's
        (vx, vy) turns by Rz(theta); joint velocities and other robots' v are unchanged.
        """
        return floating_base.converted(self, floating_base.mixed_velocity, q, v)

    def from_mixed_velocity(self, q, v_mixed) -> np.ndarray:
        """Return our v from a mixed-representation velocity (inverse of to_mixed_velocity)."""
        return floating_base.converted(self, floating_base.mixed_velocity, q, v_mixed, 'mixed')

    def neutral_configuration(self) -> np.ndarray:
        """
        Return the neutral configuration q (nq,): zeros, identity quaternions, cos theta = 1.

        Pinocchio's ``neutral``: a free-flyer at the world origin, unrotated,
        every one-dof joint at 0.
        """
        return self._neutral.copy()

    def q_slice(self, joint: str) -> slice:
        """Return the slice of q holding ``joint``'s position coordinates (Pinocchio's idx_q)."""
        body = self._coordinate_body[self.joint_index(joint)]
        start = int(self._ints[body, QINDEX])
        return slice(start, start + int(self._ints[body, JOINT_NQ]))

    def v_slice(self, joint: str) -> slice:
        """Return the slice of qd, qdd and tau that holds ``joint``'s coordinates (idx_v)."""
        body = self._coordinate_body[self.joint_index(joint)]
        start = int(self._ints[body, VINDEX])
        return slice(start, start + int(self._ints[body, JOINT_NV]))

    def all_joint_positions(self, q) -> np.ndarray:
        """Return the positions of ``all_joint_names`` (mimic followers G q + o) for q."""
        q = self._state(q, 'q')
        self._check_finite(q, 'q')
        ints, reals = self._ints, self._reals
        return q[..., ints[:, QINDEX]] * reals[:, MIMIC_GAIN] + reals[:, MIMIC_OFFSET]

    # ------------------------------------------------------------------ validation
    def _state(self, value, name: str) -> np.ndarray:
        """Return a validated q (name 'q': nq entries) or velocity-sized state (nv), or batch."""
        array = as_array(value, name)
        size = self._nq if name == 'q' else self._nv
        if array.shape == (size,):
            if name == 'q' and self._rotations:
                floating_base.check_rotations(self._rotations, array)
            return array
        if array.ndim == 2 and array.shape[1] == size:
            if not np.all(np.isfinite(array)):
                row = int(np.argwhere(~np.isfinite(array))[0, 0])
                raise ValueError(f'{name}: row {row} contains NaN or Inf')
            if name == 'q' and self._rotations:
                floating_base.check_rotations(self._rotations, array)
            return array
        raise ValueError(f'{name}: expected shape ({size},) or (N, {size}) '
                         f'for {self._coordinates_of(name)}, got shape {array.shape}')

    def _coordinates_of(self, name: str) -> str:
        """Return what the entries of a state called ``name`` are, for error messages."""
        if name == 'q' and self._nq != self._nv:
            return f'the positions of joints {list(self.joint_names)} (nq = {self._nq})'
        return f'joints {list(self.joint_names)}'

    def _states(self, names: tuple, *values) -> tuple:
        arrays = tuple(self._state(v, n) for n, v in zip(names, values))
        shapes = {a.shape[:-1] for a in arrays}
        if len(shapes) > 1:
            raise ValueError(f'{", ".join(names)}: shapes differ '
                             f'({", ".join(str(a.shape) for a in arrays)})')
        return arrays

    def validated_states(self, names: Sequence[str], *values) -> tuple:
        """
        Return finite float64 states, one per name, all (size,) or all (N, size).

        A name 'q' has nq entries, any other nv (its name is the one in the
        ValueError raised for a wrong shape, NaN or Inf, or differing batches).
        """
        try:   # single float64 states of the right sizes, finite: returned as they are
            if all(type(x) is np.ndarray and x.dtype == np.float64 and x.ndim == 1
                   and x.shape[0] == (self._nq if n == 'q' else self._nv)
                   for n, x in zip(names, values)) and np.isfinite(np.concatenate(values)).all():
                return values
        except TypeError:
            pass
        arrays = self._states(tuple(names), *values)
        for name, array in zip(names, arrays):
            if array.ndim == 1:
                self._check_finite(array, name)
        return arrays

    @staticmethod
    def _check_status(status: int, names: tuple, arrays: tuple) -> None:
        """Raise for a kernel status 1 (a validated state argument holds NaN or Inf)."""
        if status > 0:
            for name, array in zip(names, arrays):
                if not np.all(np.isfinite(array)):
                    raise ValueError(f'{name}: contains NaN or Inf')
            raise ValueError(f'{", ".join(names)}: rejected by the kernel (status {status})')

    def _body_of(self, link: str) -> int:
        body = self._arrays.link_body.get(link) if isinstance(link, str) else None
        if body is None:
            raise ValueError(f'link {link!r} is not a link of this robot'
                             f'{did_you_mean(link, self.link_names)} '
                             f'(links: {", ".join(self.link_names)})')
        return body

    def _link_wrenches(self, external_wrenches: Optional[Mapping]) -> Optional[np.ndarray]:
        """
        Return link wrenches as rows for kinematics.body_forces_batch, or None for none.

        Wrenches on the fixed root are taken by the base and dropped.
        """
        if external_wrenches is None:
            return None
        if not isinstance(external_wrenches, Mapping):
            raise ValueError('external_wrenches: expected a mapping link name -> '
                             '[fx, fy, fz, tx, ty, tz]')
        rows = []
        for link, wrench in external_wrenches.items():
            body = self._body_of(link)
            wrench = as_array(wrench, f'external_wrenches[{link!r}]')
            if wrench.shape != (6,) or not np.all(np.isfinite(wrench)):
                raise ValueError(f'external_wrenches[{link!r}]: expected 6 finite numbers '
                                 f'[force; torque], got {wrench!r}')
            if body >= 0:   # a wrench on the fixed root is taken by the base
                origin = layouts.POSE_LAYOUT.view(self._arrays.link_offset[link][0], 'P')
                rows.append(layouts.wrench_row(body, origin, wrench))
        return np.array(rows) if rows else None

    def _run_states(self, batch: Callable, wrenches: Optional[np.ndarray], states: tuple,
                    out: np.ndarray) -> int:
        """
        Run a batch kernel ``batch(model, *states, fext, out)`` over (N, dof) states.

        With link wrenches the body forces of each block of _FORCE_ROWS states
        are computed by a compiled kernel first (memory stays bounded for any
        N); blocks run on the shared thread pool. Returns the first nonzero status.
        """
        model = self._model
        if out.size == 0:   # no states, or no joints: nothing to compute for any N
            return 0
        ensure_compiled(batch)
        if wrenches is None:
            none = self._no_wrench_batch
            return run_batch(batch, out.shape[0],
                             lambda a, b: (model,) + tuple(s[a:b] for s in states)
                             + (none, out[a:b]))
        ensure_compiled(kinematics.body_forces_batch)
        shape = (self._ints.shape[0], 6)

        def block(start: int, stop: int) -> int:
            fext = np.empty((min(_FORCE_ROWS, stop - start),) + shape)
            status = 0
            for a in range(start, stop, _FORCE_ROWS):
                b = min(stop, a + _FORCE_ROWS)
                forces = fext[:b - a]
                kinematics.body_forces_batch(model, states[0][a:b], wrenches, forces)
                status = status or batch(model, *(s[a:b] for s in states), forces, out[a:b])
            return status
        return run_batch(block, out.shape[0], lambda a, b: (a, b))

    # ------------------------------------------------------------------ dynamics
    def inverse_dynamics(self, q, qd, qdd, external_wrenches: Optional[Mapping] = None,
                         friction: bool = False) -> np.ndarray:
        """
        Return tau = M(q) qdd + C(q, qd) qd + g(q) - sum J_l^T w_l (RNEA, Featherstone t. 5.1).

        q, qd, qdd: (dof,) or (N, dof) in rad, rad/s, rad/s^2 (m for prismatic).
        external_wrenches: {link: [fx, fy, fz, tx, ty, tz]} acting on the robot
        at the link origin, world axes (N, N m). M includes the armature.
        friction: True adds ``friction_torques(qd)``, giving the torque the
        actuators must deliver (joint side). Returns tau (N m or N), same
        leading shape.
        """
        if external_wrenches is None and (friction is False or friction is True):
            tau = (self._idf_call if friction else self._id_call)(q, qd, qdd)
            if tau is not None:
                return tau
        return self._inverse_dynamics(q, qd, qdd, external_wrenches, friction)

    def _inverse_dynamics(self, q, qd, qdd, external_wrenches, friction=False) -> np.ndarray:
        if isinstance(friction, np.bool_):
            friction = bool(friction)
        if friction is not True and friction is not False:
            raise ValueError(f'friction: expected True or False, got {friction!r}')
        names = _ARGUMENT_NAMES['inverse_dynamics']
        q, qd, qdd = self._states(names, q, qd, qdd)
        wrenches = self._link_wrenches(external_wrenches)
        tau = np.empty(qd.shape)
        if q.ndim == 1 and wrenches is None:
            if friction:
                call = self._bind('_idf_call', friction_kernels.inverse_dynamics_friction_entry,
                                  3, self._shape)
            else:
                call = self._bind('_id_call', rnea.inverse_dynamics_entry, 3, self._shape)
            self._check_status(call.into(tau, q, qd, qdd), names, (q, qd, qdd))
            return tau
        # batches, and single states with wrenches (a batch of one: one kernel less to compile)
        q, qd, qdd = self._as_batch(names, q, qd, qdd)
        out = tau.reshape(qd.shape)
        model = self._model
        self._run_states(rnea.inverse_dynamics_batch, wrenches, (q, qd, qdd), out)
        if friction and out.size:
            ensure_compiled(friction_kernels.friction_torques_batch)
            losses = np.empty(qd.shape)
            friction_kernels.friction_torques_batch(model, qd, losses)
            out += losses
        return tau

    def _as_batch(self, names: tuple, *arrays) -> tuple:
        """Return validated states as (N, dof) views; single states are checked for NaN here."""
        if arrays[0].ndim == 2:
            return arrays
        self._check_status(1 if not all(np.all(np.isfinite(a)) for a in arrays) else 0, names,
                           arrays)
        return tuple(a.reshape(1, a.shape[-1]) for a in arrays)

    def gravity_torques(self, q) -> np.ndarray:
        """Return g(q) (N m): the joint torques that hold the robot still at q."""
        tau = self._gravity_call(q)
        if tau is not None:
            return tau
        q = self._state(q, 'q')
        if q.ndim == 2:
            zero = np.zeros((q.shape[0], self._nv))
            return self.inverse_dynamics(q, zero, zero)
        call = self._bind('_gravity_call', rnea.gravity_torques_entry, 1, self._shape)
        tau = np.empty(self._dof)
        self._check_status(call.into(tau, q), ('q',), (q,))
        return tau

    def bias_torques(self, q, qd) -> np.ndarray:
        """Return C(q, qd) qd + g(q) (N m) = inverse_dynamics(q, qd, 0)."""
        tau = self._id_call(q, qd, self._zero_state)
        if tau is not None:
            return tau
        q, qd = self._states(('q', 'qd'), q, qd)
        return self.inverse_dynamics(q, qd, np.zeros(qd.shape))

    def mass_matrix(self, q) -> np.ndarray:
        """Return the joint-space inertia M(q), (dof, dof) or (N, dof, dof), by CRBA (t. 6.2)."""
        mass = self._mass_call(q)
        if mass is not None:
            return mass
        q = self._state(q, 'q')
        mass = empty(q.shape[:-1] + self._mass_shape, 'mass_matrix')
        if q.ndim == 1:
            call = self._bind('_mass_call', crba.mass_matrix_entry, 1, self._mass_shape)
            self._check_status(call.into(mass, q), ('q',), (q,))
            return mass
        if mass.size == 0:
            return mass
        ensure_compiled(crba.mass_matrix_batch)
        model = self._model
        run_batch(crba.mass_matrix_batch, q.shape[0], lambda a, b: (model, q[a:b], mass[a:b]))
        return mass

    def coriolis_matrix(self, q, qd) -> np.ndarray:
        """Return C(q, qd) (dof, dof) with C qd = bias - g and dM/dt - 2C skew-symmetric."""
        q, qd = self._states(('q', 'qd'), q, qd)
        out = empty(q.shape[:-1] + self._mass_shape, 'coriolis_matrix')
        if out.size == 0:
            return out
        ensure_compiled(coriolis.coriolis_matrix)
        for k in np.ndindex(q.shape[:-1]):   # () for a single state
            self._check_status(coriolis.coriolis_matrix(self._model, q[k], qd[k], out[k]),
                               ('q', 'qd'), (q, qd))
        return out

    def forward_dynamics(self, q, qd, tau, external_wrenches: Optional[Mapping] = None
                         ) -> np.ndarray:
        """
        Return qdd = M^-1 (tau - C qd - g + sum J_l^T w_l) by ABA (O(n), table 7.1).

        Shapes and units as ``inverse_dynamics``. Models with mimic joints
        solve M qdd = tau - b by Cholesky instead (ABA has no mimic joint
        model). Raises SingularMassMatrixError naming the joint when M is
        singular (a joint that moves no inertia).
        """
        if external_wrenches is None:
            qdd = self._fd_call(q, qd, tau)
            if qdd is not None:
                return qdd
        return self._forward_dynamics(q, qd, tau, external_wrenches)

    def _forward_dynamics(self, q, qd, tau, external_wrenches) -> np.ndarray:
        names = _ARGUMENT_NAMES['forward_dynamics']
        q, qd, tau = self._states(names, q, qd, tau)
        wrenches = self._link_wrenches(external_wrenches)
        qdd = np.empty(qd.shape)
        if q.ndim == 1 and wrenches is None:
            call = self._bind('_fd_call', self._fd_entry, 3, self._shape)
            status = call.into(qdd, q, qd, tau)
        else:
            q, qd, tau = self._as_batch(names, q, qd, tau)
            status = self._run_states(self._fd_batch, wrenches, (q, qd, tau),
                                      qdd.reshape(qd.shape))
        if status < 0:
            self._raise_singular(-status - 1)
        self._check_status(status, names, (q, qd, tau))
        return qdd

    def _raise_singular(self, index: int, coordinate: Optional[bool] = None) -> None:
        """
        Raise SingularMassMatrixError for a singular body (ABA) or coordinate (a dense solve).

        coordinate: whether ``index`` is a coordinate; by default, when the
        model solves forward dynamics densely (mimic joints).
        """
        if coordinate is None:
            coordinate = self._dense_forward
        if coordinate:   # the joint whose velocity coordinates hold ``index``
            starts = self._ints[self._coordinate_body, VINDEX]
            joint = self.joint_names[int(np.searchsorted(starts, index, side='right')) - 1]
            raise SingularMassMatrixError(
                f'the mass matrix is singular (not positive definite): joint {joint!r} moves '
                'no inertia that the joints before it do not (no mass or inertia about its '
                'axis downstream); give its child links inertia or make it fixed')
        joint = self._arrays.body_joints[index]
        raise SingularMassMatrixError(
            f'the mass matrix is singular: joint {joint!r} moves no inertia (no mass or '
            'inertia about its axis downstream); give its child links inertia or make it fixed')

    def _solve_mass_rows(self, mass: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Return M^-1 applied to each row of ``rows`` (m, dof) by one Cholesky factor."""
        ensure_compiled(aba.solve_mass_rows)
        out = np.empty(rows.shape)
        singular = aba.solve_mass_rows(self._model, mass, np.ascontiguousarray(rows),
                                       np.empty(self._mass_shape), out)
        if singular >= 0:
            self._raise_singular(singular, coordinate=True)
        return out

    def kinetic_energy(self, q, qd) -> float:
        """Return T = 1/2 qd^T M(q) qd (J)."""
        q, qd = self._states(('q', 'qd'), q, qd)
        if q.ndim == 2:
            if self._dof == 0:
                return zeros(q.shape[:1], 'kinetic_energy')
            return np.array([self.kinetic_energy(a, b) for a, b in zip(q, qd)], dtype=float)
        self._check_finite(q, 'q')
        self._check_finite(qd, 'qd')
        ensure_compiled(energy.kinetic_energy)
        return energy.kinetic_energy(self._model, q, qd)

    def potential_energy(self, q) -> float:
        """Return V(q) = -sum m_i g^T c_i (J), zero with every centre of mass at the root."""
        q = self._state(q, 'q')
        if q.ndim == 2:
            if self._dof == 0:   # no moving body: V = 0 (the root's does not change)
                return zeros(q.shape[:1], 'potential_energy')
            return np.array([self.potential_energy(a) for a in q], dtype=float)
        self._check_finite(q, 'q')
        ensure_compiled(energy.potential_energy)
        return energy.potential_energy(self._model, q)

    # ------------------------------------------------------------------ centroidal dynamics
    def centroidal_momentum_matrix(self, q) -> np.ndarray:
        """
        Return A_G (6, nv) with h_G = A_G qd: linear momentum, angular about the CoM, world axes.

        Orin, Goswami and Lee (2013); Pinocchio's ``ccrba`` (centroidal.py).
        """
        matrix = self._centroidal_call(q)
        if matrix is not None:
            return matrix
        q = self._single(q, 'q')
        call = self._bind('_centroidal_call', centroidal.centroidal_momentum_matrix_entry, 1,
                          (6, self._nv))
        matrix = np.empty((6, self._nv))
        self._check_status(call.into(matrix, q), ('q',), (q,))
        return matrix

    def center_of_mass(self, q) -> np.ndarray:
        """Return the centre of mass (3,) of the moving bodies in the world (root) frame (m)."""
        return self._centroidal(q)[1][1:]

    def com_jacobian(self, q) -> np.ndarray:
        """Return J_G (3, nv): the centre of mass velocity, world axes, is J_G qd."""
        matrix, com = self._centroidal(q)
        return matrix[:3] / com[0] if com[0] > 0.0 else np.zeros_like(matrix[:3])

    def centroidal_momentum(self, q, qd) -> np.ndarray:
        """Return h_G = A_G(q) qd (6,): linear (kg m/s), angular about the CoM (kg m^2/s)."""
        qd = self._single(qd, 'qd')
        return self._centroidal(q)[0] @ qd

    def centroidal_momentum_bias(self, q, qd) -> np.ndarray:
        """Return (dA_G/dt) qd (6,): dh_G/dt at qdd = 0 (Pinocchio's dhg at a = 0), world axes."""
        q, qd = self._single(q, 'q'), self._single(qd, 'qd')
        ensure_compiled(centroidal.centroidal_momentum_bias)
        out = np.empty(6)
        self._check_status(centroidal.centroidal_momentum_bias(self._model, q, qd, out),
                           ('q', 'qd'), (q, qd))
        return out

    def _centroidal(self, q) -> tuple:
        """Return (A_G (6, nv), (m, c_x, c_y, c_z)) at one configuration q."""
        q = self._single(q, 'q')
        ensure_compiled(centroidal.centroidal_momentum_matrix)
        matrix, com = np.empty((6, self._nv)), np.empty(4)
        self._check_status(centroidal.centroidal_momentum_matrix(self._model, q, matrix, com),
                           ('q',), (q,))
        return matrix, com

    @staticmethod
    def _check_finite(x: np.ndarray, name: str) -> None:
        if not np.all(np.isfinite(x)):
            raise ValueError(f'{name}: contains NaN or Inf')

    # ------------------------------------------------------------------ frames
    def link_pose(self, q, link: str) -> np.ndarray:
        """Return the 4x4 homogeneous transform of ``link`` in the root frame at q."""
        return self._link_quantity('pose', link, q)

    def _link_quantity(self, kind: str, link: str, *states) -> np.ndarray:
        """Return a link's pose, world-aligned Jacobian or bias acceleration (_LINK_ENTRIES)."""
        calls = self._link_calls[kind]
        try:
            out = calls[link](*states)
        except (KeyError, TypeError):   # not bound yet, or an unhashable link
            out = None
        if out is not None:
            return out
        states = [self._single(s, n) for s, n in zip(states, ('q', 'qd'))]
        body = self._body_of(link)
        entry, out_shape = _LINK_ENTRIES[kind]
        out_shape = out_shape or self._jacobian_shape
        call = calls.get(link)
        if call is None:
            ensure_compiled(entry)
            frame = np.append(self._arrays.link_offset[link][0], float(body))
            call = StateCall(entry.address, self._model, self._dof, len(states), out_shape,
                             frame, self._nq)
            calls[link] = call
        out = np.empty(out_shape)
        self._check_status(call.into(out, *states), ('q', 'qd')[:len(states)], tuple(states))
        return out

    def link_attachment(self, link: str) -> tuple:
        """
        Return (body, offset) of ``link``: the moving body carrying it and its fixed frame there.

        body: its index in ``body_names`` (-1: the fixed root); offset (4, 4): the
        link frame in that body's frame (links merged through fixed joints have
        one). For compiled callers placing points on links (contacts/kernel.py).
        """
        body = self._body_of(link)
        offset = np.eye(4)
        values = self._arrays.link_offset[link][0]
        offset[:3, :3] = layouts.POSE_LAYOUT.view(values, 'R').reshape(3, 3)
        offset[:3, 3] = layouts.POSE_LAYOUT.view(values, 'P')
        return body, offset

    def _single(self, value, name: str) -> np.ndarray:
        array = as_array(value, name)
        size = self._nq if name == 'q' else self._nv
        if array.shape != (size,):
            raise ValueError(f'{name}: expected shape ({size},) for '
                             f'{self._coordinates_of(name)}, got shape {array.shape}')
        self._check_finite(array, name)
        if name == 'q' and self._rotations:
            floating_base.check_rotations(self._rotations, array)
        return array

    @staticmethod
    def _check_frame(frame: str) -> None:
        if frame not in FRAMES:
            raise ValueError(f'frame: expected one of {FRAMES}, got {frame!r}')

    def jacobian(self, q, link: str, frame: str = 'world_aligned') -> np.ndarray:
        """
        Return the 6 x dof Jacobian of ``link``, rows [linear; angular] (N x 6 x dof for N states).

        frame 'world_aligned': velocity of the link origin and angular velocity,
        world axes (Pinocchio LOCAL_WORLD_ALIGNED); 'local': the same in the
        link's axes (LOCAL); 'world': spatial velocity at the world origin,
        world axes (WORLD).
        """
        if frame == 'world_aligned':
            try:   # the bound call of this link, inlined: the Jacobian is called in loops
                jac = self._jacobian_calls[link](q)
            except (KeyError, TypeError):
                jac = None
            if jac is not None:
                return jac
        array = as_array(q, 'q')
        if array.ndim == 2:
            return self._jacobian_batch(array, link, frame)
        if frame == 'world_aligned':
            return self._link_quantity('jacobian', link, q)
        self._check_frame(frame)
        jac = self._link_quantity('jacobian', link, q)
        pose = self.link_pose(q, link)
        if frame == 'local':
            rot = pose[:3, :3]
            return np.vstack([rot.T @ jac[:3], rot.T @ jac[3:]])
        return np.vstack([jac[:3] + np.cross(pose[:3, 3], jac[3:], axis=0), jac[3:]])

    def _jacobian_batch(self, q: np.ndarray, link: str, frame: str) -> np.ndarray:
        """Return the Jacobians (N, 6, dof) of ``link`` at the rows of q, one bound call each."""
        q = self._state(q, 'q')
        self._body_of(link)
        self._check_frame(frame)
        out = empty((q.shape[0],) + self._jacobian_shape, 'jacobian')
        for k in range(q.shape[0] if out.size else 0):
            out[k] = self.jacobian(q[k], link, frame)
        return out

    def jacobian_dot_qd(self, q, qd, link: str, frame: str = 'world_aligned') -> np.ndarray:
        """
        Return dJ/dt qd (6,) or (N, 6), rows [linear; angular], for the frames of ``jacobian``.

        'world_aligned' gives the classical acceleration of the link origin at
        qdd = 0; 'local' and 'world' the spatial acceleration at qdd = 0.
        """
        self._check_frame(frame)
        if np.ndim(q) == 2:   # a batch: one bound call per state
            self._body_of(link)
            return np.array([self.jacobian_dot_qd(a, b, link, frame) for a, b in zip(
                *self._states(('q', 'qd'), q, qd))]).reshape(-1, 6)
        angular, spatial, classical = self._link_quantity('bias', link, q, qd)
        if frame == 'world_aligned':
            return np.concatenate([classical, angular])
        if frame == 'local':
            rot = self.link_pose(q, link)[:3, :3]
            return np.concatenate([rot.T @ spatial, rot.T @ angular])
        point = self.link_pose(q, link)[:3, 3]
        return np.concatenate([spatial + np.cross(point, angular), angular])

    def operational_space(self, q, qd, link: str, frame: str = 'world_aligned',
                          axes: Optional[Sequence[int]] = None,
                          reference_link: Optional[str] = None,
                          singular_threshold: float = 1e-6, damping: float = 1e-3):
        """
        Return Khatib's operational-space quantities of ``link`` at (q, qd) (Khatib 1987).

        Lambda = (J M^-1 J^T)^-1, J_bar, the null-space projector N, mu and p as an
        ``OperationalSpace``. frame: as ``jacobian``; axes: task rows of [linear;
        angular] (0-2 x, y, z; 3-5 rotations), all six by default; reference_link:
        express the task in the axes of this link (rigidly attached to the root);
        a task whose Lambda^-1 has eigenvalues below ``singular_threshold`` times
        the largest is flagged degenerate and inverted with ``damping`` (see
        ros_dynamics.operational_space). Raises SingularMassMatrixError if M is.
        """
        from ros_dynamics.operational_space import operational_space
        return operational_space(self, q, qd, link, frame, axes, reference_link,
                                 singular_threshold, damping)

    # ------------------------------------------------------------------ contacts
    def constrained_forward_dynamics(self, q, v, tau, contacts, baumgarte=None) -> tuple:
        """
        Return (qdd, forces) with ``contacts`` held: M qdd + b = tau + J^T f, J qdd + Jdot v = 0.

        See ros_dynamics.contacts.forward (conventions: docs/contacts.md).
        """
        solve = _ABOVE.get('constrained_forward_dynamics')
        if solve is None:   # a layer above the model, imported on first use (then 0.5 us saved)
            from ros_dynamics.contacts.forward import constrained_forward_dynamics as solve
            _ABOVE['constrained_forward_dynamics'] = solve
        return solve(self, q, v, tau, contacts, baumgarte)

    def contact_inverse_dynamics(self, q, v, qdd, contacts, **options) -> tuple:
        """
        Return the actuated torques and contact forces realising qdd (a ContactInverseDynamics).

        See ros_dynamics.contacts.inverse for the options and the QP (docs/contacts.md).
        """
        from ros_dynamics.contacts.inverse import contact_inverse_dynamics
        return contact_inverse_dynamics(self, q, v, qdd, contacts, **options)

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
        from ros_dynamics.identification.regressor import inertial_parameters_of
        return inertial_parameters_of(self._reals)

    def with_inertial_parameters(self, parameters) -> 'RobotModel':
        """
        Return a copy of this model whose bodies carry ``parameters`` (nb, 10).

        Order and frames as ``inertial_parameters``; joints, limits and gravity
        are kept. Not checked for physical consistency (identification results
        are checked by the identification).
        """
        from ros_dynamics.identification.regressor import reals_with_parameters
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

    def regressor(self, q, qd, qdd, friction: bool = False, armature: bool = False,
                  friction_velocity: float = 1e-3) -> np.ndarray:
        """
        Return the joint torque regressor Y, tau = Y theta: (dof, p) or (N, dof, p).

        See ``ros_dynamics.identification.regressor.joint_torque_regressor``
        for the columns (10 per body, then 3 friction columns per joint, then
        one armature column per joint).
        """
        from ros_dynamics.identification.regressor import joint_torque_regressor
        return joint_torque_regressor(self, q, qd, qdd, friction, armature, friction_velocity)

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
