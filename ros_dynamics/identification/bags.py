# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Reading ``sensor_msgs/JointState`` recordings from ROS 2 bags without ROS.

The pure-Python ``rosbags`` library reads bags of either storage (MCAP or
sqlite3) with the message definitions of its type store (ROS 2 Kilted's
by default). Messages may carry any subset of the joints in any order (one
driver per arm, another for a gripper): every joint is matched by name and
its position, velocity and effort are resampled by linear interpolation onto
one uniform time base, the median period of that joint's messages over the
time all requested joints were published.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

FIELDS = ('position', 'velocity', 'effort')


@dataclass
class JointStateRecording:
    """
    Joint states from a bag on a uniform time base.

    t: (N,) s from the first sample; joint_names: (dof,); position,
    velocity, effort: (N, dof) (rad, rad/s, N m; m, m/s, N for prismatic
    joints), or None where the messages carried no such field. start: the
    absolute time of t = 0 (s since the epoch); period: the sample period (s).
    """

    t: np.ndarray
    joint_names: tuple
    position: np.ndarray
    velocity: Optional[np.ndarray]
    effort: Optional[np.ndarray]
    start: float
    period: float


def read_joint_states(path: str, joint_names: Sequence[str], topic: str = '/joint_states',
                      stamp: str = 'header', rate: Optional[float] = None
                      ) -> JointStateRecording:
    """
    Read ``topic`` (sensor_msgs/msg/JointState) from the ROS 2 bag at ``path``.

    joint_names: the joints to return, in this order (e.g. ``robot.joint_names``);
    each must appear in the messages. stamp: 'header' uses the messages' header
    stamps (the sensor time), or the bag's receive times when every stamp is
    zero (a driver that never sets them; a zero stamp among set ones is time 0,
    as in a simulation's first message); 'receive' always the receive time.
    rate (Hz): the common sample rate; default the median rate of the
    messages. Raises ValueError
    naming a missing topic or joint, FileNotFoundError for a missing bag,
    ImportError without ``rosbags`` (``pip install ros_dynamics[identification]``).
    """
    try:
        from rosbags.highlevel import AnyReader
        from rosbags.typesys import get_typestore, Stores
    except ImportError:
        raise ImportError('reading bags needs rosbags: pip install '
                          '"ros_dynamics[identification]" (or rosbags)') from None
    if stamp not in ('header', 'receive'):
        raise ValueError(f"stamp: expected 'header' or 'receive', got {stamp!r}")
    names = tuple(joint_names)
    if not names or len(set(names)) != len(names):
        raise ValueError(f'joint_names: expected distinct joint names, got {names!r}')
    if not Path(path).exists():
        raise FileNotFoundError(f'bag {path!r} does not exist')
    samples = {name: ([], {field: [] for field in FIELDS}) for name in names}
    present = dict.fromkeys(FIELDS, False)
    stamped = False
    typestore = get_typestore(Stores.ROS2_KILTED)
    with AnyReader([Path(path)], default_typestore=typestore) as reader:
        connections = [c for c in reader.connections if c.topic == topic]
        if not connections:
            topics = sorted({c.topic for c in reader.connections})
            raise ValueError(f'bag {path!r} has no topic {topic!r} (topics: '
                             f'{", ".join(topics) or "none"})')
        for connection, received, raw in reader.messages(connections=connections):
            message = reader.deserialize(raw, connection.msgtype)
            header = message.header.stamp.sec + 1e-9 * message.header.stamp.nanosec
            stamped |= header > 0.0
            time = (header, 1e-9 * received)
            for field in FIELDS:
                present[field] |= len(getattr(message, field)) > 0
            for k, name in enumerate(message.name):
                if name not in samples:
                    continue
                times, values = samples[name]
                times.append(time)
                for field in FIELDS:
                    array = getattr(message, field)
                    values[field].append(float(array[k]) if k < len(array) else np.nan)
    missing = [name for name in names if not samples[name][0]]
    if missing:
        raise ValueError(f'joints {missing} never appear on {topic!r} in {path!r}')
    # header stamps unless none is set; one zero stamp among set ones is time 0 (sim time)
    column = 0 if stamp == 'header' and stamped else 1
    for name in names:
        samples[name] = ([time[column] for time in samples[name][0]], samples[name][1])
    return _common_time_base(samples, names, present, rate)


def _common_time_base(samples: dict, names: tuple, present: dict, rate: Optional[float]
                      ) -> JointStateRecording:
    """Resample each joint's (time-sorted) samples onto one uniform grid over their overlap."""
    series = {}
    periods = []
    for name in names:
        times, values = samples[name]
        times = np.asarray(times)
        order = np.argsort(times, kind='stable')
        times = times[order]
        keep = np.concatenate([[True], np.diff(times) > 0.0])
        series[name] = (times[keep], {f: np.asarray(v)[order][keep] for f, v in values.items()})
        if times[keep].size > 1:
            periods.append(np.median(np.diff(times[keep])))
    start = max(series[name][0][0] for name in names)
    stop = min(series[name][0][-1] for name in names)
    if rate is not None:
        if not (np.isfinite(rate) and rate > 0.0):
            raise ValueError(f'rate: expected a positive rate in Hz, got {rate!r}')
        period = 1.0 / rate
    elif periods:
        period = float(np.median(periods))
    else:
        period = 0.0
    if stop <= start or period <= 0.0:
        raise ValueError(f'the joints {list(names)} were never published together over a '
                         'time span; nothing to resample')
    grid = start + period * np.arange(int(np.floor((stop - start) / period + 1e-9)) + 1)
    fields = {}
    for field in FIELDS:
        if not present[field]:
            fields[field] = None
            continue
        fields[field] = np.column_stack([
            np.interp(grid, series[name][0], series[name][1][field]) for name in names])
    return JointStateRecording(grid - start, names, fields['position'], fields['velocity'],
                               fields['effort'], float(start), period)
