# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Views of arrays for compiled code: the same data, other types or ownership (no copy).

- ``read_only(array)``: a state entry's inputs come from ``numba.carray``
  (writable types); as read-only arrays they have the entry points' IN types,
  so the kernels they call reuse the specialisations the batch kernels compile
  instead of compiling a second, writable one.
- ``borrowed(arrays)``: an entry point's array arguments, unowned for the rest
  of the call. numba counts the references of an array that came from Python
  at every call of a helper it does not inline (an atomic increment and
  decrement each); a view without an owner (a null meminfo, as ``carray``
  makes) skips them. The caller holds the arrays until the entry point
  returns, so the views stay valid for the call: never return one or keep it
  past the call. The batch entry points borrow their arrays on their first line
  (benchmarks/bench_call_mechanism.py measures what it saves).
- ``keep(owner)``: a kernel that borrows an array it allocated itself holds
  the owner until this call (numba releases a variable after its last use);
  the rollouts borrow their scratch this way (kernels/rollout.py).
"""

from numba import types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic


@intrinsic
def read_only(typingctx, array):
    """View ``array`` as read-only (compiled code only; the same data, no copy)."""
    def codegen(context, builder, signature, arguments):
        return impl_ret_borrowed(context, builder, signature.return_type, arguments[0])
    return array.copy(readonly=True)(array), codegen


@intrinsic
def borrowed(typingctx, values):
    """Return the tuple ``values`` with each array unowned (see the module; others as given)."""
    if not isinstance(values, types.BaseTuple):
        return None

    def codegen(context, builder, signature, arguments):
        items = []
        for k, kind in enumerate(signature.args[0]):
            item = builder.extract_value(arguments[0], k)
            if isinstance(kind, types.Array):   # the array struct, owner and parent cleared
                fields = context.data_model_manager[kind]
                for name in ('meminfo', 'parent'):
                    position = fields.get_field_position(name)
                    item = builder.insert_value(
                        item, cgutils.get_null_value(item.type.elements[position]), position)
            else:
                context.nrt.incref(builder, kind, item)
            items.append(item)
        return context.make_tuple(builder, signature.return_type, items)
    return values(values), codegen


@intrinsic
def keep(typingctx, owner):
    """
    Use ``owner`` here, doing nothing: the owner of borrowed views stays alive up to this call.

    numba releases a variable after its last use; a kernel that borrows
    arrays it allocated itself (``borrowed``) calls keep(owner) after the
    last use of the views.
    """
    def codegen(context, builder, signature, arguments):
        return context.get_dummy_value()
    return types.none(owner), codegen
