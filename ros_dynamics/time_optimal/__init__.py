# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""Time-optimal path parameterization under torque limits (TOPP-RA, Pham and Pham 2018)."""

from ros_dynamics.time_optimal.parameterization import time_optimal_trajectory
from ros_dynamics.time_optimal.path import SplinePath
from ros_dynamics.time_optimal.trajectory import (BindingSegment, TimeOptimalTrajectory,
                                                  TrajectorySample)

__all__ = ['BindingSegment', 'SplinePath', 'TimeOptimalTrajectory', 'TrajectorySample',
           'time_optimal_trajectory']
