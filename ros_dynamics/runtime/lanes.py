# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Lanes: the kernels over LANES states at once, in the CPU's vector registers.

A batch of simulations shares the model, so one pass of a kernel can carry
several states, one per lane of a SIMD register (4 float64 in AVX2's ymm).
LLVM does not find this by itself in numba's scalar code, so this module
gives numba two types, built with its extension API (as ``runtime.views``):

- ``Lanes``: LANES float64 values in one LLVM vector. +, -, *, / (also with
  a plain float on either side), unary -, math.sin, math.cos and math.sqrt act lane by
  lane with the same IEEE operations as on floats, so a kernel run on Lanes
  gives in each lane bit for bit what it gives on that lane's floats.
  Comparisons are True when they hold in every lane (a kernel's
  ``if not d > tolerance`` then takes its exit when any lane fails);
  ``diverge(a, b)`` says whether ``a <= b`` holds in some lanes only (False
  for floats), and ``select_le(a, b, x, y)`` gives x where a <= b, else y,
  lane by lane, for the branches whose side depends on the state.
- ``LaneArray`` (``as_lanes(array)``): an array whose last axis has LANES
  entries, indexed by the other axes: ``x[i, k]`` is the Lanes
  array[i, k, :], ``x[i, k] = value`` stores Lanes or a float (in every
  lane), and ``x.shape`` is the array's shape without the last axis.

So the scalar kernels (aba.py) compile unchanged for LANES states in
LaneArrays: the same source, one compile mechanism (numba), one more
specialisation.
"""

import math
import operator

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.typeconv import Conversion
from numba.extending import (intrinsic, lower_cast, make_attribute_wrapper, models, overload,
                             overload_attribute, register_model)

LANES = 4
_VECTOR = ir.VectorType(ir.DoubleType(), LANES)
_INDEX = ir.IntType(32)
_NUMBERS = (types.Float, types.Integer, types.IntegerLiteral)


class LanesType(types.Type):
    """LANES float64 in one vector register; floats convert to it (the value in every lane)."""

    def __init__(self) -> None:
        """Name the type."""
        super().__init__(name=f'Lanes{LANES}')

    def unify(self, typingctx, other):
        """Unify with a number (a tuple of floats and Lanes becomes a tuple of Lanes)."""
        return self if isinstance(other, _NUMBERS) else None

    def can_convert_from(self, typingctx, other):
        """Let a number convert implicitly (it is put in every lane)."""
        return Conversion.safe if isinstance(other, _NUMBERS) else None


lanes_type = LanesType()


@register_model(LanesType)
class _LanesModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _VECTOR)


def _splat(builder, value):
    """Return the vector with ``value`` (a double) in every lane."""
    vector = builder.insert_element(ir.Constant(_VECTOR, ir.Undefined), value,
                                    ir.Constant(_INDEX, 0))
    return builder.shuffle_vector(vector, ir.Constant(_VECTOR, ir.Undefined),
                                  ir.Constant(ir.VectorType(_INDEX, LANES), [0] * LANES))


@lower_cast(types.Float, LanesType)
@lower_cast(types.Integer, LanesType)
@lower_cast(types.IntegerLiteral, LanesType)
def _number_to_lanes(context, builder, from_type, to_type, value):
    return _splat(builder, context.cast(builder, value, from_type, types.float64))


def _is_operand(a, b) -> bool:
    """Return True for (Lanes or number, Lanes or number) with at least one Lanes."""
    kinds = (LanesType,) + _NUMBERS
    return ((isinstance(a, LanesType) or isinstance(b, LanesType))
            and isinstance(a, kinds) and isinstance(b, kinds))


def _vector_operation(instruction: str):
    """Return an intrinsic applying the LLVM ``instruction`` lane by lane (numbers splat)."""
    @intrinsic
    def operation(typingctx, a, b):
        def codegen(context, builder, signature, arguments):
            x, y = (context.cast(builder, value, kind, lanes_type)
                    for value, kind in zip(arguments, signature.args))
            if instruction.startswith('fcmp'):   # True when it holds in every lane
                mask = builder.fcmp_ordered(instruction[5:], x, y)
                bits = builder.bitcast(mask, ir.IntType(LANES))
                return builder.icmp_unsigned('==', bits, ir.Constant(ir.IntType(LANES), -1))
            return getattr(builder, instruction)(x, y)
        result = types.boolean if instruction.startswith('fcmp') else lanes_type
        return result(a, b), codegen
    return operation


def _register(python_operator, instruction: str) -> None:
    implementation = _vector_operation(instruction)

    @overload(python_operator)
    def _overload(a, b):
        if _is_operand(a, b):
            return lambda a, b: implementation(a, b)


for _operator, _instruction in ((operator.add, 'fadd'), (operator.sub, 'fsub'),
                                (operator.mul, 'fmul'), (operator.truediv, 'fdiv'),
                                (operator.lt, 'fcmp <'), (operator.le, 'fcmp <='),
                                (operator.gt, 'fcmp >'), (operator.ge, 'fcmp >=')):
    _register(_operator, _instruction)


@intrinsic
def _negative(typingctx, a):
    def codegen(context, builder, signature, arguments):
        return builder.fneg(arguments[0])
    return lanes_type(a), codegen


@overload(operator.neg)
def _negative_overload(a):
    if isinstance(a, LanesType):
        return lambda a: _negative(a)


@intrinsic
def lane(typingctx, a, j):
    """Return lane ``j`` of the Lanes ``a`` as a float."""
    def codegen(context, builder, signature, arguments):
        return builder.extract_element(arguments[0], arguments[1])
    return types.float64(a, j), codegen


@intrinsic
def lanes_of(typingctx, a, b, c, d):
    """Return the Lanes (a, b, c, d)."""
    def codegen(context, builder, signature, arguments):
        vector = ir.Constant(_VECTOR, ir.Undefined)
        for j, (value, kind) in enumerate(zip(arguments, signature.args)):
            value = context.cast(builder, value, kind, types.float64)
            vector = builder.insert_element(vector, value, ir.Constant(_INDEX, j))
        return vector
    return lanes_type(a, b, c, d), codegen


def _lane_function(function):
    """Overload ``function`` (one float argument) for Lanes, lane by lane."""
    @overload(function)
    def _overload(x):
        if isinstance(x, LanesType):
            return lambda x: lanes_of(function(lane(x, 0)), function(lane(x, 1)),
                                      function(lane(x, 2)), function(lane(x, 3)))


for _function in (math.sin, math.cos, math.sqrt):   # sqrt: a planar joint's (cos, sin) norm
    _lane_function(_function)


def diverge(a, b) -> bool:
    """Return True when a <= b holds in some lanes but not all (always False for floats)."""
    return False


@overload(diverge)
def _diverge_overload(a, b):
    if _is_operand(a, b):
        return lambda a, b: not (a <= b or b < a)
    if isinstance(a, _NUMBERS) and isinstance(b, _NUMBERS):
        return lambda a, b: False


def select_le(a, b, x, y):
    """Return x where a <= b, else y: lane by lane on Lanes (x, y: numbers or nested tuples)."""
    return x if a <= b else y


def _lanes_like(kind):
    """Return the type ``kind`` (a number or nested tuples of them and Lanes) with Lanes leaves."""
    if isinstance(kind, types.BaseTuple):
        return types.Tuple([_lanes_like(element) for element in kind])
    return lanes_type


def _has_lanes(kind) -> bool:
    if isinstance(kind, types.BaseTuple):
        return any(_has_lanes(element) for element in kind)
    return isinstance(kind, LanesType)


@intrinsic
def _select_le(typingctx, a, b, x, y):
    result = _lanes_like(x)
    if result != _lanes_like(y):
        return None

    def codegen(context, builder, signature, arguments):
        def pick(mask, x, x_type, y, y_type, kind):
            if isinstance(kind, types.BaseTuple):
                value = ir.Constant(context.get_value_type(kind), ir.Undefined)
                for k in range(len(kind)):
                    value = builder.insert_value(value, pick(
                        mask, builder.extract_value(x, k), x_type[k],
                        builder.extract_value(y, k), y_type[k], kind[k]), k)
                return value
            return builder.select(mask, context.cast(builder, x, x_type, lanes_type),
                                  context.cast(builder, y, y_type, lanes_type))
        left, right = (context.cast(builder, value, kind, lanes_type)
                       for value, kind in zip(arguments[:2], signature.args[:2]))
        mask = builder.fcmp_ordered('<=', left, right)
        return pick(mask, arguments[2], signature.args[2], arguments[3], signature.args[3],
                    signature.return_type)
    return result(a, b, x, y), codegen


@overload(select_le)
def _select_le_overload(a, b, x, y):
    if any(_has_lanes(kind) for kind in (a, b, x, y)):
        return lambda a, b, x, y: _select_le(a, b, x, y)
    return lambda a, b, x, y: x if a <= b else y


class LaneArrayType(types.Type):
    """An array (..., LANES) of float64, C-contiguous, indexed by its leading axes."""

    def __init__(self, array: types.Array) -> None:
        """Wrap the array type."""
        self.array = array
        super().__init__(name=f'LaneArray({array})')


@register_model(LaneArrayType)
class _LaneArrayModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [('array', fe_type.array)])


make_attribute_wrapper(LaneArrayType, 'array', 'array')


@overload_attribute(LaneArrayType, 'shape')
def _shape(x):
    return lambda x: x.array.shape[:-1]


@intrinsic
def as_lanes(typingctx, array):
    """View ``array`` (..., LANES), C-contiguous float64, as a LaneArray (no copy)."""
    if not (isinstance(array, types.Array) and array.dtype == types.float64
            and array.layout == 'C' and array.ndim >= 2):
        return None

    def codegen(context, builder, signature, arguments):
        view = cgutils.create_struct_proxy(signature.return_type)(context, builder)
        view.array = arguments[0]
        context.nrt.incref(builder, signature.args[0], arguments[0])
        return view._getvalue()
    return LaneArrayType(array)(array), codegen


def _lanes_pointer(context, builder, array_type, array, index_type, index):
    """Return a vector pointer to array[index..., 0] (no bounds check, as numba's default)."""
    indices = ([index] if isinstance(index_type, types.Integer)
               else cgutils.unpack_tuple(builder, index, len(index_type)))
    kinds = [index_type] if isinstance(index_type, types.Integer) else list(index_type)
    indices = [context.cast(builder, value, kind, types.intp)
               for value, kind in zip(indices, kinds)]
    structure = context.make_array(array_type)(context, builder, array)
    pointer = cgutils.get_item_pointer(context, builder, array_type, structure,
                                       indices + [context.get_constant(types.intp, 0)])
    return builder.bitcast(pointer, _VECTOR.as_pointer())


def _is_index(array: types.Array, index) -> bool:
    """Return True if ``index`` picks one row of LANES in ``array``."""
    if isinstance(index, types.Integer):
        return array.ndim == 2
    return (isinstance(index, types.BaseTuple) and len(index) == array.ndim - 1
            and all(isinstance(kind, types.Integer) for kind in index))


@intrinsic
def _load(typingctx, array, index):
    def codegen(context, builder, signature, arguments):
        pointer = _lanes_pointer(context, builder, signature.args[0], arguments[0],
                                 signature.args[1], arguments[1])
        return builder.load(pointer, align=8)
    return lanes_type(array, index), codegen


@intrinsic
def _store(typingctx, array, index, value):
    def codegen(context, builder, signature, arguments):
        pointer = _lanes_pointer(context, builder, signature.args[0], arguments[0],
                                 signature.args[1], arguments[1])
        builder.store(context.cast(builder, arguments[2], signature.args[2], lanes_type),
                      pointer, align=8)
        return context.get_dummy_value()
    return types.none(array, index, value), codegen


@overload(operator.getitem)
def _getitem(x, index):
    if isinstance(x, LaneArrayType) and _is_index(x.array, index):
        return lambda x, index: _load(x.array, index)


@overload(operator.setitem)
def _setitem(x, index, value):
    if (isinstance(x, LaneArrayType) and _is_index(x.array, index)
            and isinstance(value, (LanesType,) + _NUMBERS)):
        return lambda x, index, value: _store(x.array, index, value)
