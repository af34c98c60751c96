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

"""
Task-space reference trajectories for the examples and tests.

``circle`` is the tracking task of Ghosal's 2R example (NPTEL notes: centre
(1.2, 1.2) m, radius 0.2 m, one revolution in 10 s) in any coordinate plane
of the root frame, with the pose, twist and acceleration a controller needs.
"""

from typing import Optional, Sequence

import numpy as np


def circle(t: float, center: Sequence[float], radius: float, period: float,
           plane: Sequence[int] = (0, 2), orientation: Optional[np.ndarray] = None) -> tuple:
    """
    Return (pose 4x4, twist (6,), acceleration (6,)) on a circle at time t (s).

    The point starts at center + radius along the plane's first axis and turns
    toward its second axis (counter-clockwise seen with the first axis right
    and the second up); ``plane`` names the two root-frame axes (0 x, 1 y,
    2 z). The orientation is constant (identity unless given); twist and
    acceleration are [linear; angular] in world axes (m/s, m/s^2).
    """
    if not (radius > 0.0 and period > 0.0):
        raise ValueError(f'radius and period must be > 0, got {radius!r}, {period!r}')
    omega = 2.0 * np.pi / period
    a, b = plane
    c, s = np.cos(omega * t), np.sin(omega * t)
    pose = np.eye(4)
    if orientation is not None:
        pose[:3, :3] = orientation
    pose[:3, 3] = center
    pose[a, 3] += radius * c
    pose[b, 3] += radius * s
    twist, acceleration = np.zeros(6), np.zeros(6)
    twist[a], twist[b] = -radius * omega * s, radius * omega * c
    acceleration[a], acceleration[b] = -radius * omega ** 2 * c, -radius * omega ** 2 * s
    return pose, twist, acceleration
