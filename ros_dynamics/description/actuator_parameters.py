# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Actuator parameters of a robot's independent joints: what a URDF's rigid bodies leave out.

Per joint (``RobotModel.joint_names`` order, joint side: N m and rad for
revolute joints, N and m for prismatic ones):

* ``gear_ratio`` G (motor turns per joint turn; 1 where nothing says), for
  information and for ``rotor_inertia``;
* ``armature`` I_a = G^2 J_m, the rotor inertia J_m reflected through the
  gear (kg m^2, kg for prismatic): Pinocchio's ``model.armature``;
* friction (actuators/friction.py): ``viscous`` b (N m s/rad), ``coulomb``
  f_c (N m), ``offset`` o (N m) and Gaz et al.'s ``sigmoid`` (phi1 N m,
  phi2 s/rad, phi3 rad/s), with one velocity scale ``friction_velocity``
  v_s (rad/s) for the smooth Coulomb sign tanh(v / v_s);
* ``effort_limit`` (N m; inf for none), the joint-side limit (motor torque
  times G); the URDF's ``<limit effort>`` unless the actuators YAML says otherwise.
"""

from dataclasses import dataclass, fields, replace
import math
from typing import Optional, Sequence

import numpy as np

from ros_dynamics.multibody.layouts import ACTUATOR_LAYOUT, NACTUATOR

# the per-joint keys, as in the actuators YAML (description.py), with their shape per joint
PER_JOINT = {'gear_ratio': (), 'armature': (), 'viscous': (), 'coulomb': (), 'offset': (),
             'sigmoid': (3,), 'effort_limit': ()}
DEFAULT_FRICTION_VELOCITY = 1e-3   # rad/s: the simulator's smoothing of the Coulomb sign


@dataclass(frozen=True)
class ActuatorParameters:
    """Armature, friction, gear ratio and effort limit per joint ((dof,); sigmoid (dof, 3))."""

    joint_names: tuple
    gear_ratio: np.ndarray
    armature: np.ndarray
    viscous: np.ndarray
    coulomb: np.ndarray
    offset: np.ndarray
    sigmoid: np.ndarray
    effort_limit: np.ndarray
    friction_velocity: float = DEFAULT_FRICTION_VELOCITY

    @classmethod
    def defaults(cls, joint_names: Sequence[str], viscous=None, coulomb=None,
                 effort_limit=None) -> 'ActuatorParameters':
        """Return parameters with no armature or friction beyond the given URDF values."""
        dof = len(joint_names)
        zeros = np.zeros(dof)
        return cls(tuple(joint_names), np.ones(dof), zeros,
                   zeros if viscous is None else viscous, zeros if coulomb is None else coulomb,
                   zeros, np.zeros((dof, 3)),
                   np.full(dof, np.inf) if effort_limit is None else effort_limit)

    def __post_init__(self) -> None:
        """Convert to read-only float arrays and validate; ValueError names the joint."""
        dof = len(self.joint_names)
        for name, shape in PER_JOINT.items():
            value = getattr(self, name)
            try:
                array = np.array(value, dtype=float)
            except (TypeError, ValueError):
                raise ValueError(f'{name}: expected numbers, got {value!r}') from None
            if array.shape != (dof,) + shape:
                raise ValueError(f'{name}: expected shape {(dof,) + shape} for joints '
                                 f'{list(self.joint_names)}, got shape {array.shape}')
            array.setflags(write=False)
            object.__setattr__(self, name, array)
        scale = self.friction_velocity
        if not (isinstance(scale, (int, float, np.floating)) and np.isfinite(scale)
                and scale > 0.0):
            raise ValueError(f'friction_velocity: expected a positive velocity scale in rad/s, '
                             f'got {scale!r}')
        object.__setattr__(self, 'friction_velocity', float(scale))
        for name in PER_JOINT:
            self._check(name)

    def _check(self, name: str) -> None:
        values = getattr(self, name)
        if name == 'effort_limit':
            bad = np.isnan(values) | (values < 0.0)
            need = 'a number >= 0 (inf for none)'
        elif name == 'gear_ratio':
            bad = ~np.isfinite(values) | (values == 0.0)
            need = 'a finite nonzero number'
        elif name == 'sigmoid':
            bad = ~np.isfinite(values).all(axis=1) | (values[:, 0] < 0.0) | (values[:, 1] < 0.0)
            need = '[phi1, phi2, phi3] finite, phi1 >= 0 (N m), phi2 >= 0 (s/rad)'
        elif name == 'offset':
            bad = ~np.isfinite(values)
            need = 'a finite number'
        else:
            bad = ~np.isfinite(values) | (values < 0.0)
            need = 'a finite number >= 0'
        if bad.any():
            k = int(np.argmax(bad))
            value = values[k].tolist()
            raise ValueError(f'{name} of joint {self.joint_names[k]!r}: expected {need}, got '
                             f'{value!r}')

    def replace(self, **changes) -> 'ActuatorParameters':
        """Return a copy with some fields changed (validated)."""
        return replace(self, **changes)

    def with_armature(self, armature: np.ndarray) -> 'ActuatorParameters':
        """Return a copy with a new armature (dof,), validating only it (a cheap setter)."""
        array = np.array(armature, dtype=float)
        if array.shape != (len(self.joint_names),):
            raise ValueError(f'armature: expected shape ({len(self.joint_names)},) for joints '
                             f'{list(self.joint_names)}, got shape {array.shape}')
        array.setflags(write=False)
        copy = object.__new__(ActuatorParameters)
        copy.__dict__.update(self.__dict__)
        object.__setattr__(copy, 'armature', array)
        if not all(0.0 <= value < math.inf for value in array.tolist()):   # NaN fails too
            copy._check('armature')   # raises, naming the joint
        return copy

    def columns(self) -> np.ndarray:
        """
        Return the actuator block of the packed model, shape (dof, NACTUATOR).

        armature, b, f_c, o, phi1..3, and the sigmoid's value at rest
        phi1 / (1 + exp(-phi2 phi3)), computed once here instead of every call.
        """
        out = np.empty((len(self.joint_names), NACTUATOR))
        fields = ACTUATOR_LAYOUT.fields(out)
        fields['ARMATURE'][:, 0] = self.armature
        fields['VISCOUS'][:, 0] = self.viscous
        fields['COULOMB'][:, 0] = self.coulomb
        fields['OFFSET'][:, 0] = self.offset
        fields['SIGMOID'][:] = self.sigmoid
        phi1, phi2, phi3 = self.sigmoid.T
        fields['SIGMOID_REST'][:, 0] = phi1 / (1.0 + np.exp(-phi2 * phi3))
        return out

    def to_dict(self, joints: Optional[Sequence[str]] = None) -> dict:
        """
        Return the actuators-YAML form {'friction_velocity': v_s, 'joints': {name: {...}}}.

        Every key of every joint (or of ``joints``), as plain floats; an
        infinite effort limit is left out.
        """
        out = {}
        for k, joint in enumerate(self.joint_names):
            if joints is not None and joint not in joints:
                continue
            entry = {}
            for name in PER_JOINT:
                value = getattr(self, name)[k]
                if name == 'effort_limit' and not np.isfinite(value):
                    continue
                entry[name] = value.tolist() if name == 'sigmoid' else float(value)
            out[joint] = entry
        return {'friction_velocity': self.friction_velocity, 'joints': out}

    def __eq__(self, other) -> bool:
        """Return True when every field is equal."""
        if not isinstance(other, ActuatorParameters):
            return NotImplemented
        return all(np.array_equal(getattr(self, f.name), getattr(other, f.name))
                   for f in fields(self))

    __hash__ = None
