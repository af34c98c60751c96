# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Base inertial parameters: the combinations of parameters that the joint torques determine.

Many of a tree's 10 nb inertial parameters never reach the joint torques
(the first link's mass on a vertical axis) or reach them only in fixed
combinations (a link's mass and the next joint's offset). The regressor
stacked over random states W = [Y(s_1); ...; Y(s_K)] has the rank b of the
base parameters; QR with column pivoting, W P = Q [R1 R2], picks b independent
columns and expresses the others through them: W_2 = W_1 K with
K = R1^-1 R2, so Y theta = Y_1 (theta_1 + K theta_2) = Y_1 theta_base
(Gautier, "Numerical calculation of the base inertial parameters of robots",
J. Robotic Systems 8(4), 1991; Khalil and Dombre, "Modeling, Identification
and Control of Robots", 2002, sec. 12.3).

Pivoting takes the column of largest remaining norm, and grouped parameters
often have equal columns (a link's Izz and the next link's Iyy on a vertical
axis): LAPACK's pivoted QR then decides by rounding, differently on another
CPU or BLAS. ``independent_columns`` pivots the same way but treats remaining
norms within a relative ``TIE`` as equal and takes the lower column index, so
the choice, and the names of the groups, are the same on every machine.
"""

from dataclasses import dataclass

import numpy as np
from ros_dynamics.kernels.regressor import PARAMETER_NAMES
import scipy.linalg

FRICTION_NAMES = ('fv', 'fc', 'fo')   # viscous, Coulomb, offset
TIE = 1e-6   # remaining column norms closer than this (relative) are a tie: lower index first


def parameter_names(robot, friction: bool = False, armature: bool = False) -> tuple:
    """
    Return the names of the regressor's columns, e.g. 'Izz@panda_link7', 'fv@joint1'.

    Order as ``RobotModel.regressor``: 10 per body (PARAMETER_NAMES) in
    ``body_names`` order, then with ``friction`` fv, fc, fo per joint, then with
    ``armature`` 'Ia@joint' per joint.
    """
    names = [f'{p}@{body}' for body in robot.body_names for p in PARAMETER_NAMES]
    if friction:
        names += [f'{p}@{joint}' for joint in robot.joint_names for p in FRICTION_NAMES]
    if armature:
        names += [f'Ia@{joint}' for joint in robot.joint_names]
    return tuple(names)


@dataclass(frozen=True)
class BaseParameters:
    """
    The base parameters of a model: theta_base = projection theta, Y theta = Y_base theta_base.

    count: b, the number of base parameters. independent: (b,) indices of
    the regressor columns kept (the base regressor is ``Y[..., independent]``).
    projection: (b, p) map from the full parameters (regressor column order)
    to the base parameters; row k is 1 at independent[k] plus the
    coefficients of the parameters grouped into it. names: (b,) each
    combination written out, e.g. 'Izz@panda_link7 + 1 Iyy@panda_link7'.
    full_names: (p,) the names of the full parameters. tolerance: the rank
    threshold used on |R_kk|.
    """

    count: int
    independent: np.ndarray
    projection: np.ndarray
    names: tuple
    full_names: tuple
    tolerance: float

    def base_regressor(self, y: np.ndarray) -> np.ndarray:
        """Return the base regressor Y[..., independent] (..., dof, b) of a full regressor."""
        return y[..., self.independent]

    def base_values(self, theta: np.ndarray) -> np.ndarray:
        """Return theta_base = projection @ theta for full parameters theta (p,)."""
        return self.projection @ np.asarray(theta, dtype=float).ravel()


def random_states(robot, count: int, rng: np.random.Generator) -> tuple:
    """
    Return (q, qd, qdd), each (count, dof), spread over the joint ranges.

    q uniform within the position limits (+-pi where a joint has none),
    qd and qdd uniform in +-1 rad/s, rad/s^2 (the scale does not change the rank).
    """
    lower = np.where(np.isfinite(robot.lower), robot.lower, -np.pi)
    upper = np.where(np.isfinite(robot.upper), robot.upper, np.pi)
    q = rng.uniform(lower, upper, (count, robot.dof))
    qd, qdd = rng.uniform(-1.0, 1.0, (2, count, robot.dof))
    return q, qd, qdd


def base_parameters(robot, friction: bool = False, armature: bool = False,
                    samples: int = 0, seed: int = 0, rtol: float = 1e-9) -> BaseParameters:
    """
    Return the base parameters of ``robot`` (``BaseParameters``), numerically.

    The regressor (with friction / armature columns if asked) is stacked over
    ``samples`` random states (default: enough for 4 rows per column, at least
    100 states; ``random_states``), QR-factored with column pivoting
    (``independent_columns``: ties broken by column index, the module
    docstring says why), and its rank taken as the number of pivots above
    ``rtol`` times the first: random states make the rank deficiency
    structural, so the gap between the kept and the dropped diagonal is many
    orders of magnitude (about 1e-3 against 1e-15 relative on the Panda),
    and the default 1e-9 sits well inside it. The Panda's 7 links give 43 of
    70 (Gaz, Cognetti, Oliva, Robuffo Giordano, De Luca, RA-L 2019).
    """
    if robot.dof == 0:
        raise ValueError(f'robot {robot.name!r} has no joints: no parameter reaches a torque')
    if not 0.0 < rtol < 1.0:
        raise ValueError(f'rtol: expected a relative tolerance in (0, 1), got {rtol!r}')
    names = parameter_names(robot, friction, armature)
    p = len(names)
    samples = samples or max(100, -(-4 * p // robot.dof))
    rng = np.random.default_rng(seed)
    y = robot.regressor(*random_states(robot, samples, rng), friction=friction,
                        armature=armature)
    w = y.reshape(-1, p)
    independent, tolerance = independent_columns(w, rtol)
    dependent = np.setdiff1d(np.arange(p), independent)
    count = independent.size
    # K: the dependent columns in terms of the independent ones, W_1 K = W_2 (W_1 full rank)
    grouping = scipy.linalg.lstsq(w[:, independent], w[:, dependent])[0]
    grouping[np.abs(grouping) < 1e-9 * max(1.0, np.max(np.abs(grouping), initial=0.0))] = 0.0
    order = np.argsort(independent)   # base parameters in regressor column order
    projection = np.zeros((count, p))
    projection[np.arange(count), independent] = 1.0
    projection[:, dependent] = grouping
    independent, projection = independent[order], projection[order]
    combination_names = []
    for k, row in zip(independent, projection):
        terms = [names[k]] + [f'{value:+.6g} {names[j]}' for j, value in enumerate(row)
                              if j != k and value != 0.0]
        combination_names.append(' '.join(terms))
    return BaseParameters(count, independent, projection, tuple(combination_names), names,
                          float(tolerance))


def independent_columns(w: np.ndarray, rtol: float) -> tuple:
    """
    Return (the pivot order of the independent columns of w (m, p), the rank threshold).

    QR with column pivoting by Householder reflections (Golub and Van Loan,
    "Matrix Computations", 4th ed., alg. 5.4.1): at step k the column of
    largest remaining norm is the pivot, ties within a relative ``TIE`` going
    to the lower column index; the pivots stop once the largest remaining
    norm is at most ``rtol`` times the first pivot's norm.
    """
    a = np.array(w, dtype=float)
    m, p = a.shape
    free = np.ones(p, dtype=bool)
    pivots = []
    tolerance = 0.0
    for k in range(min(m, p)):
        remaining = np.where(free, np.linalg.norm(a[k:], axis=0), -1.0)
        largest = remaining.max()
        if k == 0:
            tolerance = rtol * largest
        if largest <= tolerance or largest <= 0.0:
            break
        j = int(np.flatnonzero(remaining >= largest * (1.0 - TIE))[0])
        pivots.append(j)
        free[j] = False
        x = a[k:, j].copy()
        x[0] += np.copysign(np.linalg.norm(x), x[0])
        x /= np.linalg.norm(x)
        a[k:] -= 2.0 * np.outer(x, x @ a[k:])
    return np.array(pivots, dtype=int), float(tolerance)
