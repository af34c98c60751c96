# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Test session setup: an isolated ROS graph before anything imports rclpy, a warm kernel cache.

A random ROS_DOMAIN_ID per session, discovery on this host only, logs in a
temporary directory (README "ROS 2"); node tests add a unique
namespace each (ros_helpers.unique_namespace). Every kernel is compiled into
the cache (or loaded from it) before the first test, so that node processes
start in the same time whatever order the tests run in (a cold cache costs
each new process seconds of compiling).
"""

import os
import random
import tempfile

os.environ['ROS_DOMAIN_ID'] = str(random.SystemRandom().randint(1, 100))
os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
os.environ.setdefault('HOME', tempfile.gettempdir())
os.environ['ROS_LOG_DIR'] = tempfile.mkdtemp(prefix='ros_dynamics_test_logs_')


def pytest_sessionstart(session) -> None:
    """Fill the kernel cache (about 12 s on a cold cache, 0.5 s warm)."""
    from ros_dynamics.runtime import jit as _jit
    _jit.warm_cache(last_first=False)   # the background warmer goes last first
