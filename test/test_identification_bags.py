# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""JointState bags written with rosbags' writer (both storages) and read back by name."""

from pathlib import Path

import numpy as np
import pytest
from ros_dynamics.identification.bags import read_joint_states
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import get_typestore, Stores

TYPESTORE = get_typestore(Stores.ROS2_KILTED)
JointState = TYPESTORE.types['sensor_msgs/msg/JointState']
Header = TYPESTORE.types['std_msgs/msg/Header']
Time = TYPESTORE.types['builtin_interfaces/msg/Time']


def joint_state(t: float, names: list, position, velocity=(), effort=()) -> object:
    """Return a JointState message stamped t (s)."""
    sec = int(np.floor(t))
    return JointState(header=Header(stamp=Time(sec=sec, nanosec=int(round((t - sec) * 1e9))),
                                    frame_id=''),
                      name=list(names), position=np.array(position, dtype=float),
                      velocity=np.array(velocity, dtype=float),
                      effort=np.array(effort, dtype=float))


def write_bag(path: Path, storage: StoragePlugin, messages: list, topic='/joint_states'):
    """Write (receive time s, message) pairs to a new bag."""
    with Writer(path, version=9, storage_plugin=storage) as writer:
        connection = writer.add_connection(topic, JointState.__msgtype__, typestore=TYPESTORE)
        for received, message in messages:
            writer.write(connection, int(received * 1e9),
                         TYPESTORE.serialize_cdr(message, JointState.__msgtype__))


def trajectory(t):
    """Return position, velocity, effort of three joints at times t (exact, linear in t)."""
    t = np.asarray(t)[..., None]
    velocity = np.broadcast_to([0.5, -0.5, 1.0], t.shape[:-1] + (3,))
    return 0.1 + 0.5 * t * [1.0, -1.0, 2.0], velocity, 3.0 * t + [0, 1, 2]


@pytest.mark.parametrize('storage', [StoragePlugin.MCAP, StoragePlugin.SQLITE3])
def test_joints_matched_by_name_and_resampled_onto_one_time_base(tmp_path, storage):
    """Arm joints at 100 Hz in shuffled order, the gripper joint in its own messages at 40 Hz."""
    rng = np.random.default_rng(0)
    messages = []
    for k in range(101):
        t = 1000.0 + 0.01 * k + rng.uniform(-1e-3, 1e-3)        # jittered stamps
        p, v, e = trajectory(t - 1000.0)
        order = [1, 0] if k % 2 else [0, 1]
        messages.append((t + 0.002, joint_state(t, [f'j{i}' for i in order], p[order],
                                                v[order], e[order])))
    for k in range(41):
        t = 1000.0 + 0.025 * k
        p, v, e = trajectory(t - 1000.0)
        messages.append((t + 0.002, joint_state(t, ['gripper'], p[2:], v[2:], e[2:])))
    messages.sort(key=lambda pair: pair[0])
    path = tmp_path / 'bag'
    write_bag(path, storage, messages)
    recording = read_joint_states(str(path), ['gripper', 'j0', 'j1'])
    assert recording.joint_names == ('gripper', 'j0', 'j1')
    assert recording.period == pytest.approx(0.01, abs=2e-4)
    steps = np.diff(recording.t)
    assert np.allclose(steps, steps[0]) and recording.t[0] == 0.0
    p, v, e = trajectory(recording.t + recording.start - 1000.0)
    # columns follow joint_names: gripper is trajectory column 2, j0 column 0, j1 column 1
    assert np.allclose(recording.position, p[:, [2, 0, 1]], atol=1e-9)
    assert np.allclose(recording.velocity, v[:, [2, 0, 1]], atol=1e-9)
    assert np.allclose(recording.effort, e[:, [2, 0, 1]], atol=1e-9)


def test_receive_time_fields_missing_and_errors(tmp_path):
    path = tmp_path / 'bag'
    write_bag(path, StoragePlugin.MCAP,
              [(5.0 + 0.1 * k, joint_state(0.0, ['a'], [float(k)])) for k in range(11)])
    recording = read_joint_states(str(path), ['a'])   # zero stamps: receive times are used
    assert recording.velocity is None and recording.effort is None
    assert recording.start == pytest.approx(5.0)
    assert np.allclose(recording.position[:, 0], np.arange(11), atol=1e-6)
    with pytest.raises(ValueError, match="never appear on '/joint_states'"):
        read_joint_states(str(path), ['a', 'b'])
    with pytest.raises(ValueError, match="no topic '/states'"):
        read_joint_states(str(path), ['a'], topic='/states')
    with pytest.raises(FileNotFoundError):
        read_joint_states(str(tmp_path / 'nothing'), ['a'])
    with pytest.raises(ValueError, match='stamp'):
        read_joint_states(str(path), ['a'], stamp='bag')


def test_a_zero_stamp_among_sim_time_stamps_is_time_zero(tmp_path):
    """A simulator's first state is stamped 0 s of sim time; receive times are wall times."""
    path = tmp_path / 'bag'
    write_bag(path, StoragePlugin.MCAP,
              [(1.7e9 + 0.1 * k, joint_state(0.002 * k, ['a'], [float(k)])) for k in range(11)])
    recording = read_joint_states(str(path), ['a'])
    assert recording.start == 0.0 and recording.period == pytest.approx(0.002)
    assert np.allclose(recording.position[:, 0], np.arange(11), atol=1e-6)
