# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""Base parameters: the count the literature reports, Pinocchio's rank, and the identity."""

import numpy as np
import pinocchio as pin
import pytest

from ros_dynamics import RobotModel
from ros_dynamics.identification.base import base_parameters, random_states

PANDA = 'urdf/panda_arm.urdf'


def test_panda_has_43_base_parameters_like_the_rank_of_pinocchios_regressor():
    """Gaz et al. (RA-L 2019) report 43 identifiable combinations of the 70."""
    robot = RobotModel.from_urdf_file(PANDA)
    base = base_parameters(robot)
    assert base.count == 43
    model = pin.buildModelFromUrdf(PANDA)
    data = model.createData()
    q, qd, qdd = random_states(robot, 60, np.random.default_rng(2))
    stacked = np.vstack([pin.computeJointTorqueRegressor(model, data, *state)
                         for state in zip(q, qd, qdd)])
    assert np.linalg.matrix_rank(stacked) == 43
    assert len(base.names) == 43 and len(base.full_names) == 70
    assert base.projection.shape == (43, 70)
    assert sorted(base.independent) == list(base.independent)


def test_base_regressor_times_base_values_is_the_inverse_dynamics():
    robot = RobotModel.from_urdf_file(PANDA)
    base = base_parameters(robot, friction=True)
    assert base.count == 43 + 21       # friction columns are independent of the rest
    q, qd, qdd = random_states(robot, 20, np.random.default_rng(9))
    y = robot.regressor(q, qd, qdd, friction=True)
    theta = np.concatenate([robot.inertial_parameters().ravel(),
                            np.random.default_rng(1).uniform(0, 1, 21)])
    tau = np.einsum('nij,j->ni', y, theta)
    reduced = np.einsum('nij,j->ni', base.base_regressor(y), base.base_values(theta))
    assert np.max(np.abs(reduced - tau)) < 1e-9 * np.max(np.abs(tau))


def test_names_describe_the_groupings():
    """A joint about z on the root: its link's Izz reaches the torque only with others."""
    robot = RobotModel.from_urdf_file(PANDA)
    base = base_parameters(robot)
    assert 'm@panda_link1' not in ' '.join(base.names)      # never reaches a torque
    first = [name for name in base.names if name.startswith('Izz@panda_link1')]
    assert first and 'Iyy@panda_link2' in first[0]


class RoundedElsewhere:
    """
    A robot whose regressor is rounded as on another CPU or BLAS: each entry off by a few ulp.

    Grouped parameters often have equal columns (Izz of panda_link1 and Iyy of
    panda_link2); a choice that depends on which of two equal columns is larger
    would change with such rounding.
    """

    def __init__(self, robot: RobotModel, seed: int) -> None:
        self._robot = robot
        self._rng = np.random.default_rng(seed)

    def __getattr__(self, name):
        return getattr(self._robot, name)

    def regressor(self, *args, **options):
        y = self._robot.regressor(*args, **options)
        return y * (1.0 + 4e-16 * self._rng.standard_normal(y.shape))


def test_groupings_do_not_depend_on_rounding():
    """The same names and projection whatever the last bits of the regressor."""
    robot = RobotModel.from_urdf_file(PANDA)
    reference = base_parameters(robot, friction=True)
    for seed in range(8):
        rounded = base_parameters(RoundedElsewhere(robot, seed), friction=True)
        # the names' parameters (their coefficients print to 6 digits: the last may differ)
        assert [name.split()[::2] for name in rounded.names] == \
            [name.split()[::2] for name in reference.names], seed
        np.testing.assert_array_equal(rounded.independent, reference.independent)
        assert np.max(np.abs(rounded.projection - reference.projection)) < 1e-6


def test_bad_arguments():
    robot = RobotModel.from_urdf_file(PANDA)
    with pytest.raises(ValueError, match='rtol'):
        base_parameters(robot, rtol=0.0)
