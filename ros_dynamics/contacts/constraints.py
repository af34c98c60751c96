# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The contact constraint J qdd + gamma = 0 and the contact force limits C f <= 0.

For the stacked contacts (description.py) at a state (q, v), rows in world
axes (Pinocchio's ``LOCAL_WORLD_ALIGNED``), from the link's world-aligned
Jacobian [J_o; J_w] and bias [a_o; alpha] (``RobotModel.jacobian``,
``jacobian_dot_qd``), r = R p the contact point's offset from the link
origin in world axes, omega = J_w v, v_c = (J_o - [r]x J_w) v:

* point contact: J = J_o - [r]x J_w (3 rows), gamma = a_o + alpha x r +
  omega x (omega x r), the point's classical acceleration at qdd = 0
  (Featherstone 2008, sec. 2.11; Pinocchio's ``CONTACT_3D``);
* 6D contact: J = [J_o - [r]x J_w; J_w] (6 rows), gamma = [a_c - omega x
  v_c; alpha] with a_c as above: the contact frame's spatial acceleration at
  qdd = 0, world axes (``CONTACT_6D``; in the frame's own axes it is
  Pinocchio's LOCAL one rotated, so qdd is the same for LOCAL and
  LOCAL_WORLD_ALIGNED and only the forces are rotated).

Baumgarte stabilisation (Baumgarte 1972, as closed_chain.py) replaces gamma
by gamma + kd J v + kp e, e the contact's error to its ``anchor``, world
axes: a point contact's p - p_anchor; a 6D contact's log of its pose in the
anchor's, SE(3)'s logarithm (Murray, Li and Sastry 1994; Pinocchio's
-log6(c1Mc2)) rotated into world axes (``pose_error``). A contact without an
anchor has e = 0. Both as Pinocchio's Baumgarte corrector.

Force limits (``force_limits``), linear so that a QP solver can hold them:
Coulomb's cone |f_t| <= mu f_n is replaced by the inscribed pyramid of
``facets`` faces, (cos t_j u1 + sin t_j u2 - mu cos(pi / facets) n) . f <= 0
for t_j = 2 pi j / facets (u1, u2, n: tangents and normal), so a force inside
the pyramid is inside the cone; with 4 facets |f . u_i| <= mu / sqrt(2) f_n.
Without friction a unilateral contact has -f_n <= 0. A 6D contact's limits
are on its wrench in the contact frame's axes (F, tau): the pyramid on F,
and with a sole the centre of pressure (-tau_y / F_z, tau_x / F_z) inside
[x_min, x_max] x [y_min, y_max] (four rows, linear in the wrench); the yaw
moment is not limited (Caron, Pham and Nakamura 2015 give the full wrench
cone, not implemented).
"""

import math
from typing import Optional, Sequence, Tuple

import numpy as np

from ros_dynamics.runtime.batches import did_you_mean
from scipy.spatial.transform import Rotation


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return a x b for 3-vectors (np.cross costs ~20 us a call)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


def _cross_rows(r: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Return [r]x rows for a (3, n) block (r x each column)."""
    return np.array([r[1] * rows[2] - r[2] * rows[1], r[2] * rows[0] - r[0] * rows[2],
                     r[0] * rows[1] - r[1] * rows[0]])


def check_frames(robot, contacts: Sequence) -> None:
    """Raise a ValueError naming a contact whose frame is not a link of ``robot``."""
    links = robot.link_names
    for k, contact in enumerate(contacts):
        if contact.frame not in links:
            raise ValueError(f'contacts[{k}]: frame {contact.frame!r} is not a link of '
                             f'{robot.name!r}{did_you_mean(contact.frame, links)}')


def rows_of(contacts: Sequence) -> int:
    """Return the stacked force size m (3 per point contact, 6 per 6D contact)."""
    return sum(contact.size for contact in contacts)


def contact_terms(robot, q: np.ndarray, v: np.ndarray, contacts: Sequence,
                  baumgarte: Tuple[float, float] = (0.0, 0.0), rotations: bool = False) -> tuple:
    """
    Return (J (m, nv), gamma (m,), rotations) of ``contacts`` at one state (see module doc).

    q (nq,), v (nv,) validated by the caller; rotations: each 6D contact
    frame's world rotation (3x3; None for a point contact) if ``rotations`` is
    True, else None. baumgarte (kp
    1/s^2, kd 1/s) as in the module doc.
    """
    kp, kd = baumgarte
    jac = np.empty((rows_of(contacts), robot.nv))
    gamma = np.empty(jac.shape[0])
    frames = [] if rotations else None
    row = 0
    for contact in contacts:
        link, size = contact.frame, contact.size
        link_jac = robot.jacobian(q, link)
        bias = robot.jacobian_dot_qd(q, v, link)
        jac[row:row + 3] = link_jac[:3]
        gamma[row:row + 3] = bias[:3]
        offset = contact.has_offset
        if offset or size == 6 or (kp and contact.anchor is not None):
            pose = robot.link_pose(q, link)
            rot = pose[:3, :3]
            r = rot @ contact.position
        if rotations:   # a point contact's limits are in world axes: no rotation needed
            frames.append(rot @ contact.rotation if size == 6 else None)
        if offset or size == 6:
            omega = link_jac[3:] @ v
        if offset:   # the point r from the link origin: [r]x moves velocity and acceleration
            jac[row:row + 3] -= _cross_rows(r, link_jac[3:])
            gamma[row:row + 3] += _cross(bias[3:], r) + _cross(omega, _cross(omega, r))
        if size == 6:
            jac[row + 3:row + 6] = link_jac[3:]
            gamma[row:row + 3] -= _cross(omega, jac[row:row + 3] @ v)
            gamma[row + 3:row + 6] = bias[3:]
        if kd:
            gamma[row:row + size] += kd * (jac[row:row + size] @ v)
        if kp and contact.anchor is not None:
            error = pose[:3, 3] + r - contact.anchor[:3, 3]
            if size == 3:
                gamma[row:row + 3] += kp * error
            else:
                gamma[row:row + 6] += kp * pose_error(rot @ contact.rotation, error,
                                                      contact.anchor[:3, :3])
        row += size
    return jac, gamma, frames


def pose_error(rotation: np.ndarray, offset: np.ndarray, anchor: np.ndarray) -> np.ndarray:
    """
    Return a frame's error (6,) to its anchor: R log6(anchor^-1 pose), world axes.

    rotation: the frame's world rotation R; offset: its origin minus the
    anchor's, world axes; anchor: the anchor's world rotation. log6 = (rho,
    phi), phi = log3(R_a^T R) and rho = V(phi)^-1 R_a^T offset with
    V^-1 = I - [phi]x / 2 + (1 - theta sin(theta) / (2 (1 - cos(theta))))
    [phi]x^2 / theta^2 (Murray, Li and Sastry 1994, SE(3)'s logarithm).
    """
    phi = Rotation.from_matrix(anchor.T @ rotation).as_rotvec()
    theta = float(np.linalg.norm(phi))
    skew = np.array([[0.0, -phi[2], phi[1]], [phi[2], 0.0, -phi[0]], [-phi[1], phi[0], 0.0]])
    if theta < 1e-6:   # the series: 1/12 + theta^2 / 720
        factor = 1.0 / 12.0 + theta * theta / 720.0
    else:
        factor = (1.0 - theta * math.sin(theta) / (2.0 * (1.0 - math.cos(theta)))) / theta ** 2
    rho = (np.eye(3) - 0.5 * skew + factor * skew @ skew) @ (anchor.T @ offset)
    return np.concatenate([rotation @ rho, rotation @ phi])


def force_limits(contacts: Sequence, rotations: Sequence, facets: int = 4
                 ) -> Optional[np.ndarray]:
    """
    Return C (k, m) with C f <= 0 the contacts' force limits (module doc), or None for none.

    f: the stacked forces of ``contacts`` (world axes, LOCAL_WORLD_ALIGNED);
    rotations: the contact frames' world rotations (``contact_terms``). A 6D
    contact's rows, in its frame's axes (``Contact.limit_rows``), act on
    [R^T F; R^T tau].
    """
    blocks = [(contact.limit_rows(facets), contact.size) for contact in contacts]
    count = sum(rows.shape[0] for rows, _ in blocks)
    if count == 0:
        return None
    limits = np.zeros((count, rows_of(contacts)))
    row = column = 0
    for (rows, size), rotation in zip(blocks, rotations):
        k = rows.shape[0]
        if size == 3:
            limits[row:row + k, column:column + 3] = rows
        elif k:
            limits[row:row + k, column:column + 3] = rows[:, :3] @ rotation.T
            limits[row:row + k, column + 3:column + 6] = rows[:, 3:] @ rotation.T
        row += k
        column += size
    return limits
