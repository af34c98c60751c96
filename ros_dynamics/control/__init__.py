# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""Control: Cartesian impedance, trajectories and actuator reports."""

from ros_dynamics.control.impedance import (CartesianImpedance, computed_torque, rotation_error,
                                            wrap_angles)

__all__ = ['CartesianImpedance', 'computed_torque', 'rotation_error', 'wrap_angles']
