"""One robot of a fleet as :class:`~robot_sm.client.fleet.FleetClient` follows it."""

import functools
import threading
from typing import Any, Dict, Iterable, List, Tuple

from rclpy.node import Node
from robot_sm import qos
from robot_sm.contract import (
    COMMAND,
    MUX_COMMAND,
    OPERATION_MODE,
    STATE_INFO,
    STATE_OUTCOME,
    SUITE_NODES,
    WAYPOINTS,
)
from robot_sm_msgs.msg import OperationMode, WaypointArray
from robot_sm_msgs.srv import Command, GetRobotPose
from std_msgs.msg import String

#: The names of the suite's nodes: a namespace where one of them runs is a robot.
SUITE_NODE_NAMES = frozenset(SUITE_NODES)
#: The latched topics followed per robot, by key.
ROBOT_TOPICS = {'state': (String, STATE_INFO), 'outcome': (String, STATE_OUTCOME),
                'mode': (OperationMode, OPERATION_MODE), 'waypoints': (WaypointArray, WAYPOINTS)}
ROBOT_POSE = 'robot_sm/get_robot_pose'


def robot_namespaces(nodes: Iterable[Tuple[str, str]], within: str = '/') -> List[str]:
    """Return the namespaces under ``within`` where a suite node of ``(name, namespace)`` runs."""
    prefix = within.rstrip('/')
    return sorted({namespace for name, namespace in nodes if name in SUITE_NODE_NAMES and (
        not prefix or namespace == prefix or namespace.startswith(prefix + '/'))})


def topic_in(namespace: str, name: str) -> str:
    """Return the full name of ``name`` in ``namespace``."""
    return f"{namespace.rstrip('/')}/{name}"


class FollowedRobot:
    """What the fleet keeps of one robot: its latest latched messages and its clients."""

    def __init__(self, node: Node, namespace: str, changed: threading.Condition) -> None:
        self.namespace = namespace
        self.latest: Dict[str, Any] = dict.fromkeys(ROBOT_TOPICS)
        self._changed = changed
        self.subscriptions = [
            node.create_subscription(msg_type, topic_in(namespace, topic),
                                     functools.partial(self._store, key), qos.STATE)
            for key, (msg_type, topic) in ROBOT_TOPICS.items()]
        self.clients = {
            service: node.create_client(Command, topic_in(namespace, service),
                                        qos_profile=qos.SERVICES)
            for service in (MUX_COMMAND, COMMAND)}
        self.clients.update({
            ROBOT_POSE: node.create_client(GetRobotPose, topic_in(namespace, ROBOT_POSE),
                                           qos_profile=qos.SERVICES)})

    def _store(self, key: str, msg: Any) -> None:
        with self._changed:
            self.latest[key] = msg
            self._changed.notify_all()

    def destroy(self, node: Node) -> None:
        for subscription in self.subscriptions:
            node.destroy_subscription(subscription)
        for client in self.clients.values():
            node.destroy_client(client)
