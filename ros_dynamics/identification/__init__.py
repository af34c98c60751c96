# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
System identification of a robot's dynamic parameters from recorded motion (ROS-free).

The joint torque regressor (``regressor``), base parameters, excitation
trajectories, least-squares identification with physical consistency, payload
estimation and reading ``/joint_states`` from ROS 2 bags.
"""

from ros_dynamics.exceptions import (IdentificationError, IdentificationWarning,
                                     NonPhysicalEstimateWarning)
from ros_dynamics.identification.bags import JointStateRecording, read_joint_states
from ros_dynamics.identification.base import base_parameters, BaseParameters
from ros_dynamics.identification.excitation import excitation_trajectory, ExcitationTrajectory
from ros_dynamics.identification.identify import (held_out_torques, IdentificationResult,
                                                  identify)
from ros_dynamics.identification.payload import estimate_payload, PayloadEstimate
from ros_dynamics.identification.physical import is_physically_consistent, pseudo_inertia
from ros_dynamics.kernels.regressor import PARAMETER_NAMES
from ros_dynamics.model.regressor import joint_torque_regressor

__all__ = ['base_parameters', 'BaseParameters', 'estimate_payload', 'excitation_trajectory',
           'ExcitationTrajectory', 'held_out_torques', 'identify', 'IdentificationError',
           'IdentificationResult', 'IdentificationWarning', 'is_physically_consistent',
           'joint_torque_regressor', 'JointStateRecording', 'NonPhysicalEstimateWarning',
           'PARAMETER_NAMES', 'PayloadEstimate', 'pseudo_inertia', 'read_joint_states']
