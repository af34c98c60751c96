# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The runtime layer's Python side: batches over threads and the arrays every entry accepts.

``run_batch`` cuts a batch into blocks of rows for the compiled kernels
(which release the GIL) on one shared thread pool; ``as_array`` and
``finite_array`` turn what a user passes into the aligned C-contiguous float64
arrays the kernels read, with errors that name the argument; ``empty`` and
``zeros`` refuse up front a result that cannot fit in memory. Every module
above the kernels (RobotModel, the simulator, rollouts, control,
identification) uses these, never another module's private helpers.
``batch_threads`` (ROS_DYNAMICS_THREADS, default the cores) caps the threads
of a batch.
"""

from concurrent.futures import ThreadPoolExecutor
import difflib
import itertools
import os
import threading
from typing import Callable, Optional

import numba
import numpy as np

from ros_dynamics.exceptions import BatchTooLargeError

batch_threads = int(os.environ.get('ROS_DYNAMICS_THREADS', numba.config.NUMBA_NUM_THREADS))
MIN_ROWS_PER_THREAD = 16
_pool = None
_pool_lock = threading.Lock()


def forget_pool() -> None:
    """Drop the thread pool in a forked child (its threads did not survive the fork)."""
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


os.register_at_fork(after_in_child=forget_pool)


def run_batch(kernel: Callable, count: int, arguments: Callable,
              threads: Optional[int] = None, blocks_per_thread: int = 1,
              multiple: int = 1) -> int:
    """
    Run ``kernel(*arguments(start, stop))`` over blocks of rows; return a nonzero status.

    Blocks go to a shared thread pool, the calling thread takes its share too;
    ``threads`` (default ROS_DYNAMICS_THREADS or the cores) caps their number.
    With ``blocks_per_thread`` > 1 the rows are cut into that many blocks per
    thread, which each thread takes in turn as it finishes one, so a thread
    slowed by other work on the machine does not hold the others up (as
    mujoco.rollout's chunks); the status is the first nonzero one in row order.
    Every block but the last starts and ends at a ``multiple`` of rows (the
    rollouts' groups of LANES).
    """
    global _pool
    threads = max(1, min(threads or batch_threads, count // MIN_ROWS_PER_THREAD))
    if threads == 1:
        return kernel(*arguments(0, count))
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(max(1, batch_threads - 1),
                                           thread_name_prefix='ros_dynamics')
    blocks = max(threads, min(threads * blocks_per_thread, count // MIN_ROWS_PER_THREAD))
    bounds = sorted({min(count, -(-(count * k // blocks) // multiple) * multiple)
                     for k in range(blocks + 1)})
    blocks = len(bounds) - 1
    statuses = [0] * blocks
    taken = itertools.count()   # next() on it is atomic under the GIL

    def work() -> None:
        for k in iter(taken.__next__, None):
            if k >= blocks:
                return
            statuses[k] = kernel(*arguments(bounds[k], bounds[k + 1]))

    futures = [_pool.submit(work) for _ in range(threads - 1)]
    work()
    for future in futures:
        future.result()
    return next((status for status in statuses if status), 0)


# dtype kinds a float64 holds (bool, signed and unsigned integers, floats of any width)
REAL_KINDS = 'biuf'
KIND_NAMES = {'c': 'complex', 'O': 'object', 'M': 'datetime', 'm': 'timedelta',
              'S': 'bytes', 'U': 'str', 'V': 'structured'}
# arrays up to this size are allocated without asking the system for free memory
CHECKED_BYTES = 1 << 26


def available_bytes() -> int:
    """Return the memory the system can give this process now (Linux MemAvailable)."""
    try:
        with open('/proc/meminfo', encoding='ascii') as stream:
            for line in stream:
                if line.startswith('MemAvailable:'):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf('SC_AVPHYS_PAGES') * os.sysconf('SC_PAGE_SIZE')
    except (OSError, ValueError, AttributeError):
        return 1 << 62


def check_memory(shape: tuple, name: str) -> None:
    """Raise BatchTooLargeError if a float64 array of ``shape`` does not fit in memory."""
    size = 8
    for extent in shape:
        size *= int(extent)
    if size > CHECKED_BYTES:
        available = available_bytes()
        if size > available:
            raise BatchTooLargeError(
                f'{name}: a float64 array of shape {tuple(shape)} needs {size / 1e9:.3g} GB, '
                f'more than the {available / 1e9:.3g} GB of memory available; split the '
                'batch into chunks')


def as_array(value, name: str) -> np.ndarray:
    """
    Return ``value`` as an aligned C-contiguous float64 array (a copy when needed).

    Accepts what converts to float64 without losing information: arrays and
    (nested) sequences of bool, integers or real floats. Raises TypeError
    naming ``name`` for complex, object, datetime, text and structured data
    and masked arrays with masked entries (their mask would be ignored),
    ValueError for ragged sequences, BatchTooLargeError when the copy cannot
    fit in memory.
    """
    if (type(value) is np.ndarray and value.dtype == np.float64 and value.flags.c_contiguous
            and value.flags.aligned):
        return value
    if isinstance(value, np.ma.MaskedArray) and np.ma.getmaskarray(value).any():
        raise TypeError(f'{name}: a masked array with masked entries (the dynamics would '
                        'ignore the mask); pass the values to use, e.g. array.filled(0.0)')
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f'{name}: expected an array of numbers, got {value!r} ({error})') \
            from None
    if array.dtype.kind not in REAL_KINDS:
        kind = KIND_NAMES.get(array.dtype.kind, str(array.dtype))
        raise TypeError(f'{name}: expected real numbers, got {kind} values ({value!r:.80}); '
                        'convert them to float first')
    if not (array.dtype == np.float64 and array.flags.c_contiguous and array.flags.aligned):
        check_memory(array.shape, name)
    return np.require(array, np.float64, ('C', 'A'))


def finite_array(value, name: str, shape: Optional[tuple] = None) -> np.ndarray:
    """
    Return ``value`` as a finite float64 array (``as_array``), of ``shape`` if given.

    TypeError for data that is not real numbers, ValueError naming ``name``
    for another shape or NaN/Inf: the check every public entry applies to
    its numeric arguments.
    """
    array = as_array(value, name)
    if shape is not None and array.shape != shape:
        raise ValueError(f'{name}: expected shape {shape}, got shape {array.shape}')
    if not np.all(np.isfinite(array)):
        raise ValueError(f'{name}: contains NaN or Inf')
    return array


def empty(shape: tuple, name: str) -> np.ndarray:
    """Return an uninitialised array of ``shape``; refuse one that cannot fit in memory."""
    check_memory(shape, name)
    return np.empty(shape)


def zeros(shape: tuple, name: str) -> np.ndarray:
    """Return an array of zeros of ``shape``; refuse one that cannot fit in memory."""
    check_memory(shape, name)
    return np.zeros(shape)


def did_you_mean(name, choices: tuple) -> str:
    """Return "; did you mean 'x'?" for names close to ``name`` (difflib), else ''."""
    if not isinstance(name, str):
        return ''
    close = difflib.get_close_matches(name, choices, n=3)
    return f'; did you mean {" or ".join(map(repr, close))}?' if close else ''
