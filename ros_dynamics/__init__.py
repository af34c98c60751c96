# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
ros_dynamics: rigid-body dynamics of URDF robots, ROS-free core.

Example::

  from ros_dynamics import RobotModel
  robot = RobotModel.from_urdf_file('arm.urdf')
  tau = robot.gravity_torques(q)

The colcon build installs the generated ROS interfaces as the subpackages
``ros_dynamics.msg`` and ``ros_dynamics.srv`` of this package; ``__path__``
spans every ``ros_dynamics`` directory on ``sys.path`` so that they are found
from a source checkout too (Python run in the repository root).
"""

from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)   # first: submodules may live in either

from ros_dynamics.exceptions import (BatchTooLargeError, InfeasiblePathError,
                                     SingularMassMatrixError, URDFError, URDFWarning)
from ros_dynamics.model.robot import RobotModel

__all__ = ['BatchTooLargeError', 'Contact', 'InfeasiblePathError', 'RobotModel',
           'SingularMassMatrixError', 'URDFError', 'URDFWarning', 'time_optimal_trajectory']


def __getattr__(name: str):
    """Import ``time_optimal_trajectory`` and ``Contact`` on first use (scipy out of start-up)."""
    if name == 'time_optimal_trajectory':
        from ros_dynamics.time_optimal import time_optimal_trajectory
        return time_optimal_trajectory
    if name == 'Contact':
        from ros_dynamics.contacts import Contact
        return Contact
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
