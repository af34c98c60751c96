# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Self-describing node parameters: every one declared with a ``ParameterDescriptor``.

``declare(node, name, default, description, ...)`` gives the parameter its
description (meaning and unit), its type (from the default), a numeric range
where one applies (``floating_point_range`` / ``integer_range``, inclusive,
which rclpy enforces on every set) and ``read_only=True`` when the node reads
it once at start-up, so that ``ros2 param describe`` tells a user what a
parameter is and ``ros2 param set`` of one that cannot change at runtime is
refused instead of being silently ignored.

Values a user naturally writes are accepted and invalid ones refused in one
line (``ParameterError``, naming the parameter and what it allows): an array
parameter declared with ``flexible=True`` takes a list, ``[]`` (empty: rclpy
reads it as "not set") or one scalar meaning one value for all (an integer
where numbers are expected too: ``kd: 2``, ``kd: 2.0``, ``kd: [2]``); a
floating-point parameter takes an integer. Those are declared with
``dynamic_typing`` (rclpy would refuse a type that differs from the declared
one) and checked here, at start-up (``declare`` raises ``ParameterError``,
which ``process.main_for`` turns into one ``[ERROR]`` line and exit status 1)
and on every set at runtime (refused with the reason: ``check_parameters``).
"""

import array
import math
from typing import Any, Callable, Optional, Tuple

from rcl_interfaces.msg import (FloatingPointRange, IntegerRange, ParameterDescriptor,
                                ParameterType, SetParametersResult)
from rclpy.exceptions import InvalidParameterTypeException, InvalidParameterValueException
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


class ParameterError(ValueError):
    """
    An invalid parameter value: the message names the parameter and what it allows.

    ``logger``: the name of the node's logger (its fully qualified name), for
    the one ``[ERROR]`` line a node that cannot start prints.
    """

    def __init__(self, message: str, logger: str = '') -> None:
        """Keep the message and the logger's name."""
        super().__init__(message)
        self.logger = logger


def _type_name(value: Any) -> str:
    if value is None:
        return 'nothing (not set)'
    names = {bool: 'a bool', int: 'an integer', float: 'a double', str: 'a string'}
    if isinstance(value, (list, tuple, array.array)):
        return 'an array'
    return names.get(type(value), type(value).__name__)


def _allowed(default: Any, value_range: Optional[Tuple[float, float]], constraints: str,
             flexible: bool) -> str:
    """Return what a parameter allows, in words."""
    element = default[0] if isinstance(default, (list, tuple)) and default else default
    kind = {bool: 'true or false', int: 'an integer', float: 'a number',
            str: 'a string'}[type(element)]
    if isinstance(default, (list, tuple)):
        kind = (f'a list of {kind.replace("a ", "").replace("an ", "")}s' if kind != 'true or '
                'false' else 'a list of true or false')
        if flexible:
            kind += ', [] or one value for all'
    bounds = ''
    if value_range is not None:
        low, high = value_range
        bounds = (f' >= {low:g}' if high == math.inf else f' in [{low:g}, {high:g}]')
    return kind + bounds + (f' ({constraints})' if constraints else '')


def convert(name: str, value: Any, default: Any,
            value_range: Optional[Tuple[float, float]] = None, constraints: str = '',
            flexible: bool = False) -> Any:
    """
    Return ``value`` as the type of ``default`` or raise ParameterError naming ``name``.

    Numbers: an integer is taken where a double is expected; a double must
    be finite; ``value_range`` (inclusive) is checked. Arrays: a list of the
    element type; with ``flexible``, also None (``[]``: empty) and one scalar
    (a list of one). Strings and bools must be of their type (with
    ``flexible``, a string takes a bool as 'true' or 'false').
    """
    allowed = _allowed(default, value_range, constraints, flexible)

    def fail(got: str = '') -> ParameterError:
        return ParameterError(f'parameter {name}: {got or f"got {value!r}"}; expected '
                              f'{allowed}')

    def scalar(item: Any, like: Any) -> Any:
        if isinstance(like, bool):
            if not isinstance(item, bool):
                raise fail(f'got {_type_name(item)} {item!r}')
            return item
        if isinstance(like, str):
            if flexible and isinstance(item, bool):   # YAML's false for the choice 'false'
                return 'true' if item else 'false'
            if not isinstance(item, str):
                raise fail(f'got {_type_name(item)} {item!r}')
            return item
        if isinstance(item, bool) or not isinstance(item, (int, float)):
            raise fail(f'got {_type_name(item)} {item!r}')
        if isinstance(like, int) and not isinstance(item, int):
            raise fail(f'got {_type_name(item)} {item!r}')
        number = type(like)(item)
        if isinstance(number, float) and not math.isfinite(number):
            raise fail(f'got {number!r}')
        if value_range is not None and not value_range[0] <= number <= value_range[1]:
            raise fail(f'got {number!r}')
        return number

    if isinstance(default, (list, tuple)):
        like = default[0]
        if value is None and flexible:
            return []
        if isinstance(value, (list, tuple, array.array)):
            return [scalar(item, like) for item in value]
        if flexible and value is not None:
            return [scalar(value, like)]
        raise fail(f'got {_type_name(value)} {value!r}')
    return scalar(value, default)


def declare(node: Node, name: str, default: Any, description: str, read_only: bool = False,
            value_range: Optional[Tuple[float, float]] = None, constraints: str = '',
            flexible: bool = False) -> Any:
    """
    Declare ``name`` on ``node`` with its descriptor and return its (checked) value.

    ``flexible`` (arrays): also ``[]`` and one scalar for all (see the module
    docstring). Floating-point parameters take integers. An invalid value
    raises ``ParameterError`` naming the parameter and what it allows; every
    later set is checked the same way (``check_parameters``).
    """
    dynamic = flexible or isinstance(default, float)
    text = _allowed(default, value_range, constraints, flexible)
    out = descriptor(name, default, description, read_only, value_range, constraints)
    out.dynamic_typing = dynamic   # rclpy then records the value's type, and checks ranges
    try:
        value = node.declare_parameter(name, default, out).value
    except (InvalidParameterTypeException, InvalidParameterValueException) as error:
        raise ParameterError(f'parameter {name}: {str(error).split(":")[0]}; expected '
                             f'{text}', node.get_logger().name) from None
    rule = (default, value_range, constraints, flexible)
    rules = _rules(node)
    rules[name] = rule
    try:
        return convert(name, value, *rule)
    except ParameterError as error:
        error.logger = node.get_logger().name
        raise


def _rules(node: Node) -> dict:
    """Return the node's {parameter: (default, range, constraints, flexible)}, once hooked."""
    rules = getattr(node, '_ros_dynamics_parameter_rules', None)
    if rules is None:
        rules = {}
        setattr(node, '_ros_dynamics_parameter_rules', rules)
        node.add_on_set_parameters_callback(lambda parameters: check_parameters(node,
                                                                                parameters))
    return rules


def checked(node: Node, name: str, value: Any) -> Any:
    """Return a value being set for ``name`` converted by its rule (ParameterError if invalid)."""
    rule = _rules(node).get(name)
    return value if rule is None else convert(name, value, *rule)


def check_parameters(node: Node, parameters) -> SetParametersResult:
    """Refuse a set (with the reason) if any value breaks its parameter's rule."""
    for parameter in parameters:
        try:
            checked(node, parameter.name, parameter.value)
        except ParameterError as error:
            return SetParametersResult(successful=False, reason=str(error))
    return SetParametersResult(successful=True)


def guard_parameters(callback: Callable) -> Callable:
    """Wrap an on-set-parameters callback: a ParameterError (or ValueError) refuses the set."""
    def wrapper(parameters) -> SetParametersResult:
        try:
            return callback(parameters)
        except ValueError as error:
            return SetParametersResult(successful=False, reason=str(error))
    return wrapper


NON_NEGATIVE = (0.0, math.inf)
