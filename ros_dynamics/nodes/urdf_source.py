# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Where a node's URDF comes from: a parameter string, a file path or ``package://`` URL.

The ``/robot_description`` topic (transient local, as robot_state_publisher
publishes it) is handled by the nodes; this module resolves paths without ROS
so it can be tested alone.
"""

import os
from typing import Optional


def resolve_package_url(url: str, prefixes: Optional[str] = None) -> str:
    """
    Return a file path for ``package://<pkg>/<relative>``, ``file://<path>`` or a plain path.

    Packages are looked up as ``<prefix>/share/<pkg>`` for every prefix of
    ``AMENT_PREFIX_PATH`` (or ``prefixes``, colon-separated), the layout the
    ament index uses. Raises FileNotFoundError naming what was searched.
    """
    if url.startswith('file://'):
        url = url[len('file://'):]
    if not url.startswith('package://'):
        path = os.path.expanduser(url)
        if not os.path.isfile(path):
            raise FileNotFoundError(f'URDF file {path!r} does not exist')
        return path
    package, _, relative = url[len('package://'):].partition('/')
    if not package or not relative:
        raise FileNotFoundError(f'{url!r}: expected package://<package>/<path>')
    search = prefixes if prefixes is not None else os.environ.get('AMENT_PREFIX_PATH', '')
    tried = []
    for prefix in filter(None, search.split(os.pathsep)):
        candidate = os.path.join(prefix, 'share', package, relative)
        tried.append(candidate)
        if os.path.isfile(candidate):
            return candidate
    where = ', '.join(tried) or 'nowhere: AMENT_PREFIX_PATH is empty'
    raise FileNotFoundError(f'{url!r} not found (looked in: {where})')
