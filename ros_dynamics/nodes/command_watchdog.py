# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Command watchdog: the consumer side of a torque stream notices a dead producer.

ros2_control's ``JointGroupEffortController`` (``forward_command_controller``
with ``interface_name: effort``) applies the last ``Float64MultiArray`` it
received until another comes: its message carries no stamp, and the
controller has no command timeout (ros2_controllers issue 95, "Forward
command controllers safety timeout", open). So when the node computing the
torques is killed or stalls, the arm keeps the last torque for ever, and no
policy of that node can act, since it is the part that died.
``joint_trajectory_controller`` has a command timeout (``cmd_timeout``) but
refuses trajectory points with an effort field ("Trajectories with effort
fields are currently not supported"): it cannot carry a feedforward.

This node sits between the producer and the controller, near the
controller (same machine): it relays every command from ``commands_in`` to
``commands_out`` and times their arrival on the steady clock. When none
came for ``command_timeout`` s it applies ``on_stale`` (nodes/stale.py):
``ramp`` (the last command ramped linearly to zero over ``stale_duration``
s, published at 50 Hz), ``hold`` (republished for ``stale_duration`` s, then
zero), ``zero`` (one zero command) or ``silent``. A command that arrives
again ends the ramp or hold (a restarted producer takes over). It loads no
model and compiles nothing: it starts in well under a second and has
little that can fail. Commands whose length is not ``size`` (when > 0) or
that hold a value that is not finite are dropped, counted and logged.

Stamped commands (``stamped: true``, what the recipes use): ``commands_in``
is then a ``sensor_msgs/JointState`` whose ``effort`` is the command and whose
``header.stamp`` says when it was computed (``inverse_dynamics_node``'s
``effort_commands`` with ``publish_joint_state: true``). A command older than
``command_timeout`` by this node's clock when it is taken off the queue is
dropped, not relayed, and does not count as a sign of life: a watchdog that
was itself starved of CPU and wakes to a queue of old commands relays none of
them after its ramp (an unstamped relay cannot tell them from fresh ones). A
command stamped more than ``command_timeout`` in the future is dropped too
(the clocks disagree: the log line says by how much). So the producer's and
this node's clocks must agree to well within ``command_timeout`` (one
machine, or chrony/PTP between two; ``use_sim_time`` on both or neither).
With ``joints`` set, the efforts are taken by name in that order (a command
missing one is dropped); else in the message's order.

Both topics are reliable, depth 10 (what ``JointGroupEffortController``'s
subscription and the producers' publishers use). Latency: one extra hop
through DDS (test/test_command_watchdog.py measures it).
"""

import math
import time

import numpy as np
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from ros_dynamics.nodes.common import main_for
from ros_dynamics.nodes.parameters import checked, declare, NON_NEGATIVE, ParameterError
from ros_dynamics.nodes.stale import DURATION_DESCRIPTION, ON_STALE, StalePolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

COMMAND_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)


class CommandWatchdog(Node):
    """Relay effort commands and apply a stale policy when they stop (steady clock)."""

    def __init__(self) -> None:
        """Declare the parameters, the relay and the watchdog thread."""
        super().__init__('command_watchdog')
        self._timeout = declare(
            self, 'command_timeout', 0.1,
            'no command on commands_in for this long (s of steady time, > 0): apply on_stale',
            value_range=NON_NEGATIVE, constraints='> 0')
        self._on_stale = declare(
            self, 'on_stale', 'ramp',
            'when commands stop: ramp (the last command linearly to zero over '
            'stale_duration s, at 50 Hz), hold (the last command republished for '
            'stale_duration s, then zero), zero (one zero command) or silent',
            constraints='one of ' + ', '.join(ON_STALE))
        self._duration = declare(self, 'stale_duration', 0.5, DURATION_DESCRIPTION,
                                 value_range=NON_NEGATIVE)
        self._size = declare(self, 'size', 0,
                             "number of efforts of every command (the controller's joints); "
                             '0: any, else other lengths are dropped', value_range=(0, 10000))
        self._stamped = declare(
            self, 'stamped', False,
            'commands_in is sensor_msgs/JointState (effort, header.stamp): commands older '
            'than command_timeout by the node clock are dropped; false: Float64MultiArray',
            read_only=True)
        self._joints = [j for j in declare(
            self, 'joints', [''],
            'stamped: take the efforts by these names, in this order (a command without one '
            'is dropped); [] or [""]: in the message order', flexible=True, read_only=True)
            if j]
        problem = self._check(self._timeout, self._on_stale)
        if problem:
            raise ParameterError(f'parameter {problem}', self.get_logger().name)
        self.relayed = 0
        self.dropped = 0
        self._output = self.create_publisher(Float64MultiArray, 'commands_out', COMMAND_QOS)
        self._policy = StalePolicy(self, self._send, time.monotonic, lambda: self._timeout,
                                   self._on_stale, self._duration)
        if self._stamped:
            self.create_subscription(JointState, 'commands_in', self._on_stamped, COMMAND_QOS)
        else:
            self.create_subscription(Float64MultiArray, 'commands_in', self._on_command,
                                     COMMAND_QOS)
        self.add_on_set_parameters_callback(self._on_parameters)
        self.get_logger().info(
            f'relaying commands_in ({"stamped" if self._stamped else "unstamped"}) to '
            f'commands_out; after {self._timeout} s without a '
            f'command: on_stale {self._on_stale} (stale_duration {self._duration} s)')

    @staticmethod
    def _check(timeout: float, on_stale: str) -> str:
        if not (math.isfinite(timeout) and timeout > 0.0):
            return f'command_timeout: must be > 0 s, got {timeout}'
        if on_stale not in ON_STALE:
            return f'on_stale: {on_stale!r} is not one of {", ".join(ON_STALE)}'
        return ''

    def _on_parameters(self, parameters) -> SetParametersResult:
        try:   # values as declared (types, ranges): one line naming the parameter
            values = {p.name: checked(self, p.name, p.value) for p in parameters}
        except ParameterError as error:
            return SetParametersResult(successful=False, reason=str(error))
        timeout = float(values.get('command_timeout', self._timeout))
        on_stale = values.get('on_stale', self._on_stale)
        problem = self._check(timeout, on_stale)
        if problem:
            return SetParametersResult(successful=False, reason=problem)
        self._timeout, self._on_stale = timeout, on_stale
        self._duration = float(values.get('stale_duration', self._duration))
        self._size = int(values.get('size', self._size))
        self._policy.policy, self._policy.duration = self._on_stale, self._duration
        return SetParametersResult(successful=True)

    def _send(self, efforts: np.ndarray) -> None:
        """Publish a command of the stale policy (its lock held)."""
        self._output.publish(Float64MultiArray(data=efforts.tolist()))

    def _dropped(self, why: str) -> str:
        """
        Count a dropped command and return its log line.

        Each cause logs from a line of its own: rclpy throttles per call site,
        so one cause does not hide another.
        """
        self.dropped += 1
        return f'dropped a command: {why} ({self.dropped} dropped)'

    def _on_command(self, message: Float64MultiArray) -> None:
        self._relay(np.array(message.data, dtype=float), message)

    def _on_stamped(self, message: JointState) -> None:
        """Relay a stamped command that is not older than command_timeout (node clock)."""
        stamp = message.header.stamp
        age = (self.get_clock().now().nanoseconds
               - (stamp.sec * 1_000_000_000 + stamp.nanosec)) * 1e-9
        if age > self._timeout:
            self.get_logger().warning(self._dropped(
                f'stamped {age:.3f} s ago, older than command_timeout {self._timeout} s'),
                throttle_duration_sec=5.0)
            return
        if age < -self._timeout:
            self.get_logger().warning(self._dropped(
                f'stamped {-age:.3f} s in the future: the clock of its producer is ahead of '
                f'this node clock (or use_sim_time differs between them)'),
                throttle_duration_sec=5.0)
            return
        efforts = message.effort
        if self._joints:
            index = {name: k for k, name in enumerate(message.name)}
            missing = [name for name in self._joints if name not in index]
            if missing or len(message.effort) != len(message.name):
                self.get_logger().warning(self._dropped(
                    f'no effort for {", ".join(missing) or "every name"} (joints '
                    f'{self._joints})'), throttle_duration_sec=5.0)
                return
            efforts = [message.effort[index[name]] for name in self._joints]
        efforts = np.array(efforts, dtype=float)
        self._relay(efforts, Float64MultiArray(data=efforts.tolist()))

    def _relay(self, efforts: np.ndarray, message: Float64MultiArray) -> None:
        if ((self._size and efforts.shape[0] != self._size)
                or not np.isfinite(efforts).all()):
            self.get_logger().warning(self._dropped(
                f'{efforts.shape[0]} values (size {self._size or "any"}, finite values only)'),
                throttle_duration_sec=5.0)
            return
        with self._policy.lock:   # a command and its arrival, as one for the watchdog
            self._output.publish(message)
            self._policy.sent(efforts, time.monotonic())
        self.relayed += 1

    def destroy_node(self) -> None:
        """Stop the watchdog thread, then destroy the node."""
        policy = getattr(self, '_policy', None)
        if policy is not None:
            policy.stop()
        super().destroy_node()


main = main_for(CommandWatchdog)
