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
Compilation of the kernels: numba ``njit`` with an on-disk cache.

All algorithms are written once, as plain Python over flat arrays, and
compiled by numba. Compiled code is cached in a per-user directory keyed by
a digest of the modules that define kernels: numba itself only notices edits
to the file that defines a kernel, not to the helpers it inlines from other files,
and an installed package may live somewhere read-only. The directory is
``$ROS_DYNAMICS_CACHE_DIR`` if set, else the first writable of
``$XDG_CACHE_HOME/ros_dynamics`` (or ``~/.cache/ros_dynamics``) and
``$TMPDIR/ros_dynamics-<uid>``; when none is writable the kernels compile in
memory (slower start-up, same results).

A cold cache is filled from both ends: the first kernel a process has to
compile starts a background interpreter (``warm_cache``) that compiles every
entry point into the cache, last ones first, on the other core, while the
process compiles what it calls; whichever gets to a kernel second loads it
from the cache. ``ROS_DYNAMICS_PRECOMPILE=0`` turns this off.
"""

import hashlib
import importlib
import os
from pathlib import Path
import subprocess
import sys
import tempfile
import threading
import time
from typing import Callable, Optional, Sequence

import numba
from numba import types

# argument types of the entry points (called from Python): inputs read-only
# (writable arrays convert implicitly), outputs writable, all C-contiguous float64
IN1 = types.Array(types.float64, 1, 'C', readonly=True)
IN2 = types.Array(types.float64, 2, 'C', readonly=True)
IN3 = types.Array(types.float64, 3, 'C', readonly=True)
OUT1 = types.Array(types.float64, 1, 'C')
OUT2 = types.Array(types.float64, 2, 'C')
OUT3 = types.Array(types.float64, 3, 'C')
STATUS = types.int64

_compile_lock = threading.Lock()
# modules defining entry points, in the order a typical process first calls them
ENTRY_MODULES = ('rnea', 'crba', 'aba', 'jacobian', 'kinematics', 'coriolis', 'energy',
                 'integrators')
_warm_started = False


def _source_digest() -> str:
    """Return a short digest of numba's version and the modules that define kernels."""
    digest = hashlib.sha256(numba.__version__.encode())
    for path in sorted(Path(__file__).parent.glob('*.py')):
        source = path.read_bytes()
        if path.name == '_jit.py' or b'\n@kernel' in source:
            digest.update(path.name.encode())
            digest.update(source)
    return digest.hexdigest()[:16]


def _cache_dir() -> Optional[str]:
    """Return a writable cache directory for this source digest, or None."""
    explicit = os.environ.get('ROS_DYNAMICS_CACHE_DIR')
    xdg = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
    fallback = os.path.join(tempfile.gettempdir(), f'ros_dynamics-{os.getuid()}')
    candidates = [explicit] if explicit else [os.path.join(xdg, 'ros_dynamics'), fallback]
    for base in candidates:
        path = os.path.join(base, _source_digest())
        try:
            os.makedirs(path, exist_ok=True)
            probe = tempfile.NamedTemporaryFile(dir=path)
            probe.close()
            return path
        except OSError:
            continue
    return None


CACHE_DIR = _cache_dir()


def kernel(function: Callable = None, *, parallel: bool = False,
           signatures: Optional[Sequence] = None, inline: bool = False) -> Callable:
    """
    Compile ``function`` with numba (nopython, GIL released, cached in CACHE_DIR).

    Helpers (no ``signatures``) are compiled as part of the kernels that call
    them; ``inline`` inlines one into its callers at numba IR level (LLVM
    leaves large helpers as calls, each with atomic reference-count updates
    of its array arguments; measured worth it for the CRBA chain only, and it
    costs compile time). Entry points called from Python list their ``signatures``: they are
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
        if CACHE_DIR is None:
            dispatcher = numba.njit(cache=False, **options)(python_function)
        else:
            saved = numba.config.CACHE_DIR
            numba.config.CACHE_DIR = CACHE_DIR
            try:
                dispatcher = numba.njit(cache=True, **options)(python_function)
            except RuntimeError:   # no usable cache locator after all: compile in memory
                dispatcher = numba.njit(cache=False, **options)(python_function)
            finally:
                numba.config.CACHE_DIR = saved
        if signatures is not None:
            dispatcher.entry_signatures = tuple(signatures)
            dispatcher.entry_ready = False
            dispatcher._can_compile = False   # numba's switch behind disable_compile()
        return dispatcher
    if function is None:
        return compile_
    return compile_(function)


def ensure_compiled(*dispatchers) -> None:
    """Compile (or load from the cache) the declared signatures of entry-point kernels."""
    for dispatcher in dispatchers:
        if dispatcher.entry_ready:
            continue
        with _compile_lock:
            if dispatcher.entry_ready:
                continue
            _start_warming()
            dispatcher._can_compile = True
            try:
                for signature in dispatcher.entry_signatures:
                    dispatcher.compile(signature)
            finally:
                dispatcher._can_compile = False
            dispatcher.entry_ready = True


def entry_points() -> list:
    """Return every entry-point kernel, in ENTRY_MODULES order."""
    out = []
    for name in ENTRY_MODULES:
        module = importlib.import_module(f'ros_dynamics.{name}')
        out += [value for value in vars(module).values()
                if getattr(value, 'entry_signatures', None) is not None
                and getattr(value, '__module__', None) == module.__name__]
    return out


def _cached(dispatcher) -> bool:
    """Return True if the cache holds an index for this kernel."""
    name = f'{dispatcher.__module__.rsplit(".", 1)[-1]}.{dispatcher.__name__}-*.nbi'
    return any(Path(CACHE_DIR).rglob(name))


def warm_cache() -> None:
    """Compile every entry point into the cache, last ones first (run by _start_warming)."""
    for dispatcher in reversed(entry_points()):
        ensure_compiled(dispatcher)


def _start_warming() -> None:
    """
    Start ``warm_cache`` in a background interpreter once, if the cache misses kernels.

    A lock file in the cache directory keeps one warmer per cache (a stale one,
    older than 10 minutes, is replaced). Errors only cost the parallelism.
    """
    global _warm_started
    if _warm_started or CACHE_DIR is None or os.environ.get('ROS_DYNAMICS_PRECOMPILE') == '0':
        return
    _warm_started = True
    try:
        if all(_cached(d) for d in entry_points()):
            return
        lock = os.path.join(CACHE_DIR, 'warming.lock')
        try:
            if time.time() - os.path.getmtime(lock) > 600.0:
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
    code = ('import os\n'
            'from ros_dynamics import _jit\n'
            'try:\n'
            '    _jit.warm_cache()\n'
            'finally:\n'
            f'    os.unlink({lock!r})\n')
    try:
        subprocess.Popen([sys.executable, '-c', code], env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True, close_fds=True)
    except OSError:
        try:
            os.unlink(lock)
        except OSError:
            pass
