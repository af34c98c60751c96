# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
What a torque stream sends when its input goes stale: the ``on_stale`` policy.

An effort controller (ros2_control's ``JointGroupEffortController``) applies
the last command it received until another comes, so a producer whose
input stops must say so. ``StalePolicy`` keeps the last command and, once
the watchdog finds no fresh input for ``state_timeout`` s, applies the
policy:

* ``zero``: one command of zeros (a step: an arm without brakes on a plain
  effort interface falls);
* ``ramp``: the last command times 1 - t / ``stale_duration`` (t in s of
  steady time since the release), published at every watchdog tick (50
  Hz), then zeros;
* ``hold``: the last command republished until ``stale_duration``, then zeros;
* ``silent``: nothing.

A fresh command (``sent``) ends a ramp or a hold; after a zero command
there is nothing to release (a producer's own ramp, relayed by
command_watchdog, ends in one). No policy helps when the producer itself
dies: the consumer needs its own timeout (command_watchdog).
"""

import threading
import time
from typing import Callable, Optional

import numpy as np
from rclpy.node import Node
from ros_dynamics.nodes.common import Watchdog

ON_STALE = ('zero', 'silent', 'ramp', 'hold')
DESCRIPTION = ('when the input goes stale after commands were sent: zero (publish zero effort '
               'once, so a controller holding its last command lets go), silent, ramp (the '
               'last command ramped linearly to zero over stale_duration s, then zero) or hold '
               '(the last command republished for stale_duration s, then zero); ramp and hold '
               'publish at 50 Hz')
DURATION_DESCRIPTION = ('on_stale ramp: time from the last command to zero; hold: time the '
                        'last command is held (s of steady time, >= 0)')
PERIOD = 0.02   # s of steady time between watchdog ticks


class StalePolicy:
    """
    The last command of a stream and what to send once its input is stale.

    ``send(efforts)`` publishes one command (efforts: N m or N, ordered as
    the stream's output); ``now()`` returns the node clock (s) the
    ``timeout()`` (s) is measured on; ``policy`` and ``duration`` may be
    changed at any time. ``lock`` is held around every command (the stream's
    callback and the watchdog thread).
    """

    def __init__(self, node: Node, send: Callable[[np.ndarray], None],
                 now: Callable[[], float], timeout: Callable[[], float],
                 policy: str = 'zero', duration: float = 0.5) -> None:
        """Start the watchdog thread (``PERIOD`` s of steady time)."""
        if policy not in ON_STALE:
            raise ValueError(f'on_stale: {policy!r} is not one of {", ".join(ON_STALE)}')
        self._node, self._send, self._now, self._timeout = node, send, now, timeout
        self.policy, self.duration = policy, float(duration)
        self.lock = threading.Lock()
        self._last: Optional[np.ndarray] = None   # efforts of the last command (None: unknown)
        self._size = 0   # number of efforts of the last command
        self._last_time: Optional[float] = None   # node-clock s of the last command
        self._released = True   # no command out that a controller could be holding
        self._fading: Optional[tuple] = None   # ramp/hold: (steady start, efforts)
        self._watchdog = Watchdog(node, PERIOD, self.check)

    def sent(self, efforts: Optional[np.ndarray], seconds: float, size: int = 0) -> None:
        """
        Record a command of the stream (call with ``lock`` held); ends a ramp or hold.

        ``efforts`` None: sent without its values (``size`` of them; ramp and
        hold then send zero).
        """
        self._last, self._last_time = efforts, seconds
        self._size = size if efforts is None else efforts.shape[0]
        self._released, self._fading = False, None

    def check(self) -> None:
        """Watchdog tick: continue a ramp or hold, or release when the input is stale."""
        with self.lock:
            if self._fading is not None:
                self._fade()
            elif (self._last_time is not None and not self._released
                  and self._now() - self._last_time > self._timeout()):
                self._release(f'no fresh input for {self._timeout()} s')

    def release(self, reason: str) -> None:
        """Apply the policy now, as when the input goes stale (once per command sent)."""
        with self.lock:
            if self._last_time is not None and not self._released:
                self._release(reason)

    def _release(self, reason: str) -> None:
        self._released = True
        logger = self._node.get_logger()
        if self._last is not None and not self._last.any():   # a zero command is held already
            logger.info(f'{reason}: the last command was zero effort: nothing to send')
            return
        if self.policy in ('ramp', 'hold') and self._last is not None and self.duration > 0:
            self._fading = (time.monotonic(), self._last)
            what = 'ramped to zero' if self.policy == 'ramp' else 'held'
            logger.warning(f'{reason}: the last command {what} over {self.duration} s '
                           f'(on_stale: {self.policy})')
        elif self.policy != 'silent':
            self._send(np.zeros(self._size))
            logger.warning(f'{reason}: zero effort sent once (on_stale: {self.policy})')
        else:
            logger.warning(f'{reason}: no command (on_stale: {self.policy})')

    def _fade(self) -> None:
        start, efforts = self._fading
        elapsed = time.monotonic() - start
        factor = 1.0 if self.policy == 'hold' else 1.0 - elapsed / max(self.duration, 1e-9)
        if elapsed >= self.duration or factor <= 0.0 or self.policy not in ('ramp', 'hold'):
            self._fading = None
            self._send(np.zeros(efforts.shape[0]))
            self._node.get_logger().warning(f'zero effort sent after {elapsed:.3f} s '
                                            f'(on_stale: {self.policy})')
            return
        self._send(efforts * factor)

    def stop(self) -> None:
        """Stop the watchdog thread."""
        self._watchdog.stop()
