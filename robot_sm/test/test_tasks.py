"""
Tasks of the running suite (SuiteClient.follow_waypoints, explore, go_to) over real DDS.

Navigation is the test package's ``ScriptedNavigation``: goals with x below 0 are unreachable.
"""

import importlib.util
import pathlib
import re
import subprocess
import sys
import time
from typing import Any, Dict, Optional

from operator_suite import describe, StartSuite
import pytest
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.client import ModeState
from robot_sm.client.tasks import TaskEnded, TaskStatus, WaitTimeout

WAIT = 10.0
README = pathlib.Path(__file__).resolve().parents[2] / 'README.md'
#: Whether the state interface can transform goals (tf2 with its geometry_msgs conversions).
TF2 = all(importlib.util.find_spec(name) for name in ('tf2_ros', 'tf2_geometry_msgs'))


@pytest.fixture
def start(start_scripted: StartSuite) -> StartSuite:
    """Start the suite in which goals with x below 0 are unreachable."""
    def start_suite(state_interface: Optional[Dict[str, Any]] = None) -> RunningSuite:
        return start_scripted({'ScriptedNavigation.unreachable_below_x': 0.0,
                               **(state_interface or {})})

    return start_suite


@pytest.fixture
def suite(start: StartSuite) -> RunningSuite:
    return start()


@pytest.fixture
def slow(start: StartSuite) -> RunningSuite:
    """Navigation takes 10 s a goal: an activity runs until something ends it."""
    return start({'ScriptedNavigation.drive_ticks': 200})


def test_following_reports_each_waypoint_and_succeeds_with_its_progress(
        start: StartSuite) -> None:
    suite = start({'ScriptedNavigation.drive_ticks': 10})
    for x, routine in ((1.0, ''), (-1.0, ''), (3.0, 'Scripted')):
        assert suite.client.add_waypoint(x, 0.0, routine=routine).success
    ids = [w.waypoint_id for w in suite.client.waypoints().data['waypoints']]
    task = suite.client.follow_waypoints('single')
    first = task.wait_for_feedback(lambda f: f.state == 'W: Navigation', WAIT)
    assert (first.waypoint_index, first.waypoint_id, first.total) == (0, ids[0], 3)
    last = task.wait_for_feedback(lambda f: f.waypoint_index == 2, WAIT)
    assert (last.waypoint_id, last.visited, last.unreachable) == (ids[2], 1, 1)
    result = task.wait(WAIT)
    assert task.is_done() and task.result() == result
    assert (result.status, result.outcome) == (TaskStatus.SUCCEEDED,
                                               'waypoint following finished')
    assert suite.client.wait_for_state('Idle') == 'Idle'
    done = result.feedback
    assert (done.visited, done.unreachable, done.total, done.rounds, done.goals) == (
        2, 1, 3, 1, 3)
    assert done.waypoint_index is None
    with pytest.raises(TaskEnded, match='succeeded'):
        task.wait_for_feedback(lambda f: f.visited == 3, WAIT)


class _SlowToKeep:
    """
    An action client's handle that pauses after it sends each request, before rclpy keeps it.

    A thread preempted there (a loaded machine) lets the answer come first: rclpy's ActionClient
    then drops it, unless the request went out from the thread that handles answers.
    """

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    def __getattr__(self, name: str) -> Any:
        sent = getattr(self._handle, name)
        if not name.startswith('send_'):
            return sent

        def send_then_pause(request: Any) -> Any:
            sequence = sent(request)
            time.sleep(0.5)
            return sequence
        return send_then_pause

    def __enter__(self) -> Any:
        return self._handle.__enter__()

    def __exit__(self, *error: Any) -> Any:
        return self._handle.__exit__(*error)


@pytest.mark.parametrize('answered_first', [False, True])
def test_cancel_stops_the_activity_and_the_result_says_canceled(
        slow: RunningSuite, answered_first: bool) -> None:
    if answered_first:  # each answer comes before the client kept its request
        action = slow.client._action_client('waypoint following')
        action._client_handle = _SlowToKeep(action._client_handle)
    slow.client.add_waypoint(1.0, 0.0)
    task = slow.client.follow_waypoints()
    task.wait_for_feedback(lambda f: f.goals == 1, WAIT)
    assert task.cancel().success
    result = task.wait(WAIT)
    assert (result.status, result.outcome) == (TaskStatus.CANCELED, 'Waypoint following stopped')
    assert slow.client.wait_for_state('Idle') == 'Idle'


def test_an_estop_ends_the_task_and_under_it_new_tasks_are_rejected(slow: RunningSuite) -> None:
    slow.client.add_waypoint(1.0, 0.0)
    following = slow.client.follow_waypoints()
    following.wait_for_feedback(lambda f: f.goals == 1, WAIT)
    assert slow.client.set_emergency_stop(True).success
    result = following.wait(WAIT)
    assert (result.status, result.message) == (TaskStatus.STOPPED_BY_ESTOP,
                                               'stopped by the emergency stop')
    # Started in STOPPED, following selected AUTONOMOUS; the e-stop keeps the mode.
    assert slow.client.wait_for_mode(emergency_stop=True) == ModeState('autonomy', True)
    refused = slow.client.follow_waypoints().wait(WAIT)
    assert (refused.status, refused.outcome) == (TaskStatus.REJECTED, 'Emergency Stop')
    goal = slow.client.go_to(2.0, 0.0).wait(WAIT)
    assert (goal.status, goal.outcome) == (TaskStatus.REJECTED,
                                           'simple goal ignored in Emergency Stop')
    slow.client.wait_for_state('Emergency Stop')  # entered on the tick after the interrupt


def test_a_simple_goal_interrupts_following_and_its_own_task_succeeds(
        start: StartSuite) -> None:
    suite = start({'ScriptedNavigation.drive_ticks': 40})
    suite.client.add_waypoint(1.0, 0.0)
    following = suite.client.follow_waypoints()
    following.wait_for_feedback(lambda f: f.goals == 1, WAIT)
    goal = suite.client.go_to(2.0, 1.0)
    interrupted = following.wait(WAIT)
    assert (interrupted.status, interrupted.message) == (TaskStatus.INTERRUPTED,
                                                         'a new simple goal took over')
    reached = goal.wait(WAIT)
    assert (reached.status, reached.outcome) == (TaskStatus.SUCCEEDED, 'simple goal reached')


def test_goals_that_cannot_be_reached_or_used_fail_or_are_rejected(suite: RunningSuite) -> None:
    unreachable = suite.client.go_to(-2.0, 0.0).wait(WAIT)
    assert (unreachable.status, unreachable.outcome) == (TaskStatus.FAILED, 'goal is unreachable')
    bad = suite.client.go_to(float('nan'), 0.0)
    assert bad.is_done()
    assert (bad.result().status, bad.result().outcome) == (
        TaskStatus.REJECTED, 'pose.position.x: must be finite (got nan)')
    # In a frame the suite cannot transform: the state interface ignores it and says why.
    elsewhere = suite.client.go_to(1.0, 0.0, frame_id='nowhere').wait(WAIT)
    assert elsewhere.status is TaskStatus.REJECTED
    # Without tf2 the frame cannot be transformed at all; with it, there is no such frame.
    assert elsewhere.outcome.startswith(
        "simple goal ignored: no transform from 'nowhere' to 'map'" if TF2 else
        "simple goal ignored: it is in frame 'nowhere', not 'map', and tf2")


def test_exploration_fails_without_a_map_and_teleoperation_interrupts_it(
        start: StartSuite) -> None:
    suite = start({'CalculateGoal.map_timeout': 0.3})
    result = suite.client.explore().wait(WAIT)
    assert (result.status, result.outcome) == (TaskStatus.FAILED, 'no map within 0.3 s')
    suite.close()  # else both state interfaces answer the next start of exploration
    suite = start()  # waits 60 s for a map
    task = suite.client.explore(interrupt=False)
    task.wait_for_feedback(lambda f: f.state == 'E: Calculate Goal', WAIT)
    assert suite.client.set_mode('teleop').success
    result = task.wait(WAIT)
    assert (result.status, result.outcome) == (TaskStatus.INTERRUPTED, 'teleoperation took over')
    assert suite.client.wait_for_state('Teleoperation') == 'Teleoperation'


def test_waits_for_a_state_or_mode_time_out_saying_what_they_saw(suite: RunningSuite) -> None:
    assert suite.client.wait_for_state(lambda name: name.startswith('Id')) == 'Idle'
    with pytest.raises(WaitTimeout, match="the state is 'Idle', not 'Teleoperation', after 0.2 s"):
        suite.client.wait_for_state('Teleoperation', timeout=0.2)
    with pytest.raises(WaitTimeout, match=r'the mode is stopped \(e-stop released\) after 0.2 s'):
        suite.client.wait_for_mode('autonomy', timeout=0.2)
    with pytest.raises(ValueError, match="unknown mode 'turbo'"):
        suite.client.wait_for_mode('turbo')
    assert suite.client.set_mode('autonomy').success
    assert suite.client.wait_for_mode('autonomy', emergency_stop=False) == ModeState(
        'autonomy', False)
    task = suite.client.follow_waypoints()  # no waypoints: it ends at once
    assert task.wait(WAIT).outcome == 'no waypoints to follow'
    with pytest.raises(WaitTimeout, match=r'simple goal did not end within 0 s \(state'):
        suite.client.go_to(1.0, 0.0).wait(0.0)


def readme_task_script() -> str:
    """Return the README's script example of the task API."""
    text = README.read_text()
    [script] = re.findall(r'```python\n(.*?follow_waypoints.*?)```', text, re.S)
    return script


def test_the_readme_s_task_script_runs_in_a_process_of_its_own(start: StartSuite) -> None:
    # As the CLI does: a short-lived process with a client of its own, discovering the suite.
    suite = start({'ScriptedNavigation.drive_ticks': 20})
    script = readme_task_script()
    result = subprocess.run([sys.executable, '-c', script, '--ros-args', '-r',
                             f'__ns:={suite.namespace}'], capture_output=True, text=True,
                            timeout=120.0)
    assert result.returncode == 0, describe(result)
    lines = result.stdout.splitlines()
    assert lines[-1] == 'SUCCEEDED: waypoint following finished', \
        describe(result)
    assert any(line.startswith('W: Navigation') for line in lines), describe(result)
    assert [w.visited for w in suite.client.waypoints().data['waypoints']] == [True, True]
