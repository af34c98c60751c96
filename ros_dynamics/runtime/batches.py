# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The runtime layer's Python side: batches over threads, bound single-state calls, arrays.

Every module above the kernels (RobotModel, the simulator, rollouts, control,
identification) goes through this API, never through another module's
private names:

* ``BatchPool``: the threads a batch runs on, an object the caller may own
  (``with BatchPool(threads=2) as pool:``); ``run_batch`` cuts a batch into
  blocks of rows for the compiled kernels (which release the GIL) on the
  pool given, the one entered in this thread, or the shared default pool.
  ``batch_threads`` (ROS_DYNAMICS_THREADS, default the cores) is the default
  pool's size.
* ``BoundCalls``: compiled single-state entry points (``_jit.state_entry``)
  bound to one packed model as ``statecall.StateCall`` objects, bound on
  first use; an owner makes a new one for every new packed model.
* ``check_status``: the error for a kernel's nonzero status.
* ``as_array``, ``finite_array``, ``empty``, ``zeros``: what a user passes,
  turned into the aligned C-contiguous float64 arrays the kernels read, with
  errors that name the argument; results that cannot fit in memory refused
  up front.
"""

from concurrent.futures import ThreadPoolExecutor
import contextlib
import contextvars
import difflib
import itertools
import os
import threading
from typing import Callable, Iterator, Optional, Sequence

import numba
import numpy as np

from ros_dynamics.exceptions import BatchTooLargeError
from ros_dynamics.runtime.jit import ensure_compiled
from ros_dynamics.runtime.statecall import StateCall

batch_threads = int(os.environ.get('ROS_DYNAMICS_THREADS', numba.config.NUMBA_NUM_THREADS))
MIN_ROWS_PER_THREAD = 16
# the pool entered (``with pool:`` or ``pool.use()``) in this thread or task, if any
_entered = contextvars.ContextVar('ros_dynamics_batch_pool', default=None)


class BatchPool:
    """
    The threads that run batches' blocks of rows: an object its caller may own.

    ``threads``: how many threads a batch runs on, the calling thread included
    (it takes its share of the blocks); the pool starts ``threads - 1`` workers
    on first use. None follows ``batch_threads`` (ROS_DYNAMICS_THREADS, default
    the cores): the shared default pool is such a pool. Hand a pool to the
    batched calls in one of three ways:

    * ``with BatchPool(threads=2) as pool:`` every batch started from this
      thread (or asyncio task) inside the block runs on it: RobotModel's
      batched methods, ``rollout``, the regressor; leaving the block closes it;
    * ``with pool.use():`` the same without closing it (one pool, several
      threads: each enters ``use()``);
    * ``run_batch(..., pool=pool)`` and ``rollout(..., pool=pool)``.

    A closed pool refuses batches (RuntimeError). A pool used in a forked
    child starts new workers there (the parent's did not survive the fork).
    """

    def __init__(self, threads: Optional[int] = None) -> None:
        if threads is not None and (isinstance(threads, bool)
                                    or not isinstance(threads, (int, np.integer))
                                    or threads < 1):
            raise ValueError(f'threads: expected a number of threads >= 1 or None, got '
                             f'{threads!r}')
        self._threads = None if threads is None else int(threads)
        self._executor = None
        self._pid = None
        self._lock = threading.Lock()
        self._closed = False
        self._uses = threading.local()   # this thread's ``with pool:`` contexts

    @property
    def threads(self) -> int:
        """Return the threads a batch runs on, the calling thread included."""
        return self._threads or batch_threads

    @property
    def closed(self) -> bool:
        """Return True once ``close`` ran (the pool refuses batches)."""
        return self._closed

    def _workers(self) -> ThreadPoolExecutor:
        """Return the executor of this process's workers, started on first use."""
        pid = os.getpid()
        if self._executor is None or self._pid != pid:
            with self._lock:
                if self._closed:
                    raise RuntimeError('BatchPool: closed; make a new pool to run batches')
                if self._executor is None or self._pid != pid:
                    self._executor = ThreadPoolExecutor(max(1, self.threads - 1),
                                                        thread_name_prefix='ros_dynamics')
                    self._pid = pid
        return self._executor

    def run(self, kernel: Callable, count: int, arguments: Callable,
            threads: Optional[int] = None, blocks_per_thread: int = 1,
            multiple: int = 1) -> int:
        """
        Run ``kernel(*arguments(start, stop))`` over blocks of rows; return a nonzero status.

        ``threads`` (default: the pool's) caps the threads of this batch; a
        batch of fewer than ``MIN_ROWS_PER_THREAD`` rows per thread runs on
        fewer. With ``blocks_per_thread`` > 1 the rows are cut into that many
        blocks per thread, which each thread takes in turn as it finishes
        one, so a thread slowed by other work on the machine does not hold
        the others up (as mujoco.rollout's chunks); the status is the first
        nonzero one in row order. Every block but the last starts and ends at
        a ``multiple`` of rows (the rollouts' groups of LANES).
        """
        if self._closed:
            raise RuntimeError('BatchPool: closed; make a new pool to run batches')
        threads = max(1, min(threads or self.threads, count // MIN_ROWS_PER_THREAD))
        if threads == 1:
            return kernel(*arguments(0, count))
        executor = self._workers()
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

        futures = [executor.submit(work) for _ in range(threads - 1)]
        work()
        for future in futures:
            future.result()
        return next((status for status in statuses if status), 0)

    @contextlib.contextmanager
    def use(self) -> Iterator['BatchPool']:
        """Run the batches started from this thread inside the block on this pool."""
        token = _entered.set(self)
        try:
            yield self
        finally:
            _entered.reset(token)

    def close(self) -> None:
        """Stop the workers (after the blocks they run); later batches raise RuntimeError."""
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None and self._pid == os.getpid():
            executor.shutdown(wait=True)

    def __enter__(self) -> 'BatchPool':
        """Run this thread's batches on the pool until the block ends, then close it."""
        uses = self._uses.__dict__.setdefault('stack', [])
        uses.append(self.use())
        return uses[-1].__enter__()

    def __exit__(self, *exc_info) -> None:
        """Leave the block: batches go back to the pool outside it, and this one closes."""
        self._uses.stack.pop().__exit__(*exc_info)
        if not self._uses.stack:
            self.close()

    def __repr__(self) -> str:
        """Describe the pool: its threads, whether it is closed."""
        return f'BatchPool(threads={self.threads}{", closed" if self._closed else ""})'


_default_pool = BatchPool()


def default_pool() -> BatchPool:
    """Return the shared pool batches run on when no pool is given or entered."""
    return _default_pool


def current_pool() -> BatchPool:
    """Return the pool a batch started now from this thread runs on (entered, else default)."""
    return _entered.get() or _default_pool


def forget_pool() -> None:
    """Drop the default pool in a forked child (its threads did not survive the fork)."""
    global _default_pool
    _default_pool = BatchPool()


os.register_at_fork(after_in_child=forget_pool)


def run_batch(kernel: Callable, count: int, arguments: Callable,
              threads: Optional[int] = None, blocks_per_thread: int = 1,
              multiple: int = 1, pool: Optional[BatchPool] = None) -> int:
    """
    Run ``kernel(*arguments(start, stop))`` over blocks of rows; return a nonzero status.

    On ``pool``, else the pool entered in this thread (``with pool:``), else
    the default pool; the other arguments as ``BatchPool.run``.
    """
    pool = pool or _entered.get() or _default_pool
    return pool.run(kernel, count, arguments, threads, blocks_per_thread, multiple)


def check_status(status: int, names: Sequence[str], arrays: Sequence[np.ndarray]) -> None:
    """
    Raise ValueError for a kernel's positive status; return for 0 (and negative ones).

    Status 1 is a state argument holding NaN or Inf (the error names the first
    of ``names`` whose array in ``arrays`` does); another positive status names
    them all. Negative statuses (a singular mass matrix) are the caller's.
    """
    if status > 0:
        for name, array in zip(names, arrays):
            if not np.all(np.isfinite(array)):
                raise ValueError(f'{name}: contains NaN or Inf')
        raise ValueError(f'{", ".join(names)}: rejected by the kernel (status {status})')


def unbound(*states) -> None:
    """
    Stand in for a single-state call not bound yet: return None (take the general path).

    RobotModel's fast paths call an attribute holding a bound call or this.
    """
    return None


class BoundCalls:
    """
    Compiled single-state entry points bound to one packed model, each bound on first use.

    ``model``: the packed model (read-only, never written afterwards); ``n``:
    the velocity coordinates (nv); ``nq``: the size of a first argument q;
    ``extra``: the entries' extra argument by default (RobotModel: zero body
    forces, (1, bodies, 6)). ``bind`` returns a ``statecall.StateCall``
    (``call(*states)`` returns a new output or None, ``call.into(out,
    *states)`` a status for ``check_status``); ``find`` the bound one or None.
    An owner whose packed model changes makes a new BoundCalls (RobotModel's
    ``state_calls``): a call bound on another thread during the change binds
    the old model in the old object, which no later call sees.
    """

    def __init__(self, model: np.ndarray, n: int, nq: int,
                 extra: Optional[np.ndarray] = None) -> None:
        self.model, self.n, self.nq, self.extra = model, n, nq, extra
        self._calls = {}

    def find(self, key) -> Optional[StateCall]:
        """Return the call bound under ``key`` (its entry point by default), or None."""
        return self._calls.get(key)

    def bind(self, entry, inputs: int, out_shape: tuple, first: Optional[int] = None,
             extra: Optional[np.ndarray] = None, key=None) -> StateCall:
        """
        Return ``entry`` bound to the model, compiling (or loading) it on first use.

        inputs: 1 to 3 state arguments; out_shape: the output's shape; first:
        the size of the first state (default nq: q); extra: the entry's extra
        argument (default the owner's); key: the name to find it by again
        (default ``entry``; e.g. (entry, link) for per-link calls).
        """
        key = entry if key is None else key
        call = self._calls.get(key)
        if call is None:
            ensure_compiled(entry)
            call = StateCall(entry.address, self.model, self.n, inputs, tuple(out_shape),
                             self.extra if extra is None else extra,
                             self.nq if first is None or first < 0 else first)
            self._calls[key] = call
        return call


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
