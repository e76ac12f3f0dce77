"""
The activities as actions, tried with an rclpy ``ActionClient`` as ``ros2 action send_goal`` does.

Each test starts the suite with ScriptedNavigation (no robot: a goal takes a few ticks) and sends
goals to ``robot_sm/follow_waypoints``, ``robot_sm/explore`` and ``robot_sm/go_to``: feedback
during a round, a cancel, each result code, and a goal refused in Emergency Stop, judged by the
result and by what the suite did (its states, its waypoints).
"""

import math
import threading
import time
from typing import Any, List, Tuple

from action_msgs.msg import GoalStatus
import pytest
from rclpy.action import ActionClient

from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.client import operator, operator_name
from robot_sm.contract import Outcome
from robot_sm.testing import RosHarness, wait_until
from robot_sm_msgs.action import Explore, FollowWaypoints, GoTo
from robot_sm_msgs.msg import StateInfo, WaypointArray

WAIT = 10.0


class Goal:
    """
    A goal sent with an rclpy ActionClient: its handle, feedback and result.

    The goal names the operator of the suite's client (the tests' other commands hold control
    with it: a goal without an operator is a raw ROS caller's, refused while one holds it).
    """

    def __init__(self, ros: RosHarness, action: Any, name: str, goal: Any) -> None:
        goal.by.name, goal.by.surface = operator_name(), 'action'
        self.ros = ros
        self.client = ActionClient(ros.probe, action, name)
        assert self.client.wait_for_server(timeout_sec=WAIT), f'no {name} action server'
        self.feedback: List[Any] = []
        self._lock = threading.Lock()
        # Requests go out from the probe's spinning thread: see RosHarness.run_in_spin.
        sent = self._in_spin(lambda: self.client.send_goal_async(
            goal, feedback_callback=self._on_feedback))
        assert wait_until(sent.done, WAIT), 'the goal was not answered'
        self.handle = sent.result()
        assert self.handle.accepted, 'the goal was not accepted'
        self._result = self._in_spin(self.handle.get_result_async)

    def _in_spin(self, action: Any) -> Any:
        return self.ros.run_in_spin(self.ros.probe, action)

    def _on_feedback(self, message: Any) -> None:
        with self._lock:
            self.feedback.append(message.feedback)

    def wait_feedback(self, predicate: Any, timeout: float = WAIT) -> Any:
        """Wait for a feedback message that satisfies ``predicate``; return it."""
        found: List[Any] = []

        def seen() -> bool:
            with self._lock:
                found[:] = [f for f in self.feedback if predicate(f)]
            return bool(found)
        assert wait_until(seen, timeout), f'no such feedback; got {self.feedback[-3:]}'
        return found[0]

    def result(self, timeout: float = 30.0) -> Tuple[int, Any]:
        """Wait for the goal to end; return its status and result."""
        assert wait_until(self._result.done, timeout), 'the goal did not end'
        answer = self._result.result()
        return answer.status, answer.result

    def cancel(self) -> Any:
        """Ask the server to cancel the goal; return its answer."""
        canceling = self._in_spin(self.handle.cancel_goal_async)
        assert wait_until(canceling.done, WAIT), 'the cancel was not answered'
        return canceling.result()

    def ended(self) -> bool:
        """Return whether the goal has ended."""
        return bool(self._result.done())

    def close(self) -> None:
        """Destroy the client."""
        self.client.destroy()


def _waypoints(suite: RunningSuite, *points: Tuple[float, float]) -> None:
    for x, y in points:
        assert suite.client.add_waypoint(x, y).success


def test_a_round_gives_feedback_and_succeeds(ros: RosHarness, suite: RunningSuite) -> None:
    _waypoints(suite, (1.0, 0.0), (2.0, 0.0), (3.0, 0.0))
    goal = Goal(ros, FollowWaypoints, 'robot_sm/follow_waypoints',
                FollowWaypoints.Goal(following_mode=WaypointArray.SINGLE))
    try:
        driving = goal.wait_feedback(lambda f: f.waypoint_index == 1)
        assert driving.state.startswith('W: ') and driving.total == 3
        assert driving.visited == 1 and 0.0 < driving.progress < 1.0
        assert driving.goals >= 2
        status, result = goal.result()
    finally:
        goal.close()
    assert status == GoalStatus.STATUS_SUCCEEDED
    assert (result.outcome, result.message) == (Outcome.SUCCEEDED, 'waypoint following finished')
    assert (result.visited, result.unreachable, result.total) == (3, 0, 3)
    assert all(w.visited for w in suite.lists.last.waypoints)
    info = suite.client.latched(StateInfo, 'robot_sm/state')
    assert (info.name, info.last_outcome) == ('Idle', StateInfo.OUTCOME_SUCCEEDED)


def test_cancel_stops_the_round(ros: RosHarness, suite: RunningSuite) -> None:
    _waypoints(suite, (1.0, 0.0), (2.0, 0.0), (3.0, 0.0))
    goal = Goal(ros, FollowWaypoints, 'robot_sm/follow_waypoints',
                FollowWaypoints.Goal(following_mode=WaypointArray.ROUNDTRIP))
    try:
        goal.wait_feedback(lambda f: f.state.startswith('W: '))
        goal.cancel()
        status, result = goal.result()
    finally:
        goal.close()
    assert status == GoalStatus.STATUS_CANCELED
    assert (result.outcome, result.message) == (Outcome.CANCELED, 'Waypoint following stopped')
    suite.wait_state('Idle')


def test_a_cancel_the_suite_refuses_is_rejected_and_the_round_goes_on(
        ros: RosHarness, suite: RunningSuite) -> None:
    _waypoints(suite, (1.0, 0.0), (2.0, 0.0), (3.0, 0.0))
    goal = Goal(ros, FollowWaypoints, 'robot_sm/follow_waypoints',
                FollowWaypoints.Goal(following_mode=WaypointArray.ROUNDTRIP))
    other = suite.client.with_operator(operator('other-station', 'cli'))
    try:
        goal.wait_feedback(lambda f: f.state.startswith('W: '))
        assert other.take_control().success
        # The goal's operator no longer holds control: its stop is refused, so is the cancel.
        assert not goal.cancel().goals_canceling  # no goal is canceling
        time.sleep(0.5)
        assert not goal.ended()
        assert suite.client.latched(StateInfo, 'robot_sm/state').name.startswith('W: ')
        assert other.stop_waypoint_following().success  # the holder's stop ends the round
        status, result = goal.result()
    finally:
        goal.close()
    assert (status, result.outcome) == (GoalStatus.STATUS_ABORTED, Outcome.CANCELED)


def test_a_failed_round_and_an_interrupted_one(ros: RosHarness, start_scripted: Any) -> None:
    suite = start_scripted({'ScriptedNavigation.unreachable_below_x': 0.0,
                            'WaypointFollowing.max_unreachable_rounds': 1})
    _waypoints(suite, (-1.0, 0.0))
    goal = Goal(ros, FollowWaypoints, 'robot_sm/follow_waypoints',
                FollowWaypoints.Goal(following_mode=WaypointArray.ROUNDTRIP))
    try:
        status, result = goal.result()
    finally:
        goal.close()
    assert (status, result.outcome) == (GoalStatus.STATUS_ABORTED, Outcome.FAILED)
    assert 'unreachable' in result.message and result.unreachable == 1
    # A simple goal takes over a round: the round's goal ends INTERRUPTED.
    assert suite.client.remove_waypoint(0).success
    _waypoints(suite, (1.0, 0.0), (2.0, 0.0))
    goal = Goal(ros, FollowWaypoints, 'robot_sm/follow_waypoints',
                FollowWaypoints.Goal(following_mode=WaypointArray.ROUNDTRIP))
    try:
        goal.wait_feedback(lambda f: f.state.startswith('W: '))
        assert suite.client.send_goal(5.0, 5.0).success
        status, result = goal.result()
    finally:
        goal.close()
    assert (status, result.outcome) == (GoalStatus.STATUS_ABORTED, Outcome.INTERRUPTED)


def test_the_emergency_stop_refuses_a_goal_and_ends_a_running_one(
        ros: RosHarness, suite: RunningSuite) -> None:
    target = GoTo.Goal()
    target.pose.header.frame_id = 'map'
    target.pose.pose.position.x, target.pose.pose.orientation.w = 2.0, 1.0
    goal = Goal(ros, GoTo, 'robot_sm/go_to', target)
    try:
        driving = goal.wait_feedback(lambda f: f.state == 'G: Navigation')
        assert math.isnan(driving.distance_remaining)  # the scripted plugin does not know it
        assert suite.client.set_emergency_stop(True).success
        status, result = goal.result()
    finally:
        goal.close()
    assert (status, result.outcome) == (GoalStatus.STATUS_ABORTED,
                                        Outcome.STOPPED_BY_EMERGENCY_STOP)
    suite.wait_state('Emergency Stop')
    for action, name, request in (
            (GoTo, 'robot_sm/go_to', target),
            (FollowWaypoints, 'robot_sm/follow_waypoints', FollowWaypoints.Goal()),
            (Explore, 'robot_sm/explore', Explore.Goal())):
        refused = Goal(ros, action, name, request)
        try:
            status, result = refused.result()
        finally:
            refused.close()
        assert (status, result.outcome) == (GoalStatus.STATUS_ABORTED, Outcome.REFUSED), name
        assert 'Emergency Stop' in result.message, result.message
    assert suite.state == 'Emergency Stop'


@pytest.mark.parametrize('cancel', [False, True])
def test_a_simple_goal_succeeds_or_is_canceled(ros: RosHarness, suite: RunningSuite,
                                               cancel: bool) -> None:
    target = GoTo.Goal()
    target.pose.pose.position.x, target.pose.pose.orientation.w = 1.0, 1.0
    started = time.monotonic()
    goal = Goal(ros, GoTo, 'robot_sm/go_to', target)
    try:
        if cancel:
            goal.wait_feedback(lambda f: f.state == 'G: Navigation')
            goal.cancel()
        status, result = goal.result()
    finally:
        goal.close()
    if cancel:
        assert (status, result.outcome) == (GoalStatus.STATUS_CANCELED, Outcome.CANCELED)
    else:
        assert (status, result.outcome, result.message) == (
            GoalStatus.STATUS_SUCCEEDED, Outcome.SUCCEEDED, 'simple goal reached')
    suite.wait_state('Idle', after=started)
