# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
``ros-dynamics info URDF``: what the dynamics model makes of a URDF.

Prints the kinematic tree, every link's mass and its centre of mass at
q = 0 (root frame), the total mass and centre of mass, the joints with their
limits, damping and friction, which links were merged into a moving body
through fixed joints, which URDF elements dynamics ignores (visuals,
collisions, transmissions, ...) and warnings: load warnings of the parser,
joints without effort limits, a zero configuration outside the limits, a mass
matrix that is singular at q = 0 (forward dynamics and simulation would fail).
"""

import argparse
from collections import Counter
import xml.etree.ElementTree as ElementTree

import numpy as np
from ros_dynamics.cli.common import load_robot, LoadedRobot, number, table, with_progress
from ros_dynamics.description.urdf import without_leading_blanks
from ros_dynamics.exceptions import SingularMassMatrixError

NAME = 'info'
HELP = 'describe a URDF: tree, masses, centre of mass, limits, merged and ignored parts'
# the children of <link> and <joint> that the dynamics model reads
READ_IN_LINK = {'inertial'}
READ_IN_JOINT = {'parent', 'child', 'origin', 'axis', 'limit', 'dynamics', 'mimic'}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments of ``info``."""
    parser.add_argument('urdf', metavar='URDF', help='the robot description (.urdf; run '
                        'xacro first on .xacro files)')


def centre_of_mass(loaded: LoadedRobot, q: np.ndarray) -> tuple:
    """
    Return (total mass kg, CoM (3,) m, {link: CoM (3,) m}) in the root frame at q.

    c = sum_i m_i (R_i c_i + p_i) / sum_i m_i over every link with an
    ``<inertial>``, (R_i, p_i) the link pose at q (forward kinematics).
    """
    total, moment, link_com = 0.0, np.zeros(3), {}
    for link in loaded.model.link_names:
        inertial = loaded.spec.links[link]
        if inertial is None:
            continue
        pose = loaded.model.link_pose(q, link)
        com = pose[:3, :3] @ inertial.com + pose[:3, 3]
        link_com[link] = com
        total += inertial.mass
        moment += inertial.mass * com
    com = moment / total if total > 0.0 else np.zeros(3)
    return total, com, link_com


def moving_joint_of(spec, link: str) -> str:
    """Return the moving joint whose body ``link`` rides on ('' for the fixed root body)."""
    parent_joint = {joint.child: joint for joint in spec.joints.values()}
    joint = parent_joint.get(link)
    while joint is not None and joint.type == 'fixed':
        joint = parent_joint.get(joint.parent)
    return '' if joint is None else joint.name


def tree_lines(loaded: LoadedRobot) -> list:
    """Return the kinematic tree as indented text lines, link masses and joint types shown."""
    spec = loaded.spec
    children = {}
    for joint in spec.joints.values():
        children.setdefault(joint.parent, []).append(joint)

    def link_label(link: str) -> str:
        inertial = spec.links[link]
        return f'{link} ({number(inertial.mass)} kg)' if inertial is not None \
            else f'{link} (massless)'

    def joint_label(joint) -> str:
        if joint.type == 'fixed':
            return f'{joint.name} [fixed]'
        axis = ' '.join(number(a, 3) for a in joint.axis)
        mimic = f', mimics {joint.mimic.joint}' if joint.mimic is not None else ''
        return f'{joint.name} [{joint.type}, axis {axis}{mimic}]'

    lines = [link_label(spec.root)] if spec.root else []

    def walk(link: str, prefix: str) -> None:
        joints = sorted(children.get(link, []), key=lambda j: j.name)
        for k, joint in enumerate(joints):
            last = k == len(joints) - 1
            lines.append(f'{prefix}{"`-- " if last else "|-- "}{joint_label(joint)} -> '
                         f'{link_label(joint.child)}')
            walk(joint.child, prefix + ('    ' if last else '|   '))

    if spec.root:
        walk(spec.root, '')
    return lines


def ignored_elements(text: str) -> Counter:
    """Count the URDF elements the dynamics model does not read, by tag."""
    root = ElementTree.fromstring(without_leading_blanks(text, warn=False))
    counts = Counter()
    for element in root:
        if element.tag == 'link':
            counts.update(f'<link><{c.tag}>' for c in element if c.tag not in READ_IN_LINK)
        elif element.tag == 'joint':
            counts.update(f'<joint><{c.tag}>' for c in element if c.tag not in READ_IN_JOINT)
        else:
            counts[f'<{element.tag}>'] += 1
    return counts


def model_warnings(loaded: LoadedRobot) -> list:
    """Return warnings about the model as loaded (the parser's included)."""
    model, out = loaded.model, list(loaded.warnings)
    zero = np.zeros(model.dof)
    if model.dof == 0:
        out.append('the robot has no moving joint (0 dof): nothing to compute')
        return out
    outside = [n for n, lo, up in zip(model.joint_names, model.lower, model.upper)
               if not lo <= 0.0 <= up]
    if outside:
        out.append('q = 0 is outside the position limits of '
                   f'{", ".join(outside)}; poses and the centre of mass are given there anyway')
    for kind, values in (('effort', model.effort_limit), ('velocity', model.velocity_limit)):
        unlimited = [n for n, v in zip(model.joint_names, values) if np.isinf(v)]
        if unlimited:
            out.append(f'no {kind} limit on {", ".join(unlimited)}: the actuator report '
                       'cannot check it' + (' and the simulator does not saturate it'
                                            if kind == 'effort' else ''))
    zero_effort = [n for n, v in zip(model.joint_names, model.effort_limit) if v == 0.0]
    if zero_effort:
        out.append(f'effort limit 0 on {", ".join(zero_effort)}: the simulator saturates '
                   'every effort there to 0 (a placeholder value in the URDF?)')
    try:
        model.forward_dynamics(zero, zero, zero)
    except SingularMassMatrixError as error:
        out.append(f'at q = 0: {error}; forward dynamics and simulate will fail there')
    return out


def run(args: argparse.Namespace) -> int:
    """Print the description of ``args.urdf``; return the exit status."""
    loaded = load_robot(args.urdf, echo_warnings=False)
    spec, model = loaded.spec, loaded.model
    zero = np.zeros(model.dof)

    def compute() -> tuple:
        return centre_of_mass(loaded, zero), model_warnings(loaded)

    (total, com, link_com), warnings = with_progress('computing the centre of mass',
                                                     compute, args.progress)
    root_mass = model.root_inertia[0]
    print(f'robot {spec.name!r} from {loaded.path}: {model.dof} dof, '
          f'{len(model.link_names)} links, {len(spec.joints)} joints, root link '
          f'{spec.root!r}')
    print()
    print('Kinematic tree')
    for line in tree_lines(loaded):
        print('  ' + line)
    print()
    print('Links (centre of mass in the root frame at q = 0)')
    rows = []
    for link in model.link_names:
        inertial = spec.links[link]
        rides = moving_joint_of(spec, link) or '(fixed base)'
        c = link_com.get(link)
        rows.append([link, number(inertial.mass) if inertial else '-', rides]
                    + ([number(v) for v in c] if c is not None else ['-'] * 3))
    print(table(['link', 'mass (kg)', 'moves with', 'com x (m)', 'com y (m)', 'com z (m)'],
                rows, '  '))
    print()
    print(f'Total mass {number(total, 6)} kg (moving {number(total - root_mass, 6)} kg, '
          f'fixed base {number(root_mass, 6)} kg); centre of mass at q = 0: '
          f'({", ".join(number(v, 6) for v in com)}) m, root frame')
    print()
    print('Joints (rad, rad/s, N m for revolute; m, m/s, N for prismatic)')
    rows, followers = [], []
    for name in model.all_joint_names:
        joint = spec.joints[name]
        if name in model.joint_names:
            coordinate = str(model.joint_index(name))
        else:
            coordinate = '-'
            followers.append(f'{name} = {number(joint.mimic.multiplier)} * {joint.mimic.joint}'
                             f' + {number(joint.mimic.offset)}')
        rows.append([name, joint.type, coordinate, number(joint.lower), number(joint.upper),
                     number(joint.effort), number(joint.velocity), number(joint.damping),
                     number(joint.friction)])
    print(table(['joint', 'type', 'q index', 'lower', 'upper', 'effort', 'velocity',
                 'damping', 'friction'], rows, '  '))
    if followers:
        print(f'  mimic followers (not coordinates): {"; ".join(followers)}')
    print()
    fixed = [joint for joint in spec.joints.values() if joint.type == 'fixed']
    print(f'Merged through fixed joints ({len(fixed)})')
    for joint in fixed:
        rides = moving_joint_of(spec, joint.child)
        into = f'the body of joint {rides!r}' if rides else 'the fixed base'
        print(f'  {joint.child} (joint {joint.name}) -> {into}')
    ignored = ignored_elements(loaded.text)
    print()
    print('Ignored by the dynamics model' + ('' if ignored else ': nothing'))
    for tag, count in sorted(ignored.items()):
        print(f'  {count:4d} x {tag}')
    massless = [link for link in model.link_names if spec.links[link] is None]
    if massless:
        print()
        print(f'Massless links (no <inertial>): {", ".join(massless)}')
    print()
    print('Warnings' + ('' if warnings else ': none'))
    for warning in warnings:
        print(f'  - {warning}')
    return 0
