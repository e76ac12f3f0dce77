"""
incident_recorder: keep the last seconds of the suite's topics, and write them when it stops.

Always on, in a process of its own (a crash of the recorder never touches the mux). It watches
the graph and subscribes to the suite's topics in its namespace (:data:`INCIDENT_TOPICS`, or the
``topics`` parameter) as they appear, with their publishers' QoS, and keeps every message,
serialized, in a ring buffer (:class:`robot_sm.recording.ring.MessageRing`: ``buffer_seconds``
within ``buffer_mib``; ``low_rate_topics`` such as the map and scans at most once per
``low_rate_period``). It follows what the suite says (the e-stop's cause, ``robot_sm/state``,
the operator's presence, the mode, the input that drives, the supervisor heartbeat, teleop's
execution state, odometry, ``cmd_vel`` and the audit log) with
:class:`robot_sm.recording.incidents.IncidentDetector`. An incident writes the ring as it was at
the trigger plus the ``after_seconds`` that follow as ``incident-000N.mcap`` in ``directory``,
with a record ``incident-000N.json`` (the cause in the suite's words, the operator involved, the
stop's figures), on a thread of its own, and keeps the folder within ``disk_budget_mib`` (the
oldest go first, each one logged). ``robot_sm/snapshot`` (std_srvs/Trigger) captures one by hand.
``robot-sm incidents`` lists and shows them.
"""

import sys
import time
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from rclpy.node import Node
from rclpy.serialization import deserialize_message
from robot_sm import qos
from robot_sm.nodes.node_parameters import declare_parameters
from robot_sm.nodes.recorded_topics import found_topic
from robot_sm.nodes.runner import run_node
from robot_sm.parameters import config_from, ConfigurationError, Param
from robot_sm.recording.figures import OdometrySample
from robot_sm.recording.incident_files import Channel, IncidentFolder, IncidentWriter, MIB
from robot_sm.recording.incidents import (
    Incident, IncidentDetector, KIND_LABELS, LATCHED_AT_START, RECORDER_PARAMETERS,
    RecorderSettings)
from robot_sm.recording.ring import Entry, MessageRing
from robot_sm.storage import default_file
from std_srvs.srv import Trigger

#: The suite's topics the recorder keeps, relative to its namespace (``/tf_static`` and
#: ``/diagnostics`` are global): the base's commands and the mux's inputs, odometry, the mode,
#: the state, the e-stop and its cause, the heartbeats, the plan, teleop's state and joint
#: commands, the map and scans. Not the streams that repeat these at high rates (``/tf``,
#: ``wheel_command``, ``joint_states``, ``teleop/action``): each message costs the recorder's
#: executor its share of a core (``bench/bench_recorder.py``); ``topics`` names others.
INCIDENT_TOPICS = (
    'cmd_vel', 'autonomy/cmd_vel', 'teleoperation/cmd_vel', 'robot_sm/operator_cmd_vel', 'joy',
    'odom', 'map', 'scan', 'joint_command', 'robot_sm/operation_mode',
    'robot_sm/selected_input', 'robot_sm/emergency_stop_cause', 'robot_sm/operator_present',
    'robot_sm/operator_heartbeat', 'robot_sm/supervisor_heartbeat', 'robot_sm/state',
    'robot_sm/state_info', 'robot_sm/state_outcome', 'robot_sm/control', 'robot_sm/audit',
    'robot_sm/waypoints', 'robot_sm/simple_goal', 'robot_sm/reverse_mode', 'robot_sm/plan',
    'teleop/execution_state', '/tf_static', '/diagnostics',
)
#: The service that captures an incident by hand.
SNAPSHOT = 'robot_sm/snapshot'
#: Seconds between two looks at the time: incidents due, the stale input's settling.
TICK = 0.1


def parameters(namespace: str = '/') -> List[Param]:
    """Return the node's parameter specifications; the folder's default follows the namespace."""
    return [
        *RECORDER_PARAMETERS,
        Param('directory', default_file(namespace, 'incidents'),
              'Folder the incidents are written to (incident-000N.mcap and .json)'),
        Param('topics', [], "Topics to keep, relative to the namespace (empty: the suite's)",
              kind='str_list'),
        Param('low_rate_topics', ['map', 'scan'], 'Topics kept at most once per '
              'low_rate_period (relative to the namespace)', kind='str_list'),
        Param('low_rate_period', 1.0, 'Seconds between two messages kept of a low_rate_topic; '
              '0: every one', minimum=0.0, maximum=60.0),
        Param('discovery_period', 1.0, 'How often the graph is searched for new topics (s)',
              minimum=0.01, maximum=60.0),
    ]


class IncidentRecorder(Node):
    """The ring buffer of the suite's topics and the incidents written from it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__('incident_recorder', **kwargs)
        config = declare_parameters(self, parameters(self.get_namespace()))
        self.settings = config_from(RecorderSettings, config)
        if self.settings.disk_budget_mib < self.settings.buffer_mib:
            raise ConfigurationError(
                f"parameter 'disk_budget_mib' must be at least buffer_mib "
                f'({self.settings.buffer_mib:g}): one incident must fit (got '
                f'{self.settings.disk_budget_mib:g})')
        self.folder = IncidentFolder(config['directory'])
        try:
            self.folder.path.mkdir(parents=True, exist_ok=True)
            self.folder.remove_unfinished()
        except OSError as error:
            raise ConfigurationError(f"parameter 'directory': cannot use {config['directory']!r}"
                                     f': {error.strerror}') from None
        namespace = self.get_namespace().rstrip('/')
        self._prefix = namespace + '/'
        wanted = [topic for topic in config['topics'] if topic] or INCIDENT_TOPICS
        self.topics: Set[str] = {self._full(topic) for topic in wanted}
        low = {self._full(topic): config['low_rate_period'] for topic in config['low_rate_topics']}
        self.ring = MessageRing(self.settings.buffer_seconds, int(self.settings.buffer_mib * MIB),
                                low)
        records = self.folder.records()
        latched = [r.cause for r in records if r.cause.startswith(LATCHED_AT_START)]
        self.detector = IncidentDetector(self.settings, self.folder.next_id(),
                                         latched[-1] if latched else '')
        self.writer = IncidentWriter(self.folder, int(self.settings.disk_budget_mib * MIB),
                                     self._report)
        self.writer.enforce()
        self.channels: Dict[str, Channel] = {}
        self._kept: Dict[str, Any] = {}
        self._skipped: Set[str] = set()
        #: Per incident open: the ring's messages at its trigger, the newest one's time, and
        #: where the ring's window began (ns).
        self._pinned: Dict[int, Tuple[List[Entry], int, Optional[int]]] = {}
        self._opened = self.detector.next_id
        self._handlers = self._event_handlers()
        self._ros_clock = self.get_clock()
        self.create_service(Trigger, SNAPSHOT, self._on_snapshot, qos_profile=qos.SERVICES)
        self.create_timer(config['discovery_period'], self.discover)
        self.create_timer(TICK, self._tick)
        self.discover()
        self.get_logger().info(
            f'keeping {self.settings.buffer_seconds:g} s of {len(self.topics)} topics within '
            f'{self.settings.buffer_mib:g} MiB; incidents (and {self.settings.after_seconds:g} s '
            f'after each) go to {self.folder.path}, within {self.settings.disk_budget_mib:g} MiB')

    def _full(self, topic: str) -> str:
        return topic if topic.startswith('/') else self._prefix + topic

    # Topics -----------------------------------------------------------------------------------

    def _event_handlers(self) -> Dict[str, Callable[[Any, float], None]]:
        """Return what the detector is told of each topic it follows, by full topic name."""
        d = self.detector
        handlers: Dict[str, Callable[[Any, float], None]] = {
            'robot_sm/emergency_stop_cause': lambda m, t: d.emergency_stop_cause(m.data, t),
            'robot_sm/state': lambda m, t: d.state_report(
                m.name, m.last_activity_id, m.last_outcome, m.last_outcome_text, t),
            'robot_sm/operator_present': lambda m, t: d.operator_present(bool(m.data), t),
            'robot_sm/operation_mode': lambda m, t: d.operation_mode(
                m.mode, m.emergency_stop, t),
            'robot_sm/selected_input': lambda m, t: d.selected_input(m.data, t),
            'robot_sm/supervisor_heartbeat': lambda m, t: d.supervisor_heartbeat(t),
            'teleop/execution_state': lambda m, t: d.teleop_state(m.state, t),
            'robot_sm/audit': lambda m, t: d.audit(m.kind, m.by.name, m.command, t),
            'odom': self._on_odometry,
            'cmd_vel': self._on_command,
        }
        return {self._full(topic): handler for topic, handler in handlers.items()}

    def discover(self) -> None:
        """Subscribe to the wanted topics that have publishers now; log the new ones."""
        new = []
        for topic, types in self.get_topic_names_and_types():
            if topic not in self.topics or topic in self._kept or topic in self._skipped:
                continue
            try:
                found = found_topic(self, topic, types[0])
            except (ImportError, AttributeError, LookupError, ValueError) as error:
                self._skipped.add(topic)
                self.get_logger().warning(f'not keeping {topic} ({types[0]}): {error}')
                continue
            if found is None:
                continue
            self.channels[topic] = found.channel
            if found.latched:
                self.ring.latch(topic)
            self._kept[topic] = self.create_subscription(
                found.message_class, topic,
                self._receiver(topic, found.message_class),  # type: ignore[arg-type]
                found.qos, raw=True)
            new.append(topic)
        if new:
            self.get_logger().info(f'keeping {len(self._kept)} topics, new: {", ".join(new)}')

    def _receiver(self, topic: str, message_class: Any) -> Callable[[bytes, Any], None]:
        ring, clock, handle = self.ring, self._ros_clock, self._handlers.get(topic)

        last = 0

        def receive(data: bytes, info: Any) -> None:
            nonlocal last
            # When it arrived, not when its turn came: a busy executor takes messages late, and
            # a stop taken after the odometry that followed it would be seen at rest. Never
            # before the topic's last one (the parts of a large message arrive apart).
            received = info.get('received_timestamp', 0) if isinstance(info, dict) else 0
            waited = max(0, time.time_ns() - received) if received > 0 else 0
            stamp = last = max(clock.now().nanoseconds - waited, last)
            ring.add(topic, stamp, data)
            if handle is not None:
                handle(deserialize_message(data, message_class), stamp * 1e-9)
                if self.detector.next_id != self._opened:
                    self._pin_new()
        return receive

    def _on_odometry(self, msg: Any, now: float) -> None:
        twist, position = msg.twist.twist, msg.pose.pose.position
        self.detector.odometry(OdometrySample(
            now, position.x, position.y, (twist.linear.x ** 2 + twist.linear.y ** 2) ** 0.5,
            twist.angular.z))

    def _on_command(self, msg: Any, now: float) -> None:
        twist = getattr(msg, 'twist', msg)   # Twist or TwistStamped
        linear, angular = twist.linear, twist.angular
        self.detector.command(not any((linear.x, linear.y, linear.z, angular.x, angular.y,
                                       angular.z)), now)

    # Incidents --------------------------------------------------------------------------------

    def _pin_new(self) -> None:
        """Keep what the ring holds for each incident just opened: its seconds before."""
        self._opened = self.detector.next_id
        for incident in self.detector.open:
            if incident.id not in self._pinned:
                self._pinned[incident.id] = (
                    self.ring.held() + self.ring.entries(), self.ring.added, self.ring.oldest)
                self.get_logger().warning(
                    f'incident {incident.id}: {KIND_LABELS[incident.kind]}: {incident.cause} '
                    f'(written {self.settings.after_seconds:g} s after it)')

    def _tick(self) -> None:
        now = self._ros_clock.now().nanoseconds
        self.ring.trim(now)
        due = self.detector.tick(now * 1e-9)
        self._pin_new()
        for incident in due:
            self._write(incident)

    def _write(self, incident: Incident) -> None:
        """Hand an incident closed by the detector to the writer, with its messages."""
        pinned, added, start = self._pinned.pop(incident.id, ([], 0, None))
        due = int(incident.due * 1e9)
        after = [entry for entry in self.ring.entries(since=added) if entry.stamp <= due]
        # In the order of their stamps: a message taken late arrived before those taken first.
        entries = sorted(pinned + after, key=lambda entry: entry.stamp)
        self.writer.submit(incident, self.channels, entries, start)

    def _on_snapshot(self, request: Trigger.Request,
                     response: Trigger.Response) -> Trigger.Response:
        now = self._ros_clock.now().nanoseconds * 1e-9
        joined = bool(self.detector.open)
        incident = self.detector.snapshot(now)
        self._pin_new()
        path = self.folder.path / f'incident-{incident.id:04d}.mcap'
        response.success = True
        response.message = (
            f'incident {incident.id}' + (f' (joined: {KIND_LABELS[incident.kind]})' if joined
                                         else '') +
            f': the {self.settings.buffer_seconds:g} s before and {incident.due - now:.1f} s '
            f'after go to {path} (robot-sm incidents show {incident.id})')
        return response

    def _report(self, level: str, message: str) -> None:
        getattr(self.get_logger(), level)(message)

    def destroy_node(self) -> None:
        """Write the incidents still open with what there is, then destroy the node."""
        now = self._ros_clock.now().nanoseconds * 1e-9
        for incident in self.detector.open:
            incident.due = min(incident.due, now)
        for incident in self.detector.tick(now):
            self._write(incident)
        if not self.writer.close(timeout=10.0):
            self.get_logger().error('the last incidents were not written within 10 s')
        super().destroy_node()


def main(args: Optional[List[str]] = None) -> None:
    """Run the incident_recorder node until shutdown."""
    # Its cleanup writes the incidents still open (up to 10 s).
    sys.exit(run_node(IncidentRecorder, args, cleanup_limit=15.0))


if __name__ == '__main__':
    main()
