# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""What a user describes: the URDF, the packed model built from it, payloads and actuators."""
