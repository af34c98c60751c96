# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Managed (lifecycle) torque-stream nodes: what each transition does, and ``autostart``.

A node class mixes ``ManagedStream`` in before ``rclpy.lifecycle.LifecycleNode``
and provides two public hooks:

* ``configure_stream()``: load and check the model, create the services,
  topics and the stale policy (what the constructor of an unmanaged node
  does); it raises (``ParameterError`` and the like) when the node cannot
  do its job;
* ``release_stream(reason)``: apply the stale policy (``on_stale``,
  nodes/stale.py) to the last command sent, as if the input had gone stale.

The transitions (REP 2006 / the ROS 2 managed-nodes design; rclpy.lifecycle
serves ``~/change_state``, ``~/get_state``, ``~/get_available_transitions``
and publishes ``~/transition_event``, so a launch file or a supervisor such
as nav2's lifecycle_manager sees and drives the state):

* configure: ``configure_stream()``; a failure is logged in one line and the
  node stays unconfigured (FAILURE); it cannot be configured again (restart
  it with the fixed parameters);
* activate: the stream answers joint states (``stream_active`` true);
* deactivate, shutdown, and error processing: the stream stops answering and
  the stale policy is applied (a ramp or hold goes on to its end);
* cleanup: refused (FAILURE, the node stays inactive): the services and
  topics live until the process ends.

Inactive, the services answer (the model is loaded); only the stream is
stopped. ``autostart`` (read-only, default true) configures and activates
the node in its constructor, so ``ros2 run`` and ``make run`` behave as an
unmanaged node; a configure that fails then raises ``ParameterError`` (one
``[ERROR]`` line and exit status 1 through ``process.main_for``).
"""

from rclpy.lifecycle import LifecycleState, TransitionCallbackReturn
from ros_dynamics.nodes.parameters import declare, ParameterError

AUTOSTART_DESCRIPTION = ('configure and activate at start-up (true: as an unmanaged node); '
                         'false: wait in the unconfigured state for ~/change_state (a launch '
                         "file's or nav2 lifecycle_manager's transitions)")


class ManagedStream:
    """Lifecycle transitions of a node streaming torques (mixed in before LifecycleNode)."""

    stream_active = False   # the stream answers joint states only while active
    configure_error = ''    # why the last configure failed
    _configure_attempted = False
    _autostarting = False

    def start_managed(self) -> None:
        """Declare ``autostart``; when true configure and activate now (ParameterError if not)."""
        autostart = declare(self, 'autostart', True, AUTOSTART_DESCRIPTION, read_only=True)
        if not autostart:
            self.get_logger().info('autostart false: unconfigured, waiting for ~/change_state')
            return
        self._autostarting = True
        try:
            if self.trigger_configure() != TransitionCallbackReturn.SUCCESS:
                raise ParameterError(self.configure_error or 'configure failed',
                                     self.get_logger().name)
            if self.trigger_activate() != TransitionCallbackReturn.SUCCESS:
                raise ParameterError('activate failed', self.get_logger().name)
        finally:
            self._autostarting = False

    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Load and check the model, create the interfaces (once per process)."""
        if self._configure_attempted:
            self.configure_error = ('configure was attempted once and failed: restart the node '
                                    'with the fixed parameters')
            self.get_logger().error(self.configure_error)
            return TransitionCallbackReturn.FAILURE
        self._configure_attempted = True
        try:
            self.configure_stream()
        except Exception as error:  # noqa: B902 - any failure is FAILURE, in one line
            self.configure_error = str(error).splitlines()[0]
            if not self._autostarting:   # at start-up main_for logs it, once
                self.get_logger().error(f'configure failed: {self.configure_error}')
            return TransitionCallbackReturn.FAILURE
        self.configure_error = ''
        return TransitionCallbackReturn.SUCCESS

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Start answering joint states."""
        self.stream_active = True
        self.get_logger().info('active: streaming')
        return TransitionCallbackReturn.SUCCESS

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Stop the stream and apply the stale policy to the last command."""
        self._stop_stream('deactivated')
        return TransitionCallbackReturn.SUCCESS

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Refuse: the interfaces live until the process ends."""
        self.get_logger().warning('cleanup is not supported: the node stays inactive (restart '
                                  'it to load another configuration)')
        return TransitionCallbackReturn.FAILURE

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Stop the stream and apply the stale policy."""
        self._stop_stream('shutting down')
        return TransitionCallbackReturn.SUCCESS

    def on_error(self, state: LifecycleState) -> TransitionCallbackReturn:
        """Stop the stream and apply the stale policy; the node is finalized."""
        self._stop_stream(f'error in state {state.label}')
        return TransitionCallbackReturn.FAILURE

    def _stop_stream(self, reason: str) -> None:
        was_active, self.stream_active = self.stream_active, False
        if was_active:
            self.release_stream(reason)
