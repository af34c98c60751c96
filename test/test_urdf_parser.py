# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Our URDF parser against the ROS Python URDF parser (urdfdom-py) on every example URDF.

urdf_parser_py is the reference where it works; it rejects some real files that Pinocchio
loads (we load them too, see test_against_pinocchio.test_every_urdf_loads), and those are
skipped here with its error as the reason.
"""

import contextlib
import io
import math
import warnings

import numpy as np
import pytest
from robot_data import example_urdfs
from ros_dynamics.description.urdf import parse_urdf_file, rpy_to_matrix
from ros_dynamics.exceptions import URDFWarning
from urdf_parser_py import urdf as ros_urdf


def reference(path: str):
    """Parse with urdf_parser_py (its warnings go to stderr; silence them)."""
    with open(path, 'rb') as stream, contextlib.redirect_stderr(io.StringIO()):
        try:
            return ros_urdf.URDF.from_xml_string(stream.read())
        except Exception as error:  # noqa: B902 - it raises many types
            pytest.skip(f'urdf_parser_py rejects it: {type(error).__name__}: {error}')


def pose(origin) -> np.ndarray:
    transform = np.eye(4)
    if origin is not None:
        transform[:3, 3] = origin.xyz or [0.0, 0.0, 0.0]
        transform[:3, :3] = rpy_to_matrix(origin.rpy or [0.0, 0.0, 0.0])
    return transform


@pytest.mark.parametrize('path', example_urdfs())
def test_parser_agrees_with_urdf_parser_py(path):
    ros = reference(path)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', URDFWarning)
        ours = parse_urdf_file(path)
    assert set(ours.links) == {link.name for link in ros.links}
    assert set(ours.joints) == {joint.name for joint in ros.joints}
    for link in ros.links:
        inertial = ours.links[link.name]
        if link.inertial is None:
            assert inertial is None
            continue
        origin = pose(link.inertial.origin)
        assert inertial.mass == link.inertial.mass
        assert np.allclose(inertial.com, origin[:3, 3])
        i = link.inertial.inertia
        tensor = np.array([[i.ixx, i.ixy, i.ixz], [i.ixy, i.iyy, i.iyz], [i.ixz, i.iyz, i.izz]])
        assert np.allclose(inertial.inertia, origin[:3, :3] @ tensor @ origin[:3, :3].T)
    for joint in ros.joints:
        mine = ours.joints[joint.name]
        assert (mine.type, mine.parent, mine.child) == (joint.type, joint.parent, joint.child)
        assert np.allclose(mine.origin, pose(joint.origin))
        if joint.type != 'fixed':
            axis = np.array(joint.axis if joint.axis is not None else [1.0, 0.0, 0.0])
            assert np.allclose(mine.axis, axis / np.linalg.norm(axis))
        if joint.limit is not None:
            assert mine.effort == joint.limit.effort and mine.velocity == joint.limit.velocity
            if joint.type != 'continuous':
                assert mine.lower == (joint.limit.lower or 0.0)
                assert mine.upper == (joint.limit.upper or 0.0)
            else:
                assert (mine.lower, mine.upper) == (-math.inf, math.inf)
        if joint.dynamics is not None:
            assert mine.damping == (joint.dynamics.damping or 0.0)
            assert mine.friction == (joint.dynamics.friction or 0.0)
        if joint.mimic is not None and joint.type != 'fixed':
            assert mine.mimic.joint == joint.mimic.joint
            assert mine.mimic.multiplier == (joint.mimic.multiplier
                                             if joint.mimic.multiplier is not None else 1.0)
            assert mine.mimic.offset == (joint.mimic.offset or 0.0)
