"""
Every stamped message the suite publishes carries ROS time, as RViz, tf2 and Foxglove expect.

The suite explores the office world with the simulated robot while a probe subscribes to every
topic in the test's namespace whose type has a header stamp (found in the graph, again and again,
as topics appear). Every stamp received must lie within a second of the ROS clock over the run:
the system clock in real time, ``/clock`` with ``use_sim_time``. The monotonic clock used for
timeouts counts from the computer's start (1970 plus its uptime) and fails at once.
"""

import importlib
import time
from typing import Any, Dict, Iterator, List, Tuple

from operator_suite import StartSuite
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from robot_sm.bringup.parameter_files import shipped_parameter_files
from robot_sm.bringup.suite_nodes import SIMULATION, SUITE
from robot_sm.testing import RosHarness, wait_until
from rosgraph_msgs.msg import Clock

#: A subscription every publisher of the suite matches (best effort, volatile): live messages.
ANY_PUBLISHER = QoSProfile(depth=100, reliability=ReliabilityPolicy.BEST_EFFORT,
                           durability=DurabilityPolicy.VOLATILE)
#: Topics the run must have seen live: the planner's path and the exploration goals.
MUST_SEE = ('robot_sm/plan', 'robot_sm/exploration_goals')


def stamps(msg: Any) -> Iterator[float]:
    """Yield every ``stamp`` (builtin_interfaces/Time) in ``msg``, its nested messages included."""
    for name, kind in msg.get_fields_and_field_types().items():
        value = getattr(msg, name)
        if kind == 'builtin_interfaces/Time':
            if name == 'stamp':
                yield value.sec + value.nanosec * 1e-9
        elif kind.startswith('sequence<') and '/' in kind:
            for item in value:
                yield from stamps(item)
        elif '/' in kind and hasattr(value, 'get_fields_and_field_types'):
            yield from stamps(value)


def has_stamp(msg_type: Any) -> bool:
    return any(True for _ in stamps(msg_type()))


def message_class(type_name: str) -> Any:
    package, kind, name = type_name.split('/')
    module = importlib.import_module(f'{package}.{kind}')
    if kind == 'action' and not hasattr(module, name):  # an action's own topic's type
        action, _, part = name.partition('_')
        return getattr(getattr(module, action).Impl, part)
    return getattr(module, name)


class StampProbe:
    """Subscribe to every stamped topic of the namespace; keep (topic, ROS time, stamp)."""

    def __init__(self, ros: RosHarness, ros_time: Any) -> None:
        self._ros = ros
        self._ros_time = ros_time
        self.received: List[Tuple[str, float, float]] = []
        self._subscribed: Dict[str, Any] = {}

    def discover(self) -> None:
        probe = self._ros.probe
        for topic, types in probe.get_topic_names_and_types():
            if not topic.startswith(self._ros.namespace + '/') or topic in self._subscribed:
                continue
            msg_type = message_class(types[0])
            if not has_stamp(msg_type):
                self._subscribed[topic] = None
                continue
            self._subscribed[topic] = probe.create_subscription(
                msg_type, topic, lambda msg, topic=topic: self._take(topic, msg), ANY_PUBLISHER)

    def _take(self, topic: str, msg: Any) -> None:
        now = self._ros_time()
        self.received.extend((topic, now, stamp) for stamp in stamps(msg))

    def topics(self) -> List[str]:
        return sorted({topic for topic, _, _ in self.received})


def explore_and_check(ros: RosHarness, start_suite: StartSuite, sim_time: bool) -> None:
    clock: List[float] = []
    if sim_time:
        ros.probe.create_subscription(Clock, 'clock', lambda msg: clock.append(
            msg.clock.sec + msg.clock.nanosec * 1e-9), 10)

        def ros_time() -> float:
            return clock[-1] if clock else float('nan')
    else:
        def ros_time() -> float:
            return ros.probe.get_clock().now().nanoseconds * 1e-9
    parameters: Dict[str, Dict[str, Any]] = {
        spec.executable: {'use_sim_time': sim_time} for spec in SUITE + SIMULATION}
    parameters['state_interface'].update(calculate_goal_plugin='CalculateGoal',
                                         mapping_plugin='MappingDummy')
    parameters['robot_sim'] = {'publish_clock': sim_time, 'reveal_map': True, 'start_x': 0.5,
                               'start_y': 0.5, 'start_yaw': 0.0}
    started = time.time()
    suite = start_suite(world='maze', parameter_files=shipped_parameter_files(sim=True),
                        parameters=parameters)
    assert not sim_time or wait_until(lambda: bool(clock), timeout=10.0), 'no /clock'
    began = ros_time()
    probe = StampProbe(ros, ros_time)
    assert suite.client.set_mode('autonomy').success
    suite.client.explore().wait_for_feedback(lambda f: 'Navigation' in f.state, 30.0)
    seen = wait_until(lambda: probe.discover() or all(
        f'{ros.namespace}/{topic}' in probe.topics() for topic in MUST_SEE), timeout=40.0)
    assert seen, f'stamped topics seen: {probe.topics()}'
    end = ros_time()
    late = [(topic, stamp, now) for topic, now, stamp in probe.received
            if not began - 1.0 <= stamp <= now + 1.0]
    assert not late, (f'stamps outside the ROS clock ({began:.1f} .. {end:.1f}), after '
                      f'{time.time() - started:.0f} s: {late[:5]}')


@pytest.mark.parametrize('sim_time', [False, True], ids=['real_time', 'use_sim_time'])
def test_every_stamp_the_suite_publishes_is_ros_time(
        ros: RosHarness, start_suite: StartSuite, sim_time: bool) -> None:
    explore_and_check(ros, start_suite, sim_time)
