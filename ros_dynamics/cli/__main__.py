# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""``python -m ros_dynamics.cli``: the same as the ``ros-dynamics`` command."""

import sys

from ros_dynamics.cli import main

sys.exit(main())
