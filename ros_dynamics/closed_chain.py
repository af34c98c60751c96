# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""Deprecated path of ``ros_dynamics.simulation.closed_chain``, removed in the next release."""

import warnings

from ros_dynamics.simulation.closed_chain import (ClosedChain, Closure,  # noqa: F401
                                                  ConstraintSingularity)

warnings.warn('ros_dynamics.closed_chain moved to ros_dynamics.simulation.closed_chain',
              DeprecationWarning, stacklevel=2)

__all__ = ['ClosedChain', 'Closure', 'ConstraintSingularity']
