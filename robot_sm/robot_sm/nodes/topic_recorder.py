"""
topic_recorder: record the suite's topics to an MCAP file that ``ros2 bag play`` and Foxglove open.

Watches the ROS graph and subscribes to every topic of ``topics`` (by default the suite's own,
:data:`SUITE_TOPICS`, relative to the node's namespace) as soon as it has a publisher, with the
type the graph reports and a QoS that matches its publishers (reliable if they all are, transient
local if they all are, so latched topics such as ``map`` are recorded on joining). Messages are
written as they arrive, serialized, with the schema, QoS and type hash rosbag2 stores
(:mod:`robot_sm.recording`). ``robot-sm record`` runs it until Ctrl-C:

    robot-sm --namespace /robot1 record -o run.mcap
    ros2 bag play run.mcap
"""

from datetime import datetime, timezone
import pathlib
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Set

from rclpy.node import Node
from robot_sm.nodes.node_parameters import declare_parameters
from robot_sm.nodes.recorded_topics import found_topic
from robot_sm.nodes.runner import run_node
from robot_sm.parameters import ConfigurationError, Param
from robot_sm.recording.mcap_file import McapTopicFile

#: The suite's topics (README node tables), relative to the suite's namespace; ``/tf``,
#: ``/tf_static`` and ``/diagnostics`` are global.
SUITE_TOPICS = (
    'cmd_vel', 'autonomy/cmd_vel', 'teleoperation/cmd_vel', 'joy', 'wheel_command', 'odom', 'map',
    'joint_states', 'joint_command', 'clicked_point', 'robot_sm/operation_mode',
    'robot_sm/state_info', 'robot_sm/state_outcome', 'robot_sm/waypoints',
    'robot_sm/waypoint_markers', 'robot_sm/exploration_mode', 'robot_sm/exploration_goals',
    'robot_sm/goal_obsolete', 'robot_sm/reverse_mode', 'robot_sm/simple_goal', 'robot_sm/plan',
    'teleop/action', 'teleop/ee_target', 'teleop/execution_state', 'teleop/reset',
    'xr/left/pose', 'xr/right/pose', 'xr/left/joy', 'xr/right/joy', 'robot_ee_pose',
    'robot_base_pose', '/tf', '/tf_static', '/diagnostics',
)

PARAMETERS = [
    Param('output', '', 'MCAP file to write (empty: robot_sm_<UTC time>.mcap here)'),
    Param('topics', [], "topics to record, relative to the namespace (empty: the suite's)",
          kind='str_list'),
    Param('discovery_period', 0.5, 'how often the graph is searched for new topics (s)',
          minimum=0.0, exclusive_minimum=True),
]


def default_output() -> pathlib.Path:
    """Return ``robot_sm_<UTC time>.mcap`` in the current directory."""
    return pathlib.Path(f'robot_sm_{datetime.now(timezone.utc):%Y%m%dT%H%M%SZ}.mcap')


class TopicRecorder(Node):
    """Record topics to an MCAP file as they appear in the graph."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__('topic_recorder', **kwargs)
        config = declare_parameters(self, PARAMETERS)
        self.path = pathlib.Path(config['output'] or default_output())
        namespace = self.get_namespace().rstrip('/')
        wanted = [topic for topic in config['topics'] if topic] or SUITE_TOPICS
        self.topics: Set[str] = {topic if topic.startswith('/') else f'{namespace}/{topic}'
                                 for topic in wanted}
        try:
            self.file = McapTopicFile(open(self.path, 'wb'))
        except OSError as error:
            raise ConfigurationError(f"parameter 'output': cannot write {str(self.path)!r}: "
                                     f'{error.strerror}') from None
        self._recorded: Dict[str, Any] = {}
        self._skipped: Set[str] = set()
        self.create_timer(config['discovery_period'], self.discover)
        self.discover()
        self.get_logger().info(f'recording {len(self.topics)} topics to {self.path}')

    @property
    def counts(self) -> Dict[str, int]:
        """Return the messages written per topic so far."""
        return dict(self.file.counts)

    def discover(self) -> None:
        """Subscribe to wanted topics that have publishers now."""
        for topic, types in self.get_topic_names_and_types():
            if topic not in self.topics or topic in self._recorded or topic in self._skipped:
                continue
            type_name = types[0]
            try:
                found = found_topic(self, topic, type_name)
            except (ImportError, AttributeError, LookupError, ValueError) as error:
                self._skipped.add(topic)
                self.get_logger().warning(f'not recording {topic} ({type_name}): {error}')
                continue
            if found is None:
                continue
            channel = self.file.add_topic(topic, *found.channel)
            self._recorded[topic] = self.create_subscription(
                found.message_class, topic, self._writer(channel), found.qos, raw=True)
            self.get_logger().info(f'subscribed to {topic} ({type_name})')

    def _writer(self, channel: int) -> Callable[[bytes], None]:
        def write(data: bytes) -> None:
            self.file.write(channel, data, self.get_clock().now().nanoseconds)
        return write

    def close(self) -> None:
        """Finish the file (its summary makes it readable); later messages are dropped."""
        self.file.close()

    def destroy_node(self) -> None:
        """Finish the file, then destroy the node."""
        self.close()
        super().destroy_node()


def summary(counts: Dict[str, int]) -> List[str]:
    """Return one line per recorded topic: its message count."""
    return [f'  {count:>7}  {topic}' for topic, count in sorted(counts.items())]


def record(namespace: str, output: Optional[pathlib.Path], topics: Sequence[str],
           duration: Optional[float]) -> int:
    """
    Record until Ctrl-C (or ``duration`` seconds) and print what was recorded; return exit code.

    Returns 2 with one line on stderr when the output cannot be written.
    """
    import signal
    import threading

    import rclpy
    from rclpy.context import Context
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter

    context = Context()
    rclpy.init(context=context)
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set())
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        overrides = [Parameter('output', value=str(output) if output else ''),
                     Parameter('topics', Parameter.Type.STRING_ARRAY, list(topics))]
        try:
            recorder = TopicRecorder(context=context, namespace=namespace or '/',
                                     parameter_overrides=overrides)
        except ConfigurationError as error:
            print(f'robot-sm record: {error}', file=sys.stderr)
            return 2
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(recorder)
        print(f'robot-sm record: recording to {recorder.path} (Ctrl-C to stop)', flush=True)
        thread = threading.Thread(target=executor.spin, daemon=True)
        thread.start()
        stop.wait(duration)
        executor.shutdown(timeout_sec=2.0)
        thread.join(timeout=5.0)
        counts = recorder.counts
        recorder.destroy_node()
        print(f'robot-sm record: {sum(counts.values())} messages on {len(counts)} topics in '
              f'{recorder.path}')
        print('\n'.join(summary(counts)))
        return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        rclpy.try_shutdown(context=context)


def main(args: Optional[List[str]] = None) -> None:
    """Run the topic_recorder node until Ctrl-C."""
    # Its cleanup finishes the file (its summary and index).
    sys.exit(run_node(TopicRecorder, args, cleanup_limit=30.0))


if __name__ == '__main__':
    main()
