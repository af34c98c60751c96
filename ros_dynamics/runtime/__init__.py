# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""The runtime layer: compiling and caching kernels, single-state calls, batches over threads."""

from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)
