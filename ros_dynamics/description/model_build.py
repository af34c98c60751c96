# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Building the rigid-body model: a URDF tree reduced to moving bodies.

Fixed joints are merged: a link attached by a fixed joint adds its inertia to
the body it hangs from and stays addressable as a frame with a constant
offset in that body. Every other joint starts a body. Bodies are numbered
depth-first, children in the alphabetical order of their joint names, which
is the order Pinocchio's URDF parser produces, so the coordinate order of
``RobotModel.joint_names`` matches a Pinocchio model of the same URDF (mimic
followers aside, which are not coordinates here).
"""

from dataclasses import dataclass, replace

import numpy as np

from ros_dynamics.description.urdf import JointSpec, RobotSpec
from ros_dynamics.exceptions import URDFError
from ros_dynamics.multibody.joints import JOINT_TYPES
from ros_dynamics.multibody.layouts import (AXIS, FIRST_MOMENT, IBAR, JOINT_NQ, JOINT_NV, JTYPE,
                                            MASS, MIMIC_GAIN, MIMIC_OFFSET, NINT, NREAL, PARENT,
                                            QINDEX, TREE_P, TREE_R, VINDEX)


@dataclass(frozen=True)
class ModelArrays:
    """Everything state-independent the kernels and the API need, built once."""

    ints: np.ndarray            # (nb, NINT)
    reals: np.ndarray           # (nb, NREAL)
    body_joints: tuple          # URDF joint name of each body
    joint_names: tuple          # independent coordinates
    joint_specs: tuple          # JointSpec of each coordinate
    link_names: tuple           # every link, root first, depth-first
    link_body: dict             # link -> body index (-1: the fixed root)
    link_offset: dict           # link -> (1, 12) pose in its body frame
    nq: int                     # position coordinates
    nv: int                     # velocity coordinates
    root_mass: float            # mass merged into the fixed root (kept, not moving)
    root_first_moment: np.ndarray
    root_ibar: np.ndarray


def _spatial_parts(mass: float, com: np.ndarray, inertia: np.ndarray,
                   transform: np.ndarray) -> tuple:
    """Return (m, h, ibar) of a link inertial moved into a body frame by ``transform``."""
    rot, pos = transform[:3, :3], transform[:3, 3]
    c = rot @ com + pos
    ibar = rot @ inertia @ rot.T + mass * (np.dot(c, c) * np.eye(3) - np.outer(c, c))
    return mass, mass * c, ibar


def _mimic_map(joint: JointSpec, joints: dict) -> tuple:
    """Return (leader, G, o) with q_joint = G q_leader + o through a chain of mimics."""
    chain = []
    current = joint
    seen = {joint.name}
    while current.mimic is not None:
        leader = joints.get(current.mimic.joint)
        if leader is None:
            raise URDFError(f'joint {current.name!r} mimics joint {current.mimic.joint!r}, '
                            'which does not exist')
        if leader.type == 'fixed':
            raise URDFError(f'joint {current.name!r} mimics joint {leader.name!r}, '
                            'which is fixed')
        if leader.name in seen:
            raise URDFError(f'joint {joint.name!r}: its mimic chain returns to joint '
                            f'{leader.name!r} (a cycle)')
        seen.add(leader.name)
        chain.append(current.mimic)
        current = leader
    gain, offset = 1.0, 0.0
    for mimic in reversed(chain):   # from the leader outwards
        gain, offset = mimic.multiplier * gain, mimic.multiplier * offset + mimic.offset
    return current.name, gain, offset


def build_model_arrays(spec: RobotSpec, mimic: bool = True) -> ModelArrays:
    """
    Reduce a parsed URDF to moving bodies and pack the kernel arrays.

    With ``mimic`` False, mimic tags are ignored and every moving joint is a coordinate.
    """
    children = {}
    for joint in spec.joints.values():
        children.setdefault(joint.parent, []).append(joint)
    for joints in children.values():
        joints.sort(key=lambda j: j.name)

    bodies = []          # (parent body, JointSpec, tree transform)
    inertia = {-1: [0.0, np.zeros(3), np.zeros((3, 3))]}
    link_body, link_offset, link_names = {}, {}, []

    def add_link_inertia(link: str, body: int, transform: np.ndarray) -> None:
        spec_inertial = spec.links[link]
        if spec_inertial is None:
            return
        m, h, ibar = _spatial_parts(spec_inertial.mass, spec_inertial.com,
                                    spec_inertial.inertia, transform)
        acc = inertia[body]
        acc[0] += m
        acc[1] = acc[1] + h
        acc[2] = acc[2] + ibar

    # depth-first, a body numbered when its link is reached (pre-order), as Pinocchio does
    stack = [(spec.root, None, -1, np.eye(4))] if spec.links else []
    while stack:
        link, joint, body, offset = stack.pop()
        if joint is not None and joint.type != 'fixed':
            bodies.append((body, joint, offset))
            body, offset = len(bodies) - 1, np.eye(4)
            inertia[body] = [0.0, np.zeros(3), np.zeros((3, 3))]
        link_names.append(link)
        link_body[link] = body
        link_offset[link] = np.concatenate([offset[:3, :3].ravel(), offset[:3, 3]])[None, :]
        add_link_inertia(link, body, offset)
        for child in reversed(children.get(link, [])):
            stack.append((child.child, child, body, offset @ child.origin))

    if not mimic:
        bodies = [(parent, replace(joint, mimic=None), tree) for parent, joint, tree in bodies]
    independent = [joint for _, joint, _ in bodies if joint.mimic is None]
    sizes = [JOINT_TYPES[joint.type][1:] for joint in independent]   # (nq, nv) of each
    first_q = dict(zip((joint.name for joint in independent),
                       np.cumsum([0] + [nq for nq, _ in sizes[:-1]])))
    first_v = dict(zip((joint.name for joint in independent),
                       np.cumsum([0] + [nv for _, nv in sizes[:-1]])))
    nb = len(bodies)
    ints = np.zeros((nb, NINT), dtype=np.int64)
    reals = np.zeros((nb, NREAL))
    for i, (parent, joint, tree) in enumerate(bodies):
        leader, gain, offset = _mimic_map(joint, spec.joints)
        if leader not in first_q:
            raise URDFError(f'joint {joint.name!r} mimics joint {leader!r}, '
                            'which is not a moving joint of this robot')
        ints[i, PARENT] = parent
        ints[i, JTYPE], nq, nv = JOINT_TYPES[joint.type]
        ints[i, QINDEX] = first_q[leader]
        ints[i, VINDEX] = first_v[leader]
        ints[i, JOINT_NQ] = nq if joint.mimic is None else 0
        ints[i, JOINT_NV] = nv
        reals[i, TREE_R:TREE_R + 9] = tree[:3, :3].ravel()
        reals[i, TREE_P:TREE_P + 3] = tree[:3, 3]
        reals[i, AXIS:AXIS + 3] = joint.axis
        m, h, ibar = inertia[i]
        reals[i, MASS] = m
        reals[i, FIRST_MOMENT:FIRST_MOMENT + 3] = h
        reals[i, IBAR:IBAR + 6] = [ibar[0, 0], ibar[1, 1], ibar[2, 2],
                                   ibar[0, 1], ibar[0, 2], ibar[1, 2]]
        reals[i, MIMIC_GAIN] = gain
        reals[i, MIMIC_OFFSET] = offset
    root = inertia[-1]
    return ModelArrays(ints, reals, tuple(joint.name for _, joint, _ in bodies),
                       tuple(joint.name for joint in independent), tuple(independent),
                       tuple(link_names), link_body, link_offset,
                       sum(nq for nq, _ in sizes), sum(nv for _, nv in sizes),
                       float(root[0]), root[1], root[2])


def limits(specs: tuple) -> dict:
    """
    Return the per-coordinate limit arrays (+-inf where the URDF sets none).

    Position limits (lower, upper) have one entry per position coordinate
    (nq), the others one per velocity coordinate (nv); a joint with several
    coordinates (floating, planar, spherical) has none (+-inf, 0 damping).
    """
    def column(attribute: str, size: int) -> np.ndarray:
        values = np.concatenate([np.full(JOINT_TYPES[spec.type][size], getattr(spec, attribute),
                                         dtype=float) for spec in specs]) if specs else np.zeros(0)
        values.setflags(write=False)
        return values
    return {'lower': column('lower', 1), 'upper': column('upper', 1),
            'effort_limit': column('effort', 2), 'velocity_limit': column('velocity', 2),
            'damping': column('damping', 2), 'friction': column('friction', 2)}
