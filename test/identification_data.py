# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Recordings for the identification tests, made by our Simulator from a perturbed Panda.

The plant is the Panda arm with every body's mass, centre of mass and
inertia about the centre of mass scaled by factors in [0.7, 1.3] (still
physically consistent), plus viscous and Coulomb joint friction in the
simulator. A computed-torque controller on the plant's own model (with its
friction) tracks a reference trajectory; the recorded torque is the motor
effort, so tau = ID_plant(q, qd, qdd) + b qd + f_c tanh(qd / v) holds exactly
at every sample. The Coulomb smoothing v = 0.05 rad/s keeps the friction ODE
non-stiff at the 1 ms RK4 step on the light wrist links (at the simulator's
default 1e-3 rad/s the wrist velocity chatters around zero crossings).
"""

import numpy as np

from ros_dynamics import RobotModel
from ros_dynamics.simulation.simulator import Simulator

PANDA = 'urdf/panda_arm.urdf'
FRICTION_VELOCITY = 0.05


def perturbed_parameters(parameters: np.ndarray, rng: np.random.Generator,
                         spread: float = 0.3) -> np.ndarray:
    """Return (nb, 10) parameters with m, c and I_c scaled by factors in 1 +- spread."""
    out = []
    for phi in parameters:
        m, c = phi[0], phi[1:4] / phi[0]
        inertia = np.array([[phi[4], phi[5], phi[7]], [phi[5], phi[6], phi[8]],
                            [phi[7], phi[8], phi[9]]])
        central = inertia - m * (c @ c * np.eye(3) - np.outer(c, c))
        m2 = m * rng.uniform(1 - spread, 1 + spread)
        c2 = c * rng.uniform(1 - spread, 1 + spread, 3)
        shift = m2 * (c2 @ c2 * np.eye(3) - np.outer(c2, c2))
        i2 = central * rng.uniform(1 - spread, 1 + spread) + shift
        out.append([m2, *(m2 * c2), i2[0, 0], i2[0, 1], i2[1, 1], i2[0, 2], i2[1, 2],
                    i2[2, 2]])
    return np.array(out)


class Plant:
    """The perturbed Panda with joint friction, and how it records a tracked trajectory."""

    def __init__(self, seed: int = 42) -> None:
        rng = np.random.default_rng(seed)
        self.nominal = RobotModel.from_urdf_file(PANDA)
        self.robot = self.nominal.with_inertial_parameters(
            perturbed_parameters(self.nominal.inertial_parameters(), rng))
        self.viscous = rng.uniform(0.05, 0.3, 7)
        self.coulomb = rng.uniform(0.2, 1.0, 7)

    def friction_torques(self, qd: np.ndarray) -> np.ndarray:
        """Return b qd + f_c tanh(qd / v) (N m)."""
        return self.viscous * qd + self.coulomb * np.tanh(qd / FRICTION_VELOCITY)

    def record(self, trajectory, duration: float, dt: float = 1e-3) -> dict:
        """Track ``trajectory`` for ``duration`` s; return t, q, qd, qdd, tau at every step."""
        sim = Simulator(self.robot, dt=dt, damping=self.viscous, friction=self.coulomb,
                        friction_velocity=FRICTION_VELOCITY)
        q0, qd0, _ = trajectory.sample(0.0)
        sim.set_state(q0, qd0)
        steps = int(round(duration / dt))
        out = {key: [] for key in ('t', 'q', 'qd', 'qdd', 'tau')}
        for k in range(steps + 1):
            reference, velocity, acceleration = trajectory.sample(k * dt)
            command = acceleration + 400.0 * (reference - sim.q) + 40.0 * (velocity - sim.qd)
            sim.set_effort(self.robot.inverse_dynamics(sim.q, sim.qd, command)
                           + self.friction_torques(sim.qd))
            for key, value in (('t', k * dt), ('q', sim.q), ('qd', sim.qd),
                               ('qdd', sim.acceleration(sim.q, sim.qd)), ('tau', sim.effort)):
                out[key].append(np.copy(value))
            if k < steps:
                sim.step()
        return {key: np.array(value) for key, value in out.items()}
