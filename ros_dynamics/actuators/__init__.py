# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Actuators: what sits between a motor and a URDF joint.

``parameters`` (ActuatorParameters: gear ratio, armature, friction, effort
limit per joint), ``description`` (reading them from URDF transmissions and
an actuators YAML) and ``friction`` (the compiled friction models).
"""

from ros_dynamics.description.actuator_parameters import ActuatorParameters

__all__ = ['ActuatorParameters']
