"""
The event timeline's sources on one robot's bridge, turned into events.

The audit log, the suite's log lines, the typed state and the mux's e-stop become the events of
:mod:`~robot_sm.frontends.web.events`. The audit log (``robot_sm/audit``) and ``/rosout`` are
followed here; the bridge hands on the state, the mode and the e-stop reasons it follows anyway. A
log line counts as the suite's when its node runs in the robot's namespace (the console's own node
aside): the nodes found there, and those found earlier (a node's last words before it ended).
Callbacks come from the client's executor and the bridge's poll thread; a lock keeps them apart.
"""

import threading
import time
from typing import Any, Callable, List, Set

from rcl_interfaces.msg import Log
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from robot_sm import qos
from robot_sm.contract import AUDIT
from robot_sm.frontends.web.events import (
    audit_event,
    EstopEvents,
    Event,
    log_event,
    StateEvents,
)
from robot_sm_msgs.msg import AuditEntry

#: /rosout as rcl publishes it (transient local, a few seconds kept): the recent lines too.
ROSOUT = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=100,
                    reliability=ReliabilityPolicy.RELIABLE,
                    durability=DurabilityPolicy.TRANSIENT_LOCAL)


class EventFeed:
    """What happens on one robot, handed on as events to ``sink``."""

    def __init__(self, node: Node, namespace: str, sink: Callable[[Event], None]) -> None:
        """Follow the robot in ``namespace`` from ``node``; give each event to ``sink``."""
        self._node = node
        self._namespace = namespace
        self._sink = sink
        self._lock = threading.Lock()
        self._states = StateEvents()
        self._estop = EstopEvents()
        self._nodes: Set[str] = set()
        node.create_subscription(Log, '/rosout', self._on_log, ROSOUT)
        node.create_subscription(AuditEntry, AUDIT, self._on_audit, qos.RECORDS)

    def _hand_on(self, events: List[Event]) -> None:
        for found in events:
            self._sink(found)

    def state(self, view: Any) -> None:
        """Take the typed state, as ``views.state_view`` gives it."""
        with self._lock:
            self._hand_on(self._states.take(view, time.time()))

    def emergency_stop(self, engaged: bool) -> None:
        """Take the mux's e-stop flag."""
        with self._lock:
            self._hand_on(self._estop.mode(engaged, time.time()))

    def reason(self, reason: str) -> None:
        """Take the e-stop reason of the mux's diagnostics ('' while released)."""
        with self._lock:
            self._hand_on(self._estop.reason(reason, time.time()))

    def poll(self) -> None:
        """Hand on an engagement whose cause did not come in time."""
        with self._lock:
            self._hand_on(self._estop.due(time.time()))

    def _is_suite_node(self, name: str) -> bool:
        if name == self._node.get_name():
            return False
        if name not in self._nodes:
            self._nodes |= {found for found, namespace in
                            self._node.get_node_names_and_namespaces()
                            if namespace == self._namespace}
        return name in self._nodes

    def _on_log(self, msg: Log) -> None:
        if msg.level < 30:  # rcl_interfaces/Log WARN: nothing below it is looked at
            return
        found = log_event(msg, self._namespace, self._is_suite_node, time.time())
        if found is not None:
            with self._lock:
                self._sink(found)

    def _on_audit(self, msg: AuditEntry) -> None:
        with self._lock:
            self._sink(audit_event(msg, time.time()))
