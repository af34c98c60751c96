# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""Deprecated path of ``ros_dynamics.rollouts.scale_out``, removed in the next release."""

import warnings

from ros_dynamics.rollouts.scale_out import (dask_client, distributed_rollout,  # noqa: F401
                                             map_chunks, trajectory_torques)

warnings.warn('ros_dynamics.scale_out moved to ros_dynamics.rollouts.scale_out',
              DeprecationWarning, stacklevel=2)

__all__ = ['dask_client', 'distributed_rollout', 'map_chunks', 'trajectory_torques']
