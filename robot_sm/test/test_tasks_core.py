"""How a task reads an activity from the suite's messages: ends, statuses, progress, waits."""

from dataclasses import dataclass
import threading
from typing import List, Optional

import pytest
from robot_sm.client.tasks import (
    Activity,
    ActivityTracker,
    OUTCOME_GRACE,
    Task,
    TaskEnded,
    TaskStatus,
    WaitTimeout,
)


@dataclass
class Waypoint:
    id: int  # noqa: A003 - as robot_sm_msgs/Waypoint
    visited: bool = False
    unreachable: bool = False


@dataclass
class Reply:
    success: bool
    message: str


def following(state: str = 'Idle', waypoints: Optional[List[Waypoint]] = None) -> ActivityTracker:
    return ActivityTracker(Activity.WAYPOINT_FOLLOWING, 10.0, state, waypoints or [])


def test_a_single_round_succeeds_with_its_progress() -> None:
    tracker = following(waypoints=[Waypoint(7), Waypoint(8)])
    tracker.on_state('W: Waypoint Following', 10.1)
    tracker.on_state('W: Navigation', 10.2)
    feedback = tracker.feedback(10.3)
    assert (feedback.waypoint_index, feedback.waypoint_id, feedback.goals) == (0, 7, 1)
    tracker.on_waypoints([Waypoint(7, visited=True), Waypoint(8)], reverse=False)
    tracker.on_state('W: Waypoint Following', 10.4)
    tracker.on_state('W: Navigation', 10.5)
    tracker.on_waypoints([Waypoint(7, visited=True), Waypoint(8, unreachable=True)], False)
    assert tracker.result(10.6) is None
    tracker.on_outcome('W: Waypoint Following: waypoint following finished', 10.7)
    tracker.on_state('Idle', 10.7)
    result = tracker.result(10.7)
    assert result is not None
    assert (result.status, result.outcome, result.state) == (
        TaskStatus.SUCCEEDED, 'W: Waypoint Following: waypoint following finished', 'Idle')
    feedback = result.feedback
    assert (feedback.visited, feedback.unreachable, feedback.total) == (1, 1, 2)
    assert (feedback.rounds, feedback.goals, feedback.waypoint_index) == (1, 2, None)
    assert feedback.elapsed == pytest.approx(0.7)


def test_an_outcome_arriving_after_its_state_decides_the_result() -> None:
    # The tick publishes the outcome and then the state, on two topics: either may come first.
    tracker = following()
    tracker.on_state('W: Navigation', 10.1)
    tracker.on_outcome('W: Navigation: no path to the goal', 10.2)  # a waypoint was unreachable
    tracker.on_state('Idle', 11.0)
    assert tracker.result(11.0) is None  # waiting for the outcome of the end
    tracker.on_outcome('W: Waypoint Following: waypoint following finished', 11.01)
    result = tracker.result(11.01)
    assert result is not None and result.status is TaskStatus.SUCCEEDED


def test_without_an_outcome_an_end_in_idle_is_a_failure_after_the_grace() -> None:
    tracker = following()
    tracker.on_state('W: Navigation', 10.1)
    tracker.on_outcome('W: Navigation: no path to the goal', 10.2)
    tracker.on_state('Idle', 11.0)
    assert tracker.result(11.0 + OUTCOME_GRACE / 2) is None
    result = tracker.result(11.0 + OUTCOME_GRACE)
    assert result is not None
    assert (result.status, result.outcome) == (TaskStatus.FAILED,
                                               'W: Navigation: no path to the goal')


@pytest.mark.parametrize('state,status', [
    ('Emergency Stop', TaskStatus.STOPPED_BY_ESTOP),
    ('Teleoperation', TaskStatus.INTERRUPTED),
    ('G: Navigation', TaskStatus.INTERRUPTED),
])
def test_an_interrupt_ends_the_activity_at_once(state: str, status: TaskStatus) -> None:
    tracker = following()
    tracker.on_state('W: Navigation', 10.1)
    tracker.on_state(state, 10.2)
    result = tracker.result(10.2)
    assert result is not None
    assert (result.status, result.state, result.outcome) == (status, state, '')
    assert state in result.message or 'emergency stop' in result.message


def test_canceled_by_an_operator_or_by_this_client() -> None:
    tracker = following()
    tracker.on_state('W: Navigation', 10.1)
    tracker.on_outcome('W: Navigation: Waypoint following stopped', 10.2)
    tracker.on_state('Idle', 10.25)
    result = tracker.result(10.25)
    assert result is not None and result.status is TaskStatus.CANCELED
    tracker = following()
    tracker.on_state('W: Navigation', 10.1)
    tracker.canceled = True
    tracker.on_state('Idle', 10.2)
    result = tracker.result(10.2)
    assert result is not None and result.status is TaskStatus.CANCELED


def test_before_it_begins_a_repeated_idle_and_the_replaced_activity_do_not_end_it() -> None:
    # A simple goal sent while waypoint following runs: W states may still come first.
    tracker = ActivityTracker(Activity.SIMPLE_GOAL, 10.0, 'W: Navigation')
    tracker.on_state('W: Waypoint Following', 10.1)
    tracker.on_state('Idle', 10.1)
    assert tracker.result(11.0) is None
    tracker.on_state('G: Navigation', 10.2)
    assert tracker.begun and tracker.result(11.0) is None


def test_a_failure_before_it_begins_ends_it_in_idle() -> None:
    # A plugin that cannot be created: its error, then Idle; no state of the activity.
    tracker = ActivityTracker(Activity.EXPLORATION, 10.0, 'Idle')
    tracker.on_outcome("plugin 'Missing' is not installed; the calculate goal state falls back "
                       'to Idle', 10.1)
    tracker.on_state('Idle', 10.2)
    result = tracker.result(10.2 + OUTCOME_GRACE)
    assert result is not None and result.status is TaskStatus.FAILED
    assert 'falls back to Idle' in result.outcome


def test_a_refused_start_and_an_ignored_goal_are_rejected() -> None:
    tracker = following()
    tracker.refused('Emergency Stop')
    result = tracker.result(10.0)
    assert result is not None
    assert (result.status, result.outcome) == (TaskStatus.REJECTED, 'Emergency Stop')
    tracker = ActivityTracker(Activity.SIMPLE_GOAL, 10.0, 'Idle')
    tracker.on_outcome('simple goal ignored: the pose has a NaN or infinite value', 10.1)
    result = tracker.result(10.1)
    assert result is not None and result.status is TaskStatus.REJECTED


def test_rounds_count_lists_that_completed_after_the_start() -> None:
    done = [Waypoint(1, visited=True), Waypoint(2, unreachable=True)]
    tracker = following('Idle', done)  # a finished list before the start is no round
    tracker.on_state('W: Waypoint Following', 10.1)
    assert tracker.feedback(10.1).rounds == 0
    tracker.on_waypoints([Waypoint(1), Waypoint(2)], False)  # ROUNDTRIP resets the flags
    tracker.on_waypoints([Waypoint(1, visited=True), Waypoint(2)], False)
    tracker.on_waypoints([Waypoint(1, visited=True), Waypoint(2, visited=True)], False)
    tracker.on_waypoints([Waypoint(1), Waypoint(2)], False)
    feedback = tracker.feedback(10.5)
    assert (feedback.rounds, feedback.visited, feedback.unreachable) == (1, 2, 1)
    # Reversed: the highest pending index is next.
    tracker.on_waypoints([Waypoint(1), Waypoint(2)], True)
    assert tracker.feedback(10.6).waypoint_index == 1


class Clock:

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_wait_returns_the_result_and_times_out_naming_the_progress() -> None:
    clock = Clock()
    task = Task(following(), lambda: Reply(True, 'Waypoint following stopped'), clock)
    task.update(lambda tracker, now: tracker.on_state('W: Navigation', now))
    clock.now = 15.0  # started at 10
    with pytest.raises(WaitTimeout, match=r'waypoint following did not end within 0 s '
                                          r'\(state W: Navigation, 1 goals, 5.0 s\)'):
        task.wait(0.0)
    assert task.cancel().success
    task.update(lambda tracker, now: tracker.on_state('Idle', now))
    assert task.is_done()
    assert task.wait(0.0).status is TaskStatus.CANCELED


def test_a_refused_cancel_changes_nothing() -> None:
    task = Task(following(), lambda: Reply(False, 'Exploration running'))
    task.update(lambda tracker, now: tracker.on_state('W: Navigation', now))
    assert not task.cancel().success
    task.update(lambda tracker, now: tracker.on_state('Idle', now))
    task.update(lambda tracker, now: tracker.on_outcome(
        'W: Waypoint Following: waypoint following finished', now))
    assert task.wait(1.0).status is TaskStatus.SUCCEEDED


def test_waiting_threads_wake_on_progress_and_on_the_end() -> None:
    task = Task(following(waypoints=[Waypoint(1), Waypoint(2)]), lambda: Reply(True, ''))
    seen = []
    waiter = threading.Thread(
        target=lambda: seen.append(task.wait_for_feedback(lambda f: f.visited == 1, 5.0)))
    waiter.start()
    task.update(lambda tracker, now: tracker.on_state('W: Navigation', now))
    task.update(lambda tracker, now: tracker.on_waypoints(
        [Waypoint(1, visited=True), Waypoint(2)], False))
    waiter.join(5.0)
    assert seen and seen[0].visited == 1
    task.update(lambda tracker, now: tracker.on_state('Emergency Stop', now))
    with pytest.raises(TaskEnded, match='stopped by the e-stop'):
        task.wait_for_feedback(lambda f: f.visited == 2, 5.0)
