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

"""The ROS-free helpers of the node layer: joint-name mapping and URDF sources."""

import os

import numpy as np
import pytest

from ros_dynamics.nodes.joint_vectors import JointVectorMap
from ros_dynamics.nodes.urdf_source import resolve_package_url

MAP = JointVectorMap(['a', 'b', 'c'])


def test_vector_reorders_by_name():
    assert list(MAP.vector(['c', 'a', 'b'], [3.0, 1.0, 2.0], 'position')) == [1.0, 2.0, 3.0]


def test_empty_values_take_the_default():
    assert list(MAP.vector(['a', 'b', 'c'], [], 'velocity', default=0.0)) == [0.0, 0.0, 0.0]


def test_missing_joints_take_the_default_when_given():
    assert list(MAP.vector(['b'], [5.0], 'effort', default=0.0)) == [0.0, 5.0, 0.0]


@pytest.mark.parametrize('names, values, fragment', [
    (['a', 'b', 'x'], [1.0, 2.0, 3.0], "position: unknown joint 'x'"),
    (['a', 'b'], [1.0, 2.0], "position: missing joints 'c'"),
    (['a', 'b', 'c'], [1.0, 2.0], 'position: 2 values for 3 joint names'),
    (['a', 'a', 'c'], [1.0, 2.0, 3.0], "position: joint 'a' appears twice"),
    (['a', 'b', 'c'], [1.0, float('nan'), 3.0], "position: joint 'b' is nan"),
    (['a', 'b', 'c'], [1.0, 2.0, float('inf')], "position: joint 'c' is inf"),
])
def test_bad_vectors_are_named(names, values, fragment):
    with pytest.raises(ValueError, match=fragment):
        MAP.vector(names, values, 'position')


def test_merge_ignores_unknown_and_non_finite():
    target = np.zeros(3)
    assert MAP.merge(target, ['x', 'c', 'a'], [9.0, 3.0, float('nan')]) == 1
    assert list(target) == [0.0, 0.0, 3.0]


def test_package_urls_resolve_through_the_prefix_path(tmp_path):
    share = tmp_path / 'share' / 'my_robot' / 'urdf'
    share.mkdir(parents=True)
    (share / 'arm.urdf').write_text('<robot name="x"/>')
    found = resolve_package_url('package://my_robot/urdf/arm.urdf',
                                prefixes=os.pathsep.join(['/nonexistent', str(tmp_path)]))
    assert found == str(share / 'arm.urdf')
    assert resolve_package_url(f'file://{found}') == found
    assert resolve_package_url(found) == found
    with pytest.raises(FileNotFoundError, match='not found'):
        resolve_package_url('package://my_robot/urdf/missing.urdf', prefixes=str(tmp_path))
    with pytest.raises(FileNotFoundError, match='does not exist'):
        resolve_package_url(str(tmp_path / 'nope.urdf'))
