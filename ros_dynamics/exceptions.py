# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Exceptions raised by the ros_dynamics core.

Every error the core raises on bad input is a subclass of ``ValueError`` so a
caller can catch one type; the subclasses say which kind of input was wrong.
"""


class URDFError(ValueError):
    """
    A URDF that cannot be turned into a dynamics model.

    The message names the offending element (``link 'x'`` or ``joint 'y'``)
    and what is wrong with it.
    """


class SingularMassMatrixError(ValueError):
    """
    The joint-space mass matrix is singular at the requested state.

    Raised by algorithms that need M regular (forward dynamics, operational
    space) when a joint drives no inertia (for example a chain of massless
    links); the message names the joint.
    """


class URDFWarning(UserWarning):
    """A URDF that loads but describes something physically doubtful (e.g. a non-PSD inertia)."""


class BatchTooLargeError(MemoryError, ValueError):
    """
    A batch whose arrays would not fit in the memory available now.

    Raised before allocating (the operating system would otherwise kill the
    process); the message names the array, its shape and the sizes. A
    ``MemoryError`` and a ``ValueError``: split the batch into chunks.
    """


class IdentificationError(ValueError, RuntimeError):
    """
    A recording identification cannot learn from, or a fit it cannot stand behind.

    ``str(error)`` speaks to a Python caller (keywords such as
    ``consistent=False``); ``command_line`` says the same to a user of
    ``ros-dynamics identify`` (flags such as ``--no-consistent``). A
    ``ValueError`` (bad data) and a ``RuntimeError`` (a failed solve).
    """

    def __init__(self, message: str, command_line: str = '') -> None:
        super().__init__(message)
        self.command_line = command_line or message


class IdentificationWarning(UserWarning):
    """Identification went ahead on data that leave part of the model to the prior."""


class NonPhysicalEstimateWarning(IdentificationWarning):
    """An unconstrained fit (``consistent=False``) came out physically impossible."""


class InfeasiblePathError(ValueError):
    """
    A path that no timing can follow within the limits (time-optimal parameterization).

    Raised by ``time_optimal_trajectory``; the message names the joint, the
    limit and the path position (path parameter s and the waypoints around it),
    e.g. a pose whose gravity torque alone exceeds the effort limit, or an end
    velocity the limits cannot reach. ``joint``, ``limit`` and ``s`` hold the
    same facts for programs (``joint``/``limit`` None when no single one is to
    blame).
    """

    def __init__(self, message: str, joint=None, limit=None, s=None) -> None:
        super().__init__(message)
        self.joint = joint
        self.limit = limit
        self.s = s
