# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""The robot model: ``RobotModel`` and its configuration space."""

from ros_dynamics.model.robot import RobotModel

__all__ = ['RobotModel']
