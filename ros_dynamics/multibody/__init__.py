# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""Spatial algebra on flat tuples, the packed model's layout and the joint model."""
