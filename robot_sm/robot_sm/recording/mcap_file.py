"""
An MCAP file of ROS 2 topics as rosbag2 writes it: ``ros2`` profile, ``ros2msg`` schemas, CDR.

Each topic is a channel with message encoding ``cdr`` and the metadata ``ros2 bag play`` reads:
``offered_qos_profiles`` (the publishers' QoS as rosbag2's YAML, so that latched topics are
replayed latched) and ``topic_type_hash``. Messages are stored as they came off the wire
(serialized CDR), chunked and zstd-compressed.
"""

from typing import Any, BinaryIO, Dict, Mapping, Optional, Sequence

from mcap.writer import CompressionType, Writer

#: How rosbag2 writes an infinite duration (the largest rmw time, split in sec and nsec).
INFINITE = {'sec': 9223372036, 'nsec': 854775807}

QoS = Mapping[str, Any]


def offered_qos_yaml(profiles: Sequence[QoS]) -> str:
    """
    Return ``offered_qos_profiles`` as rosbag2 writes it: a YAML list of QoS mappings.

    Each profile has the integer rmw values of ``history``, ``depth``, ``reliability``,
    ``durability`` and ``liveliness``, durations ``deadline``, ``lifespan`` and
    ``liveliness_lease_duration`` as ``{sec, nsec}`` (missing: infinite) and
    ``avoid_ros_namespace_conventions``.
    """
    lines = []
    for profile in profiles:
        lines.append(f"- history: {int(profile.get('history', 1))}")
        for key in ('depth', 'reliability', 'durability'):
            lines.append(f'  {key}: {int(profile.get(key, 0))}')
        for key in ('deadline', 'lifespan'):
            duration = profile.get(key) or INFINITE
            lines += [f'  {key}:', f"    sec: {int(duration['sec'])}",
                      f"    nsec: {int(duration['nsec'])}"]
        lines.append(f"  liveliness: {int(profile.get('liveliness', 1))}")
        lease = profile.get('liveliness_lease_duration') or INFINITE
        lines += ['  liveliness_lease_duration:', f"    sec: {int(lease['sec'])}",
                  f"    nsec: {int(lease['nsec'])}"]
        avoid = 'true' if profile.get('avoid_ros_namespace_conventions') else 'false'
        lines.append(f'  avoid_ros_namespace_conventions: {avoid}')
    return '\n'.join(lines) + '\n' if lines else ''


class McapTopicFile:
    """Serialized messages of ROS 2 topics, written to one MCAP file until :meth:`close`."""

    def __init__(self, stream: BinaryIO, library: str = 'robot_sm') -> None:
        """Start an MCAP file on the open binary ``stream`` (closed with the file)."""
        self._stream = stream
        self._writer = Writer(stream, compression=CompressionType.ZSTD)
        self._writer.start(profile='ros2', library=library)
        self._schemas: Dict[str, int] = {}
        self._sequence: Dict[int, int] = {}
        #: Messages written per topic.
        self.counts: Dict[str, int] = {}
        self._topics: Dict[int, str] = {}
        self._closed = False

    def add_topic(self, topic: str, type_name: str, definition: str,
                  offered_qos: str = '', type_hash: str = '') -> int:
        """Register ``topic`` of ``type_name`` (``package/msg/Type``); return its channel id."""
        schema = self._schemas.get(type_name)
        if schema is None:
            schema = self._writer.register_schema(type_name, 'ros2msg', definition.encode())
            self._schemas[type_name] = schema
        metadata = {'offered_qos_profiles': offered_qos}
        if type_hash:
            metadata['topic_type_hash'] = type_hash
        channel = self._writer.register_channel(topic, 'cdr', schema, metadata)
        self._sequence[channel] = 0
        self._topics[channel] = topic
        self.counts[topic] = 0
        return channel

    def write(self, channel: int, data: bytes, log_time: int,
              publish_time: Optional[int] = None) -> None:
        """Write one serialized message; times in nanoseconds (``publish_time``: ``log_time``)."""
        if self._closed:
            return
        self._writer.add_message(channel, log_time, data,
                                 log_time if publish_time is None else publish_time,
                                 self._sequence[channel])
        self._sequence[channel] += 1
        self.counts[self._topics[channel]] += 1

    def close(self) -> None:
        """Write the summary and close the stream; later writes are ignored."""
        if not self._closed:
            self._closed = True
            self._writer.finish()
            self._stream.close()
