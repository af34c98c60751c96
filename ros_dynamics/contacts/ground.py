# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
A ground plane for the Simulator and ``rollout``: unilateral contact points with Coulomb friction.

``Ground(points=[ContactPoint('FL_FOOT', radius=0.0), ...], height=0.0,
normal=(0, 0, 1), friction=0.8)`` is given to ``Simulator(robot, ...,
ground=...)`` or ``rollout(robot, ..., ground=...)``. A ``ContactPoint``
names a link (``frame``, as ``Contact.frame``), a point in the link frame
(``position``, m, as ``Contact.position``) and an optional sphere radius
(m): the sphere around the point touches the plane {x : normal . x =
height} (world axes). The step is velocity-level time stepping with the
exact Coulomb cone, solved by projected Gauss-Seidel on the Delassus
matrix (contacts/ground_kernel.py has the equations and sources;
docs/contacts.md the bounds and what is tested). After a step,
``Simulator.contact_forces`` holds each point's force on the robot (world
axes, N: the step's impulse / dt, at the sphere's lowest point).
"""

from dataclasses import dataclass
import math
from typing import Sequence

import numpy as np

from ros_dynamics.contacts.constraints import check_frames
from ros_dynamics.contacts.description import as_contacts, Contact
from ros_dynamics.kernels import ground as gk
from ros_dynamics.multibody.layouts import GROUND_LAYOUT, NGROUND_HEADER, NPOINT, POINT_LAYOUT


def _finite(value, name: str, low: float = -math.inf, above: bool = False) -> float:
    """Return ``value`` as a finite float >= low (> low if ``above``) or raise naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) \
            or not math.isfinite(value) or value < low or (above and value == low):
        bound = f'{"> " if above else ">= "}{low}' if math.isfinite(low) else 'finite'
        raise ValueError(f'{name}: expected a number {bound}, got {value!r}')
    return float(value)


@dataclass(frozen=True)
class ContactPoint:
    """A point (m, in the link frame ``frame``) that touches the ground, optionally a sphere."""

    frame: str
    position: Sequence[float] = (0.0, 0.0, 0.0)
    radius: float = 0.0

    def __post_init__(self) -> None:
        """Validate through Contact (frame, position) and the radius (ValueError names it)."""
        contact = Contact(self.frame, position=self.position)
        object.__setattr__(self, 'position', contact.position)
        object.__setattr__(self, 'radius', _finite(self.radius, f'contact point on '
                                                   f'{self.frame!r}: radius', 0.0))


@dataclass(frozen=True)
class Ground:
    """
    The plane {x : normal . x = height} (world axes, m) and the points that touch it.

    friction: Coulomb's mu > 0 (one for every point). iterations: most
    Gauss-Seidel sweeps a step; tolerance: the sweeps stop once no impulse
    moves by more than this times the largest normal impulse; erp: the
    fraction of a penetration (a linearisation error) taken back a step, in
    (0, 1] (contacts/ground_kernel.py).
    """

    points: Sequence[ContactPoint]
    height: float = 0.0
    normal: Sequence[float] = (0.0, 0.0, 1.0)
    friction: float = 0.8
    iterations: int = 100
    tolerance: float = 1e-9
    erp: float = 0.2

    def __post_init__(self) -> None:
        """Validate every field (a ValueError names the keyword)."""
        points = self.points
        if isinstance(points, ContactPoint):
            points = (points,)
        if isinstance(points, (str, bytes)) or not isinstance(points, Sequence) or not points:
            raise ValueError(f'ground: points: expected a non-empty sequence of ContactPoint, '
                             f'got {self.points!r}')
        for k, point in enumerate(points):
            if not isinstance(point, ContactPoint):
                raise ValueError(f'ground: points[{k}]: expected a ContactPoint, got '
                                 f'{type(point).__name__}')
        set_ = object.__setattr__
        set_(self, 'points', tuple(points))
        set_(self, 'normal', Contact('ground', normal=self.normal).normal)
        set_(self, 'height', _finite(self.height, 'ground: height'))
        set_(self, 'friction', _finite(self.friction, 'ground: friction', 0.0, above=True))
        set_(self, 'tolerance', _finite(self.tolerance, 'ground: tolerance', 0.0, above=True))
        erp = _finite(self.erp, 'ground: erp', 0.0, above=True)
        if erp > 1.0:
            raise ValueError(f'ground: erp: expected a fraction in (0, 1], got {self.erp!r}')
        set_(self, 'erp', erp)
        iterations = self.iterations
        if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) \
                or iterations < 1:
            raise ValueError(f'ground: iterations: expected an integer >= 1, '
                             f'got {self.iterations!r}')

    @property
    def tangents(self) -> tuple:
        """Return (t1, t2): unit vectors with (t1, t2, normal) right-handed, world axes."""
        normal = self.normal
        helper = np.array([1.0, 0.0, 0.0]) if abs(normal[0]) < 0.9 else np.array([0, 1.0, 0])
        t1 = helper - normal * (helper @ normal)
        t1 /= np.linalg.norm(t1)
        return t1, np.cross(normal, t1)

    def data(self, robot) -> np.ndarray:
        """
        Return the ground data of the compiled step for ``robot`` (a RobotModel), impulses zero.

        ValueError names a point whose frame is not a moving link of the robot.
        """
        try:
            check_frames(robot, as_contacts([Contact(p.frame) for p in self.points]))
        except ValueError as error:   # named as the user wrote it
            raise ValueError('ground: ' + str(error).replace('contacts[', 'points[', 1)) from None
        k, n = len(self.points), robot.nv
        data = np.zeros(gk.ground_size.py_func(n, k))
        header = GROUND_LAYOUT.fields(data[:NGROUND_HEADER])
        header['COUNT'][0], header['HEIGHT'][0] = k, self.height
        header['NORMAL'][:] = self.normal
        header['TANGENT1'][:], header['TANGENT2'][:] = self.tangents
        header['FRICTION'][0], header['ITERATIONS'][0] = self.friction, self.iterations
        header['TOLERANCE'][0], header['ERP'][0] = self.tolerance, self.erp
        rows = data[NGROUND_HEADER:NGROUND_HEADER + NPOINT * k].reshape(k, NPOINT)
        for row, point in zip(rows, self.points):
            body, offset = robot.link_attachment(point.frame)
            if body < 0:
                raise ValueError(f'ground: points: {point.frame!r} is fixed to the world (the '
                                 "fixed root's link): it cannot touch the ground")
            fields = POINT_LAYOUT.fields(row)
            fields['BODY'][0] = body
            fields['POINT'][:] = offset[:3, :3] @ point.position + offset[:3, 3]
            fields['RADIUS'][0] = point.radius
        return data


def ground_data(robot, ground, closures=None) -> np.ndarray:
    """
    Return the Simulator's ground data for ``ground`` (a Ground or None: empty) on ``robot``.

    ValueError names the keyword for anything but a Ground, and for a closed chain (closures).
    """
    if ground is None:
        return np.zeros(0)
    if not isinstance(ground, Ground):
        raise ValueError(f'ground: expected a Ground (ros_dynamics.contacts.ground), got '
                         f'{type(ground).__name__}')
    if closures is not None:
        raise ValueError('ground: ground contact is not simulated with closures (a closed chain)')
    return ground.data(robot)


def integrator_for(ground, integrator):
    """Return the Simulator's integrator: None is 'rk4', or 'semi_implicit_euler' with ground."""
    if ground is None:
        return 'rk4' if integrator is None else integrator
    if integrator not in (None, 'semi_implicit_euler'):
        raise ValueError('integrator: ground contact steps are semi-implicit time stepping '
                         f"(velocity level): use 'semi_implicit_euler' or None, got "
                         f'{integrator!r}')
    return 'semi_implicit_euler'


def refuse_acceleration(ground) -> None:
    """Raise a ValueError if ``ground`` is set: contact impulses have no acceleration to give."""
    if ground is not None:
        raise ValueError('ground: contact is impulsive (time stepping): no acceleration(q, qd); '
                         'use step() or rollout(), or method=None in simulate()')


def restart(data: np.ndarray, nv: int) -> None:
    """Zero the warm start (the last impulses) of ground data (no-op without a ground)."""
    if data.size:
        ground_outputs(data, nv)[2][:] = 0.0


def ground_outputs(data: np.ndarray, nv: int) -> tuple:
    """
    Return views (forces (k, 3) N world axes, gaps (k,) m, impulses (k, 3) N s) of ground data.

    The forces and impulses are the last step's; the gaps (n . p - radius -
    height per point, negative: penetration) those at its start. Empty
    (k = 0) without a ground.
    """
    if not data.size:
        return np.zeros((0, 3)), np.zeros(0), np.zeros((0, 3))
    parts = gk.ground_parts.py_func(data, 0, nv)
    return parts[3], parts[4], parts[2]
