# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Payload estimation: the inertia of an unknown rigid load on a link, from joint torques.

A load rigidly attached to ``link`` adds its ten inertial parameters phi_L
(link frame) to the body that carries the link, phi_B = T phi_L with T the
linear map of moving a spatial inertia from the link frame into the body
frame (Featherstone 2008, eq. 2.66). The torques the known model does not
explain are then tau - ID(q, qd, qdd) = Y_B(q, qd, qdd) T phi_L: Y_B the
body's ten regressor columns (``regressor``). Held still (qd = qdd = 0) only
gravity acts and only the mass and first moment (m, m c) reach the torques:
static poses give mass and centre of mass; a dynamic run gives all ten.
Linear least squares, with the covariance sigma^2 (A^T A)^-1 from the residual
for the uncertainties (Khalil and Dombre 2002, sec. 12.5; Kubus, Kroger and
Wahl, "On-line estimation of inertial parameters using a recursive total
least-squares approach", IROS 2008, for the same model with a wrist sensor).
"""

from dataclasses import dataclass
from typing import Optional

import numpy as np
from ros_dynamics.identification._blas import single_threaded_blas
from ros_dynamics.identification.export import inertial_of
from ros_dynamics.identification.physical import is_physically_consistent, PSEUDO_INERTIA_BASIS
from ros_dynamics.identification.signals import as_signal


@dataclass
class PayloadEstimate:
    """
    An estimated payload: mass (kg), com (3,) in the link frame (m), inertia (3, 3).

    inertia is about the centre of mass in link axes (kg m^2), None from
    static poses. mass_std, com_std (3,): one standard deviation.
    parameters: the ten parameters in the link frame (Pinocchio's order;
    the last six zero from static poses). residual_rms: (dof,) N m.
    """

    link: str
    mass: float
    com: np.ndarray
    inertia: Optional[np.ndarray]
    mass_std: float
    com_std: np.ndarray
    parameters: np.ndarray
    residual_rms: np.ndarray
    static: bool


def link_to_body_map(rotation: np.ndarray, position: np.ndarray) -> np.ndarray:
    """
    Return T (10, 10): body-frame parameters = T @ link-frame parameters.

    The link frame's origin is ``position`` and its axes ``rotation`` (columns)
    in the body frame. h_B = R h + m p; I_B = R I R^T - (p h'^T + h' p^T -
    2 (p . h') 1) - m (p p^T - |p|^2 1), h' = R h (eq. 2.66 written out, as
    spatial.rigid_inertia_to_parent).
    """
    out = np.empty((10, 10))
    for k in range(10):
        phi = np.zeros(10)
        phi[k] = 1.0
        m, h = phi[0], phi[1:4]
        i = np.array([[phi[4], phi[5], phi[7]], [phi[5], phi[6], phi[8]],
                      [phi[7], phi[8], phi[9]]])
        hr = rotation @ h
        ir = rotation @ i @ rotation.T
        pr = np.dot(position, hr)
        ib = (ir - (np.outer(position, hr) + np.outer(hr, position) - 2.0 * pr * np.eye(3))
              - m * (np.outer(position, position) - np.dot(position, position) * np.eye(3)))
        hb = hr + m * position
        out[:, k] = [m, *hb, ib[0, 0], ib[0, 1], ib[1, 1], ib[0, 2], ib[1, 2], ib[2, 2]]
    return out


def estimate_payload(robot, link: str, q, tau, qd=None, qdd=None, consistent: bool = True
                     ) -> PayloadEstimate:
    """
    Estimate the rigid payload on ``link`` from joint torques the model does not explain.

    q, tau: (N, dof) positions (rad) and measured torques (N m), columns in
    ``robot.joint_names`` order; ``robot`` is the model without the payload
    (its friction and armature are not modelled here: hold still, or give
    torques with friction removed). Without qd and qdd the samples are static
    poses and only mass and centre of mass are estimated (needs poses that
    turn the link against gravity: at least 4 independent equations); with
    them all ten parameters, physically consistent if ``consistent`` (LMI of
    ``physical``, cvxpy and Clarabel). Returns a ``PayloadEstimate``.
    """
    body, offset = robot.link_attachment(link)
    if body < 0:
        raise ValueError(f'link {link!r} is fixed to the root: a payload on it moves no joint')
    dof = robot.dof
    q = as_signal(q, 'q', columns=dof)
    tau = as_signal(tau, 'tau', q.shape[0], dof)
    static = qd is None and qdd is None
    if static:
        qd = qdd = np.zeros(q.shape)
    elif qd is None or qdd is None:
        raise ValueError('qd, qdd: give both (a dynamic run) or neither (static poses)')
    else:
        qd = as_signal(qd, 'qd', q.shape[0], dof)
        qdd = as_signal(qdd, 'qdd', q.shape[0], dof)
    for name, value in (('q', q), ('tau', tau), ('qd', qd), ('qdd', qdd)):
        if not np.all(np.isfinite(value)):
            raise ValueError(f'{name}: contains NaN or Inf; drop those samples')
    transform = link_to_body_map(offset[:3, :3], offset[:3, 3])
    y = robot.regressor(q, qd, qdd)[:, :, 10 * body:10 * body + 10] @ transform
    residual_torque = tau - robot.inverse_dynamics(q, qd, qdd)
    columns = 4 if static else 10
    a = y[:, :, :columns].reshape(-1, columns)
    b = residual_torque.ravel()
    with single_threaded_blas():
        singular = np.linalg.svd(a, compute_uv=False)
        if singular[-1] <= 1e-9 * singular[0]:
            raise ValueError(f'the {q.shape[0]} samples do not determine the payload '
                             f'({"mass and centre of mass" if static else "ten parameters"}):'
                             ' use more varied poses (turn the link against gravity)')
        phi, *_ = np.linalg.lstsq(a, b, rcond=None)
        fit = b - a @ phi
        variance = float(np.sum(fit ** 2) / max(1, a.shape[0] - columns))
        covariance = variance * np.linalg.inv(a.T @ a)
    if not static and consistent and not is_physically_consistent(phi):
        phi = _consistent_fit(a, b)
    parameters = np.zeros(10)
    parameters[:columns] = phi
    mass, com, inertia = inertial_of(parameters)
    if mass <= 0.0:
        raise ValueError(f'the estimated payload mass is {mass:.4g} kg: the torques show no '
                         'load on this link (or the model already includes it)')
    # c = h / m: first-order propagation of the covariance of (m, h)
    jacobian = np.zeros((4, 4))
    jacobian[0, 0] = 1.0
    jacobian[1:, 0] = -phi[1:4] / mass ** 2
    jacobian[1:, 1:] = np.eye(3) / mass
    std = np.sqrt(np.diag(jacobian @ covariance[:4, :4] @ jacobian.T))
    residual = (b - a @ phi).reshape(-1, dof)
    return PayloadEstimate(link, mass, com, None if static else inertia, float(std[0]), std[1:],
                           parameters, np.sqrt(np.mean(residual ** 2, axis=0)), static)


def _consistent_fit(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return the least-squares parameters with a positive semi-definite pseudo-inertia."""
    import cvxpy as cp
    phi = cp.Variable(10)
    pseudo = cp.Variable((4, 4), PSD=True)
    scale = float(np.linalg.norm(b)) or 1.0
    problem = cp.Problem(cp.Minimize(cp.sum_squares(a @ phi - b) / scale ** 2),
                         [pseudo == sum(phi[k] * PSEUDO_INERTIA_BASIS[k] for k in range(10))])
    problem.solve(solver=cp.CLARABEL)
    if phi.value is None:
        raise RuntimeError(f'the consistent payload fit ended {problem.status!r}')
    return np.asarray(phi.value)


STILL_VELOCITY = 0.01   # rad/s (m/s): a joint slower than this counts as held still
SETTLE_TIME = 0.1       # s: dropped at both ends of each still interval (starting, stopping)
MAX_SAMPLES = 2000      # samples fitted at most (evenly thinned): bounds the cost of one estimate
MIN_SAMPLES = 10        # samples needed at least


def held_still(t: np.ndarray, qd: np.ndarray, still_velocity: float,
               settle: float = SETTLE_TIME) -> np.ndarray:
    """
    Return a (N,) mask of the samples inside intervals held still, ``settle`` s in from each end.

    t (N,) s, increasing; qd (N, dof). An interval is a run of consecutive
    samples with every |qd| <= still_velocity; its first and last ``settle``
    s are dropped: at the start of a move the velocity is still small while
    the acceleration is not, and an arm coming to rest still settles.
    """
    still = np.all(np.abs(qd) <= still_velocity, axis=1)
    out = np.zeros(still.shape, bool)
    edges = np.flatnonzero(np.diff(np.concatenate(([0], still.astype(np.int8), [0]))))
    for first, end in zip(edges[::2], edges[1::2]):   # runs [first, end)
        inside = (t[first:end] >= t[first] + settle) & (t[first:end] <= t[end - 1] - settle)
        out[first:end] = inside
    return out


def estimate_payload_from_samples(robot, link: str, t, q, qd, effort, inertia: bool = False,
                                  still_velocity: float = STILL_VELOCITY,
                                  cutoff: Optional[float] = None) -> tuple:
    """
    Estimate the payload on ``link`` from recorded joint states; return (estimate, samples).

    t (N,) s; q, qd, effort (N, dof) as ``sensor_msgs/JointState`` carries
    them (rad, rad/s, measured joint torques N m), columns in
    ``robot.joint_names`` order. ``robot`` is the model as it is used, with
    its friction (``friction_torques``, subtracted from the efforts at the
    measured velocity), armature and payloads; the payload it already has on
    ``link`` is taken out, so the estimate is the whole load on the link, not
    a correction. Rows holding NaN or Inf are dropped.

    inertia False: mass and centre of mass from the samples held still
    (``held_still``: every |qd| <= still_velocity, SETTLE_TIME s away from
    any faster sample), as ``estimate_payload`` from static poses.
    inertia True: all ten parameters from a motion: the samples are put on a
    uniform time base, q, qd and the efforts low-pass filtered alike
    (Butterworth, zero phase, ``cutoff`` Hz, default ``signals.DEFAULT_CUTOFF``)
    and qdd differentiated from the filtered qd (``signals``). At most
    MAX_SAMPLES evenly spaced samples are fitted. Returns the
    ``PayloadEstimate`` and the number of samples fitted; raises ValueError
    naming the problem (too few or unexciting samples, no efforts).
    """
    from ros_dynamics.identification.signals import cutoff_frequency, lowpass, uniform_samples
    body = robot.link_attachment(link)[0]
    if body < 0:
        raise ValueError(f'link {link!r} is fixed to the root: a payload on it moves no joint')
    if not (np.isfinite(still_velocity) and still_velocity > 0.0):
        raise ValueError(f'still_velocity: expected a velocity > 0, got {still_velocity!r}')
    dof = robot.dof
    q = as_signal(q, 'q', columns=dof)
    rows = q.shape[0]
    qd, effort = as_signal(qd, 'qd', rows, dof), as_signal(effort, 'effort', rows, dof)
    t = np.asarray(t, dtype=float).ravel()
    if t.shape[0] != rows:
        raise ValueError(f't: expected {rows} time stamps, got {t.shape[0]}')
    no_effort = [name for name, column in zip(robot.joint_names, effort.T)
                 if not np.isfinite(column).any()]
    if no_effort:
        raise ValueError(f'no finite effort (measured torque) for joints {", ".join(no_effort)}:'
                         ' the joint states must carry the efforts')
    finite = np.isfinite(t) & np.all(np.isfinite(q) & np.isfinite(qd) & np.isfinite(effort),
                                     axis=1)
    t, q, qd, effort = t[finite], q[finite], qd[finite], effort[finite]
    if inertia:
        if t.shape[0] < 4 * MIN_SAMPLES:
            raise ValueError(f'{t.shape[0]} finite samples: a motion needs at least '
                             f'{4 * MIN_SAMPLES} to differentiate; record longer')
        t, (q, qd, effort), period, _ = uniform_samples(t, [q, qd, effort])
        frequency = cutoff_frequency(period, cutoff)
        q, qd, effort = (lowpass(s, period, frequency) for s in (q, qd, effort))
        qdd = np.gradient(qd, period, axis=0, edge_order=2)
        trim = int(np.ceil(1.0 / (frequency * period)))
        if q.shape[0] <= 4 * trim:
            raise ValueError(f'{q.shape[0]} samples over {q.shape[0] * period:.3g} s: too '
                             f'short for the {frequency:g} Hz filter; record at least '
                             f'{4 * trim * period:.3g} s')
        q, qd, qdd, effort = (s[trim:-trim] for s in (q, qd, qdd, effort))
    else:
        still = held_still(t, qd, still_velocity)
        q, qd, effort = q[still], qd[still], effort[still]
        qdd = None
        if q.shape[0] < MIN_SAMPLES:
            raise ValueError(f'{q.shape[0]} of the samples were held still (every |velocity| '
                             f'<= {still_velocity:g}, {SETTLE_TIME:g} s away from a faster one); '
                             f'at least {MIN_SAMPLES} are needed: hold the arm still in several '
                             'poses, or raise still_velocity')
    if q.shape[0] > MAX_SAMPLES:
        keep = np.linspace(0, q.shape[0] - 1, MAX_SAMPLES).round().astype(int)
        q, qd, effort = q[keep], qd[keep], effort[keep]
        qdd = None if qdd is None else qdd[keep]
    tau = effort - robot.friction_torques(qd)
    known = robot
    if robot.payload(link) is not None:   # a copy without it: the estimate is the whole load
        known = robot.with_inertial_parameters(robot.inertial_parameters())
        known.clear_payload(link)
    if inertia:
        estimate = estimate_payload(known, link, q, tau, qd, qdd)
    else:
        estimate = estimate_payload(known, link, q, tau)
    return estimate, q.shape[0]
