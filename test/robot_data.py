# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""Locate the URDFs shipped by the PyPI package example-robot-data (test-only dependency)."""

import glob
import os
import sys

import pytest


def example_robot_data_dir() -> str:
    """Return the robots/ directory of example-robot-data installed in this interpreter."""
    roots = [sys.prefix] + [p for p in sys.path if p.endswith('site-packages')]
    for root in roots:
        hits = glob.glob(os.path.join(root, '**', 'cmeel.prefix', 'share',
                                      'example-robot-data', 'robots'), recursive=True)
        if hits:
            return hits[0]
    raise RuntimeError('example-robot-data is not installed (pip install example-robot-data)')


def example_urdfs() -> list:
    """Return every URDF file of example-robot-data, sorted, as pytest params with short ids."""
    base = example_robot_data_dir()
    files = sorted(glob.glob(os.path.join(base, '**', '*.urdf'), recursive=True))
    assert len(files) >= 60, f'expected the 69 URDFs of example-robot-data in {base}'
    return [pytest.param(f, id=os.path.relpath(f, base)) for f in files]


def example_urdf(relative: str) -> str:
    """Return the path of one example-robot-data URDF, e.g. 'ur_description/urdf/ur5.urdf'."""
    path = os.path.join(example_robot_data_dir(), relative)
    assert os.path.exists(path), path
    return path
