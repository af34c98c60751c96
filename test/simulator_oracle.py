# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
A numpy twin of the simulator's torque and energy law, the test oracle of the compiled one.

The simulator computes its joint torques, limit stops and energy in one
place, compiled (kernels/joint_torques.py: joint_torques_into, add_stop_torques,
energy_terms: the steps, the rollouts and ``Simulator.joint_torques``,
``limit_torques``, ``energy`` all call them). This module writes the same
law out again with numpy, from the documented parameters only (the URDF's
or given friction, the stops' k = m w^2 and c = 2 m w with w = 1 / (10 dt)
and m = diag M(q0) (Simulator), RobotModel's public energies), so that a
test can hold the compiled law against an independent reading of it.

``simulator(robot, **options)`` builds a Simulator and its oracle;
``oracle(sim)`` returns that oracle.
"""

import weakref

import numpy as np
from ros_dynamics.simulation.coordinates import LimitCoordinates, per_velocity_coordinate
from ros_dynamics.simulation.simulator import Simulator

_ORACLES = weakref.WeakKeyDictionary()


class SimulatorOracle:
    """The torque law of a Simulator built with these settings, at its initial q0 (nq,)."""

    def __init__(self, robot, dt: float, q0: np.ndarray, damping=True, friction=True,
                 friction_velocity=None, limits: bool = True) -> None:
        """Take the Simulator's damping, friction, friction_velocity and limits settings."""
        actuators = robot.actuators
        spread = per_velocity_coordinate(robot)
        self.robot, self.limits = robot, limits

        def coefficients(value, urdf):
            if value is True or value is False:
                return urdf if value else np.zeros(robot.dof)
            return np.asarray(value, dtype=float)
        self.damping = coefficients(damping, spread(actuators.viscous))
        self.friction = coefficients(friction, spread(actuators.coulomb))
        self.offset = spread(actuators.offset) if friction is True else np.zeros(robot.dof)
        self.sigmoid = (spread(actuators.sigmoid) if friction is True
                        else np.zeros((robot.dof, 3)))
        self.friction_velocity = (actuators.friction_velocity if friction_velocity is None
                                  else friction_velocity)
        self.coordinates = LimitCoordinates(robot)
        inertia = np.maximum(np.diag(robot.mass_matrix(q0)).copy(), 1e-6)
        omega = 1.0 / (10.0 * dt)
        self.stiffness, self.stop_damping = inertia * omega ** 2, 2.0 * inertia * omega

    def joint_positions(self, q: np.ndarray) -> np.ndarray:
        """Return the position (nv,) of each velocity coordinate's one-dof joint (0: multi-dof)."""
        positions = np.zeros(self.coordinates.nv)
        positions[self.coordinates.one_dof] = q[self.coordinates.positions_of]
        return positions

    def stop_torques(self, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        """Return the limit stops' one-sided spring-damper torques (nv,) at q (nq,), qd (nv,)."""
        q = self.joint_positions(q)
        over = np.maximum(q - self.coordinates.upper, 0.0)
        under = np.maximum(self.coordinates.lower - q, 0.0)
        penetration = under - over   # > 0 pushes toward +q
        spring = self.stiffness * penetration
        # the damper only resists motion into the stop, and never pulls toward it
        damper = np.where(((over > 0) & (qd > 0)) | ((under > 0) & (qd < 0)),
                          -self.stop_damping * qd, 0.0)
        return np.where(penetration == 0.0, 0.0, spring + damper)

    def joint_torques(self, effort: np.ndarray, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        """Return effort - d qd - f tanh(qd / v_eps) - o - sigmoid(qd) + stops (nv,)."""
        tau = effort - self.damping * qd - self.friction * np.tanh(qd / self.friction_velocity)
        phi1, phi2, phi3 = self.sigmoid.T
        tau = tau - self.offset - (phi1 / (1.0 + np.exp(-phi2 * (qd + phi3)))
                                   - phi1 / (1.0 + np.exp(-phi2 * phi3)))
        if self.limits:
            tau = tau + self.stop_torques(q, qd)
        return tau

    def energy(self, q: np.ndarray, qd: np.ndarray) -> float:
        """Return kinetic + potential + the stops' 1/2 sum k p^2 (J) at q (nq,), qd (nv,)."""
        total = self.robot.kinetic_energy(q, qd) + self.robot.potential_energy(q)
        if self.limits:
            positions = self.joint_positions(q)
            penetration = positions - np.clip(positions, self.coordinates.lower,
                                              self.coordinates.upper)
            total += 0.5 * float(np.dot(self.stiffness, penetration * penetration))
        return total


def simulator(robot, **options) -> Simulator:
    """Return Simulator(robot, **options), with its oracle (``oracle``) built on its q0."""
    sim = Simulator(robot, **options)
    settings = {key: options[key] for key in ('damping', 'friction', 'friction_velocity',
                                              'limits') if key in options}
    _ORACLES[sim] = SimulatorOracle(robot, sim.dt, sim.q.copy(), **settings)
    return sim


def oracle(sim: Simulator) -> SimulatorOracle:
    """Return the oracle of a Simulator built by ``simulator``."""
    return _ORACLES[sim]
