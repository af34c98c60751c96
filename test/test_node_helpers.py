# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""The ROS-free helpers of the node layer: joint-name mapping and URDF sources."""

import os
import subprocess
import sys

import numpy as np
import pytest

from ros_dynamics.nodes.joint_vectors import JointStateBuffer, JointVectorMap
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


def _merged_by_hand(q, qd, updated, index, names, positions, velocities, now):
    """Merge one message joint by joint: the semantics JointStateBuffer.merge must keep."""
    has_velocity = len(velocities) == len(names)
    for k, (name, position) in enumerate(zip(names, positions)):
        j = index.get(name)
        if j is None or not np.isfinite(position):
            continue
        q[j], updated[j] = position, now
        if has_velocity and np.isfinite(velocities[k]):
            qd[j] = velocities[k]


def test_joint_state_buffer_merges_like_joint_by_joint():
    """The vectorised merge equals the joint-by-joint one on messy partial messages."""
    rng = np.random.default_rng(7)
    model = ['a', 'b', 'c', 'd']
    vectors = JointVectorMap(model)
    required = [True, True, False, True]
    buffer = JointStateBuffer(vectors, required=required, ignored=['c'])
    q, qd, updated = buffer.q.copy(), buffer.qd.copy(), buffer.updated.copy()
    index = {name: k for k, name in enumerate(model) if name != 'c'}
    specials = [np.nan, np.inf, -np.inf, 1e308, -1e308]
    fast = 0
    for step in range(3000):
        names = list(rng.choice(model + ['x'], size=rng.integers(0, 6), replace=True))
        if rng.random() < 0.5:   # the common case: every joint once, in some order
            names = list(rng.permutation(['a', 'b', 'd'] + (['c'] if rng.random() < 0.3 else [])))
        positions = rng.normal(size=len(names) + (rng.random() < 0.05))
        velocities = rng.normal(size=len(names) if rng.random() < 0.8 else 0)
        for values in (positions, velocities):
            if values.size and rng.random() < 0.2:
                values[rng.integers(values.size)] = specials[rng.integers(len(specials))]
        now = float(step)
        _merged_by_hand(q, qd, updated, index, names, positions, velocities, now)
        alone = buffer.merge(tuple(names) if step % 2 else names, positions, velocities, now)
        np.testing.assert_array_equal(buffer.q, q)
        np.testing.assert_array_equal(buffer.qd, qd)
        np.testing.assert_array_equal(buffer.updated, updated)
        if alone:   # claims the message made the state fresh by itself
            fast += 1
            assert buffer.fresh(now, 0.0)
    assert fast > 500   # the vectorised path was taken


def test_joint_state_buffer_is_not_fresh_from_a_partial_message():
    """A message without every required joint does not make the state fresh by itself."""
    buffer = JointStateBuffer(JointVectorMap(['a', 'b']))
    assert not buffer.merge(('a',), np.array([1.0]), np.array([0.0]), 1.0)
    assert not buffer.fresh(1.0, 10.0)
    assert buffer.merge(('b', 'a'), np.array([2.0, 3.0]), np.array([]), 2.0)
    assert buffer.fresh(2.0, 0.0)
    np.testing.assert_array_equal(buffer.q, [3.0, 2.0])


HALF_BUILT = """
import signal
from ros_dynamics.nodes import process

class HalfBuilt:
    def __init__(self):
        process._on_signal(signal.SIGTERM, None)   # the signal lands in the constructor
        self.handle = 1

    def __del__(self):
        self.handle.close()      # AttributeError: no handle

try:
    with process.interruptible():
        HalfBuilt()
except process.Interrupted:
    print('interrupted')
"""


def test_a_signal_during_abandoned_work_silences_half_built_objects():
    """After a signal abandons work, a half-built object's failing __del__ prints nothing."""
    done = subprocess.run([sys.executable, '-c', HALF_BUILT], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and done.stdout == 'interrupted\n', done.stderr
    assert done.stderr == ''
