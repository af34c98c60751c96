# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""The kernel cache's background warm-up (ros_dynamics.runtime.jit): what it fills, when."""

import json
import os
from pathlib import Path
import shutil
import subprocess
import sys
import time

import pytest
from ros_dynamics.runtime import jit as _jit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PANDA = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
ENERGY_ENTRY = 'kinetic_energy'   # an entry point the first call below does not use


def test_warm_cache_fills_every_entry_point(tmp_path):
    """A cold cache warmed by warm_cache() holds every entry point; a new process finds them."""
    env = dict(os.environ, ROS_DYNAMICS_CACHE_DIR=str(tmp_path), ROS_DYNAMICS_PRECOMPILE='0',
               PYTHONPATH=ROOT)
    check = ('from ros_dynamics.runtime import jit as _jit\n'
             'print(sum(not _jit._cached(d) for d in _jit.entry_points()))\n')
    missing = subprocess.run([sys.executable, '-c', check], env=env, capture_output=True,
                             text=True, check=True).stdout.strip()
    assert int(missing) == len(_jit.entry_points()) == 43        # cold: none cached
    warm = 'from ros_dynamics.runtime import jit; jit.warm_cache()'
    subprocess.run([sys.executable, '-c', warm], env=env, check=True, timeout=600)
    missing = subprocess.run([sys.executable, '-c', check], env=env, capture_output=True,
                             text=True, check=True).stdout.strip()
    assert missing == '0'
    # a warm process's first call loads its kernels and imports nothing else: the marker
    # tells _start_warming that the cache is complete without listing the entry points
    # (which imports every module holding one, the ground contact's and the rollouts' too)
    heavy = ('ros_dynamics.kernels.ground', 'ros_dynamics.kernels.rollout')
    first_call = ('import sys, numpy as np\n'
                  'from ros_dynamics import RobotModel\n'
                  f'robot = RobotModel.from_urdf_file({PANDA!r})\n'
                  'robot.inverse_dynamics(np.zeros(7), np.zeros(7), np.zeros(7))\n'
                  f'print(sorted(m for m in sys.modules if m in {heavy!r}))\n')
    env.pop('ROS_DYNAMICS_PRECOMPILE')
    marker = next(tmp_path.glob('*/complete'))
    for marked in (True, False):   # warm_cache() leaves it; without it, the first call does
        if not marked:
            marker.unlink()
        imported = subprocess.run([sys.executable, '-c', first_call], env=env,
                                  capture_output=True, text=True, check=True).stdout.strip()
        assert imported == ('[]' if marked else str(sorted(heavy)))
        assert marker.exists()
    # a kernel missing: the first call starts a background warmer, which compiles it, marks
    # the cache complete and says so in warming.log. The process runs in a directory holding
    # another package named ros_dynamics (a source checkout's root, say): the warmer must
    # warm the copy its process runs, not that one (it did, python -c importing from its cwd)
    (index,) = tmp_path.glob(f'*/ros_dynamics.kernels/energy.{ENERGY_ENTRY}-*.nbi')
    index.unlink()
    marker.unlink()
    decoy = tmp_path / 'checkout'
    (decoy / 'ros_dynamics').mkdir(parents=True)
    (decoy / 'ros_dynamics' / '__init__.py').write_text('raise ImportError("the decoy copy")\n')
    script = tmp_path / 'first_call.py'   # a script: its own directory, not cwd, on sys.path
    script.write_text(first_call)
    subprocess.run([sys.executable, str(script)], env=env, cwd=decoy, check=True)
    log = marker.parent / 'warming.log'
    wait_until = time.monotonic() + 300.0
    while not (log.exists() and (log.read_text().endswith('warm\n')
                                 or 'Traceback' in log.read_text())):
        assert time.monotonic() < wait_until, log.read_text() if log.exists() else 'no log'
        time.sleep(0.1)
    text = log.read_text()
    assert 'warming' in text and 'compiling dynamics kernels' in text and 'Traceback' not in text
    assert index.exists() and marker.exists() and not (marker.parent / 'warming.lock').exists()


# the first dynamics calls of a process, counting what numba compiles: the batch kernels'
# compiles (numba's "numba:compile" events, sent on a cache miss only) and the state entries'
# C callbacks compiled rather than loaded (numba's cfunc counts its cache hits)
COUNT_COMPILES = """
import json, sys
from numba.core import event
import numpy as np
from ros_dynamics import RobotModel
from ros_dynamics.runtime import jit as _jit
robot = RobotModel.from_urdf_file(sys.argv[1])
q = np.linspace(-0.5, 0.5, 7)
with event.install_recorder('numba:compile') as recorder:
    robot.gravity_torques(q)
    robot.inverse_dynamics(q, q, q)
    robot.mass_matrix(q)
states = [e for e in _jit.entry_points() if isinstance(e, _jit.StateEntry) and e.callback]
print(json.dumps({'package': _jit.__file__, 'cache': _jit.CACHE_DIR,
                  'compiled': sum(1 for _, e in recorder.buffer if e.is_start),
                  'callbacks compiled': sum(e.callback.cache_hits == 0 for e in states),
                  'callbacks loaded': sum(e.callback.cache_hits > 0 for e in states)}))
"""


def _copy_of_the_package(where):
    """Copy this package's sources to ``where``/ros_dynamics (another path, same content)."""
    shutil.copytree(_jit.PACKAGE_ROOT, where / 'ros_dynamics',
                    ignore=shutil.ignore_patterns('__pycache__'))
    (where / 'count_compiles.py').write_text(COUNT_COMPILES)
    return where


def _first_calls(copy, cache):
    """Run COUNT_COMPILES from ``copy`` (its own ros_dynamics first on sys.path) on ``cache``."""
    env = dict(os.environ, ROS_DYNAMICS_CACHE_DIR=str(cache), ROS_DYNAMICS_PRECOMPILE='0')
    out = subprocess.run([sys.executable, str(copy / 'count_compiles.py'), PANDA], env=env,
                         capture_output=True, text=True, check=True, timeout=600).stdout
    return json.loads(out.splitlines()[-1])


def test_every_copy_of_the_same_sources_shares_one_cache(tmp_path):
    """
    Kernels compiled by one copy of the package load, uncompiled, in a copy at another path.

    The source tree and its colcon install (a symlink install: the same
    files) used to key the cache by path, so the README's snippet run from
    the repository root compiled again what ``make build`` had compiled.
    """
    cache = tmp_path / 'cache'
    first = _first_calls(_copy_of_the_package(tmp_path / 'one'), cache)
    assert first['package'].startswith(str(tmp_path / 'one'))
    assert first['compiled'] > 0 and first['callbacks compiled'] == 3   # cold: it compiles
    second = _first_calls(_copy_of_the_package(tmp_path / 'two'), cache)
    assert second['package'].startswith(str(tmp_path / 'two'))
    assert second['cache'] == first['cache']                              # one directory
    assert second['compiled'] == 0 and second['callbacks compiled'] == 0  # nothing compiled
    assert second['callbacks loaded'] == 3
    records = [json.loads(p.read_text())['package']
               for p in Path(first['cache'], 'copies').glob('*.json')]
    assert sorted(records) == sorted(str(tmp_path / d / 'ros_dynamics') for d in ('one', 'two'))
    # an edited kernel module makes another digest, whose first process prunes the first one
    # once no copy holds its sources any more
    edited = tmp_path / 'two' / 'ros_dynamics' / 'kernels' / 'energy.py'
    edited.write_text(edited.read_text() + '\n# edited\n')
    shutil.rmtree(tmp_path / 'one')
    third = _first_calls(tmp_path / 'two', cache)
    assert third['cache'] != first['cache'] and third['compiled'] > 0     # cold again
    assert os.path.isdir(first['cache'])   # unused now, but one of the KEEP_RECENT newest
    current = os.path.basename(third['cache'])
    assert _jit.prune_caches(str(cache), current, keep_recent=0) == [first['cache']]


def _digest_dir(base, name, package=None, sources=None, age_days=0.0):
    """Make a digest's directory under ``base``, recording ``package`` as a copy using it."""
    path = base / name
    (path / 'ros_dynamics').mkdir(parents=True)
    (path / 'ros_dynamics' / 'rnea.gravity_torques_entry-103.py311.nbi').write_bytes(b'x')
    if package is not None:
        (path / 'copies').mkdir()
        record = {'package': str(package), 'sources': sources}
        (path / 'copies' / 'a.json').write_text(json.dumps(record))
    then = time.time() - age_days * 86400.0
    for entry in [path, *path.rglob('*')]:
        os.utime(entry, (then, then))
    return path


def test_pruning_keeps_what_a_copy_uses_and_removes_the_rest(tmp_path):
    """prune_caches: the rule in _jit's docstring, case by case."""
    package = tmp_path / 'package'
    package.mkdir()
    (package / 'rnea.py').write_text('import x\n@kernel\ndef f():\n    pass\n')
    live_sources = _jit.kernel_sources(package)
    assert list(live_sources) == ['rnea.py']
    base = tmp_path / 'cache'
    current = _digest_dir(base, 'c' * 16, age_days=30.0)             # ours, even unrecorded
    live = _digest_dir(base, 'a' * 16, package, live_sources, 30.0)   # its copy still holds it
    stale = _digest_dir(base, 'b' * 16, package, {'rnea.py': '0' * 64})   # the copy changed
    gone = _digest_dir(base, 'd' * 16, tmp_path / 'deleted', live_sources)  # the copy is gone
    old_layout = _digest_dir(base, 'e' * 16, age_days=_jit.KEEP_UNRECORDED_DAYS + 1.0)
    recent_old_layout = _digest_dir(base, 'f' * 16, age_days=_jit.KEEP_UNRECORDED_DAYS - 1.0)
    warming = _digest_dir(base, '0' * 16, tmp_path / 'deleted', live_sources)
    (warming / 'warming.lock').touch()                                 # a warmer is filling it
    not_a_digest = base / 'notes'
    not_a_digest.mkdir()
    # the most recently used unused one is kept when the rule keeps one
    for number, path in enumerate((old_layout, gone, stale)):   # stale: the newest use
        then = time.time() - 10.0 * 86400.0 + number
        (path / 'last-used').touch()
        for entry in (path / 'last-used', path):
            os.utime(entry, (then, then))
    removed = _jit.prune_caches(str(base), current.name, keep_recent=1)
    assert sorted(removed) == sorted([str(old_layout), str(gone)])
    assert stale.is_dir() and not gone.exists() and not old_layout.exists()
    removed = _jit.prune_caches(str(base), current.name, keep_recent=0)
    assert removed == [str(stale)]
    for kept in (current, live, recent_old_layout, warming, not_a_digest):
        assert kept.is_dir()
    for pruned in (stale, gone, old_layout):
        assert not pruned.exists()
    # the live copy edits its kernels: its old directory goes at the next pruning
    (package / 'rnea.py').write_text('import x\n@kernel\ndef f():\n    return 1\n')
    assert _jit.prune_caches(str(base), current.name, keep_recent=0) == [str(live)]


@pytest.fixture
def cold(tmp_path, monkeypatch):
    """Point _jit at an empty cache directory and record the warmers it would start."""
    started = []
    monkeypatch.setattr(_jit, 'CACHE_DIR', str(tmp_path))
    monkeypatch.setattr(_jit, '_warm_started', False)
    monkeypatch.setattr(_jit.subprocess, 'Popen', lambda args, **kw: started.append(args))
    monkeypatch.delenv('ROS_DYNAMICS_PRECOMPILE', raising=False)
    return tmp_path, started


def test_one_warmer_per_cache_and_a_stale_lock_is_replaced(cold, monkeypatch):
    cache, started = cold
    _jit._start_warming()
    assert len(started) == 1 and (cache / 'warming.lock').exists()
    assert 'warm_cache()' in started[0][-1]
    _jit._start_warming()                                  # once per process
    monkeypatch.setattr(_jit, '_warm_started', False)      # another process: the lock stops it
    _jit._start_warming()
    assert len(started) == 1
    old = time.time() - 3600.0                              # a warmer that died an hour ago
    os.utime(cache / 'warming.lock', (old, old))
    monkeypatch.setattr(_jit, '_warm_started', False)
    _jit._start_warming()
    assert len(started) == 2


def test_no_warmer_when_disabled_or_without_a_cache(cold, monkeypatch):
    cache, started = cold
    monkeypatch.setenv('ROS_DYNAMICS_PRECOMPILE', '0')
    _jit._start_warming()
    monkeypatch.delenv('ROS_DYNAMICS_PRECOMPILE')
    monkeypatch.setattr(_jit, '_warm_started', False)
    monkeypatch.setattr(_jit, 'CACHE_DIR', None)            # in-memory compilation
    _jit._start_warming()
    assert started == [] and not (cache / 'warming.lock').exists()


def test_entry_points_are_found_where_they_are_defined(tmp_path):
    """A kernel module with an entry point needs no list: the decorator is the registration."""
    kernels = tmp_path / 'kernels'
    kernels.mkdir()
    entry = '\n@kernel(signatures=[STATUS(IN2, OUT2)])\ndef f():\n    pass\n'
    (kernels / 'new_algorithm.py').write_text(entry + '\n\n@state_entry\ndef g():\n    pass\n')
    (kernels / 'helpers.py').write_text('\n@kernel(inline=True)\ndef h():\n    pass\n')
    (kernels / 'rnea.py').write_text('# RNEA\n@state_entry\ndef gravity_entry():\n    pass\n')
    assert _jit.entry_modules(tmp_path) == ('kernels.rnea', 'kernels.new_algorithm')
    outside = [path for path in _jit.PACKAGE_ROOT.rglob('*.py')
               if path.parent.name != 'kernels' and path.name != 'jit.py'
               and _jit.ENTRY_DECORATORS.search(path.read_bytes())]
    assert outside == [], 'entry points live in kernels/, where entry_modules() finds them'
