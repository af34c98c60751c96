# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Writing identified parameters where ROS users keep them: a URDF and an actuator YAML.

URDF ``<inertial>`` holds a link's mass, its centre of mass (``origin xyz``)
and its inertia about the centre of mass in the axes of ``origin rpy``. A
body's identified parameters (about the body origin, body axes: Pinocchio's
convention) become: c = h / m, I_c = I - m (|c|^2 1 - c c^T), written with
rpy = 0 on the link that carries the body (``RobotModel.body_names``). Links
merged into that body through fixed joints lose their ``<inertial>``: the
data determine only the sum, which now sits on the carrying link (the
dynamics are the same). Identified viscous and Coulomb friction go into each
joint's ``<dynamics damping friction>``. The actuators YAML holds every
actuator term the identified model has (friction with its offset and smooth
sign scale, armature), zeros included, so that it overrides whatever the URDF
says: URDF and YAML loaded together are ``IdentificationResult.robot``.
"""

import os
from typing import Optional
import xml.etree.ElementTree as ElementTree

import numpy as np
from ros_dynamics.description.urdf import without_leading_blanks
import yaml


def inertial_of(parameters: np.ndarray) -> tuple:
    """Return (mass, com (3,), inertia about the com (3, 3)) of one body's 10 parameters."""
    m, h = float(parameters[0]), np.asarray(parameters[1:4], dtype=float)
    ixx, ixy, iyy, ixz, iyz, izz = parameters[4:10]
    inertia = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]], dtype=float)
    if m <= 0.0:
        return 0.0, np.zeros(3), inertia
    c = h / m
    return m, c, inertia - m * (np.dot(c, c) * np.eye(3) - np.outer(c, c))


def urdf_with_parameters(urdf: str, robot, parameters: np.ndarray,
                         friction: Optional[np.ndarray] = None) -> str:
    """
    Return the URDF ``urdf`` (text, or a path to a file) with ``parameters`` (nb, 10) written in.

    friction: (dof, 3) [viscous, Coulomb, offset] per joint of
    ``robot.joint_names``, or None; its first two columns become each joint's
    ``<dynamics damping friction>``. Raises ValueError if the URDF is not the
    robot's (a body's link or a joint is missing).
    """
    if '<' not in urdf and os.path.exists(urdf):
        with open(urdf) as stream:
            urdf = stream.read()
    try:
        root = ElementTree.fromstring(without_leading_blanks(urdf, warn=False))
    except ElementTree.ParseError as error:
        raise ValueError(f'urdf: not valid XML ({error})') from None
    links = {link.get('name'): link for link in root.findall('link')}
    carriers = dict(zip(robot.body_names, parameters))
    for name in robot.link_names:
        link = links.get(name)
        if link is None:
            raise ValueError(f'urdf: link {name!r} of robot {robot.name!r} is missing; pass '
                             'the URDF the model was built from')
        body = robot.link_attachment(name)[0]
        if body < 0:
            continue   # the fixed root's inertia never moves: kept as it is
        for inertial in link.findall('inertial'):
            link.remove(inertial)
        if name not in carriers:
            continue
        mass, com, inertia = inertial_of(carriers[name])
        inertial = ElementTree.Element('inertial')
        ElementTree.SubElement(inertial, 'origin', xyz=' '.join(repr(float(x)) for x in com),
                               rpy='0 0 0')
        ElementTree.SubElement(inertial, 'mass', value=repr(mass))
        ElementTree.SubElement(inertial, 'inertia', **{
            key: repr(float(inertia[a, b])) for key, (a, b) in
            (('ixx', (0, 0)), ('ixy', (0, 1)), ('ixz', (0, 2)), ('iyy', (1, 1)),
             ('iyz', (1, 2)), ('izz', (2, 2)))})
        inertial.tail = link.text
        link.insert(0, inertial)
    if friction is not None:
        joints = {joint.get('name'): joint for joint in root.findall('joint')}
        for name, (viscous, coulomb, _) in zip(robot.joint_names, np.asarray(friction)):
            joint = joints.get(name)
            if joint is None:
                raise ValueError(f'urdf: joint {name!r} of robot {robot.name!r} is missing; '
                                 'pass the URDF the model was built from')
            dynamics = joint.find('dynamics')
            if dynamics is None:
                dynamics = ElementTree.SubElement(joint, 'dynamics')
            dynamics.set('damping', repr(float(viscous)))
            dynamics.set('friction', repr(float(coulomb)))
    return ElementTree.tostring(root, encoding='unicode')


def actuators_yaml(joint_names: tuple, friction: Optional[np.ndarray],
                   armature: Optional[np.ndarray], friction_velocity: float,
                   path: Optional[str] = None) -> str:
    """
    Return the actuators YAML of identified friction and armature (actuators/description.py).

    The format the actuators loader reads (``RobotModel.from_urdf_file(urdf,
    actuators=path)``, the nodes' ``actuators`` parameter), so that the
    loaded model's ``friction_torques`` and ``armature`` are the identified
    ones: ``friction_velocity`` (rad/s, the smooth Coulomb sign scale the
    fit used: tau_f = b qd + f_c tanh(qd / v_s) + o), then under ``joints``
    per joint ``viscous`` (N m s/rad), ``coulomb`` (N m), ``offset`` (N m) and
    ``armature`` (kg m^2, joint side) as estimated, 0 where not estimated
    (friction or armature None: the identified model has none, whatever the
    URDF's ``<dynamics>`` or transmissions say). friction: (dof, 3) or None;
    armature: (dof,) or None. ValueError for a negative viscous, Coulomb or
    armature value (not physical: the loader would refuse it). Written to
    ``path`` too when given.
    """
    dof = len(joint_names)
    friction = np.zeros((dof, 3)) if friction is None else np.asarray(friction, dtype=float)
    armature = np.zeros(dof) if armature is None else np.asarray(armature, dtype=float)
    joints = {}
    for k, name in enumerate(joint_names):
        entry = {'viscous': float(friction[k, 0]), 'coulomb': float(friction[k, 1]),
                 'offset': float(friction[k, 2]), 'armature': float(armature[k])}
        negative = [key for key in ('viscous', 'coulomb', 'armature') if entry[key] < 0.0]
        if negative:
            raise ValueError(f'joint {name!r}: {negative[0]} {entry[negative[0]]!r} is negative '
                             '(not physical); the actuators loader would refuse it')
        joints[name] = entry
    data = {'friction_velocity': float(friction_velocity), 'joints': joints}
    text = ('# identified by ros_dynamics.identification: load with RobotModel.from_urdf_file('
            'urdf, actuators=<this file>)\n# or with the `actuators` parameter of the nodes\n'
            + yaml.safe_dump(data, sort_keys=False))
    if path is not None:
        with open(path, 'w') as stream:
            stream.write(text)
    return text
