"""
The state machine's port to the suite's services over DDS: typed answers, calls in order.

A stand-in service provider holds back its answer to a goal report; the next state's request
must not reach it before that answer, or it would read the store without the report applied.
"""

import threading
import time
from typing import Any, List

from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.task import Future
from robot_sm.nodes.suite_services import SuiteServices
from robot_sm.testing import RosHarness, wait_until
from robot_sm.waypoints.navigation_goal import GoalStatus, NavigationGoal, NavigationMode
from robot_sm.waypoints.pose import Pose
from robot_sm_msgs.msg import Waypoint
from robot_sm_msgs.srv import GetWaypoints, GoalCompleted

WAIT = 10.0


class HeldBackProvider(Node):
    """Answers goal reports only once :attr:`release` is set; records what arrives when."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__('service_provider', **kwargs)
        self.arrivals: List[str] = []
        self.release = threading.Event()
        self._held: List[Future] = []
        group = ReentrantCallbackGroup()
        self.create_service(GoalCompleted, 'robot_sm/navigation_goal_completed', self._report,
                            callback_group=group)
        self.create_service(GetWaypoints, 'robot_sm/get_waypoints', self._waypoints,
                            callback_group=group)
        # Releases the held answers from this node's own executor thread.
        self.create_timer(0.005, self._maybe_release, callback_group=group)

    async def _report(self, request: Any, response: Any) -> Any:
        self.arrivals.append('navigation_goal_completed')
        held = Future()
        self._held.append(held)
        await held
        self.arrivals.append('report answered')
        response.success, response.message = True, 'Waypoint 0 completed: visited'
        return response

    def _waypoints(self, request: Any, response: Any) -> Any:
        self.arrivals.append('get_waypoints')
        response.waypoint_array.waypoints = [Waypoint(id=7, visited=True, routine='Wait')]
        return response

    def _maybe_release(self) -> None:
        if self.release.is_set():
            for held in self._held:
                if not held.done():
                    held.set_result(True)


def suite_services(ros: RosHarness, timeout: float) -> SuiteServices:
    """Return the port on a node of its own, once the stand-in's two services are matched."""
    states = ros.add_node(Node('state_interface', namespace=ros.namespace, context=ros.context))
    suite = SuiteServices(states, time.monotonic, timeout)
    used = [client for client in states.clients if client.srv_name.endswith(
        ('navigation_goal_completed', 'get_waypoints'))]
    assert wait_until(lambda: all(client.service_is_ready() for client in used), WAIT)
    return suite


def test_the_next_request_waits_for_the_answer_to_the_goal_report(ros: RosHarness) -> None:
    provider = ros.start_node(HeldBackProvider)
    suite = suite_services(ros, WAIT)

    goal = NavigationGoal(Pose(1.0), NavigationMode.WAYPOINT_FOLLOWING, 0, 7)
    report = suite.report_goal(goal, GoalStatus.REACHED, True)
    waypoints = suite.waypoints()
    assert wait_until(lambda: provider.arrivals == ['navigation_goal_completed'], WAIT)
    assert not wait_until(lambda: len(provider.arrivals) > 1, 0.3)  # held back: nothing else
    provider.release.set()
    assert wait_until(waypoints.done, WAIT)
    assert provider.arrivals == ['navigation_goal_completed', 'report answered', 'get_waypoints']
    assert report.succeeded and report.response == (True, 'Waypoint 0 completed: visited')
    listed = waypoints.response
    assert listed is not None and [(w.id, w.visited, w.routine) for w in listed.waypoints] == [
        (7, True, 'Wait')]


def test_a_call_past_its_deadline_lets_the_next_one_go(ros: RosHarness) -> None:
    provider = ros.start_node(HeldBackProvider)
    suite = suite_services(ros, 0.3)
    report = suite.report_goal(NavigationGoal(Pose()), GoalStatus.ABORTED, True)
    waypoints = suite.waypoints()
    # The report is never answered: at its deadline it fails and the next call is sent.
    assert wait_until(lambda: report.done(), WAIT) and not report.ok
    assert 'no answer within 0.3 s' in report.describe()
    # Its own deadline passes while it waits (the test made it a moment after the report).
    assert wait_until(waypoints.done, WAIT) and not waypoints.ok
    suite.pump()  # the node does this on every tick: the late call is dropped, not sent
    for _ in range(5):  # on a loaded machine an answer may miss its 0.3 s: asked again
        again = suite.waypoints()
        assert wait_until(again.done, WAIT)
        suite.pump()
        if again.ok:
            break
    assert again.ok, again.describe()
    assert provider.arrivals[:2] == ['navigation_goal_completed', 'get_waypoints']
    assert set(provider.arrivals[2:]) <= {'get_waypoints'}
    provider.release.set()
