# Copyright 2026 The ros_dynamics Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
Self-describing node parameters: every one declared with a ``ParameterDescriptor``.

``declare(node, name, default, description, ...)`` gives the parameter its
description (meaning and unit), its type (from the default), a numeric range
where one applies (``floating_point_range`` / ``integer_range``, inclusive,
which rclpy enforces on every set) and ``read_only=True`` when the node reads
it once at start-up, so that ``ros2 param describe`` tells a user what a
parameter is and ``ros2 param set`` of one that cannot change at runtime is
refused instead of being silently ignored.
"""

import math
from typing import Any, Optional, Tuple

from rcl_interfaces.msg import (FloatingPointRange, IntegerRange, ParameterDescriptor,
                                ParameterType)
from rclpy.node import Node

_TYPES = {bool: ParameterType.PARAMETER_BOOL, int: ParameterType.PARAMETER_INTEGER,
          float: ParameterType.PARAMETER_DOUBLE, str: ParameterType.PARAMETER_STRING}
_ARRAY_TYPES = {bool: ParameterType.PARAMETER_BOOL_ARRAY,
                int: ParameterType.PARAMETER_INTEGER_ARRAY,
                float: ParameterType.PARAMETER_DOUBLE_ARRAY,
                str: ParameterType.PARAMETER_STRING_ARRAY}

STARTUP_ONLY = ' Read once at start-up (read-only).'


def parameter_type(default: Any) -> int:
    """Return the ParameterType of a default value (lists by their first element)."""
    if isinstance(default, (list, tuple)):
        if not default:
            raise ValueError('an array parameter needs a non-empty default to have a type')
        return _ARRAY_TYPES[type(default[0])]
    return _TYPES[type(default)]


def descriptor(name: str, default: Any, description: str, read_only: bool = False,
               value_range: Optional[Tuple[float, float]] = None,
               constraints: str = '') -> ParameterDescriptor:
    """
    Return the ParameterDescriptor of one parameter.

    ``value_range`` (inclusive; ``math.inf`` allowed for a double) applies to
    a double or integer parameter; ``constraints`` is free text for what a
    range cannot say (e.g. "> 0", "one of ...").
    """
    kind = parameter_type(default)
    text = description + (STARTUP_ONLY if read_only else '')
    out = ParameterDescriptor(name=name, type=kind, description=text, read_only=read_only,
                              additional_constraints=constraints)
    if value_range is not None:
        low, high = value_range
        if kind in (ParameterType.PARAMETER_DOUBLE, ParameterType.PARAMETER_DOUBLE_ARRAY):
            out.floating_point_range = [FloatingPointRange(
                from_value=float(low), to_value=float(high), step=0.0)]
        elif kind in (ParameterType.PARAMETER_INTEGER, ParameterType.PARAMETER_INTEGER_ARRAY):
            out.integer_range = [IntegerRange(from_value=int(low), to_value=int(high), step=1)]
        else:
            raise ValueError(f'{name}: a range applies to numbers only')
    return out


def declare(node: Node, name: str, default: Any, description: str, read_only: bool = False,
            value_range: Optional[Tuple[float, float]] = None, constraints: str = '') -> Any:
    """Declare ``name`` on ``node`` with its descriptor and return its value."""
    return node.declare_parameter(
        name, default, descriptor(name, default, description, read_only, value_range,
                                  constraints)).value


NON_NEGATIVE = (0.0, math.inf)
