# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
A compile that cannot be avoided is announced in one line; a warm cache is silent.

The build fills the kernel cache (CMakeLists.txt's last install step; the
workspace test checks it and that the nodes start without compiling). When a
process still has to compile (a cold or missing cache), ``_jit`` logs one
warning through Python's logging, which the nodes forward to rclpy.
"""

import logging

import pytest
from ros_dynamics.runtime import jit as _jit

MESSAGE = 'compiling dynamics kernels for the first run'


@pytest.fixture
def batch_kernels(monkeypatch):
    """Two batch entry points, compiled, then marked not ready (compiling them again is free)."""
    entries = [d for d in _jit.entry_points() if not isinstance(d, _jit.StateEntry)][:2]
    _jit.ensure_compiled(*entries)
    for dispatcher in entries:
        monkeypatch.setattr(dispatcher, 'entry_ready', False)
    monkeypatch.setattr(_jit, '_compile_announced', False)
    monkeypatch.setenv('ROS_DYNAMICS_PRECOMPILE', '0')      # no background warmer
    return entries


def announcements(caplog) -> list:
    return [r.getMessage() for r in caplog.records
            if r.name == 'ros_dynamics.runtime.jit' and MESSAGE in r.getMessage()]


def test_compiling_on_a_cold_cache_is_announced_once(batch_kernels, tmp_path, monkeypatch,
                                                     caplog):
    monkeypatch.setattr(_jit, 'CACHE_DIR', str(tmp_path))  # an empty cache
    total = len(_jit.entry_points())
    with caplog.at_level(logging.WARNING, logger='ros_dynamics'):
        _jit.ensure_compiled(batch_kernels[0])
        _jit.ensure_compiled(batch_kernels[1])
    # the rollouts' two entry points take 40 and 60 s, the ground step's and its rollout's 18
    # and 20 s, every other one 1.5 s
    slow = [d.__name__ for d in _jit.entry_points() if d.__name__ in _jit.SECONDS_PER_SLOW_ENTRY]
    assert sorted(slow) == ['ground_rollout_batch', 'ground_steps_entry', 'rollout_batch',
                            'rollout_lanes_batch']
    seconds = round(1.5 * (total - 4) + 40.0 + 60.0 + 18.0 + 20.0)
    assert announcements(caplog) == [
        f'{MESSAGE}, ~{seconds} s ({total} of {total} kernels, cached in {tmp_path})']
    assert {r.levelno for r in caplog.records if MESSAGE in r.getMessage()} == {logging.WARNING}


def test_without_a_cache_directory_the_line_says_how_to_get_one(batch_kernels, monkeypatch,
                                                                caplog):
    monkeypatch.setattr(_jit, 'CACHE_DIR', None)
    with caplog.at_level(logging.WARNING, logger='ros_dynamics'):
        _jit.ensure_compiled(*batch_kernels)
    (line,) = announcements(caplog)
    assert 'ROS_DYNAMICS_CACHE_DIR' in line


def test_a_warm_cache_says_nothing(batch_kernels, caplog):
    assert _jit.CACHE_DIR is not None   # conftest filled it before the session
    with caplog.at_level(logging.DEBUG, logger='ros_dynamics'):
        _jit.ensure_compiled(*batch_kernels)
    assert announcements(caplog) == []
