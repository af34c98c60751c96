# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Actuator parameters from a robot's description: URDF transmissions and an actuators YAML.

Read, in increasing precedence:

1. URDF ``<joint><dynamics damping friction>``: viscous and Coulomb friction;
2. URDF ``<transmission>`` elements with one joint (simple transmissions),
   ROS 1 style (``<mechanicalReduction>`` under ``<actuator>``, ``<joint>`` or
   the transmission) and ros2_control style (``<ros2_control><transmission>``,
   ``<mechanical_reduction>``), and Drake's extensions on
   ``<transmission><actuator>``: ``<drake:gear_ratio value=".."/>`` and
   ``<drake:rotor_inertia value=".."/>`` (armature = G^2 J_m, Drake's
   convention). Transmissions of several joints (differentials) give no gear
   ratio and are skipped; ones naming a joint that is not an independent
   joint of the model are skipped with a URDFWarning. A transmission that
   cannot be read (a reduction that is not a number, such as the xacro
   leftover ``<mechanicalReduction>reduction</mechanicalReduction>`` of
   PyBullet's xArm 6, a gear ratio of 0, a negative rotor inertia, two
   different ratios) is ignored with a URDFWarning naming it, as urdfdom
   ignores it: its joint keeps gear ratio 1 and no rotor inertia. It is an
   error only when the actuators YAML needs it (a ``rotor_inertia`` without a
   ``gear_ratio`` on that joint);
3. the actuators YAML (``RobotModel.from_urdf_file(path, actuators=...)``), a
   mapping, or the path of a YAML file holding it::

       friction_velocity: 0.001      # optional, rad/s (smooth Coulomb sign)
       joints:
         panda_joint1:
           gear_ratio: 100           # motor turns per joint turn
           rotor_inertia: 1.0e-5     # motor side, kg m^2 (armature = G^2 J_m) ...
           # armature: 0.1           # ... or joint side, kg m^2 (not both)
           viscous: 0.0              # N m s/rad
           coulomb: 0.0              # N m
           offset: 0.0               # N m
           sigmoid: [0.54615, 5.1181, 0.039533]   # Gaz et al. 2019: phi1, phi2, phi3
           effort_limit: 87.0        # joint side, N m

   Unknown keys and joints are errors naming them and the valid ones.
"""

import math
import os
from typing import Mapping, Optional, Union
import warnings
import xml.etree.ElementTree as ElementTree

import numpy as np

from ros_dynamics.description.actuator_parameters import (ActuatorParameters,
                                                          DEFAULT_FRICTION_VELOCITY, PER_JOINT)
from ros_dynamics.description.urdf import without_leading_blanks
from ros_dynamics.exceptions import URDFError, URDFWarning

JOINT_KEYS = tuple(PER_JOINT) + ('rotor_inertia',)
TOP_KEYS = ('friction_velocity', 'joints')
_REDUCTION_TAGS = ('mechanicalReduction', 'mechanical_reduction')


def _local(tag) -> str:
    """Return an element tag without its namespace ('{http://drake.mit.edu}gear_ratio' -> ...)."""
    return tag.rsplit('}', 1)[-1] if isinstance(tag, str) else ''


def _reduction(element: ElementTree.Element, what: str) -> Optional[float]:
    """Return the mechanical reduction given directly under ``element``, or None."""
    for child in element:
        if _local(child.tag) in _REDUCTION_TAGS:
            return _float(child.text, what + f' <{_local(child.tag)}>')
    return None


def _float(text: Optional[str], what: str) -> float:
    try:
        value = float((text or '').strip())
    except ValueError:
        raise URDFError(f'{what}: expected a number, got {text!r}') from None
    if not math.isfinite(value):
        raise URDFError(f'{what}: expected a finite number, got {text!r}')
    return value


def _drake_value(actuator: ElementTree.Element, name: str, what: str) -> Optional[float]:
    for child in actuator:
        tag = child.tag if isinstance(child.tag, str) else ''
        if _local(tag) == name and (tag.startswith('{') or tag.startswith('drake:')):
            return _float(child.get('value'), f'{what} <drake:{name}>')
    return None


class Transmissions(dict):
    """
    {joint: (gear_ratio or None, rotor_inertia or None)}, read from a URDF's transmissions.

    ``ignored`` maps a joint to why its transmission could not be read
    (the transmission was skipped with a URDFWarning).
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.ignored = {}


def parse_transmissions(root: ElementTree.Element) -> Transmissions:
    """
    Return {joint: (gear_ratio, rotor_inertia or None)} from a URDF's simple transmissions.

    ``root`` is the parsed ``<robot>`` element. A transmission with a
    malformed number, a zero gear ratio, a negative rotor inertia or two
    different gear ratios is skipped with a URDFWarning naming it and the
    problem (recorded in the result's ``ignored``); two readable
    transmissions of one joint that disagree raise URDFError. See the module
    docstring for what is read.
    """
    elements = root.findall('transmission') + root.findall('ros2_control/transmission')
    out = Transmissions()
    for transmission in elements:
        what = f'transmission {transmission.get("name", "")!r}'
        joints = transmission.findall('joint')
        if len(joints) != 1:   # a differential: no per-joint gear ratio
            continue
        joint = joints[0].get('name')
        try:
            ratio, rotor = _read_transmission(transmission, joints[0], what)
        except URDFError as error:
            out.ignored[joint] = str(error)
            warnings.warn(f'{error}; the transmission is ignored (joint {joint!r} keeps gear '
                          'ratio 1 and no rotor inertia)', URDFWarning, stacklevel=2)
            continue
        if joint in out:   # e.g. a ROS 1 transmission and a ros2_control one for the joint
            ratio, rotor = _merged(joint, out[joint], (ratio, rotor))
        out[joint] = (ratio, rotor)
    return out


def _read_transmission(transmission: ElementTree.Element, joint: ElementTree.Element,
                       what: str) -> tuple:
    """Return (gear_ratio or None, rotor_inertia or None) of one simple transmission."""
    ratios, rotor = [], None
    for element, where in [(joint, 'joint'), (transmission, '')] + [
            (a, 'actuator') for a in transmission.findall('actuator')]:
        label = f'{what} {where}'.strip()
        value = _reduction(element, label)
        if value is not None:
            ratios.append((value, label))
        if where == 'actuator':
            drake = _drake_value(element, 'gear_ratio', label)
            if drake is not None:
                ratios.append((drake, label + ' drake:gear_ratio'))
            inertia = _drake_value(element, 'rotor_inertia', label)
            if inertia is not None:
                if inertia < 0.0:
                    raise URDFError(f'{label} <drake:rotor_inertia>: must be >= 0 '
                                    f'(kg m^2), got {inertia!r}')
                rotor = inertia
    for value, label in ratios:
        if value == 0.0:
            raise URDFError(f'{label}: a gear ratio of 0 (the joint could not move)')
        if value != ratios[0][0]:
            raise URDFError(f'{what}: gear ratios {ratios[0][0]!r} ({ratios[0][1]}) and '
                            f'{value!r} ({label}) differ; give one')
    return ratios[0][0] if ratios else None, rotor


def _merged(joint: str, first: tuple, second: tuple) -> tuple:
    """Return one (gear_ratio, rotor_inertia) from a joint's two transmissions (must agree)."""
    merged = []
    for name, a, b in zip(('gear ratio', 'rotor inertia'), first, second):
        if a is not None and b is not None and a != b:
            raise URDFError(f'joint {joint!r}: two transmissions give different {name}s '
                            f'({a!r} and {b!r}); give one')
        merged.append(a if b is None else b)
    return tuple(merged)


def transmissions_of(xml: str) -> Transmissions:
    """Return ``parse_transmissions`` of URDF text already validated by parse_urdf_string."""
    return parse_transmissions(ElementTree.fromstring(without_leading_blanks(xml, warn=False)))


def load_actuators_file(source: Union[str, os.PathLike, Mapping]) -> dict:
    """Return the actuators mapping from a mapping or a YAML file path (ValueError otherwise)."""
    if isinstance(source, Mapping):
        return dict(source)
    if not isinstance(source, (str, os.PathLike)):
        raise ValueError(f'actuators: expected a mapping or the path of a YAML file, got '
                         f'{type(source).__name__}')
    import yaml
    path = os.fspath(source)
    try:
        with open(path, encoding='utf-8') as stream:
            data = yaml.safe_load(stream)
    except OSError as error:
        raise ValueError(f'actuators: cannot read {path!r}: {error}') from None
    except yaml.YAMLError as error:
        raise ValueError(f'actuators: {path!r} is not valid YAML: {error}') from None
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise ValueError(f'actuators: {path!r} must hold a mapping with keys {TOP_KEYS}, got '
                         f'{type(data).__name__}')
    return dict(data)


def _number(value, what: str, shape: tuple = ()) -> Union[float, list]:
    array = None
    if not isinstance(value, (bool, str)):
        try:
            array = np.array(value, dtype=float)
        except (TypeError, ValueError):
            array = None
    if array is None or array.shape != shape:
        need = f'a list of {shape[0]} numbers' if shape else 'a number'
        raise ValueError(f'{what}: expected {need}, got {value!r}')
    return array


def actuator_parameters(joint_specs: tuple, transmissions: Optional[dict] = None,
                        config: Union[None, str, os.PathLike, Mapping] = None,
                        mimic_followers: Mapping = None,
                        urdf_joints=()) -> ActuatorParameters:
    """
    Return the ActuatorParameters of the independent joints ``joint_specs`` (urdf.JointSpec).

    transmissions: from ``parse_transmissions``; config: the actuators mapping
    or YAML path; mimic_followers: {follower joint: leader} (transmissions on
    followers are skipped, YAML entries for them are errors); urdf_joints:
    every joint of the URDF (transmissions of its fixed joints are skipped
    silently, those naming no joint of it with a URDFWarning).
    """
    names = tuple(spec.name for spec in joint_specs)
    index = {name: k for k, name in enumerate(names)}
    followers = dict(mimic_followers or {})
    values = {'gear_ratio': np.ones(len(names)), 'armature': np.zeros(len(names)),
              'viscous': np.array([spec.damping for spec in joint_specs], dtype=float),
              'coulomb': np.array([spec.friction for spec in joint_specs], dtype=float),
              'offset': np.zeros(len(names)), 'sigmoid': np.zeros((len(names), 3)),
              'effort_limit': np.array([spec.effort for spec in joint_specs], dtype=float)}
    for joint, (ratio, rotor) in (transmissions or {}).items():
        k = index.get(joint)
        if k is None:
            if joint not in followers and joint not in urdf_joints:
                warnings.warn(f'a transmission names joint {joint!r}, which is not a joint of '
                              'this robot; it is not used', URDFWarning, stacklevel=2)
            continue
        if ratio is not None:
            values['gear_ratio'][k] = ratio
        if rotor is not None:
            values['armature'][k] = values['gear_ratio'][k] ** 2 * rotor
    velocity = DEFAULT_FRICTION_VELOCITY
    if config is not None:
        data = load_actuators_file(config)
        unknown = [key for key in data if key not in TOP_KEYS]
        if unknown:
            raise ValueError(f'actuators: unknown key {unknown[0]!r} (valid keys: '
                             f'{", ".join(TOP_KEYS)})')
        if 'friction_velocity' in data:
            velocity = float(_number(data['friction_velocity'], 'actuators: friction_velocity'))
        joints = data.get('joints') or {}
        if not isinstance(joints, Mapping):
            raise ValueError('actuators: joints must map joint names to their parameters, got '
                             f'{type(joints).__name__}')
        for joint, entry in joints.items():
            _apply_entry(values, index, names, followers, joint, entry,
                         {} if transmissions is None else transmissions)
    try:
        return ActuatorParameters(names, friction_velocity=velocity, **values)
    except ValueError as error:
        raise ValueError(f'actuators: {error}') from None


def _apply_entry(values: dict, index: dict, names: tuple, followers: Mapping, joint, entry,
                 transmissions: dict) -> None:
    """Apply one joint's YAML entry to ``values`` (per-joint arrays)."""
    k = index.get(joint)
    if k is None:
        if joint in followers:
            raise ValueError(f'actuators: joint {joint!r} mimics joint {followers[joint]!r}; '
                             'give its actuator parameters on that joint')
        raise ValueError(f'actuators: joint {joint!r} is not an independent joint of this '
                         f'robot (joints: {", ".join(names)})')
    if not isinstance(entry, Mapping):
        raise ValueError(f'actuators: joint {joint!r}: expected a mapping of '
                         f'{", ".join(JOINT_KEYS)}, got {entry!r}')
    unknown = [key for key in entry if key not in JOINT_KEYS]
    if unknown:
        raise ValueError(f'actuators: joint {joint!r}: unknown key {unknown[0]!r} (valid keys: '
                         f'{", ".join(JOINT_KEYS)})')
    if 'rotor_inertia' in entry and 'armature' in entry:
        raise ValueError(f'actuators: joint {joint!r}: give rotor_inertia (motor side) or '
                         'armature (joint side), not both')
    for key, value in entry.items():
        what = f'actuators: joint {joint!r}: {key}'
        if key == 'rotor_inertia':
            continue
        values[key][k] = _number(value, what, PER_JOINT[key])
    if 'rotor_inertia' in entry:
        rotor = float(_number(entry['rotor_inertia'], f'actuators: joint {joint!r}: '
                                                      'rotor_inertia'))
        if not rotor >= 0.0:
            raise ValueError(f'actuators: joint {joint!r}: rotor_inertia must be >= 0 '
                             f'(kg m^2), got {rotor!r}')
        has_ratio = 'gear_ratio' in entry or transmissions.get(joint, (None,))[0] is not None
        ignored = getattr(transmissions, 'ignored', {}).get(joint)
        if not has_ratio and ignored:
            raise ValueError(f'actuators: joint {joint!r}: rotor_inertia needs the gear ratio, '
                             f'and the URDF transmission that gives it cannot be read '
                             f'({ignored}); fix the transmission or give a gear_ratio key')
        if not has_ratio:
            raise ValueError(f'actuators: joint {joint!r}: rotor_inertia needs the gear ratio '
                             '(a gear_ratio key or a URDF transmission): armature = G^2 J_m')
        values['armature'][k] = values['gear_ratio'][k] ** 2 * rotor
