# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Compilation of the kernels: numba ``njit`` with an on-disk cache.

All algorithms are written once, as plain Python over flat arrays, and
compiled by numba. Compiled code is cached in a per-user directory keyed by
content, not by path: a digest of the modules that define kernels (numba
itself only notices edits to the file that defines a kernel, not to the
helpers it inlines from other files), of the numba, llvmlite, numpy and
Python versions and of the CPU. Every copy of the same sources (the source
tree, the colcon install of it, a pip install, another clone) shares one
cache: numba's own locators key it by the source file's directory, so
``ContentCacheLocator`` replaces them with the module's name inside the
digest's directory (numba 0.68's source stamp is already a hash of the
file's content). The base directory is ``$ROS_DYNAMICS_CACHE_DIR`` if set,
else the first writable of ``$XDG_CACHE_HOME/ros_dynamics`` (or
``~/.cache/ros_dynamics``) and ``$TMPDIR/ros_dynamics-<uid>``; when none is
writable the kernels compile in memory (slower start-up, same results).

Each copy of the package that uses a digest's directory records itself there
(``copies/``: its path and the hashes of its kernel sources) and touches
its ``last-used`` file. When a process creates a new digest's directory (the
sources or the toolchain changed), ``prune_caches`` removes the directories
no copy uses any more: the current one is always kept, and so is one that a
warmer is filling, one that any recorded copy still holds the sources of,
one without records (written by an older version of this module) until it
has been left unwritten for ``KEEP_UNRECORDED_DAYS``, and the
``KEEP_RECENT`` most recently used of the others (switching a checkout
between two branches and back finds its kernels still there).

Single-state entry points (``state_entry``) are compiled as C callbacks
(numba ``cfunc``) taking raw pointers, and Python calls them through
``StateCall``: the C extension ``_statecall`` (0.1 us a call instead of the
0.4-0.6 us numba's dispatcher spends typing and unboxing arguments), or ctypes
where the extension was not built.

A cold cache is filled from both ends: the first kernel a process has to
compile starts a background interpreter (``warm_cache``) that compiles every
entry point into the cache, last ones first, on the other core, while the
process compiles what it calls; whichever gets to a kernel second loads it
from the cache. ``ROS_DYNAMICS_PRECOMPILE=0`` turns this off.
"""

import hashlib
import importlib
import json
import logging
import os
from pathlib import Path
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Callable, Dict, List, Optional, Sequence

import llvmlite
import llvmlite.binding
import numba
from numba import types
from numba.core.caching import UserProvidedCacheLocator
import numpy as np

# argument types of the entry points (called from Python): inputs read-only
# (writable arrays convert implicitly), outputs writable, all C-contiguous float64
IN1 = types.Array(types.float64, 1, 'C', readonly=True)
IN2 = types.Array(types.float64, 2, 'C', readonly=True)
IN3 = types.Array(types.float64, 3, 'C', readonly=True)
OUT1 = types.Array(types.float64, 1, 'C')
OUT2 = types.Array(types.float64, 2, 'C')
OUT3 = types.Array(types.float64, 3, 'C')
STATUS = types.int64
_POINTER = types.CPointer(types.float64)
# int64 entry(model, rows, n, a, b, c, extra, out): see state_entry
STATE_ENTRY = STATUS(_POINTER, types.int64, types.int64, _POINTER, _POINTER, _POINTER, _POINTER,
                     _POINTER)

_compile_lock = threading.RLock()   # re-entered: a state entry compiles the kernels it calls
# modules defining entry points, in the order a typical process first calls them
# the kernel modules a typical process calls first: warmed first by make build (and last by
# the background warmer); the other kernel modules follow by name
FIRST_CALLED = ('kernels.rnea', 'kernels.crba', 'kernels.aba', 'kernels.jacobian',
                'kernels.kinematics')
# what marks an entry point in a module's source: the decorators register it where it is defined
ENTRY_DECORATORS = re.compile(rb'\n@(kernel\(signatures=|state_entry\n)')


def entry_modules(package: Optional[Path] = None) -> tuple:
    """Return the modules (``kernels.<name>``) defining entry points, in warming order."""
    root = (PACKAGE_ROOT if package is None else Path(package)) / 'kernels'
    found = sorted(f'kernels.{path.stem}' for path in root.glob('*.py')
                   if path.is_file() and ENTRY_DECORATORS.search(path.read_bytes()))
    first = [module for module in FIRST_CALLED if module in found]
    return tuple(first + [module for module in found if module not in FIRST_CALLED])


_warm_started = False
# CPU seconds to compile one entry point on a cold cache, for the one line announcing a compile:
# about 1.5 s each, but the rollouts' two take 40-60 s (2.1 GHz Xeon; every kernel 131 s of
# CPU, 2026-11-26; the README's start-up figures; the ground contact's two 18 and 20 s,
# 2026-11-28)
SECONDS_PER_ENTRY = 1.5
SECONDS_PER_SLOW_ENTRY = {'rollout_batch': 40.0, 'rollout_lanes_batch': 60.0,
                          'ground_steps_entry': 18.0, 'ground_rollout_batch': 20.0}
_compile_announced = False
logger = logging.getLogger(__name__)


PACKAGE_ROOT = Path(__file__).parent.parent
# modules in the cache's digest besides those defining kernels: the compilers, the layouts
COMPILING = ('runtime/jit.py', 'runtime/lanes.py', 'runtime/views.py', 'multibody/layouts.py')
# a digest's directory without copy records (an older layout) is kept while written this recently
KEEP_UNRECORDED_DAYS = 2.0
KEEP_RECENT = 2   # unused digests' directories kept besides the current one, newest use first
_WARMING_LOCK_SECONDS = 600.0   # a warmer's lock older than this is stale (_start_warming)


def kernel_sources(package: Optional[Path] = None) -> Dict[str, str]:
    """
    Return the modules that define kernels: {path relative to the package: sha256 of its bytes}.

    ``package`` is the directory of a copy of the package (default: this
    one). A module counts if it defines a kernel (``@kernel``), compiles
    them (``runtime/jit.py``, ``runtime/lanes.py``) or declares the columns
    they freeze as constants (``multibody/layouts.py``).
    """
    root = PACKAGE_ROOT if package is None else Path(package)
    sources = {}
    for path in sorted(root.rglob('*.py')):   # subpackages too
        if not path.is_file():   # a symlink install's link to a module that moved
            continue
        source = path.read_bytes()
        compiling = path.relative_to(root).as_posix() in COMPILING   # the types, the columns
        if compiling or b'\n@kernel' in source:
            sources[path.relative_to(root).as_posix()] = hashlib.sha256(source).hexdigest()
    return sources


def _toolchain() -> tuple:
    """Return what compiled code depends on besides the sources: versions, platform, CPU."""
    return (numba.__version__, llvmlite.__version__, np.__version__, sys.version_info[:3],
            platform.machine(), llvmlite.binding.get_process_triple(),
            llvmlite.binding.get_host_cpu_name())


def _source_digest(sources: Optional[Dict[str, str]] = None) -> str:
    """Return the 16 hex digits naming the cache directory of these kernel sources."""
    digest = hashlib.sha256(repr(_toolchain()).encode())
    for relative, sha in sorted((kernel_sources() if sources is None else sources).items()):
        digest.update(relative.encode() + b'\0' + sha.encode() + b'\0')
    return digest.hexdigest()[:16]


def _is_digest(name: str) -> bool:
    """Return True for a directory name that ``_source_digest`` could have made."""
    return len(name) == 16 and all(c in '0123456789abcdef' for c in name)


def _register_copy(path: str, sources: Dict[str, str]) -> None:
    """Record this copy of the package as a user of the digest's directory ``path``."""
    copies = Path(path, 'copies')
    record = copies / (hashlib.sha1(str(PACKAGE_ROOT).encode()).hexdigest()[:16] + '.json')
    if record.exists():
        return
    copies.mkdir(exist_ok=True)
    partial = record.with_suffix(f'.{os.getpid()}.tmp')
    partial.write_text(json.dumps({'package': str(PACKAGE_ROOT), 'sources': sources}))
    os.replace(partial, record)


def _copy_holds(record: Path) -> bool:
    """Return True if the copy a record names still holds exactly the sources it recorded."""
    try:
        data = json.loads(record.read_text())
        package = Path(data['package'])
        return all(hashlib.sha256((package / relative).read_bytes()).hexdigest() == sha
                   for relative, sha in data['sources'].items())
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False


def _in_use(path: Path) -> bool:
    """Return True if some copy may still use the digest's directory ``path`` (prune_caches)."""
    now = time.time()
    try:
        if now - (path / 'warming.lock').stat().st_mtime < _WARMING_LOCK_SECONDS:
            return True
    except OSError:
        pass
    records = list(path.glob('copies/*.json'))
    if records:
        return any(_copy_holds(record) for record in records)
    try:   # the layout before copy records: kept while recently written
        newest = max([path.stat().st_mtime] + [e.stat().st_mtime for e in path.iterdir()])
    except OSError:
        return False
    return now - newest < KEEP_UNRECORDED_DAYS * 86400.0


def _last_used(path: Path) -> float:
    """Return when a process last used the digest's directory ``path`` (its last-used file)."""
    for candidate in (path / 'last-used', path):
        try:
            return candidate.stat().st_mtime
        except OSError:
            continue
    return 0.0


def prune_caches(base: str, current: str, keep_recent: int = KEEP_RECENT) -> List[str]:
    """
    Remove the digests' directories under ``base`` that no copy of the package uses.

    ``current`` (a digest) is always kept; so is a directory a warmer is
    filling (a lock younger than 10 minutes), one whose recorded copies
    (``copies/*.json``) include one that still holds exactly the recorded
    sources, one without records that was written in the last
    ``KEEP_UNRECORDED_DAYS``, and the ``keep_recent`` most recently used of
    the rest. Returns the paths removed. Called when a process creates a new
    digest's directory, i.e. when sources or toolchain changed.
    """
    removed = []
    try:
        entries = [e for e in Path(base).iterdir() if e.is_dir() and _is_digest(e.name)]
    except OSError:
        return removed
    unused = sorted((e for e in entries if e.name != current and not _in_use(e)),
                    key=_last_used, reverse=True)
    for entry in unused[max(0, keep_recent):]:
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(str(entry))
    if removed:
        logger.info('kernel cache: removed %d directories no copy uses: %s', len(removed),
                    ', '.join(removed))
    return removed


def _cache_dir() -> Optional[str]:
    """Return a writable cache directory for this source digest, or None."""
    explicit = os.environ.get('ROS_DYNAMICS_CACHE_DIR')
    xdg = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
    fallback = os.path.join(tempfile.gettempdir(), f'ros_dynamics-{os.getuid()}')
    candidates = [explicit] if explicit else [os.path.join(xdg, 'ros_dynamics'), fallback]
    sources = kernel_sources()
    digest = _source_digest(sources)
    for base in candidates:
        path = os.path.join(base, digest)
        try:
            new = not os.path.isdir(path)
            os.makedirs(path, exist_ok=True)
            probe = tempfile.NamedTemporaryFile(dir=path)
            probe.close()
            _register_copy(path, sources)
            Path(path, 'last-used').touch()
        except OSError:
            continue
        if new:
            prune_caches(base, digest)
        return path
    return None


class ContentCacheLocator(UserProvidedCacheLocator):
    """
    numba cache locator: ``numba.config.CACHE_DIR`` / the kernel's package, whatever its path.

    numba's ``UserProvidedCacheLocator`` names the subdirectory after the
    source file's directory (its path's SHA-1), so two copies of the same
    sources compiled twice; here it is the module's package
    (``ros_dynamics``, ``ros_dynamics.rollouts``, ...), and CACHE_DIR itself
    is keyed by the sources' digest. The source stamp stays numba's: a hash
    of the file's content.
    """

    def __init__(self, py_func: Callable, py_file: str) -> None:
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(numba.config.CACHE_DIR, _package_of(py_func.__module__))


def _package_of(module: str) -> str:
    """Return the package holding ``module`` (its cache subdirectory)."""
    return module.rsplit('.', 1)[0]


CACHE_DIR = _cache_dir()


def kernel(function: Callable = None, *, parallel: bool = False,
           signatures: Optional[Sequence] = None, inline: bool = False) -> Callable:
    """
    Compile ``function`` with numba (nopython, GIL released, cached in CACHE_DIR).

    Helpers (no ``signatures``) are compiled as part of the kernels that call
    them, once per argument types (``_compiled_for_types``); ``inline``
    inlines one into its callers at numba IR level (LLVM leaves large helpers
    as calls, each with atomic reference-count updates of its array
    arguments). Each call site of an inlined helper is typed and compiled
    again: keep to one per kernel where a loop allows (integrators.advance's
    stages share one). Entry points called from Python list their ``signatures``: they are
    compiled for exactly those on first use (``ensure_compiled``) and never
    for anything else, so a call with other argument types (a list, float32,
    a non-contiguous or 2-D array) raises TypeError at once instead of
    compiling a new specialisation; RobotModel then converts and validates the
    arguments on its general path.
    """
    def compile_(python_function: Callable) -> Callable:
        options = {'nogil': True, 'parallel': parallel}
        if inline:
            options['inline'] = 'always'
        dispatcher = _cached_compile(numba.njit, python_function, **options)
        if signatures is not None:
            dispatcher.entry_signatures = tuple(signatures)
            dispatcher.entry_ready = False
            dispatcher._can_compile = False   # numba's switch behind disable_compile()
        elif not inline:
            _compiled_for_types(dispatcher)
        return dispatcher
    if function is None:
        return compile_
    return compile_(function)


def _compiled_for_types(dispatcher) -> None:
    """
    Make compiled callers specialise the helper ``dispatcher`` on argument types, not values.

    numba compiles a helper once per call site's argument types, and a
    constant argument (a layout's column, a flag) types as its literal value:
    ``load3(model, i, TREE_P)`` and ``load3(model, i, AXIS)`` were two
    compilations. Typed by their plain types they share one; LLVM inlines the
    helper and folds the constant as before.
    """
    template_of = dispatcher.get_call_template   # numba's Dispatcher API for compiled callers

    def get_call_template(args, kws):
        return template_of(tuple(types.unliteral(a) for a in args),
                           {key: types.unliteral(value) for key, value in kws.items()})
    dispatcher.get_call_template = get_call_template


def _cached_compile(decorator: Callable, python_function: Callable, *args, **options):
    """Return ``decorator(*args, cache=True, **options)(python_function)`` cached in CACHE_DIR."""
    if CACHE_DIR is None:
        return decorator(*args, cache=False, **options)(python_function)
    saved = numba.config.CACHE_DIR, numba.config.CACHE_LOCATOR_CLASSES
    numba.config.CACHE_DIR = CACHE_DIR
    numba.config.CACHE_LOCATOR_CLASSES = f'{__name__}.ContentCacheLocator'
    try:
        return decorator(*args, cache=True, **options)(python_function)
    except RuntimeError:   # no usable cache locator after all: compile in memory
        return decorator(*args, cache=False, **options)(python_function)
    finally:
        numba.config.CACHE_DIR, numba.config.CACHE_LOCATOR_CLASSES = saved


class StateEntry:
    """
    A single-state entry point, compiled on first use as a numba C callback.

    The Python function has the signature STATE_ENTRY, ``int64 f(model, rows,
    n, a, b, c, extra, out)``: pointers to the packed model (rows x NCOL), up to
    three state vectors of n (unused ones NULL), constant kernel data
    (``extra``, or NULL) and the output, all float64; it wraps them with
    ``numba.carray`` and returns the kernel's status. ``address`` is the
    callback's address once compiled (None before).
    """

    entry_signatures = (STATE_ENTRY,)

    def __init__(self, python_function: Callable) -> None:
        self.py_func = python_function
        self.__name__ = python_function.__name__
        self.__module__ = python_function.__module__
        self.__doc__ = python_function.__doc__
        self.entry_ready = False
        self.address = None
        self.callback = None

    def compile_entry(self) -> None:
        """Compile the callback (or load it from the cache), after the entry points it calls."""
        ensure_compiled(*_entries_called_by(self.py_func))
        self.callback = _cached_compile(numba.cfunc, self.py_func, STATE_ENTRY)
        self.address = self.callback.address

    def __repr__(self) -> str:
        """Name the entry point."""
        return f'StateEntry({self.__module__}.{self.__name__})'

    def __reduce__(self) -> tuple:
        """Pickle by name (the module-level entry point of that name)."""
        return _state_entry_named, (self.__module__, self.__name__)


def _state_entry_named(module: str, name: str) -> StateEntry:
    """Return the state entry ``module.name`` (unpickling)."""
    return getattr(importlib.import_module(module), name)


def _entries_called_by(function: Callable) -> list:
    """Return the entry points ``function`` names (compiled before it: numba will not)."""
    called = (function.__globals__.get(name) for name in function.__code__.co_names)
    return [value for value in called if getattr(value, 'entry_signatures', None) is not None
            and getattr(value, 'py_func', None) is not function]


def state_entry(function: Callable) -> StateEntry:
    """Declare ``function`` (signature STATE_ENTRY) a single-state entry point."""
    return StateEntry(function)


def ensure_compiled(*dispatchers) -> None:
    """Compile (or load from the cache) the declared signatures of entry-point kernels."""
    for dispatcher in dispatchers:
        if dispatcher.entry_ready:
            continue
        with _compile_lock:
            if dispatcher.entry_ready:
                continue
            _announce_compile(dispatcher)
            _start_warming()
            if isinstance(dispatcher, StateEntry):
                dispatcher.compile_entry()
            else:
                ensure_compiled(*_entries_called_by(dispatcher.py_func))
                dispatcher._can_compile = True
                try:
                    for signature in dispatcher.entry_signatures:
                        dispatcher.compile(signature)
                finally:
                    dispatcher._can_compile = False
            dispatcher.entry_ready = True


def _announce_compile(dispatcher) -> None:
    """
    Log one line, once per process, when ``dispatcher`` is about to be compiled (not cached).

    With a warm cache (``make build`` / ``colcon build`` fill it) this says
    nothing; otherwise it names the number of kernels missing and the time
    they take (a warning, so that Python's default logging shows it; the
    nodes forward it to their ROS logger).
    """
    global _compile_announced
    if _compile_announced or (CACHE_DIR is not None and _cached(dispatcher)):
        return
    _compile_announced = True
    entries = entry_points()
    missing = [d for d in entries if CACHE_DIR is None or not _cached(d)]
    seconds = max(1, round(sum(SECONDS_PER_SLOW_ENTRY.get(d.__name__, SECONDS_PER_ENTRY)
                               for d in missing)))
    where = (f'cached in {CACHE_DIR}' if CACHE_DIR is not None else
             'in memory only: no writable cache directory, set ROS_DYNAMICS_CACHE_DIR')
    logger.warning('compiling dynamics kernels for the first run, ~%d s (%d of %d kernels, %s)',
                   seconds, len(missing), len(entries), where)


def entry_points() -> list:
    """Return every entry-point kernel, in entry_modules() order."""
    return [dispatcher for name in entry_modules() for dispatcher in _entry_points_of(name)]


def _entry_points_of(name: str) -> list:
    """Return the entry-point kernels the module ``ros_dynamics.<name>`` defines."""
    module = importlib.import_module(f'ros_dynamics.{name}')
    return [value for value in vars(module).values()
            if getattr(value, 'entry_signatures', None) is not None
            and getattr(value, '__module__', None) == module.__name__]


def _cached(dispatcher) -> bool:
    """
    Return True if the cache holds an index for this kernel.

    Where ContentCacheLocator puts it: CACHE_DIR (this digest of the
    sources) / the kernel's package, whichever copy of the package compiled it.
    """
    module = dispatcher.__module__
    name = f'{module.rsplit(".", 1)[-1]}.{dispatcher.__name__}-*.nbi'
    return any(Path(CACHE_DIR, _package_of(module)).glob(name))


def warm_cache(last_first: bool = True) -> None:
    """
    Compile every entry point into the cache (or load it from there).

    The background warmer (_start_warming) goes last ones first; a process
    warming itself in the foreground should go first ones first, so that the
    two meet in the middle instead of compiling the same kernels. Logs one
    line per module of entry_modules() at INFO (what ``make build`` shows while
    it compiles): the kernels compiled, the ones loaded, the seconds it took.
    """
    names = list(entry_modules())
    names = names[::-1] if last_first else names
    for k, name in enumerate(names, 1):
        group = _entry_points_of(name)
        missing = sum(CACHE_DIR is None or not _cached(d) for d in group)
        start = time.monotonic()
        for dispatcher in reversed(group) if last_first else group:
            ensure_compiled(dispatcher)
        logger.info('kernels %2d/%d %-24s %d compiled, %d loaded from the cache, %.1f s', k,
                    len(names), name, missing, len(group) - missing, time.monotonic() - start)
    _mark_complete()


def _complete_marker() -> str:
    """
    Return the path of the file saying that the cache holds every entry point.

    The cache directory is per digest of the sources, shared by every copy
    of them, so one marker serves them all.
    """
    return os.path.join(CACHE_DIR, 'complete')


def _mark_complete() -> None:
    """Leave the marker ``_start_warming`` reads (nothing if the cache cannot be written)."""
    if CACHE_DIR is None:
        return
    try:
        Path(_complete_marker()).touch()
    except OSError:
        pass


def _start_warming() -> None:
    """
    Start ``warm_cache`` in a background interpreter once, if the cache misses kernels.

    A lock file in the cache directory keeps one warmer per cache (a stale one,
    older than 10 minutes, is replaced). Errors only cost the parallelism; the
    warmer's output (its start, its end, any traceback) goes to ``warming.log``
    in the cache directory.
    """
    global _warm_started
    if _warm_started or CACHE_DIR is None or os.environ.get('ROS_DYNAMICS_PRECOMPILE') == '0':
        return
    _warm_started = True
    # the marker first: listing the entry points imports every module holding one (the
    # identification's scipy.signal and scipy.stats, the simulator's scipy.spatial), which
    # took 1.5 s of a warm process's first dynamics call, three times the kernels' loading
    if os.path.exists(_complete_marker()):
        return
    try:
        if all(_cached(d) for d in entry_points()):
            _mark_complete()
            return
        lock = os.path.join(CACHE_DIR, 'warming.lock')
        try:
            if time.time() - os.path.getmtime(lock) > _WARMING_LOCK_SECONDS:
                os.unlink(lock)
        except OSError:
            pass
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except OSError:
        return   # another process is warming this cache (or it cannot be written)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, ROS_DYNAMICS_CACHE_DIR=os.path.dirname(CACHE_DIR),
               ROS_DYNAMICS_PRECOMPILE='0',
               PYTHONPATH=os.pathsep.join([root] + [p for p in [os.environ.get('PYTHONPATH')]
                                                    if p]))
    code = ('import os, time\n'
            'from ros_dynamics.runtime import jit as _jit\n'
            'print(time.ctime(), "warming", _jit.__file__, "pid", os.getpid(), flush=True)\n'
            'try:\n'
            '    _jit.warm_cache()\n'
            'finally:\n'
            f'    os.unlink({lock!r})\n'
            'print(time.ctime(), "warm", flush=True)\n')
    try:
        # cwd=root: ``python -c`` imports from its working directory first, and a node
        # started from a source checkout's root warmed that copy, never the installed one
        with open(os.path.join(CACHE_DIR, 'warming.log'), 'w') as log:
            subprocess.Popen([sys.executable, '-c', code], env=env, cwd=root,
                             stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True, close_fds=True)
    except OSError:
        try:
            os.unlink(lock)
        except OSError:
            pass
