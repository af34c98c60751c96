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

"""The kernel cache's background warm-up (ros_dynamics._jit): what it fills, when it starts."""

import os
import subprocess
import sys
import time

import pytest
from ros_dynamics import _jit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PANDA = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
ENERGY_ENTRY = 'kinetic_energy'   # an entry point the first call below does not use


def test_warm_cache_fills_every_entry_point(tmp_path):
    """A cold cache warmed by warm_cache() holds every entry point; a new process finds them."""
    env = dict(os.environ, ROS_DYNAMICS_CACHE_DIR=str(tmp_path), ROS_DYNAMICS_PRECOMPILE='0',
               PYTHONPATH=ROOT)
    check = ('from ros_dynamics import _jit\n'
             'print(sum(not _jit._cached(d) for d in _jit.entry_points()))\n')
    missing = subprocess.run([sys.executable, '-c', check], env=env, capture_output=True,
                             text=True, check=True).stdout.strip()
    assert int(missing) == len(_jit.entry_points()) == 29        # cold: none cached
    subprocess.run([sys.executable, '-c', 'from ros_dynamics import _jit; _jit.warm_cache()'],
                   env=env, check=True, timeout=600)
    missing = subprocess.run([sys.executable, '-c', check], env=env, capture_output=True,
                             text=True, check=True).stdout.strip()
    assert missing == '0'
    # a warm process's first call loads its kernels and imports nothing else: the marker
    # tells _start_warming that the cache is complete without listing the entry points
    # (which imports every module holding one: scipy.signal, scipy.stats; 1.5 s)
    heavy = ('ros_dynamics.identification.identify', 'ros_dynamics.rollouts.rollout')
    first_call = ('import sys, numpy as np\n'
                  'from ros_dynamics import RobotModel\n'
                  f'robot = RobotModel.from_urdf_file({PANDA!r})\n'
                  'robot.inverse_dynamics(np.zeros(7), np.zeros(7), np.zeros(7))\n'
                  f'print(sorted(m for m in sys.modules if m in {heavy!r}))\n')
    env.pop('ROS_DYNAMICS_PRECOMPILE')
    marker = next(tmp_path.glob('*/complete-ros_dynamics_*'))
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
    (index,) = tmp_path.glob(f'*/ros_dynamics_*/energy.{ENERGY_ENTRY}-*.nbi')
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
