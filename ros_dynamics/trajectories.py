# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""Deprecated path of ``ros_dynamics.control.trajectories``, removed in the next release."""

import warnings

from ros_dynamics.control.trajectories import circle, PoseTrajectory  # noqa: F401

warnings.warn('ros_dynamics.trajectories moved to ros_dynamics.control.trajectories',
              DeprecationWarning, stacklevel=2)

__all__ = ['circle', 'PoseTrajectory']
