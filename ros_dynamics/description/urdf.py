# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
URDF parsing: the dynamics-relevant part of a URDF, validated.

Only what dynamics needs is read, and it is read strictly: links with their
``<inertial>``, joints with ``<origin>``, ``<axis>``, ``<limit>``,
``<dynamics>`` and ``<mimic>``. Everything else (visuals, collisions,
materials, gazebo and sensor tags, unknown extensions) is ignored, so any
URDF that ROS tools or Pinocchio accept for dynamics loads here
(transmissions are read by ``ros_dynamics.description.actuators``). Every
problem that puts the dynamics at stake raises :class:`URDFError` naming the
element. Where urdfdom is lenient and the dynamics are not at stake, this
parser is too, with a :class:`URDFWarning` naming what it ignored: blank
lines or a byte-order mark before the ``<?xml ...?>`` declaration (which
strict XML parsers refuse), and a ``<limit>`` whose lower bound is above its
upper bound, read as "no position limit" (Bullet's convention, which
PyBullet's URDF importer keeps: a limit with lower > upper leaves the joint
free).

Conventions follow the URDF specification (wiki.ros.org/urdf/XML): ``rpy``
are fixed-axis roll, pitch, yaw, so R = Rz(yaw) Ry(pitch) Rx(roll); the joint
axis is expressed in the joint (= child link) frame; the inertia tensor is
given about the centre of mass, in the axes of ``<inertial><origin>``.
"""

from dataclasses import dataclass
import math
import os
from typing import Optional
import warnings
import xml.etree.ElementTree as ElementTree

import numpy as np

from ros_dynamics.exceptions import URDFError, URDFWarning

JOINT_TYPES = ('revolute', 'continuous', 'prismatic', 'fixed', 'floating', 'planar', 'spherical')
# joints with several coordinates: their position limits are not read (a quaternion has none)
MULTI_DOF_TYPES = ('floating', 'planar', 'spherical')
# The largest magnitude of a length (m), mass (kg), inertia (kg m^2), damping, friction or
# mimic multiplier the algorithms carry in double precision: products such as
# m |p|^2 qd^2 over a chain of bodies must stay far below 1.8e308. 1e30 is beyond any
# robot (the Sun's mass is 2e30 kg) and leaves 1e100 of headroom for states of sane
# magnitude (|q|, |qd|, |qdd| up to 1e3).
MAX_MAGNITUDE = 1e30


@dataclass(frozen=True)
class InertialSpec:
    """
    Mass properties of one link, in the link frame.

    ``com`` (3,) is the centre of mass in m; ``inertia`` (3, 3) in kg m^2 is
    the rotational inertia about the centre of mass, already rotated into the
    link axes (R I R^T with R from ``<inertial><origin rpy>``).
    """

    mass: float
    com: np.ndarray
    inertia: np.ndarray


@dataclass(frozen=True)
class MimicSpec:
    """``<mimic>``: q_follower = multiplier * q_leader + offset."""

    joint: str
    multiplier: float
    offset: float


@dataclass(frozen=True)
class JointSpec:
    """One URDF joint; ``origin`` is the 4x4 pose of the child frame in the parent link frame."""

    name: str
    type: str  # noqa: A003 - the URDF attribute's name
    parent: str
    child: str
    origin: np.ndarray
    axis: np.ndarray
    lower: float
    upper: float
    effort: float
    velocity: float
    damping: float
    friction: float
    mimic: Optional[MimicSpec]


@dataclass(frozen=True)
class RobotSpec:
    """A parsed URDF: links (name -> inertial or None), joints in file order, the root link."""

    name: str
    links: dict
    joints: dict
    root: str


def rpy_to_matrix(rpy: np.ndarray) -> np.ndarray:
    """Return R = Rz(yaw) Ry(pitch) Rx(roll), the URDF fixed-axis convention."""
    roll, pitch, yaw = rpy
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def _numbers(text: Optional[str], count: int, what: str, default: str,
             bound: float = MAX_MAGNITUDE) -> np.ndarray:
    """Parse ``count`` finite floats of magnitude at most ``bound`` from an attribute value."""
    if text is None:
        text = default
    try:
        values = np.array([float(token) for token in text.split()])
    except ValueError:
        raise URDFError(f'{what}: expected {count} numbers, got {text!r}') from None
    if values.shape != (count,):
        raise URDFError(f'{what}: expected {count} numbers, got {text!r}')
    if not np.all(np.isfinite(values)):
        raise URDFError(f'{what}: values must be finite, got {text!r}')
    if np.any(np.abs(values) > bound):
        raise URDFError(f'{what}: {text!r} is beyond {bound:g} in magnitude, more than the '
                        'dynamics algorithms can carry in double precision (their products '
                        'would overflow); check the units')
    return values


def _number(element: ElementTree.Element, attribute: str, what: str,
            default: Optional[float] = None, bound: float = MAX_MAGNITUDE) -> float:
    """
    Parse one finite float attribute of magnitude at most ``bound``.

    A missing attribute takes ``default`` or is an error.
    """
    text = element.get(attribute)
    if text is None:
        if default is None:
            raise URDFError(f'{what}: <{element.tag}> has no {attribute!r} attribute')
        return default
    return float(_numbers(text, 1, f'{what}: <{element.tag} {attribute}>', '', bound)[0])


def _origin(element: ElementTree.Element, what: str) -> np.ndarray:
    """Return the 4x4 transform of an element's ``<origin>`` (identity when absent)."""
    transform = np.eye(4)
    origin = element.find('origin')
    if origin is not None:
        transform[:3, 3] = _numbers(origin.get('xyz'), 3, f'{what}: <origin xyz>', '0 0 0')
        rpy = _numbers(origin.get('rpy'), 3, f'{what}: <origin rpy>', '0 0 0', math.inf)
        transform[:3, :3] = rpy_to_matrix(rpy)
    return transform


def _parse_inertial(link: ElementTree.Element, what: str) -> Optional[InertialSpec]:
    """Read ``<inertial>``; None for a massless link."""
    inertial = link.find('inertial')
    if inertial is None:
        return None
    mass_element = inertial.find('mass')
    if mass_element is None:
        raise URDFError(f'{what}: <inertial> has no <mass>')
    mass = _number(mass_element, 'value', f'{what}: mass')
    if mass < 0.0:
        raise URDFError(f'{what}: mass must be non-negative, got {mass}')
    tensor = inertial.find('inertia')
    if tensor is None:
        raise URDFError(f'{what}: <inertial> has no <inertia>')
    ixx, ixy, ixz, iyy, iyz, izz = (
        _number(tensor, key, f'{what}: inertia')
        for key in ('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz'))
    if min(ixx, iyy, izz) < -1e-9 * max(1.0, abs(ixx), abs(iyy), abs(izz)):   # beyond rounding
        raise URDFError(f'{what}: negative moment of inertia '
                        f'(ixx={ixx}, iyy={iyy}, izz={izz}); moments must be >= 0')
    inertia = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    eigenvalues = np.linalg.eigvalsh(inertia)
    if eigenvalues[0] < -1e-12 * max(1.0, float(np.abs(inertia).max())):
        # Real robots ship such tensors (romeo_laas_small, tiago in example-robot-data)
        # and Pinocchio loads them; warn rather than refuse.
        warnings.warn(f'{what}: inertia tensor is not positive semi-definite (eigenvalues '
                      f'{eigenvalues.tolist()}); physically impossible, loaded as given',
                      URDFWarning, stacklevel=2)
    origin = _origin(inertial, f'{what}: <inertial>')
    rotation = origin[:3, :3]
    return InertialSpec(mass, origin[:3, 3].copy(), rotation @ inertia @ rotation.T)


def _parse_link(link: ElementTree.Element) -> tuple:
    name = link.get('name')
    if not name:
        raise URDFError('a <link> has no name')
    return name, _parse_inertial(link, f'link {name!r}')


def _parse_limits(joint: ElementTree.Element, jtype: str, what: str) -> tuple:
    """Return (lower, upper, effort, velocity); +-inf where the URDF sets no bound."""
    limit = joint.find('limit')
    if limit is None:
        if jtype in ('revolute', 'prismatic'):
            raise URDFError(f'{what}: a {jtype} joint needs a <limit> element')
        return -math.inf, math.inf, math.inf, math.inf
    effort = _number(limit, 'effort', f'{what}: limit', math.inf, math.inf)
    velocity = _number(limit, 'velocity', f'{what}: limit', math.inf, math.inf)
    if effort < 0.0 or velocity < 0.0:
        raise URDFError(f'{what}: effort and velocity limits must be non-negative, '
                        f'got effort={effort}, velocity={velocity}')
    if jtype == 'continuous':
        return -math.inf, math.inf, effort, velocity
    lower = _number(limit, 'lower', f'{what}: limit', 0.0, math.inf)
    upper = _number(limit, 'upper', f'{what}: limit', 0.0, math.inf)
    if lower > upper:   # PyBullet's way of saying "no limit"; urdfdom loads it as given
        warnings.warn(f'{what}: lower limit {lower:g} is above upper limit {upper:g}; read as '
                      "no position limit (PyBullet's convention)", URDFWarning, stacklevel=2)
        return -math.inf, math.inf, effort, velocity
    return lower, upper, effort, velocity


def _parse_joint(joint: ElementTree.Element) -> JointSpec:
    name = joint.get('name')
    if not name:
        raise URDFError('a <joint> has no name')
    what = f'joint {name!r}'
    jtype = joint.get('type')
    if jtype is None:
        raise URDFError(f'{what}: no type attribute')
    if jtype not in JOINT_TYPES:
        raise URDFError(f'{what}: unknown joint type {jtype!r} '
                        f'(expected one of {", ".join(JOINT_TYPES)})')
    links = []
    for tag in ('parent', 'child'):
        element = joint.find(tag)
        if element is None or not element.get('link'):
            raise URDFError(f'{what}: missing <{tag} link="...">')
        links.append(element.get('link'))
    axis = np.array([1.0, 0.0, 0.0])
    if jtype != 'fixed':
        axis_element = joint.find('axis')
        if axis_element is not None:
            axis = _numbers(axis_element.get('xyz'), 3, f'{what}: <axis xyz>', '1 0 0', math.inf)
        largest = float(np.max(np.abs(axis)))
        if largest < 1e-12:
            raise URDFError(f'{what}: joint axis has zero length')
        axis = axis / largest   # scaled first: the norm of (1e200, 0, 1e200) overflows
        axis = axis / float(np.linalg.norm(axis))
    lower, upper, effort, velocity = _parse_limits(joint, jtype, what)
    if jtype in MULTI_DOF_TYPES:
        if jtype == 'planar' and abs(abs(axis[2]) - 1.0) > 1e-9 and joint.find('axis') is not None:
            warnings.warn(f'{what}: a planar joint moves in the xy plane of its frame (as in '
                          f'Pinocchio); its <axis> {axis.tolist()} is ignored', URDFWarning,
                          stacklevel=2)
        lower, upper = -math.inf, math.inf
    damping = friction = 0.0
    dynamics = joint.find('dynamics')
    if dynamics is not None:
        damping = _number(dynamics, 'damping', f'{what}: dynamics', 0.0)
        friction = _number(dynamics, 'friction', f'{what}: dynamics', 0.0)
        if damping < 0.0 or friction < 0.0:
            raise URDFError(f'{what}: damping and friction must be non-negative')
        if jtype in MULTI_DOF_TYPES and (damping or friction):
            warnings.warn(f'{what}: a {jtype} joint is not actuated and takes no joint '
                          f'friction; its <dynamics damping friction> is ignored', URDFWarning,
                          stacklevel=2)
            damping = friction = 0.0
    mimic = None
    mimic_element = joint.find('mimic')
    if mimic_element is not None and jtype != 'fixed':
        leader = mimic_element.get('joint')
        if not leader:
            raise URDFError(f'{what}: <mimic> has no joint attribute')
        mimic = MimicSpec(leader, _number(mimic_element, 'multiplier', f'{what}: mimic', 1.0),
                          _number(mimic_element, 'offset', f'{what}: mimic', 0.0))
    return JointSpec(name, jtype, links[0], links[1], _origin(joint, what), axis,
                     lower, upper, effort, velocity, damping, friction, mimic)


def _find_root(links: dict, joints: dict) -> str:
    """Check the joints form one tree over the links and return its root link."""
    parent_joint = {}
    for joint in joints.values():
        for role in ('parent', 'child'):
            link = getattr(joint, role)
            if link not in links:
                raise URDFError(f'joint {joint.name!r}: {role} link {link!r} does not exist')
        if joint.child in parent_joint:
            raise URDFError(f'link {joint.child!r} is the child of two joints: '
                            f'{parent_joint[joint.child]!r} and {joint.name!r}')
        parent_joint[joint.child] = joint.name
    roots = [name for name in links if name not in parent_joint]
    if not roots:
        raise URDFError('the joints form a cycle: every link has a parent joint, '
                        'so there is no root link')
    if len(roots) > 1:
        raise URDFError(f'the URDF has {len(roots)} root links ({", ".join(map(repr, roots))}); '
                        'a robot must be one tree with a single root')
    reached = {roots[0]}
    children = {}
    for joint in joints.values():
        children.setdefault(joint.parent, []).append(joint.child)
    stack = [roots[0]]
    while stack:
        for child in children.get(stack.pop(), []):
            reached.add(child)
            stack.append(child)
    unreached = [name for name in links if name not in reached]
    if unreached:
        raise URDFError(f'the joints form a cycle through link {unreached[0]!r}: '
                        'it is not connected to the root link')
    return roots[0]


XACRO_HINT = ('expand it first with xacro (`xacro robot.urdf.xacro > robot.urdf`, or '
              '`ros2 run xacro xacro ...`) and load the resulting URDF')


def _xacro_construct(root: ElementTree.Element) -> Optional[str]:
    """Return the first xacro element or ``${...}`` / ``$(...)`` substitution, or None."""
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag.startswith('{') \
                and 'xacro' in element.tag.split('}')[0]:
            return f'<xacro:{element.tag.split("}")[1]}>'
        for value in element.attrib.values():
            if '${' in value or '$(' in value:
                return f'{value!r} in <{element.tag}>'
    return None


def without_leading_blanks(xml: str, warn: bool = True) -> str:
    """
    Return ``xml`` without the blanks (and byte-order mark) before its XML declaration.

    XML 1.0 (section 2.8) puts the declaration at the very start of the
    document, so Python's parser refuses anything before it; urdfdom
    (TinyXML) reads such files, and so does this, with a URDFWarning.
    Blanks before a document without a declaration are legal XML and kept.
    ``warn`` False skips the warning (text read a second time).
    """
    stripped = xml.lstrip('\ufeff \t\r\n')
    if stripped is xml or not stripped.startswith('<?xml'):
        return xml
    if not warn:
        return stripped
    ignored = xml[:len(xml) - len(stripped)]
    what = ' and '.join(part for part, present in (
        ('a byte-order mark', '\ufeff' in ignored),
        (f'{ignored.count(chr(10))} line break(s)', '\n' in ignored),
        ('spaces or tabs', bool(set(ignored) & set(' \t')))) if present)
    warnings.warn(f'{what} before the <?xml ...?> declaration ignored (the declaration must '
                  'open the file; strict XML parsers refuse it there)', URDFWarning,
                  stacklevel=3)
    return stripped


def parse_urdf_string(xml: str) -> RobotSpec:
    """Parse URDF text into a validated :class:`RobotSpec` (at least one link)."""
    if not isinstance(xml, str):
        raise URDFError(f'URDF must be given as a string, got {type(xml).__name__}')
    try:
        xml.encode('utf-8')
    except UnicodeEncodeError as error:   # a lone surrogate: not text any XML can hold
        raise URDFError(f'the URDF text holds a character that is not valid Unicode '
                        f'({error.object[error.start]!r} at position {error.start}): '
                        'check how the string was decoded') from None
    xml = without_leading_blanks(xml)
    try:
        root = ElementTree.fromstring(xml)
    except ElementTree.ParseError as error:
        if '<xacro:' in xml:
            raise URDFError(f'this is xacro, not URDF (<xacro:...> elements): {XACRO_HINT}') \
                from None
        raise URDFError(f'not well-formed XML: {error}') from None
    if root.tag != 'robot':
        raise URDFError(f'the root element is <{root.tag}>, expected <robot>')
    construct = _xacro_construct(root)
    if construct is not None:
        raise URDFError(f'this is xacro, not URDF ({construct}): {XACRO_HINT}')
    links = {}
    for element in root.findall('link'):
        name, inertial = _parse_link(element)
        if name in links:
            raise URDFError(f'link {name!r} is defined twice')
        links[name] = inertial
    joints = {}
    for element in root.findall('joint'):
        joint = _parse_joint(element)
        if joint.name in joints:
            raise URDFError(f'joint {joint.name!r} is defined twice')
        joints[joint.name] = joint
    if not links:
        raise URDFError(f'robot {root.get("name", "")!r} has no <link>: a robot needs at least '
                        'its root link (an empty or unexpanded description?)')
    return RobotSpec(root.get('name', ''), links, joints, _find_root(links, joints))


def parse_urdf_file(path: str) -> RobotSpec:
    """Read and parse a URDF file."""
    path = os.fspath(path)
    try:
        return parse_urdf_string(read_urdf_file(path))
    except URDFError as error:
        if path.endswith('.xacro') and 'xacro' not in str(error):
            raise URDFError(f'{path!r} is a xacro file: {XACRO_HINT} ({error})') from None
        raise


def read_urdf_file(path: str) -> str:
    """Return a URDF file's text (URDFError naming the file if it cannot be read)."""
    path = os.fspath(path)
    try:
        with open(path, encoding='utf-8') as stream:
            text = stream.read()
    except FileNotFoundError:
        raise URDFError(f'URDF file {path!r} does not exist') from None
    except (OSError, UnicodeDecodeError) as error:
        raise URDFError(f'cannot read URDF file {path!r}: {error}') from None
    return text


ROOT_JOINTS = {'floating': 'floating', 'free-flyer': 'floating', 'planar': 'planar'}


def with_root_joint(spec: RobotSpec, root_joint: Optional[str]) -> RobotSpec:
    """
    Return ``spec`` with a joint ``root_joint`` between the world and its root link (or as is).

    ``root_joint``: None (the URDF as written), 'floating' or 'planar': the
    joint Pinocchio's ``buildModelFromUrdf(path, JointModelFreeFlyer())`` or
    ``JointModelPlanar()`` adds, named 'root_joint', its frame the world
    frame (legged and humanoid URDFs describe no base joint).
    """
    if root_joint is None:
        return spec
    if root_joint not in ROOT_JOINTS:
        raise ValueError(f'root_joint: expected None, {", ".join(map(repr, ROOT_JOINTS))}, '
                         f'got {root_joint!r}')
    world = 'world'
    while world in spec.links:
        world = '_' + world
    joint = JointSpec('root_joint', ROOT_JOINTS[root_joint], world, spec.root, np.eye(4),
                      np.array([0.0, 0.0, 1.0]), -math.inf, math.inf, math.inf, math.inf,
                      0.0, 0.0, None)
    if joint.name in spec.joints:
        raise URDFError(f'root_joint: the URDF already has a joint named {joint.name!r}')
    return RobotSpec(spec.name, {world: None, **spec.links}, {joint.name: joint, **spec.joints},
                     world)
