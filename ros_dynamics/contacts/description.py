# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Contacts on named frames: a point contact (3 rows) or a 6D contact (6 rows).

Conventions (Pinocchio's ``RigidConstraintModel`` with ``LOCAL_WORLD_ALIGNED``):

* A **point contact** ('point') holds the classical acceleration of a point of
  a link frame at zero (Pinocchio's ``CONTACT_3D``). ``position`` is the point
  in the link frame (m). Its force f (3,) (N) acts on the robot at that point,
  world axes.
* A **6D contact** ('6d') holds the link frame's spatial acceleration at zero
  (``CONTACT_6D``: the origin's acceleration minus omega x v, and the angular
  acceleration). ``position`` (m) and ``rotation`` (3x3) place the contact
  frame in the link frame (a sole's centre). Its wrench (6,) [force (N);
  moment (N m)] acts on the robot at the contact frame's origin, world axes.
* Unilateral contacts (the default) push along a **normal**: for a point
  contact ``normal``, a unit vector in world axes (the ground's, default +z);
  for a 6D contact the contact frame's z axis (the sole lies in its xy plane).
  ``friction`` (mu > 0, or None for no friction limit) bounds the tangential
  force by mu times the normal one (Coulomb); ``sole`` = (x_min, x_max, y_min,
  y_max) (m, in the contact frame's xy plane) bounds a 6D contact's centre
  of pressure. ``bilateral=True``: the contact may pull as well as push and
  has no friction or sole limit (a grasp, a foot bolted to the world).
* ``anchor``: the contact frame's world pose (4x4) it is held to, used only by
  Baumgarte stabilisation of the forward dynamics (the position error);
  ``Contact.fixed_at(robot, q)`` fixes a contact where it is at q.

Forward and inverse dynamics use these the same way: M qdd + b = tau + J^T f,
J qdd + Jdot v = 0 (Featherstone, Rigid Body Dynamics Algorithms, 2008, ch. 8).
"""

from dataclasses import dataclass, field, replace
import math
from typing import Optional, Sequence

import numpy as np

KINDS = {'point': 3, '6d': 6}


def _vector(value, name: str, size: int) -> np.ndarray:
    """Return ``value`` as a finite float array of ``size`` entries or raise naming it."""
    try:
        array = np.array(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        array = np.zeros(0)
    if array.shape != (size,) or not np.all(np.isfinite(array)):
        raise ValueError(f'{name}: expected {size} finite numbers, got {value!r}')
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class Contact:
    """
    A contact on the link frame ``frame`` (see the module docstring for conventions).

    kind: 'point' (3 force rows) or '6d' (6 wrench rows). position (3,) m and
    rotation (3x3): the contact frame in the link frame (a point contact uses
    the position only). friction: mu > 0 or None. sole: (x_min, x_max, y_min,
    y_max) m, 6D only, x_min <= 0 <= x_max and y_min <= 0 <= y_max (the
    contact frame's origin lies on the sole). normal (3,): a point contact's
    unit normal, world axes. bilateral: no unilateral, friction or sole limit.
    anchor: 4x4 world pose of the contact frame for Baumgarte stabilisation.
    """

    frame: str
    kind: str = 'point'
    position: Sequence[float] = (0.0, 0.0, 0.0)
    friction: Optional[float] = None
    sole: Optional[Sequence[float]] = None
    normal: Sequence[float] = (0.0, 0.0, 1.0)
    bilateral: bool = False
    rotation: Optional[Sequence[Sequence[float]]] = None
    anchor: Optional[np.ndarray] = field(default=None, compare=False)

    def __post_init__(self) -> None:
        """Validate and normalise the fields (a ValueError names the field)."""
        if not isinstance(self.frame, str) or not self.frame:
            raise ValueError(f'frame: expected a link name, got {self.frame!r}')
        if self.kind not in KINDS:
            raise ValueError(f'kind: expected one of {tuple(KINDS)}, got {self.kind!r}')
        what = f'contact on {self.frame!r}'
        set_ = object.__setattr__
        set_(self, 'position', _vector(self.position, f'{what}: position', 3))
        set_(self, 'has_offset', bool(self.position.any()))   # not at the link origin
        normal = _vector(self.normal, f'{what}: normal', 3)
        if abs(np.linalg.norm(normal) - 1.0) > 1e-9:
            raise ValueError(f'{what}: normal must be a unit vector, got {list(normal)}')
        set_(self, 'normal', normal)
        rotation = np.eye(3) if self.rotation is None else np.array(self.rotation, dtype=float)
        if rotation.shape != (3, 3) or not np.all(np.isfinite(rotation)) or \
                np.max(np.abs(rotation.T @ rotation - np.eye(3))) > 1e-9 or \
                np.linalg.det(rotation) < 0.0:
            raise ValueError(f'{what}: rotation must be a 3x3 rotation matrix, '
                             f'got {self.rotation!r}')
        rotation.setflags(write=False)
        set_(self, 'rotation', rotation)
        if not isinstance(self.bilateral, (bool, np.bool_)):
            raise ValueError(f'{what}: bilateral must be True or False, got {self.bilateral!r}')
        set_(self, 'bilateral', bool(self.bilateral))
        if self.friction is not None:
            if isinstance(self.friction, bool) or not isinstance(self.friction, (int, float)) \
                    or not math.isfinite(self.friction) or self.friction <= 0.0:
                raise ValueError(f'{what}: friction must be a finite coefficient > 0 or None, '
                                 f'got {self.friction!r}')
            set_(self, 'friction', float(self.friction))
        if self.sole is not None:
            if self.kind != '6d':
                raise ValueError(f'{what}: sole applies to a 6d contact only (kind={self.kind!r})')
            sole = _vector(self.sole, f'{what}: sole (x_min, x_max, y_min, y_max)', 4)
            if not (sole[0] <= 0.0 <= sole[1] and sole[2] <= 0.0 <= sole[3]):
                raise ValueError(f'{what}: sole (x_min, x_max, y_min, y_max) must contain the '
                                 f'contact frame origin, got {list(sole)}')
            set_(self, 'sole', sole)
        if self.bilateral and (self.friction is not None or self.sole is not None):
            raise ValueError(f'{what}: a bilateral contact has no friction or sole limit '
                             '(set friction=None, sole=None)')
        set_(self, '_rows', {})
        if self.anchor is not None:
            anchor = np.array(self.anchor, dtype=float)
            if anchor.shape != (4, 4) or not np.all(np.isfinite(anchor)):
                raise ValueError(f'{what}: anchor must be a 4x4 pose, got {self.anchor!r}')
            anchor.setflags(write=False)
            set_(self, 'anchor', anchor)

    @property
    def size(self) -> int:
        """Return the number of constrained directions (3 or 6) and force rows."""
        return KINDS[self.kind]

    @property
    def placement(self) -> np.ndarray:
        """Return the contact frame in the link frame, a 4x4 homogeneous transform."""
        pose = np.eye(4)
        pose[:3, :3] = self.rotation
        pose[:3, 3] = self.position
        return pose

    def limit_rows(self, facets: int = 4) -> np.ndarray:
        """
        Return the rows L (k, size) of this contact's force limits L f <= 0 (constraints.py).

        A point contact's rows act on its force in world axes; a 6D contact's
        on its wrench [F; tau] in the contact frame's axes (z the normal).
        Empty (0, size) for a bilateral contact. Cached per ``facets``.
        """
        rows = self._rows.get(facets)
        if rows is None:
            rows = _limit_rows(self, facets)
            rows.setflags(write=False)
            self._rows[facets] = rows
        return rows

    def fixed_at(self, robot, q) -> 'Contact':
        """Return this contact bilateral and anchored at its world pose at q (a RobotModel's)."""
        if self.friction is not None or self.sole is not None:
            raise ValueError(f'contact on {self.frame!r}: fixed_at makes it bilateral; '
                             'set friction=None and sole=None first')
        return replace(self, bilateral=True, anchor=robot.link_pose(q, self.frame)
                       @ self.placement)


def _tangents(normal: np.ndarray) -> tuple:
    """Return two unit vectors u1, u2 with (u1, u2, normal) a right-handed orthonormal basis."""
    helper = np.array([1.0, 0.0, 0.0]) if abs(normal[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    u1 = helper - normal * (helper @ normal)
    u1 /= np.linalg.norm(u1)
    return u1, np.cross(normal, u1)


def _limit_rows(contact: Contact, facets: int) -> np.ndarray:
    """Return ``Contact.limit_rows`` (the pyramid, unilateral and sole rows of constraints.py)."""
    if isinstance(facets, bool) or not isinstance(facets, int) or facets < 3:
        raise ValueError(f'friction_facets: expected an integer >= 3, got {facets!r}')
    size = contact.size
    if contact.bilateral:
        return np.zeros((0, size))
    if size == 3:
        normal = contact.normal
        u1, u2 = _tangents(normal)
    else:   # the contact frame's axes
        u1, u2, normal = np.eye(3)
    rows = []   # acting on the force (3,) then, for 6D, the moment (3,)
    if contact.friction is None:
        rows.append(np.concatenate([-normal, np.zeros(size - 3)]))
    else:
        slope = contact.friction * math.cos(math.pi / facets)
        for angle in 2.0 * math.pi * np.arange(facets) / facets:
            rows.append(np.concatenate([math.cos(angle) * u1 + math.sin(angle) * u2
                                        - slope * normal, np.zeros(size - 3)]))
    if contact.sole is not None:
        x_min, x_max, y_min, y_max = contact.sole
        # the moments about the frame's x and y axes: tau_x = u1 . tau, tau_y = u2 . tau
        rows += [np.concatenate([-x_max * normal, -u2]),   # -tau_y <= x_max F_z
                 np.concatenate([x_min * normal, u2]),     # x_min F_z <= -tau_y
                 np.concatenate([-y_max * normal, u1]),    # tau_x <= y_max F_z
                 np.concatenate([y_min * normal, -u1])]    # y_min F_z <= tau_x
    return np.array(rows)


def as_contacts(contacts) -> tuple:
    """Return ``contacts`` (a Contact or a sequence of them) as a tuple, or raise naming it."""
    if isinstance(contacts, Contact):
        return (contacts,)
    if isinstance(contacts, (str, bytes)) or not isinstance(contacts, Sequence):
        raise ValueError(f'contacts: expected a Contact or a sequence of Contact, '
                         f'got {type(contacts).__name__}')
    for k, contact in enumerate(contacts):
        if not isinstance(contact, Contact):
            raise ValueError(f'contacts[{k}]: expected a Contact, got {type(contact).__name__}')
    return tuple(contacts)
