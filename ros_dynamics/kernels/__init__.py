# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""The compiled algorithms (Featherstone 2008): one module per algorithm."""
