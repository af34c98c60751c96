# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""The simulator against MuJoCo's mj_step: the same URDF, RK4 at 1 ms, the same initial state."""

import mujoco
from mujoco_models import coordinate_order, mujoco_model
import numpy as np
import pytest
from robot_data import example_urdf
from ros_dynamics import RobotModel
from ros_dynamics.description.urdf import parse_urdf_file
from ros_dynamics.simulation.simulator import Simulator

# (URDF, amplitude of the random initial q and qd, seed). Talos' free wrists form a
# chaotic multiple pendulum: from some states round-off differences grow ~1e3-fold per
# 0.2 s after the first half second, so its state is a moderate one where 1 s stays
# below that growth (measured: 1e-13 here, 2e-7 from q0, qd0 uniform in +-0.5 rad).
CASES = {
    'panda': ('panda_description/urdf/panda.urdf', 0.5, 0),
    'ur5': ('ur_description/urdf/ur5_robot.urdf', 0.5, 0),
    'talos_reduced': ('talos_data/robots/talos_reduced.urdf', 0.1, 1),
}


@pytest.mark.parametrize('name', CASES)
def test_one_second_of_rk4_agrees_with_mj_step(name):
    """Free motion under gravity, no damping, friction, limits or contacts: 1e-9 rad after 1 s."""
    relative, amplitude, seed = CASES[name]
    path = example_urdf(relative)
    # every joint a coordinate (MuJoCo turns <mimic> into an equality constraint, disabled)
    robot = RobotModel(parse_urdf_file(path), mimic=False)
    model = mujoco_model(path, dt=1e-3)
    order = coordinate_order(model, robot.joint_names)
    rng = np.random.default_rng(seed)
    q0 = rng.uniform(-amplitude, amplitude, robot.dof)
    qd0 = rng.uniform(-amplitude, amplitude, robot.dof)
    data = mujoco.MjData(model)
    data.qpos[order], data.qvel[order] = q0, qd0
    sim = Simulator(robot, dt=1e-3, q0=q0, qd0=qd0, damping=False, friction=False,
                    limits=False)
    for _ in range(1000):
        mujoco.mj_step(model, data)
    sim.step(1000)
    assert sim.t == pytest.approx(data.time) == pytest.approx(1.0)
    assert np.max(np.abs(sim.q - q0)) > 0.05        # it moved
    assert np.max(np.abs(sim.q - data.qpos[order])) < 1e-9
    assert np.max(np.abs(sim.qd - data.qvel[order])) < 1e-8
    # the same total energy (MuJoCo's potential is relative to the world origin too; after
    # mj_step its kinematics are those of the state before the step: recompute them)
    mujoco.mj_forward(model, data)
    mujoco.mj_energyPos(model, data)
    mujoco.mj_energyVel(model, data)
    assert sim.energy() == pytest.approx(data.energy.sum(), abs=1e-9)


def test_mass_matrix_and_bias_agree_at_a_random_state():
    """The dynamics themselves: M(q) and C qd + g match mj_fullM and qfrc_bias (Talos reduced)."""
    path = example_urdf('talos_data/robots/talos_reduced.urdf')
    robot = RobotModel(parse_urdf_file(path), mimic=False)
    model = mujoco_model(path)
    order = coordinate_order(model, robot.joint_names)
    rng = np.random.default_rng(2)
    q, qd = rng.uniform(-1.0, 1.0, robot.dof), rng.uniform(-1.0, 1.0, robot.dof)
    data = mujoco.MjData(model)
    data.qpos[order], data.qvel[order] = q, qd
    mujoco.mj_forward(model, data)
    mass = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, mass)
    assert np.max(np.abs(mass[np.ix_(order, order)] - robot.mass_matrix(q))) < 1e-12
    assert np.max(np.abs(data.qfrc_bias[order] - robot.bias_torques(q, qd))) < 1e-11
