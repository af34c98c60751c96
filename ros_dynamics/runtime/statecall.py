# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The single-state call: a compiled entry point run on one state from Python, cheaply.

``StateCall`` is the C extension ``ros_dynamics.runtime._statecall`` (under 0.1 us a
call); ``CtypesStateCall`` the same interface over ctypes, the fallback where
the extension was not built. Both bind an entry point (``_jit.state_entry``,
signature ``_jit.STATE_ENTRY``) to a packed model, the number n of velocity
coordinates and the size of the first state argument (nq when it is q).
"""

import ctypes
from typing import Optional
import warnings

import numpy as np

_ENTRY_FUNCTION = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64,
                                   ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p,
                                   ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


def _is_vector(value, n: int) -> bool:
    """Return True for exactly a float64 C-contiguous aligned native ndarray of shape (n,)."""
    return (type(value) is np.ndarray and value.shape == (n,) and value.dtype == np.float64
            and value.flags.c_contiguous and value.flags.aligned)


class CtypesStateCall:
    """
    ``_statecall.StateCall`` in Python over ctypes: the fallback without the C extension.

    Same interface and results (a call costs a few microseconds more):
    ``call(*states)`` returns a new output array, or None when an argument is
    not a float64 C-contiguous vector of n or the kernel refuses the state;
    ``call.into(out, *states)`` returns the kernel's status. ``first``: the
    size of the first state (nq when it is q), n if None.
    """

    def __init__(self, address: int, model: np.ndarray, n: int, inputs: int, out_shape: tuple,
                 extra: Optional[np.ndarray] = None, first: Optional[int] = None) -> None:
        if not address or not 1 <= inputs <= 3 or n < 0:
            raise ValueError('StateCall: bad address, n or number of inputs')
        self._function = _ENTRY_FUNCTION(address)
        self._model = np.ascontiguousarray(model, dtype=np.float64)
        self._extra = None if extra is None else np.ascontiguousarray(extra, dtype=np.float64)
        self._n, self._inputs, self._out_shape = n, inputs, tuple(out_shape)
        self._sizes = (n if first is None or first < 0 else first,) + (n,) * (inputs - 1)

    def __call__(self, *states) -> Optional[np.ndarray]:
        """Return the kernel's output for the states, or None (see the class)."""
        if len(states) != self._inputs or not all(_is_vector(s, size)
                                                  for s, size in zip(states, self._sizes)):
            return None
        out = np.empty(self._out_shape)
        return out if self.into(out, *states) == 0 else None

    def into(self, out: np.ndarray, *states) -> int:
        """Run the kernel into ``out``; return its status."""
        if len(states) != self._inputs:
            raise TypeError(f'into(out, ...) takes the output and {self._inputs} state arrays')
        if (type(out) is not np.ndarray or out.shape != self._out_shape
                or out.dtype != np.float64 or not out.flags.c_contiguous
                or not out.flags.writeable):
            raise TypeError('out: expected a writable C-contiguous float64 array of the '
                            "kernel's output shape")
        for k, (state, size) in enumerate(zip(states, self._sizes)):
            if not _is_vector(state, size):
                raise TypeError(f'state argument {k}: expected a C-contiguous float64 array '
                                f'of shape ({size},)')
        pointers = [s.ctypes.data for s in states] + [None] * (3 - len(states))
        extra = None if self._extra is None else self._extra.ctypes.data
        return int(self._function(self._model.ctypes.data, self._model.shape[0], self._n,
                                  *pointers, extra, out.ctypes.data))


try:
    from ros_dynamics.runtime._statecall import StateCall
except ImportError:   # the optional C extension was not built: same results, slower calls
    StateCall = CtypesStateCall
    warnings.warn('ros_dynamics: the C extension ros_dynamics.runtime._statecall is not built, so '
                  'single-state calls (gravity_torques, inverse_dynamics, mass_matrix, ...) go '
                  'through ctypes, about 15-20x slower (gravity torques of a 7-joint arm: 25 us '
                  'instead of 1.5 us). Reinstall with a C compiler and the Python headers '
                  '(python3-dev): `pip install .` (pyproject.toml provides numpy to the build) '
                  'or `colcon build`.', RuntimeWarning, stacklevel=2)
