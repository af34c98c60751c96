# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Excitation trajectories: finite Fourier series optimised for the base regressor's condition.

Swevers, Ganseman, Tukel, De Schutter and Van Brussel, "Optimal robot
excitation and identification", IEEE Trans. Robotics and Automation 13(5),
1997, eq. 3: joint i follows

    q_i(t) = q0_i + sum_l a_il / (w_f l) sin(w_f l t) - b_il / (w_f l) cos(w_f l t),

l = 1..L harmonics of the base frequency w_f = 2 pi f_f, a periodic motion
whose derivatives are analytic (no differentiation noise) and whose period
averages measurement noise. The coefficients are chosen to minimise the
condition number of the base regressor stacked along the trajectory, subject
to position, velocity and acceleration limits at a fine grid of times (linear
constraints in the coefficients). Two equality conditions per joint, folded
into the first harmonic, make the motion start and end at rest:
qd_i(0) = sum_l a_il = 0 and qdd_i(0) = w_f sum_l l b_il = 0.
"""

import csv
from dataclasses import dataclass
from typing import Optional, Union

import numpy as np
from ros_dynamics.identification._blas import single_threaded_blas
from ros_dynamics.identification.base import base_parameters
import scipy.optimize

DEFAULT_ACCELERATION_LIMIT = 5.0   # rad/s^2 (m/s^2) where none is given: URDF has none
DEFAULT_VELOCITY_LIMIT = 1.0       # rad/s (m/s) for joints whose URDF sets no velocity limit


@dataclass
class ExcitationTrajectory:
    """
    A finite Fourier series joint trajectory (Swevers et al. 1997, eq. 3).

    joint_names (dof,), q0 (dof,) offsets (rad), a and b (dof, L) harmonic
    coefficients (rad/s), base_frequency f_f (Hz), duration (s; a whole
    number of periods 1 / f_f), condition_number: of the base regressor
    (column-normalised, see ``excitation_trajectory``) on the optimisation grid.
    """

    joint_names: tuple
    q0: np.ndarray
    a: np.ndarray
    b: np.ndarray
    base_frequency: float
    duration: float
    condition_number: float = float('nan')

    def sample(self, t) -> tuple:
        """Return (q, qd, qdd), each (len(t), dof) (or (dof,) for a scalar t), at times t (s)."""
        t_array = np.asarray(t, dtype=float)
        q, qd, qdd = _series(self.q0, self.a, self.b, 2.0 * np.pi * self.base_frequency,
                             np.atleast_1d(t_array))
        if t_array.ndim == 0:
            return q[0], qd[0], qdd[0]
        return q, qd, qdd

    def times(self, rate: float) -> np.ndarray:
        """Return the sample times 0, 1 / rate, ..., duration (s) at ``rate`` (Hz)."""
        if not rate > 0.0:
            raise ValueError(f'rate: expected a positive sample rate in Hz, got {rate!r}')
        return np.arange(int(round(self.duration * rate)) + 1) / rate

    def to_csv(self, path: str, rate: float = 100.0) -> None:
        """Write t, then q, qd, qdd of every joint ('q_<joint>', ...) at ``rate`` Hz to a CSV."""
        t = self.times(rate)
        q, qd, qdd = self.sample(t)
        header = (['t'] + [f'q_{j}' for j in self.joint_names]
                  + [f'qd_{j}' for j in self.joint_names]
                  + [f'qdd_{j}' for j in self.joint_names])
        with open(path, 'w', newline='') as stream:
            writer = csv.writer(stream)
            writer.writerow(header)
            for row in np.column_stack([t, q, qd, qdd]):
                writer.writerow([repr(float(x)) for x in row])

    def to_joint_trajectory(self, rate: float = 100.0) -> dict:
        """
        Return a dict shaped like ``trajectory_msgs/msg/JointTrajectory`` (no ROS import).

        {'joint_names': [...], 'points': [{'positions', 'velocities',
        'accelerations', 'effort': [], 'time_from_start': {'sec', 'nanosec'}}]}
        at ``rate`` Hz; ``yaml.safe_dump`` of it is the message's YAML, and
        ``rosidl_runtime_py.set_message_fields`` fills a message from it.
        """
        t = self.times(rate)
        q, qd, qdd = self.sample(t)
        points = []
        for k, time in enumerate(t):
            nanoseconds = int(round(time * 1e9))
            points.append({'positions': q[k].tolist(), 'velocities': qd[k].tolist(),
                           'accelerations': qdd[k].tolist(), 'effort': [],
                           'time_from_start': {'sec': nanoseconds // 10**9,
                                               'nanosec': nanoseconds % 10**9}})
        return {'joint_names': list(self.joint_names), 'points': points}

    def to_yaml(self, path: str, rate: float = 100.0) -> None:
        """Write ``to_joint_trajectory(rate)`` as YAML to ``path``."""
        import yaml
        with open(path, 'w') as stream:
            yaml.safe_dump(self.to_joint_trajectory(rate), stream, default_flow_style=None,
                           sort_keys=False)


def _series(q0, a, b, w, t) -> tuple:
    """Return q, qd, qdd (len(t), dof) of the Fourier series (eq. 3 and its derivatives)."""
    harmonics = np.arange(1, a.shape[1] + 1)
    phase = w * np.outer(t, harmonics)          # (T, L)
    sin, cos = np.sin(phase), np.cos(phase)
    wl = w * harmonics
    q = q0 + sin @ (a / wl).T - cos @ (b / wl).T
    qd = cos @ a.T + sin @ b.T
    qdd = -sin @ (a * wl).T + cos @ (b * wl).T
    return q, qd, qdd


def _coefficients(x: np.ndarray, dof: int, harmonics: int) -> tuple:
    """
    Return (q0, a, b) from the free variables x: q0 and harmonics 2..L of a and b.

    The first harmonic is fixed by rest at t = 0: a_i1 = -sum_{l>1} a_il and
    b_i1 = -sum_{l>1} l b_il.
    """
    q0 = x[:dof]
    free = x[dof:].reshape(2, dof, harmonics - 1)
    a = np.concatenate([-free[0].sum(axis=1, keepdims=True), free[0]], axis=1)
    weights = np.arange(2, harmonics + 1)
    b = np.concatenate([-(free[1] * weights).sum(axis=1, keepdims=True), free[1]], axis=1)
    return q0, a, b


def _linear_maps(dof: int, harmonics: int, w: float, t: np.ndarray) -> tuple:
    """Return matrices (T dof, n) giving q, qd, qdd on the grid t as linear maps of x."""
    n = dof * (1 + 2 * (harmonics - 1))
    maps = [np.empty((t.size * dof, n)) for _ in range(3)]
    for k in range(n):
        x = np.zeros(n)
        x[k] = 1.0
        for m, value in zip(maps, _series(*_coefficients(x, dof, harmonics), w, t)):
            m[:, k] = value.ravel()
    return maps


def _limit(values, default: float, dof: int, name: str) -> np.ndarray:
    """Return a per-joint positive limit array, ``default`` where none (0 or inf) is set."""
    array = np.broadcast_to(np.asarray(values, dtype=float), (dof,)).copy()
    if np.any(np.isnan(array)) or np.any(array < 0.0):
        raise ValueError(f'{name}: expected non-negative limits, got {values!r}')
    array[(array == 0.0) | ~np.isfinite(array)] = default
    return array


def excitation_trajectory(robot, duration: float, harmonics: int = 5,
                          base_frequency: Optional[float] = None, within_limits: bool = True,
                          acceleration_limit: Union[float, np.ndarray, None] = None,
                          margin: float = 0.1, friction: bool = True, samples: int = 100,
                          seed: int = 0, maxiter: int = 30) -> ExcitationTrajectory:
    """
    Return an ``ExcitationTrajectory`` optimised for identifying ``robot``.

    duration (s): the length of the motion; base_frequency (Hz) defaults to
    1 / duration (one period) and is rounded so that duration is a whole
    number of periods. harmonics: L. The objective is the condition number of
    the base regressor (``base_parameters``, with friction columns if
    ``friction``) at ``samples`` times over one period, its columns scaled to
    unit norm (so that the units of the parameters do not count), minimised by
    SLSQP (scipy.optimize) from a random start (``seed``). Constraints, at 2
    times as many grid times: positions within [lower, upper] shrunk by
    ``margin`` of the range on each side (only if ``within_limits``;
    continuous joints are free), |qd| <= (1 - margin) velocity limit (URDF;
    DEFAULT_VELOCITY_LIMIT where none), |qdd| <= (1 - margin)
    ``acceleration_limit`` (rad/s^2, scalar or per joint; default
    DEFAULT_ACCELERATION_LIMIT, URDF has none).
    """
    dof = robot.dof
    if dof == 0:
        raise ValueError(f'robot {robot.name!r} has no joints to excite')
    if not (np.isfinite(duration) and duration > 0.0):
        raise ValueError(f'duration: expected a positive time in s, got {duration!r}')
    if not (isinstance(harmonics, (int, np.integer)) and harmonics >= 2):
        raise ValueError(f'harmonics: expected an integer >= 2, got {harmonics!r}')
    if not 0.0 <= margin < 0.5:
        raise ValueError(f'margin: expected a fraction in [0, 0.5), got {margin!r}')
    if base_frequency is None:
        base_frequency = 1.0 / duration
    if not (np.isfinite(base_frequency) and base_frequency > 0.0):
        raise ValueError(f'base_frequency: expected a positive frequency in Hz, got '
                         f'{base_frequency!r}')
    periods = max(1, int(round(duration * base_frequency)))
    base_frequency = periods / duration
    w = 2.0 * np.pi * base_frequency
    velocity = (1.0 - margin) * _limit(robot.velocity_limit, DEFAULT_VELOCITY_LIMIT, dof,
                                       'velocity_limit')
    acceleration = (1.0 - margin) * _limit(
        DEFAULT_ACCELERATION_LIMIT if acceleration_limit is None else acceleration_limit,
        DEFAULT_ACCELERATION_LIMIT, dof, 'acceleration_limit')
    lower, upper = np.array(robot.lower, dtype=float), np.array(robot.upper, dtype=float)
    bounded = np.isfinite(lower) & np.isfinite(upper) & within_limits
    # continuous joints (inf limits) must not compute inf - inf: numpy warns, even discarded
    low, high = np.where(bounded, lower, 0.0), np.where(bounded, upper, 0.0)
    centre = 0.5 * (low + high)
    span = np.where(bounded, (0.5 - margin) * (high - low), np.inf)

    period = 1.0 / base_frequency
    grid = np.linspace(0.0, period, 2 * samples, endpoint=False)
    position_map, velocity_map, acceleration_map = _linear_maps(dof, harmonics, w, grid)
    rows = np.tile(np.arange(dof), grid.size)
    constraints_a = [velocity_map, -velocity_map, acceleration_map, -acceleration_map]
    constraints_b = [velocity[rows]] * 2 + [acceleration[rows]] * 2
    keep = bounded[rows]
    if np.any(keep):
        constraints_a += [position_map[keep], -position_map[keep]]
        constraints_b += [(centre + span)[rows][keep], -(centre - span)[rows][keep]]
    big_a, big_b = np.vstack(constraints_a), np.concatenate(constraints_b)

    base = base_parameters(robot, friction=friction)
    times = np.linspace(0.0, period, samples, endpoint=False)

    def condition(x: np.ndarray) -> float:
        q, qd, qdd = _series(*_coefficients(x, dof, harmonics), w, times)
        y = base.base_regressor(robot.regressor(q, qd, qdd, friction=friction))
        y = y.reshape(-1, base.count)
        norms = np.linalg.norm(y, axis=0)
        y = y / np.where(norms > 0.0, norms, 1.0)
        eigenvalues = np.linalg.eigvalsh(y.T @ y)   # the squared singular values
        return float(np.sqrt(eigenvalues[-1] / max(eigenvalues[0], 1e-300)))

    def objective(x: np.ndarray) -> float:
        return float(np.log(condition(x)))

    rng = np.random.default_rng(seed)
    n = velocity_map.shape[1]
    start = np.concatenate([centre, rng.uniform(-1.0, 1.0, n - dof)])
    start[:dof] = centre
    # shrink the harmonics until the start is feasible (the centre itself is)
    residual = big_a @ start - big_b
    while np.any(residual > 0.0):
        start[dof:] *= 0.5
        residual = big_a @ start - big_b
    with single_threaded_blas():
        result = scipy.optimize.minimize(
            objective, start, method='SLSQP',
            constraints=[{'type': 'ineq', 'fun': lambda x: big_b - big_a @ x,
                          'jac': lambda x: -big_a}],
            options={'maxiter': maxiter, 'ftol': 1e-4})
        x = result.x
    if np.any(big_a @ x - big_b > 1e-6 * np.maximum(1.0, np.abs(big_b))) or \
            not np.all(np.isfinite(x)):
        x = start   # SLSQP ended outside the limits: keep the feasible start
    q0, a, b = _coefficients(x, dof, harmonics)
    with single_threaded_blas():
        number = condition(x)
    return ExcitationTrajectory(tuple(robot.joint_names), q0, a, b, base_frequency, duration,
                                number)
