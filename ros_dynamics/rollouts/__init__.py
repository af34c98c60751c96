# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""Many simulations of one robot in one call (``rollout``), compiled and multithreaded."""

from ros_dynamics.rollouts.rollout import rollout

__all__ = ['rollout']
