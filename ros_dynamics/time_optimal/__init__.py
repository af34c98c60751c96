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

"""Time-optimal path parameterization under torque limits (TOPP-RA, Pham and Pham 2018)."""

from ros_dynamics.time_optimal.parameterization import time_optimal_trajectory
from ros_dynamics.time_optimal.path import SplinePath
from ros_dynamics.time_optimal.trajectory import (BindingSegment, TimeOptimalTrajectory,
                                                  TrajectorySample)

__all__ = ['BindingSegment', 'SplinePath', 'TimeOptimalTrajectory', 'TrajectorySample',
           'time_optimal_trajectory']
