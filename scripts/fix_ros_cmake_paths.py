#!/usr/bin/env python3
# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Rewrite the build-container paths baked into the ROS message wheels' CMake files.

The PyPI wheels of ROS 2 Kilted export CMake targets naming
``/opt/python/cp311-cp311/include/python3.11`` and that container's numpy
include directory; CMake refuses imported targets with non-existent include
paths. This replaces both literals under ``<venv>/share`` with this
interpreter's paths. Idempotent; run it after every
pip install of ROS wheels.
"""

import pathlib
import sys
import sysconfig

import numpy

CONTAINER_INCLUDE = '/opt/python/cp311-cp311/include/python3.11'
CONTAINER_NUMPY = '/opt/python/cp311-cp311/lib/python3.11/site-packages/numpy/_core/include'


def main() -> int:
    """Rewrite the paths; print how many files changed."""
    share = pathlib.Path(sys.prefix) / 'share'
    replacements = {CONTAINER_NUMPY: numpy.get_include(),
                    CONTAINER_INCLUDE: sysconfig.get_paths()['include']}
    changed = 0
    for path in share.rglob('*.cmake'):
        text = path.read_text(encoding='utf-8', errors='surrogateescape')
        if '/opt/python/cp311-cp311' not in text:
            continue
        for old, new in replacements.items():
            text = text.replace(old, new)
        path.write_text(text, encoding='utf-8', errors='surrogateescape')
        changed += 1
    print(f'fix_ros_cmake_paths: rewrote {changed} CMake files under {share}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
