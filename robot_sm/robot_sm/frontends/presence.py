"""
Operator presence on a node: the heartbeat an operator front-end publishes while it is open.

While an operator station (``robot-sm connect``, the rqt control panel, a script) is connected it
publishes ``std_msgs/Bool`` ``data: false`` on ``robot_sm/operator_heartbeat`` at
:data:`HEARTBEAT_RATE`, best effort and volatile (:data:`robot_sm.qos.HEARTBEAT`: a lost beat is
covered by the next, and a beat is never replayed to a late subscriber). With
``config/remote.yaml`` the robot's mux watches that topic: silence for ``heartbeat_timeout``
engages its latched e-stop. The mux answers every beat on ``robot_sm/operator_present``
(transient_local), which :class:`OperatorPresence` follows to tell the operator whether the
robot hears them (see :mod:`robot_sm.frontends.presence_monitor`).
"""

import threading
import time
from typing import Any, List, Optional

from rclpy.node import Node
from robot_sm import qos
from robot_sm.contract import OPERATOR_PRESENT
from robot_sm.frontends.presence_monitor import PresenceMonitor, PresenceReport
from robot_sm_msgs.msg import OperationMode
from std_msgs.msg import Bool

#: The topic operator stations publish their heartbeat on (the mux's ``heartbeat_topic`` in
#: ``config/remote.yaml``).
HEARTBEAT_TOPIC = 'robot_sm/operator_heartbeat'
#: Beats per second: five per ``heartbeat_timeout`` of ``config/remote.yaml`` (0.5 s).
HEARTBEAT_RATE = 10.0
#: Without an answer from the robot for this long, the operator is shown the link as lost.
LINK_TIMEOUT = 1.0
#: Heartbeat rates an operator may choose (Hz).
RATE_LIMITS = (1.0, 100.0)


class OperatorPresence:
    """Publish the operator heartbeat from ``node`` and follow the robot's answers."""

    def __init__(self, node: Node, rate: Optional[float] = HEARTBEAT_RATE,
                 link_timeout: float = LINK_TIMEOUT) -> None:
        """
        Start beating at ``rate`` Hz on a timer of ``node``.

        With ``rate`` None no timer is made and the caller calls :meth:`beat` itself: the rqt
        panel beats from its GUI thread, so that a frozen panel stops the robot too.
        """
        low, high = RATE_LIMITS
        if rate is not None and not low <= rate <= high:
            raise ValueError(f'heartbeat rate must be within {low:g}..{high:g} Hz (got {rate})')
        self.node = node
        self.rate = rate
        self._lock = threading.Lock()
        self._monitor = PresenceMonitor(link_timeout)
        self._robot_seen = False
        self._alive = Bool(data=False)
        self._publisher = node.create_publisher(Bool, HEARTBEAT_TOPIC, qos.HEARTBEAT)
        self._subscriptions: List[Any] = [
            node.create_subscription(Bool, OPERATOR_PRESENT, self._on_answer, qos.STATE),
            node.create_subscription(OperationMode, 'robot_sm/operation_mode',
                                     self._on_operation_mode, qos.STATE),
        ]
        self._timer = None if rate is None else node.create_timer(1.0 / rate, self.beat)

    @property
    def heartbeat_topic(self) -> str:
        """Return the heartbeat's full topic name."""
        return self._publisher.topic_name

    def beat(self) -> None:
        """Publish one heartbeat."""
        self._publisher.publish(self._alive)

    def _on_answer(self, msg: Bool) -> None:
        with self._lock:
            self._monitor.answer(bool(msg.data), time.monotonic())

    def _on_operation_mode(self, _: OperationMode) -> None:
        self._robot_seen = True

    def report(self) -> PresenceReport:
        """Return whether the robot hears this operator now, with a line saying it."""
        watched = True
        if self._robot_seen:
            answers = self.node.resolve_topic_name(OPERATOR_PRESENT)
            watched = self.node.count_publishers(answers) > 0
        with self._lock:
            return self._monitor.report(time.monotonic(), watched)

    def close(self) -> None:
        """Stop beating and following the answers (the robot then stops, if it watches)."""
        if self._timer is not None:
            self.node.destroy_timer(self._timer)
            self._timer = None
        for subscription in self._subscriptions:
            self.node.destroy_subscription(subscription)
        self._subscriptions = []
        self.node.destroy_publisher(self._publisher)
