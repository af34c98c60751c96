# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Identification of inertial parameters, joint friction and armature from recorded motion.

The model tau = Y(q, qd, qdd) theta (``regressor``) is fitted to measured
torques in three steps (Khalil and Dombre 2002, ch. 12; Gautier and
Khalil, "Exciting trajectories for the identification of base inertial
parameters of robots", IJRR 11(4), 1992):

1. signals: onto a uniform time base; velocities and accelerations that are
   not given come from zero-phase low-pass filtered positions by central
   differences, and then torques and regressor are filtered alike
   (``signals``);
2. weighted least squares on the base parameters (``base_parameters``): an
   ordinary fit estimates each joint's noise sigma_j, then every row is divided
   by its joint's sigma_j and the fit repeated (Gautier's weighted least squares);
3. the full parameters: the same data term, plus a prior that pulls every
   parameter toward the model's own (URDF) value, weighted by a typical scale
   of it, so that what the data do not determine stays as described; with
   ``consistent`` every body's pseudo-inertia is kept positive semi-definite
   (Wensing, Kim and Slotine, RA-L 2018, the LMI of ``physical``) and the
   friction and armature coefficients non-negative: a semidefinite program
   solved by Clarabel through cvxpy.

It stands behind what it returns: a recording without the information to
identify (every torque zero, no joint moving) raises IdentificationError
naming the cause; an unconstrained fit (``consistent=False``) that comes out
physically impossible (a body whose pseudo-inertia is not positive
semi-definite, such as a negative mass, or negative viscous, Coulomb or
armature coefficients) is reported with a NonPhysicalEstimateWarning naming
the bodies and joints, has no ``robot``, and its ``to_urdf`` and
``to_actuators_yaml`` refuse to write it. Otherwise ``result.robot`` carries
every identified term, so that ``result.robot.inverse_dynamics(q, qd, qdd,
friction=True)`` is ``result.predict(q, qd, qdd)``.
"""

from dataclasses import dataclass
from typing import Optional
import warnings

import numpy as np

from ros_dynamics.exceptions import (IdentificationError, IdentificationWarning,
                                     NonPhysicalEstimateWarning)
from ros_dynamics.identification._blas import single_threaded_blas
from ros_dynamics.identification.base import base_parameters, BaseParameters
from ros_dynamics.identification.physical import (consistency_margin, is_physically_consistent,
                                                  PSEUDO_INERTIA_BASIS)
from ros_dynamics.identification.signals import (as_signal, cutoff_frequency, derivatives,
                                                 lowpass, uniform_samples)

SIGMA_FLOOR = 1e-4   # noise below this fraction of a joint's RMS torque counts as this much
# a joint whose position spans less than this (rad, or m for prismatic joints) is not excited:
# its velocity and acceleration stay at the level of encoder noise
STILL_SPAN = 1e-3
# friction and armature coefficients of an unconstrained fit above -COEFFICIENT_TOLERANCE x
# their typical scale (prior_of: 1 N m (s/rad), 0.01 kg m^2) count as rounding, set to 0
COEFFICIENT_TOLERANCE = 1e-6


@dataclass
class IdentificationResult:
    """
    What ``identify`` found.

    robot: a new RobotModel carrying every identified term: the inertial
    parameters, and as its ``actuators`` the friction (viscous, Coulomb,
    offset, with ``friction_velocity``; no sigmoid) and the armature, zero
    where not identified, so that ``robot.inverse_dynamics(q, qd, qdd,
    friction=True)`` equals ``predict(q, qd, qdd)``; None when the estimate is
    not physical (``non_physical``). nominal: the RobotModel the
    identification started from. parameters: (nb, 10) inertial parameters
    (``RobotModel.inertial_parameters`` order). friction: (dof, 3) [viscous (N m
    s/rad), Coulomb (N m), offset (N m)] per joint, or None; armature: (dof,) (kg
    m^2), or None; friction_velocity: the Coulomb smooth-sign scale (rad/s). theta:
    every estimated value in regressor column order. base, base_values, base_std:
    the base parameters, their weighted least-squares estimates and standard
    deviations (with filtering, scaled by sqrt(f_s / (2 f_c)) for the correlation of
    filtered noise: an approximation). noise_std: (dof,) the residual sigma_j per
    joint after the ordinary fit (N m; of the filtered torques when filtered);
    residual_rms: (dof,) RMS of measured minus predicted torque on the data used
    (after filtering), N m. condition_number: of the weighted base regressor with
    columns scaled to unit norm. samples: rows used per joint; dropped_samples: rows
    dropped (NaN, repeated times); cutoff: the low-pass cut-off in Hz (None if
    nothing was filtered). non_physical: what makes the estimate physically
    impossible, one text per body or coefficient (only ever non-empty with
    ``consistent=False``).
    """

    robot: object
    parameters: np.ndarray
    friction: Optional[np.ndarray]
    armature: Optional[np.ndarray]
    friction_velocity: float
    theta: np.ndarray
    base: BaseParameters
    base_values: np.ndarray
    base_std: np.ndarray
    noise_std: np.ndarray
    residual_rms: np.ndarray
    condition_number: float
    consistent: bool
    samples: int
    dropped_samples: int
    cutoff: Optional[float]
    nominal: object = None
    non_physical: tuple = ()

    def predict(self, q, qd, qdd) -> np.ndarray:
        """Return the motor torques (N m) the identified model predicts, (dof,) or (N, dof)."""
        y = self.nominal.regressor(q, qd, qdd, friction=self.friction is not None,
                                   armature=self.armature is not None,
                                   friction_velocity=self.friction_velocity)
        return y @ self.theta

    def _require_physical(self, what: str) -> None:
        if self.non_physical:
            raise IdentificationError(
                f'{what}: the estimate is not physical ({"; ".join(self.non_physical)}), and no '
                'URDF or actuators file can hold it; identify with consistent=True (the '
                'default) for a physically consistent fit',
                f'the estimate is not physical ({"; ".join(self.non_physical)}); nothing '
                'written, since no URDF or actuators file can hold it: run without '
                '--no-consistent for a physically consistent fit')

    def to_urdf(self, urdf: str) -> str:
        """
        Return the URDF text ``urdf`` (text or path) with the identified inertials.

        With friction identified, every joint's ``<dynamics damping friction>``
        holds the identified viscous and Coulomb coefficients too (the offset
        and the smooth-sign scale are only in ``to_actuators_yaml``).
        IdentificationError if the estimate is not physical.
        """
        from ros_dynamics.identification.export import urdf_with_parameters
        self._require_physical('to_urdf')
        return urdf_with_parameters(urdf, self.nominal, self.parameters, self.friction)

    def to_actuators_yaml(self, path: Optional[str] = None) -> str:
        """
        Return (and write to ``path``) the per-joint friction / armature YAML.

        Loaded with the URDF of ``to_urdf`` (``RobotModel.from_urdf_file(urdf,
        actuators=path)``) it gives ``robot``'s actuator terms; IdentificationError
        if the estimate is not physical.
        """
        from ros_dynamics.identification.export import actuators_yaml
        self._require_physical('to_actuators_yaml')
        return actuators_yaml(self.nominal.joint_names, self.friction, self.armature,
                              self.friction_velocity, path)


def prior_of(robot, friction: bool, armature: bool) -> tuple:
    """
    Return (theta0, scale): the model's own parameter values and their typical sizes.

    theta0: the URDF inertial parameters, then [damping, friction, 0] per
    joint (URDF ``<dynamics>``), then zero armature. scale, per body with
    m_s = max(m, 0.1 kg): m_s for the mass, m_s x 0.1 m for each first
    moment, m_s x (0.1 m)^2 for each inertia entry; 1 N m (s/rad) for friction,
    0.01 kg m^2 for armature.
    """
    parameters = robot.inertial_parameters()
    mass = np.maximum(parameters[:, 0], 0.1)
    scale = np.column_stack([mass, np.outer(mass, np.full(3, 0.1)),
                             np.outer(mass, np.full(6, 0.01))]).ravel()
    theta0 = [parameters.ravel()]
    scales = [scale]
    if friction:
        theta0.append(np.column_stack([robot.damping, robot.friction,
                                       np.zeros(robot.dof)]).ravel())
        scales.append(np.ones(3 * robot.dof))
    if armature:
        theta0.append(np.zeros(robot.dof))
        scales.append(np.full(robot.dof, 0.01))
    theta0 = np.concatenate(theta0)
    return np.where(np.isfinite(theta0), theta0, 0.0), np.concatenate(scales)


def _prepare(robot, q, qd, qdd, tau, t, rate, cutoff) -> tuple:
    """Return (q, qd, qdd, tau, period, cutoff or None, dropped, t) on a uniform time base."""
    dof = robot.dof
    q = as_signal(q, 'q', columns=dof)
    if tau is None:
        raise ValueError('tau: the measured joint torques (N, dof) are required')
    rows = q.shape[0]
    tau = as_signal(tau, 'tau', rows, dof)
    qd = None if qd is None else as_signal(qd, 'qd', rows, dof)
    qdd = None if qdd is None else as_signal(qdd, 'qdd', rows, dof)
    derive = qd is None or qdd is None
    if t is None:
        if rate is not None:
            if not (np.isfinite(rate) and rate > 0.0):
                raise ValueError(f'rate: expected a sample rate > 0 in Hz, got {rate!r}')
            t = np.arange(rows) / rate
        elif derive:
            raise ValueError('t: sample times (s) are needed to differentiate q; give t '
                             '(N,) or rate (Hz), or give qd and qdd')
        else:
            t = np.arange(rows, dtype=float)   # no time needed: nothing is differentiated
    signals = [s for s in (q, tau, qd, qdd) if s is not None]
    t, signals, period, dropped = uniform_samples(t, signals)
    q, tau = signals[0], signals[1]
    given = iter(signals[2:])
    qd = None if qd is None else next(given)
    qdd = None if qdd is None else next(given)
    if not derive:
        return q, qd, qdd, tau, period, None, dropped, t
    cutoff = cutoff_frequency(period, cutoff)
    q = lowpass(q, period, cutoff)
    velocity, acceleration = derivatives(q, period)
    qd = velocity if qd is None else qd
    qdd = acceleration if qdd is None else qdd
    return q, qd, qdd, tau, period, cutoff, dropped, t


def identify(robot, q, qd=None, qdd=None, tau=None, t=None, friction: bool = True,
             armature: bool = False, consistent: bool = True, cutoff: Optional[float] = None,
             rate: Optional[float] = None, prior_weight: float = 1.0,
             friction_velocity: float = 1e-3) -> IdentificationResult:
    """
    Identify ``robot``'s inertial parameters (and friction, armature) from a recording.

    q, qd, qdd, tau: (N, dof) positions (rad, m), velocities, accelerations
    and measured motor torques (N m, N), columns in ``robot.joint_names``
    order; qd and qdd may be None (then derived from q, which needs the sample
    times t (N,) in s or a constant ``rate`` in Hz). Irregular times are
    resampled; rows with NaN are dropped (see ``signals``). cutoff: the
    Butterworth low-pass cut-off in Hz (order 4, zero phase; default 5 Hz,
    at most 0.4 x Nyquist), applied to q before differentiating and then to
    both torques and regressor; one cut-off period is trimmed at each end.
    friction: estimate viscous, Coulomb (smooth sign tanh(qd /
    friction_velocity), as ``Simulator``) and offset per joint; armature:
    estimate a reflected rotor inertia per joint. consistent: physically
    consistent parameters (needs cvxpy and Clarabel: ``pip install
    ros_dynamics[identification]``). prior_weight: how much one parameter's
    move by its typical scale (``prior_of``) costs, in units of one
    noise-normalised torque sample's squared residual.

    Returns an ``IdentificationResult`` (with a NonPhysicalEstimateWarning
    when ``consistent=False`` gives a physically impossible estimate). Raises
    ValueError for bad or too few data, IdentificationError (a ValueError and a
    RuntimeError) for a recording without torque information or excitation and
    when the solver fails; IdentificationWarning names joints with zero torque
    or no motion throughout.
    """
    if robot.dof == 0:
        raise ValueError(f'robot {robot.name!r} has no joints: nothing to identify')
    if not (np.isfinite(prior_weight) and prior_weight > 0.0):
        raise ValueError(f'prior_weight: expected a positive weight, got {prior_weight!r}')
    q, qd, qdd, tau, period, cutoff, dropped, _ = _prepare(robot, q, qd, qdd, tau, t, rate,
                                                           cutoff)
    _check_information(robot, q, tau)
    y = robot.regressor(q, qd, qdd, friction=friction, armature=armature,
                        friction_velocity=friction_velocity)
    if cutoff is not None:   # parallel filtering, then one cut-off period off each end
        y = lowpass(y, period, cutoff)
        tau = lowpass(tau, period, cutoff)
        trim = int(np.ceil(1.0 / (cutoff * period)))
        if y.shape[0] > 4 * trim:
            y, tau = y[trim:-trim], tau[trim:-trim]
    base = base_parameters(robot, friction=friction, armature=armature)
    samples, dof, p = y.shape
    if samples * dof < 2 * base.count:
        raise ValueError(f'{samples} samples of {dof} joints are too few for '
                         f'{base.count} base parameters; record a longer excitation')
    with single_threaded_blas():
        fit = _weighted_base_fit(y, tau, base)
        if cutoff is not None:
            # filtered residuals are correlated: about 2 fc T of the samples are independent
            fit['std'] = fit['std'] * np.sqrt(max(1.0, 1.0 / (2.0 * cutoff * period)))
        theta0, scale = prior_of(robot, friction, armature)
        theta = _full_parameters(base, fit, theta0, scale, prior_weight, consistent,
                                 len(robot.body_names), dof, friction, armature)
    nb = len(robot.body_names)
    theta, non_physical = _physical_check(robot, theta, friction, armature, consistent)
    parameters = theta[:10 * nb].reshape(nb, 10)
    residual = tau - y @ theta
    friction_values = theta[10 * nb:10 * nb + 3 * dof].reshape(dof, 3) if friction else None
    armature_values = theta[p - dof:] if armature else None
    identified = None
    if non_physical:
        warnings.warn(f'identify(consistent=False): the estimate is not physical '
                      f'({"; ".join(non_physical)}); result.robot is None and to_urdf / '
                      'to_actuators_yaml refuse to write it. identify with consistent=True (the '
                      'default) for a physically consistent fit, or record a richer excitation',
                      NonPhysicalEstimateWarning, stacklevel=2)
    else:
        identified = identified_robot(robot, parameters, friction_values, armature_values,
                                      friction_velocity)
    return IdentificationResult(
        robot=identified, parameters=parameters,
        friction=friction_values, armature=armature_values,
        friction_velocity=friction_velocity, theta=theta, base=base,
        base_values=fit['values'], base_std=fit['std'], noise_std=fit['sigma'],
        residual_rms=np.sqrt(np.mean(residual ** 2, axis=0)),
        condition_number=fit['condition'], consistent=consistent, samples=samples,
        dropped_samples=dropped, cutoff=cutoff, nominal=robot, non_physical=non_physical)


def identified_robot(robot, parameters: np.ndarray, friction: Optional[np.ndarray],
                     armature: Optional[np.ndarray], friction_velocity: float):
    """
    Return a copy of ``robot`` carrying identified terms (the model of ``predict``).

    parameters (nb, 10) as ``RobotModel.inertial_parameters``; friction (dof, 3)
    [viscous, Coulomb, offset] or None (no friction); armature (dof,) or None
    (none). The actuators keep their gear ratios and effort limits; their
    sigmoid friction is zeroed (the fit has no such term) and their smooth
    Coulomb sign scale becomes ``friction_velocity``. ValueError (from
    ActuatorParameters) for negative coefficients.
    """
    model = robot.with_inertial_parameters(parameters)
    dof = robot.dof
    friction = np.zeros((dof, 3)) if friction is None else np.asarray(friction, dtype=float)
    model.actuators = robot.actuators.replace(
        viscous=friction[:, 0], coulomb=friction[:, 1], offset=friction[:, 2],
        sigmoid=np.zeros((dof, 3)), friction_velocity=float(friction_velocity),
        armature=np.zeros(dof) if armature is None else np.asarray(armature, dtype=float))
    return model


def _check_information(robot, q: np.ndarray, tau: np.ndarray) -> None:
    """
    Raise IdentificationError for a recording that cannot identify anything; warn for parts.

    No information: every torque exactly zero (efforts not recorded, or a
    simulation that applied none), or no joint spanning STILL_SPAN. Joints
    with zero torque throughout, or not moving, are named in an
    IdentificationWarning: the fit goes on, the prior holding what they
    leave undetermined.
    """
    names = np.array(robot.joint_names)
    silent = np.max(np.abs(tau), axis=0) == 0.0
    if silent.all():
        raise IdentificationError(
            'tau: every measured torque is zero, so the recording carries no torque '
            'information (efforts not recorded, or a simulation that applied none); '
            'identification fits the measured joint torques',
            'every effort in the recording is zero, so it carries no torque information '
            '(efforts not recorded, or a simulation that applied none, such as simulate '
            '--effort zero); identification fits the measured joint torques: record them, '
            'or simulate --follow an excitation')
    still = np.ptp(q, axis=0) < STILL_SPAN
    if still.all():
        raise IdentificationError(
            f'q: no joint moves by {STILL_SPAN:g} rad (m) or more, so the recording has no '
            'excitation to identify from; record the robot following an excitation '
            'trajectory (excitation_trajectory)',
            f'no joint moves by {STILL_SPAN:g} rad (m) or more, so the recording has no '
            'excitation to identify from; record the robot following an excitation '
            '(ros-dynamics excite, then run it on the robot or simulate --follow it)')
    for mask, what in ((silent, 'zero torque in every sample (not recorded?)'),
                       (still, f'no motion (positions span less than {STILL_SPAN:g})')):
        if mask.any():
            warnings.warn(f'joints {", ".join(names[mask])}: {what}; the fit takes the '
                          'recording as it is and leaves what it cannot determine to the '
                          'prior (the URDF values)', IdentificationWarning, stacklevel=3)


def _physical_check(robot, theta: np.ndarray, friction: bool, armature: bool,
                    consistent: bool) -> tuple:
    """
    Return (theta, non_physical): rounding-level negatives zeroed, what is not physical.

    With ``consistent`` the constraints keep the viscous, Coulomb and armature
    coefficients >= 0 and the bodies consistent (checked to the solver's
    accuracy in ``_full_parameters``): a negative coefficient is the solver's
    rounding and is set to 0 (ActuatorParameters refuses negatives), and
    nothing is reported. Without, a body is not physical when its
    pseudo-inertia has a negative eigenvalue beyond 1e-9 of its largest
    (``is_physically_consistent``), a coefficient when below
    -COEFFICIENT_TOLERANCE x its scale (above that it is set to 0).
    """
    theta = np.array(theta, dtype=float)
    nb, dof = len(robot.body_names), robot.dof
    found = []
    if not consistent:
        margins = consistency_margin(theta[:10 * nb])
        for name, phi, margin in zip(robot.body_names, theta[:10 * nb].reshape(nb, 10),
                                     margins):
            if not is_physically_consistent(phi):
                found.append(f'body {name!r}: mass {phi[0]:.4g} kg, smallest pseudo-inertia '
                             f'eigenvalue {margin:.3g} kg m^2')
    coefficients = []
    if friction:
        start = 10 * nb
        coefficients += [(start + 3 * k + column, f'joint {joint!r}: {label}', 1.0)
                         for k, joint in enumerate(robot.joint_names)
                         for column, label in ((0, 'viscous'), (1, 'Coulomb'))]
    if armature:
        start = theta.shape[0] - dof
        coefficients += [(start + k, f'joint {joint!r}: armature', 0.01)
                         for k, joint in enumerate(robot.joint_names)]
    for index, label, scale in coefficients:
        if theta[index] < -COEFFICIENT_TOLERANCE * scale and not consistent:
            found.append(f'{label} {theta[index]:.4g}')
        elif theta[index] < 0.0:
            theta[index] = 0.0
    return theta, tuple(found)


def held_out_torques(result: IdentificationResult, q, qd=None, qdd=None, tau=None, t=None,
                     rate: Optional[float] = None) -> tuple:
    """
    Return (t, measured, predicted) torques on data ``identify`` did not see, prepared alike.

    q, qd, qdd, tau, t, rate: as for ``identify`` (a recording of the same
    robot, e.g. the part of a run held out of the fit). The signals go through
    the same steps as the fit's: uniform time base; if velocities or
    accelerations are derived, the low-pass at ``result.cutoff`` (the default
    cut-off when the fit filtered nothing) before differentiating, then
    measured and predicted torques filtered alike and one cut-off period
    trimmed at each end. t (M,) s, measured and predicted (M, dof) N m (N):
    their difference is the held-out residual (Khalil and Dombre 2002,
    ch. 12: cross-validation on a separate trajectory).
    """
    robot = result.nominal
    cutoff = result.cutoff
    q, qd, qdd, tau, period, cutoff, _, t = _prepare(robot, q, qd, qdd, tau, t, rate, cutoff)
    predicted = result.predict(q, qd, qdd)
    if cutoff is not None:
        predicted = lowpass(predicted, period, cutoff)
        tau = lowpass(tau, period, cutoff)
        trim = int(np.ceil(1.0 / (cutoff * period)))
        if t.shape[0] > 4 * trim:
            t, tau, predicted = t[trim:-trim], tau[trim:-trim], predicted[trim:-trim]
    return t, tau, predicted


def _weighted_base_fit(y: np.ndarray, tau: np.ndarray, base: BaseParameters) -> dict:
    """
    Return the weighted least-squares fit of the base parameters, as a dict.

    values, std (b,), sigma (dof,), condition, and the compressed data term
    (r, c): ||W_b x_b - z||^2 = ||r x_b - c||^2 + const with W_b = Q r.
    """
    samples, dof, _ = y.shape
    yb = base.base_regressor(y)                        # (N, dof, b)
    rows, b = yb.reshape(-1, base.count), tau.ravel()
    first, *_ = np.linalg.lstsq(rows, b, rcond=None)
    residual = (b - rows @ first).reshape(samples, dof)
    freedom = max(1.0, samples - base.count / dof)
    sigma = np.sqrt(np.sum(residual ** 2, axis=0) / freedom)
    # a floor for noiseless (simulated) data, which would make the weights unbounded
    sigma = np.maximum(sigma, SIGMA_FLOOR * (1e-3 + np.sqrt(np.mean(tau ** 2, axis=0))))
    weights = np.tile(1.0 / sigma, samples)
    weighted, z = rows * weights[:, None], b * weights
    q_factor, r = np.linalg.qr(weighted)
    c = q_factor.T @ z
    # lstsq and pinv: a base parameter the data leave unexcited (a joint held still) gets
    # the minimum-norm value and a huge deviation here, and the prior in the full step
    values, *_ = np.linalg.lstsq(r, c, rcond=None)
    freedom = max(1, weighted.shape[0] - base.count)
    variance = np.sum((z - weighted @ values) ** 2) / freedom   # ~1 once weighted
    r_inverse = np.linalg.pinv(r, rcond=1e-12)
    std = np.sqrt(variance * np.sum(r_inverse ** 2, axis=1))
    norms = np.linalg.norm(weighted, axis=0)
    unit = r / np.where(norms > 0.0, norms, 1.0)
    singular = np.linalg.svd(unit, compute_uv=False)
    return {'values': values, 'std': std, 'sigma': sigma, 'r': r, 'c': c,
            'rows': weighted.shape[0],
            'condition': float(singular[0] / max(singular[-1], 1e-300))}


def _full_parameters(base, fit, theta0, scale, prior_weight, consistent, nb, dof, friction,
                     armature) -> np.ndarray:
    """
    Return the full parameters minimising ||r P theta - c||^2 + w ||(theta - theta0) / s||^2.

    Written in u = (theta - theta0) / s for the solver's sake. With
    ``consistent``: subject to J(phi_i) >= 0 per body and non-negative
    viscous, Coulomb and armature coefficients.
    """
    a = fit['r'] @ base.projection * scale              # (b, p) in u
    c = fit['c'] - fit['r'] @ base.projection @ theta0
    rows = float(fit['rows'])
    p = a.shape[1]
    if not consistent:
        stacked = np.vstack([a, np.sqrt(prior_weight) * np.eye(p)])
        u, *_ = np.linalg.lstsq(stacked, np.concatenate([c, np.zeros(p)]), rcond=None)
        return theta0 + scale * u
    try:
        import cvxpy as cp
    except ImportError:
        error = ImportError('identify(consistent=True) needs cvxpy and Clarabel: pip install '
                            '"ros_dynamics[identification]" (or cvxpy clarabel), or pass '
                            'consistent=False')
        error.command_line = ('a physically consistent fit needs cvxpy and Clarabel: pip '
                              'install "ros_dynamics[identification]" (or cvxpy clarabel), or '
                              'pass --no-consistent')
        raise error from None
    u = cp.Variable(p)
    theta = theta0 + cp.multiply(scale, u)
    constraints = []
    for i in range(nb):
        phi = theta[10 * i:10 * i + 10]
        pseudo = cp.Variable((4, 4), PSD=True)
        constraints.append(pseudo == sum(phi[k] * PSEUDO_INERTIA_BASIS[k] for k in range(10)))
    if friction:
        coefficients = cp.reshape(theta[10 * nb:10 * nb + 3 * dof], (dof, 3), order='C')
        constraints += [coefficients[:, 0] >= 0.0, coefficients[:, 1] >= 0.0]
    if armature:
        constraints.append(theta[p - dof:] >= 0.0)
    # the data term is compressed to b rows; both terms share one scale for the solver
    objective = cp.Minimize((cp.sum_squares(a @ u - c) + prior_weight * cp.sum_squares(u))
                            / rows)
    problem = cp.Problem(objective, constraints)
    try:
        with warnings.catch_warnings():   # 'optimal_inaccurate' is judged below instead
            warnings.filterwarnings('ignore', 'Solution may be inaccurate', UserWarning)
            problem.solve(solver=cp.CLARABEL)
    except cp.error.SolverError as error:
        raise IdentificationError(f'the consistent identification problem failed in Clarabel: '
                                  f'{error}') from None
    if problem.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or u.value is None:
        raise IdentificationError(
            f'the consistent identification problem ended {problem.status!r}; try '
            'consistent=False to see the unconstrained estimate',
            f'the consistent identification problem ended {problem.status!r}; try '
            '--no-consistent to see the unconstrained estimate')
    theta = theta0 + scale * np.asarray(u.value)
    # Clarabel stops "almost solved" on noiseless data (residuals ~1e-7 relative): accept
    # that when the bodies come out consistent to that accuracy
    if not is_physically_consistent(theta[:10 * nb], tolerance=1e-6):
        raise IdentificationError(
            f'the consistent identification ended {problem.status!r} with inconsistent '
            'parameters; try consistent=False to see the unconstrained estimate',
            f'the consistent identification ended {problem.status!r} with inconsistent '
            'parameters; try --no-consistent to see the unconstrained estimate')
    return theta
