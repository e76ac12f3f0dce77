"""
How the recorders subscribe to a topic they found in the graph, and what they store of it.

:func:`found_topic` looks at a topic's publishers: its type (as the graph reports it), the
``ros2msg`` schema rosbag2 stores, the publishers' QoS as rosbag2's ``offered_qos_profiles``, the
type hash, and a subscription QoS that matches them all (reliable if they all are, transient local
if they all are, so that latched topics are received on joining). ``topic_recorder`` and
``incident_recorder`` subscribe with it.
"""

import importlib
import pathlib
from typing import Any, Dict, NamedTuple, Optional

from rclpy.duration import Duration
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from robot_sm.recording.incident_files import Channel
from robot_sm.recording.mcap_file import INFINITE, offered_qos_yaml
from robot_sm.recording.msgdef import message_definition


def read_msg(package: str, name: str) -> str:
    """Return the installed ``.msg`` text of ``package/Type``; LookupError if there is none."""
    from ament_index_python.packages import get_package_share_directory
    path = pathlib.Path(get_package_share_directory(package)) / 'msg' / f'{name}.msg'
    try:
        return path.read_text(encoding='utf-8')
    except OSError:
        raise LookupError(f'{package}/msg/{name}.msg is not installed') from None


def message_class(type_name: str) -> Any:
    """Return the message class of ``package/msg/Type``."""
    package, _, name = type_name.split('/')
    return getattr(importlib.import_module(f'{package}.msg'), name)


def _duration(value: Duration) -> Dict[str, int]:
    nanoseconds = value.nanoseconds
    if nanoseconds >= INFINITE['sec'] * 10**9 + INFINITE['nsec'] or nanoseconds < 0:
        return dict(INFINITE)
    return {'sec': nanoseconds // 10**9, 'nsec': nanoseconds % 10**9}


def qos_mapping(profile: QoSProfile) -> Dict[str, Any]:
    """Return a QoS profile as the mapping :func:`offered_qos_yaml` writes."""
    return {'history': int(profile.history), 'depth': profile.depth,
            'reliability': int(profile.reliability), 'durability': int(profile.durability),
            'deadline': _duration(profile.deadline), 'lifespan': _duration(profile.lifespan),
            'liveliness': int(profile.liveliness),
            'liveliness_lease_duration': _duration(profile.liveliness_lease_duration),
            'avoid_ros_namespace_conventions': profile.avoid_ros_namespace_conventions}


class FoundTopic(NamedTuple):
    """A topic with publishers: what to store of it and how to subscribe to it."""

    channel: Channel
    message_class: Any
    qos: QoSProfile
    #: Whether every publisher is transient local (the topic is published on change).
    latched: bool


def found_topic(node: Node, topic: str, type_name: str, depth: int = 100) -> Optional[FoundTopic]:
    """
    Return how to record ``topic`` of ``type_name``, or None while it has no publisher.

    :raises ImportError, AttributeError, LookupError, ValueError: if the type cannot be recorded
        (its module or ``.msg`` file is not installed).
    """
    publishers = node.get_publishers_info_by_topic(topic)
    if not publishers:
        return None
    cls = message_class(type_name)
    channel = Channel(type_name, message_definition(type_name, read_msg),
                      offered_qos_yaml([qos_mapping(info.qos_profile) for info in publishers]),
                      str(publishers[0].topic_type_hash))
    reliable = all(info.qos_profile.reliability == ReliabilityPolicy.RELIABLE
                   for info in publishers)
    latched = all(info.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL
                  for info in publishers)
    qos = QoSProfile(
        depth=depth,
        reliability=ReliabilityPolicy.RELIABLE if reliable else ReliabilityPolicy.BEST_EFFORT,
        durability=DurabilityPolicy.TRANSIENT_LOCAL if latched else DurabilityPolicy.VOLATILE)
    return FoundTopic(channel, cls, qos, latched)
