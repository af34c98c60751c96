#!/usr/bin/env python3
# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Make the repository's .venv import the colcon install's ros_dynamics directly.

Writes ``<venv site-packages>/ros_dynamics_colcon_install.pth``, two lines:

* the path of ``install/ros_dynamics/lib/python3.X/site-packages`` relative to
  the venv's site-packages: Python resolves it against the path the venv was
  started from, so every checkout using the venv (through a symlinked
  ``.venv`` too) gets its own install/, and skips it while it does not exist;
* an ``import`` line appending ``install/ros_dynamics/lib`` (next to the
  venv, when it exists) to ``LD_LIBRARY_PATH``: the ROS type support finds
  the generated message libraries there (what ``source install/setup.bash``
  does for them).

After ``make build``, ``.venv/bin/python`` then imports ``ros_dynamics``
with its ``msg``/``srv`` and uses them with rclpy, without sourcing
install/setup.bash.

It also writes ``.venv/bin/ros-dynamics``, the command line through that
Python (``python -m ros_dynamics.cli``, discovery on this host as in
scripts/with_ros.sh), found relative to the path it is started by: so
``.venv/bin/ros-dynamics`` works from any directory with nothing sourced,
and ``source .venv/bin/activate`` puts ``ros-dynamics`` on PATH. Idempotent.
"""

import os
import sys
import sysconfig

PTH_NAME = 'ros_dynamics_colcon_install.pth'
LIBRARY_LINE = (
    "import os, sys; lib = os.path.join(os.path.dirname(sys.prefix), 'install', 'ros_dynamics', "
    "'lib'); paths = os.environ.get('LD_LIBRARY_PATH', ''); os.path.isdir(lib) and lib not in "
    "paths.split(os.pathsep) and os.environ.__setitem__('LD_LIBRARY_PATH', "
    'os.pathsep.join(filter(None, [paths, lib])))')


def pth_line(venv: str) -> str:
    """Return the .pth line for ``venv``: its site-packages to the install's."""
    site = sysconfig.get_path('purelib', vars={'base': venv, 'platbase': venv})
    root = os.path.dirname(venv)
    install = os.path.join(root, 'install', 'ros_dynamics', os.path.relpath(site, venv))
    return os.path.relpath(install, site)


LAUNCHER_NAME = 'ros-dynamics'
LAUNCHER = (
    '#!/bin/sh\n'
    '# ros-dynamics of the checkout holding this .venv (scripts/venv_pth.py, make build)\n'
    'export ROS_AUTOMATIC_DISCOVERY_RANGE="${ROS_AUTOMATIC_DISCOVERY_RANGE:-LOCALHOST}"\n'
    'exec "$(dirname "$0")/python" -m ros_dynamics.cli "$@"\n')


def write_if_changed(path: str, text: str, mode: int = 0o644) -> None:
    """Write ``text`` to ``path`` unless it holds it already; set ``mode``."""
    try:
        with open(path, encoding='utf-8') as stream:
            if stream.read() == text:
                return
    except OSError:
        pass
    with open(path, 'w', encoding='utf-8') as stream:
        stream.write(text)
    os.chmod(path, mode)


def main() -> int:
    """Write (or keep) the .pth of the repository's .venv and its ros-dynamics launcher."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    venv = os.path.join(root, '.venv')
    site = sysconfig.get_path('purelib', vars={'base': venv, 'platbase': venv})
    path = os.path.join(site, PTH_NAME)
    write_if_changed(path, pth_line(venv) + '\n' + LIBRARY_LINE + '\n')
    write_if_changed(os.path.join(venv, 'bin', LAUNCHER_NAME), LAUNCHER, 0o755)
    return 0


if __name__ == '__main__':
    sys.exit(main())
