# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0


"""
Payloads at runtime, ROS-style: a ``~/set_payload`` service and a ``~/payload`` topic.

Both take a link and a ``geometry_msgs/Inertia`` (m in kg, com in m in the
link frame, the inertia tensor in kg m^2 about com in the link's axes; a
zero tensor is a point mass):

* ``~/set_payload`` (``SetPayload``): an empty link removes every payload,
  m = 0 removes the link's; a bad payload (negative mass, an inertia that is
  not physically consistent, an unknown link) gets ``success: false`` naming
  the problem and changes nothing;
* ``~/payload`` (``geometry_msgs/InertiaStamped``, ``header.frame_id`` the
  link): the same, for drivers that publish their payload; a bad one is
  logged and ignored. Private, so that a simulated plant and the controller
  of ``make run`` (``/simulator/payload``, ``/inverse_dynamics/payload``)
  are told apart. The former relative name ``payload`` still works, with a
  deprecation warning: once a second (steady clock) the node looks for a
  publisher on it and subscribes when one appears (so no ``payload`` topic
  exists while nobody uses it; a message published before that
  subscription matched is lost, as for any volatile topic).

The change applies to the node's model (RobotModel.set_payload: the next
computation sees it, atomically) and to every model the node loads later,
and is logged (INFO) with where it came from.
"""

from typing import Callable, Optional

from geometry_msgs.msg import Inertia, InertiaStamped
import numpy as np
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from ros_dynamics.nodes.common import ModelSource
from ros_dynamics.srv import SetPayload


def payload_from(inertia: Inertia) -> tuple:
    """Return (mass, com, inertia 3x3) from a geometry_msgs/Inertia."""
    com = (inertia.com.x, inertia.com.y, inertia.com.z)
    tensor = np.array([[inertia.ixx, inertia.ixy, inertia.ixz],
                       [inertia.ixy, inertia.iyy, inertia.iyz],
                       [inertia.ixz, inertia.iyz, inertia.izz]])
    return float(inertia.m), com, (None if not tensor.any() else tensor)


class PayloadInterface:
    """The ``~/set_payload`` service and the ``~/payload`` topic of one node."""

    def __init__(self, node: Node, models: ModelSource,
                 on_change: Optional[Callable[[], None]] = None) -> None:
        """Create the service and the subscription; ``on_change`` runs after each change."""
        self._node, self._models, self._on_change = node, models, on_change
        node.create_service(SetPayload, '~/set_payload', self._on_service)
        self._topic = node.create_subscription(InertiaStamped, '~/payload', self._on_topic,
                                               10).topic_name
        self._legacy = node.resolve_topic_name('payload')
        self._legacy_watch = node.create_timer(1.0, self._watch_legacy,
                                               clock=Clock(clock_type=ClockType.STEADY_TIME))

    def _watch_legacy(self) -> None:
        """Subscribe to the deprecated ``payload`` once it has a publisher (see the docstring)."""
        if self._node.count_publishers(self._legacy) == 0:
            return
        self._legacy_watch.cancel()
        self._node.create_subscription(InertiaStamped, 'payload', self._on_legacy, 10)
        self._node.get_logger().warning(
            f'the payload topic {self._legacy} is deprecated: publish on {self._topic} '
            '(this node takes both)')

    def apply(self, link: str, inertia: Inertia, source: str = 'apply') -> str:
        """
        Attach ``inertia`` to ``link`` as the service does; return what was done.

        Raises ValueError (bad payload, unknown link: nothing changed) or
        RuntimeError (no model yet). The change is logged with ``source``.
        """
        return self._apply(link, inertia, source)

    def _apply(self, link: str, inertia: Inertia, source: str) -> str:
        message = self._models.set_payload(link, *payload_from(inertia))
        if self._on_change is not None:
            self._on_change()
        self._node.get_logger().info(f'{message} (from {source})')
        return message

    def _on_service(self, request, response):
        try:
            response.message = self._apply(request.link, request.inertia,
                                           self._node.resolve_service_name('~/set_payload'))
            response.success = True
        except (ValueError, RuntimeError) as error:
            response.success, response.message = False, str(error)
        return response

    def _on_topic(self, message: InertiaStamped, topic: str = '') -> None:
        topic = topic or self._topic
        try:
            self._apply(message.header.frame_id, message.inertia, topic)
        except (ValueError, RuntimeError) as error:
            self._node.get_logger().error(f'payload topic {topic}: {error}; ignored',
                                          throttle_duration_sec=5.0)

    def _on_legacy(self, message: InertiaStamped) -> None:
        self._on_topic(message, self._legacy)
