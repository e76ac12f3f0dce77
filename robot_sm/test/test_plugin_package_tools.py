"""
The operator tools with a robot package's own plugins: they read the suite's codes, not names.

The test package replaces the navigation state with ``Nav2Drive`` (states ``W: Nav2Drive``,
``G: Nav2Drive``) and the exploration's goal choice with ``WordyExploration``, which ends the
exploration and gives up in words of its own. ``robot-sm`` (its ``goal``, ``follow``,
``explore`` and ``status``), the Python tasks and the rqt panel's buttons must tell succeeded,
canceled and failed all the same: before the typed contract they matched state names and
outcome texts, and these plugins made them report reached goals as refused and finished
explorations as failed.
"""

import json
import os
import time
from typing import Any, Dict, Optional

from cli_calls import last_outcome, ok
from operator_suite import StartSuite
import pytest
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.client import SuiteClient, TaskStatus
from robot_sm.testing import wait_until

#: robot-sm's commands go through a daemon of the module's own, as an operator's do.
pytestmark = pytest.mark.usefixtures('cli_daemon')
WAIT = 10.0
PLUGINS = {'navigation_plugin': 'Nav2Drive', 'Nav2Drive.drive_ticks': 4,
           'calculate_goal_plugin': 'WordyExploration'}


@pytest.fixture
def start(start_scripted: StartSuite) -> Any:
    """Start the suite with the robot package's plugins (and ``state_interface`` over them)."""
    def start_suite(state_interface: Optional[Dict[str, Any]] = None) -> RunningSuite:
        return start_scripted({**PLUGINS, **(state_interface or {})})
    return start_suite


def _through(suite: RunningSuite, state: str, *command: str) -> None:
    """Run ``robot-sm COMMAND`` and wait until the suite went through ``state`` to Idle."""
    started = time.monotonic()
    assert ok(suite, *command).returncode == 0
    through = suite.wait_state(state, after=started)
    suite.wait_state('Idle', after=through)


def test_robot_sm_reports_the_plugins_runs(start: Any) -> None:
    suite = start({'Nav2Drive.unreachable_below_x': 0.0})
    # A goal that Nav2Drive reaches is taken, then succeeded; one it cannot reach failed.
    assert ok(suite, 'goal', '1', '0').stdout.startswith('goal (1, 0, yaw 0) taken')
    suite.wait_state('Idle', after=suite.wait_state('G: Nav2Drive'))
    assert last_outcome(suite) == 'simple goal succeeded: simple goal reached'
    _through(suite, 'G: Nav2Drive', 'goal', '-1', '0')
    assert last_outcome(suite) == 'simple goal failed: goal is unreachable'
    # Following: a round, then a stop.
    assert suite.client.add_waypoint(1.0, 0.0).success
    _through(suite, 'W: Nav2Drive', 'follow', 'start', '--mode', 'single')
    assert last_outcome(suite) == 'waypoint following succeeded: waypoint following finished'
    ok(suite, 'waypoint', 'reset')
    started = time.monotonic()
    ok(suite, 'follow', 'start', '--mode', 'roundtrip')
    suite.wait_state('W: Nav2Drive', after=started)
    ok(suite, 'follow', 'stop')
    suite.client.wait_for_state('Idle')  # the stop is answered before the tick that ends it
    assert last_outcome(suite) == 'waypoint following canceled: Waypoint following stopped'
    # Exploration in the plugin's own words: done is succeeded, whatever it says.
    _through(suite, 'E: Nav2Drive', 'explore', 'start')
    status = json.loads(ok(suite, 'status', '--json').stdout)
    assert status['outcome'] == ('exploration succeeded: all frontiers covered, nothing left '
                                 'to see')


def test_tasks_report_the_plugins_runs(start: Any) -> None:
    suite = start({'Nav2Drive.unreachable_below_x': 0.0, 'Nav2Drive.drive_ticks': 10})
    client = suite.client
    assert client.go_to(2.0, 0.0).wait(WAIT).status is TaskStatus.SUCCEEDED
    assert client.go_to(-2.0, 0.0).wait(WAIT).status is TaskStatus.FAILED
    assert client.add_waypoint(1.0, 0.0).success
    following = client.follow_waypoints('single')
    first = following.wait_for_feedback(lambda f: f.state == 'W: Nav2Drive', WAIT)
    assert first.waypoint_index == 0
    result = following.wait(WAIT)
    assert (result.status, result.feedback.visited) == (TaskStatus.SUCCEEDED, 1)
    assert client.explore().wait(WAIT).status is TaskStatus.SUCCEEDED
    client.reset_waypoints()
    following = client.follow_waypoints('roundtrip')
    following.wait_for_feedback(lambda f: f.state.startswith('W: '), WAIT)
    following.cancel()
    assert following.wait(WAIT).status is TaskStatus.CANCELED
    suite.close()  # one state interface at a time answers the next start
    gives_up = start({'WordyExploration.give_up': True}).client.explore().wait(WAIT)
    assert (gives_up.status, gives_up.outcome) == (
        TaskStatus.FAILED, 'gave up: the sensors see nothing worth a visit')


def test_the_panel_s_buttons_follow_the_activity(start: Any) -> None:
    os.environ.setdefault('QT_QPA_PLATFORM', 'offscreen')
    qt = pytest.importorskip('robot_sm.frontends.rqt.qt')
    from robot_sm.frontends.rqt.control_panel import ControlPanel, PanelBackend
    app = qt.QtWidgets.QApplication.instance() or qt.QtWidgets.QApplication([])
    suite = start({'Nav2Drive.drive_ticks': 200})  # 10 s a goal: the round runs on
    assert suite.client.add_waypoint(1.0, 0.0).success
    client = SuiteClient(namespace=suite.namespace, timeout=5.0, context=suite.context)
    panel = ControlPanel(PanelBackend(client), refresh_hz=20.0)
    panel.show()

    def shown(following: str, exploring: str) -> bool:
        app.processEvents()
        return (panel.following_button.text(), panel.exploration_button.text()) == (
            following, exploring)
    try:
        assert wait_until(lambda: shown('Start', 'Start'), WAIT)
        started = suite.client.start_waypoint_following()
        assert started.success, started.message
        assert wait_until(lambda: shown('Stop', 'Start'), WAIT), panel.state_label.text()
        assert not panel.following_mode.isEnabled()
        assert suite.client.stop_waypoint_following().success
        suite.client.wait_for_state('Idle')
        assert suite.client.start_exploration().success
        assert wait_until(lambda: shown('Start', 'Stop'), WAIT), panel.state_label.text()
    finally:
        panel.shutdown()
        client.close()
