"""The test harness itself: isolation, cleanup, and callbacks that raise are not hidden."""

import pytest
from rclpy.node import Node
from robot_sm.testing import RosHarness, wait_until
from std_msgs.msg import String


class Faulty(Node):
    """A node whose timer raises on its first tick."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__('faulty', **kwargs)
        self.ticks = 0
        self.create_timer(0.01, self._tick)

    def _tick(self) -> None:
        self.ticks += 1
        raise ValueError('boom')


def test_a_raising_callback_fails_the_shutdown() -> None:
    harness = RosHarness('/harness_faulty')
    node = harness.start_node(Faulty)
    assert wait_until(lambda: node.ticks > 0, 5.0)
    with pytest.raises(RuntimeError, match='raised ValueError: boom'):
        harness.shutdown()


def test_namespaced_round_trip_and_clean_shutdown() -> None:
    harness = RosHarness('/harness_ok')
    try:
        received = harness.record(String, 'chatter')
        publisher = harness.publisher(String, 'chatter')
        harness.wait_for_subscribers(publisher)
        publisher.publish(String(data='hi'))
        assert received.wait_for().data == 'hi'
        assert publisher.topic_name == '/harness_ok/chatter'
    finally:
        harness.shutdown()
