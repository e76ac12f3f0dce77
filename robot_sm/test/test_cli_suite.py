"""
robot-sm against a running suite: every subcommand, run as a child process like an operator does.

Exit codes: 0 when the suite did it, 1 when the suite refused (its message printed), 2 when the
suite (or the part a command needs) does not answer within ``--timeout``.
"""

import json
import math
import signal
import time

from cli_calls import last_outcome, ok, poses, refused, together
from geometry_msgs.msg import Twist, Vector3
from operator_suite import cli_command, describe, start_robot, StartSuite, WAIT
import pytest
from robot_sm import qos
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.testing import RosHarness, wait_until
from robot_sm_msgs.msg import OperationMode
from robot_sm_msgs.srv import GetNavigationGoal, WaypointVisited
from std_msgs.msg import Bool

#: Every command goes through a daemon of the module's own, as an operator's commands do
#: (test_cli_daemon.py checks that each gives what it gives without one).
pytestmark = pytest.mark.usefixtures('cli_daemon')


@pytest.fixture
def slow(start_scripted: StartSuite) -> RunningSuite:
    """Navigation "drives" for 30 s: an activity still runs when a few commands later stop it."""
    return start_scripted({'ScriptedNavigation.drive_ticks': 600})


def test_status_shows_state_mode_estop_waypoints_and_pose_as_text_and_json(
        ros: RosHarness, suite: RunningSuite) -> None:
    assert suite.client.add_waypoint(1.0, 2.0, routine='Wait').success
    start_robot(ros, suite, 0.75, 1.25, math.pi / 2)
    text_result, json_result = together(suite, ['status'], ['--json', 'status'])
    assert text_result.returncode == json_result.returncode == 0, describe(text_result)
    text = text_result.stdout
    assert 'state      Idle\n' in text  # no activity has ended yet
    assert 'mode       stopped    e-stop released    input none' in text
    assert 'driving    forward' in text
    assert 'pose       (0.75, 1.25, yaw 1.57)' in text
    assert 'waypoints  1 (0 visited, 0 unreachable), single, forward' in text
    assert '1.00     2.00    0.00    Wait           pending' in text

    status = json.loads(json_result.stdout)
    assert (status['state'], status['mode'], status['emergency_stop']) == ('Idle', 'stopped',
                                                                           False)
    assert status['pose'] == pytest.approx([0.75, 1.25, math.pi / 2])
    assert status['selected_input'] == 'none'
    assert status['driving_reverse'] is False
    assert (status['activity'], status['outcome']) == ('', None)
    [waypoint] = status['waypoints']
    assert (waypoint['x'], waypoint['y'], waypoint['routine'], waypoint['visited']) == (
        1.0, 2.0, 'Wait', False)


def test_status_names_the_input_that_drives(ros: RosHarness, suite: RunningSuite) -> None:
    ok(suite, 'mode', 'stopped')  # an operator selected a mode: a teleoperation stream takes over
    teleoperation = ros.publisher(Twist, 'teleoperation/cmd_vel', qos.COMMAND_OUT)
    ros.probe.create_timer(0.05, lambda: teleoperation.publish(Twist(linear=Vector3(x=0.2))))
    suite.client.wait_for_mode('teleop')
    assert 'input teleoperation' in ok(suite, 'status').stdout
    assert json.loads(ok(suite, '--json', 'status').stdout)['selected_input'] == 'teleoperation'


def test_status_watch_refreshes_until_ctrl_c(ros: RosHarness, suite: RunningSuite) -> None:
    watch = ros.start_process(cli_command() + ['--namespace', suite.namespace, 'status',
                                               '--watch'])
    assert wait_until(lambda: 'e-stop released' in watch.output, WAIT), watch.output
    assert suite.client.set_emergency_stop(True).success
    # The next refresh (once a second) shows the e-stop and the state it caused.
    assert wait_until(lambda: 'e-stop ENGAGED' in watch.output
                      and 'state      Emergency Stop' in watch.output, WAIT), watch.output
    watch.process.send_signal(signal.SIGINT)
    assert watch.wait(WAIT) == 0, watch.output


def test_estop_on_and_off_reach_the_mux_and_the_state_machine(suite: RunningSuite) -> None:
    ok(suite, 'estop', 'on')
    suite.client.wait_for_mode(emergency_stop=True)
    suite.client.wait_for_state('Emergency Stop')
    # Under e-stop the suite refuses; the CLI prints why and exits with 1.
    mode, follow = together(suite, ['mode', 'autonomy'], ['follow', 'start'])
    assert mode.returncode == 1 and 'robot_sm/emergency_stop' in mode.stdout, describe(mode)
    assert (follow.returncode, follow.stdout.strip()) == (1, 'Emergency Stop'), describe(follow)
    ok(suite, 'estop', 'off')
    assert suite.client.wait_for_mode(emergency_stop=False).mode == 'stopped'
    suite.client.wait_for_state('Idle')


def test_mode_selects_autonomy_teleop_and_stopped(suite: RunningSuite) -> None:
    answer = json.loads(ok(suite, '--json', 'mode', 'autonomy').stdout)
    assert answer['success'] is True and answer['message']
    suite.client.wait_for_mode('autonomy')
    ok(suite, 'mode', 'teleop')
    suite.modes.wait_for(lambda m: m.mode == OperationMode.TELEOPERATION, timeout=WAIT)
    suite.wait_state('Teleoperation')
    ok(suite, 'mode', 'stopped')
    suite.client.wait_for_mode('stopped')
    suite.client.wait_for_state('Idle')


def test_waypoint_commands_edit_the_list(ros: RosHarness, suite: RunningSuite) -> None:
    # Appending and inserting at the front give the same list in either order.
    plain, added = together(suite, ['waypoint', 'add', '1', '2'],
                            ['--json', 'waypoint', 'add', '3', '4', '1.5708', '--routine', 'Wait',
                             '--at', '0'])
    assert plain.returncode == added.returncode == 0, describe(plain) + describe(added)
    added_id = json.loads(added.stdout)['data']
    assert poses(suite) == [(3.0, 4.0, 'Wait'), (1.0, 2.0, '')]
    assert suite.client.waypoints().data['waypoints'][0].waypoint_id == added_id

    start_robot(ros, suite, 0.75, 1.25, math.pi / 2)
    ok(suite, 'waypoint', 'here', '--routine', 'Scripted')
    assert poses(suite)[2] == (0.75, 1.25, 'Scripted')

    listing, as_json, routines = together(suite, ['waypoint', 'list'],
                                          ['--json', 'waypoint', 'list'],
                                          ['waypoint', 'routines'])
    for result in (listing, as_json, routines):
        assert result.returncode == 0, describe(result)
    assert listing.stdout.splitlines()[0] == '3 waypoints, single, forward'
    assert '0.75     1.25    1.57    Scripted       pending' in listing.stdout
    rows = json.loads(as_json.stdout)['waypoints']
    assert [(r['index'], r['x'], r['y'], r['routine']) for r in rows] == [
        (0, 3.0, 4.0, 'Wait'), (1, 1.0, 2.0, ''), (2, 0.75, 1.25, 'Scripted')]
    assert routines.stdout.strip() == 'Wait, Scripted'

    for result in together(suite, ['waypoint', 'move', '1', '5', '6', '0.5'],
                           ['waypoint', 'routine', '1', 'Wait']):
        assert result.returncode == 0, describe(result)
    moved = suite.client.waypoints().data['waypoints'][1]
    assert (moved.x, moved.y, moved.routine) == (5.0, 6.0, 'Wait')

    assert suite.client.call(WaypointVisited, 'robot_sm/waypoint_visited',
                             WaypointVisited.Request(position=2)).success
    for result in together(suite, ['waypoint', 'remove', '0'], ['waypoint', 'reset']):
        assert result.returncode == 0, describe(result)
    assert poses(suite) == [(5.0, 6.0, 'Wait'), (0.75, 1.25, 'Scripted')]
    assert not any(w.visited for w in suite.client.waypoints().data['waypoints'])


def test_what_the_suite_refuses_exits_with_1_and_prints_why(suite: RunningSuite) -> None:
    assert suite.client.add_waypoint(1.0, 2.0).success
    commands = {
        ('follow', 'stop'): 'Waypoint following not running',
        ('explore', 'stop'): 'Exploration not running',
        ('goal', 'cancel'): 'No simple goal running (Idle)',
        ('waypoint', 'remove', '7'): 'position: 7 is out of range',
        ('waypoint', 'routine', '0', 'Dance'): 'Dance',
        ('reverse', 'off'): 'already in the requested mode: forward',
    }
    for why, result in zip(commands.values(), together(suite, *commands)):
        assert result.returncode == 1, describe(result)
        assert why in result.stdout, describe(result)
    assert poses(suite) == [(1.0, 2.0, '')]
    assert suite.state == 'Idle'


def test_follow_start_applies_mode_and_direction_then_stop(slow: RunningSuite) -> None:
    suite = slow
    suite.client.add_waypoint(1.0, 0.0)
    suite.client.add_waypoint(2.0, 0.0)
    # The suite starts STOPPED: the start selects AUTONOMOUS and says so.
    assert ok(suite, 'follow', 'start', '--mode', 'patrol', '--reverse').stdout.strip() == \
        'Waypoint following started (the mux was STOPPED: AUTONOMOUS selected)'
    suite.wait_state('W: Navigation')
    listed = suite.client.waypoints().data
    assert (listed['mode'], listed['reverse']) == ('patrol', True)
    # Reversed: the highest index is driven to first.
    goal = suite.client.call(GetNavigationGoal, 'robot_sm/get_navigation_goal')
    assert goal.waypoint_position == 1
    assert ok(suite, 'follow', 'stop').stdout.strip() == 'Waypoint following stopped'
    suite.client.wait_for_state('Idle')
    assert last_outcome(suite) == 'waypoint following canceled: Waypoint following stopped'

    # A refused start leaves the mode and direction as they were.
    assert suite.client.set_emergency_stop(True).success
    suite.client.wait_for_state('Emergency Stop')
    assert refused(suite, 'follow', 'start', '--mode', 'single').stdout.strip() == \
        'Emergency Stop'
    listed = suite.client.waypoints().data
    assert (listed['mode'], listed['reverse']) == ('patrol', True)


def test_explore_start_sets_finish_or_interrupt_then_stop(suite: RunningSuite) -> None:
    # No map is published: Calculate Goal waits for one (60 s), so exploration keeps running.
    exploration = suite.record(Bool, 'robot_sm/exploration_mode')
    assert ok(suite, 'explore', 'start', '--finish').stdout.strip() == \
        'Exploration started (the mux was STOPPED: AUTONOMOUS selected)'
    exploration.wait_for(lambda m: m.data is False, timeout=WAIT)
    assert ok(suite, 'explore', 'stop').stdout.strip() == 'Exploration stopped'
    suite.client.wait_for_state('Idle')
    # Whichever of its states ran when the stop came: the typed outcome tells.
    assert last_outcome(suite) == 'exploration canceled: Exploration stopped'
    started = time.monotonic()
    ok(suite, 'explore', 'start', '--interrupt')
    exploration.wait_for(lambda m: m.data is True, timeout=WAIT, after=started)
    suite.wait_state('E: Calculate Goal', after=started)


def test_goal_drives_to_a_simple_goal_and_cancel_stops_it(slow: RunningSuite) -> None:
    suite = slow
    assert ok(suite, 'goal', '2', '3', '1.5708').stdout.strip() == \
        'goal (2, 3, yaw 1.5708) taken (the mux was STOPPED: AUTONOMOUS selected)'
    suite.client.wait_for_state('G: Navigation')
    goal = suite.client.call(GetNavigationGoal, 'robot_sm/get_navigation_goal')
    assert (goal.goal.position.x, goal.goal.position.y) == (2.0, 3.0)
    assert ok(suite, 'goal', 'cancel').stdout.strip() == 'Simple goal stopped'
    suite.client.wait_for_state('Idle')
    assert last_outcome(suite) == 'simple goal canceled: Simple goal stopped'


def test_a_goal_the_suite_does_not_take_exits_with_1_and_says_why(suite: RunningSuite) -> None:
    # In a frame the suite cannot transform into map: the state interface ignores the goal.
    elsewhere = refused(suite, 'goal', '1', '1', '--frame', 'nowhere')
    assert 'sent' not in elsewhere.stdout, describe(elsewhere)
    assert elsewhere.stdout.startswith("simple goal ignored: it is in frame 'nowhere'") or \
        elsewhere.stdout.startswith("simple goal ignored: no transform from 'nowhere'"), \
        describe(elsewhere)
    answer = json.loads(refused(suite, 'goal', '1', '1', '--frame', 'nowhere', '--json').stdout)
    assert answer['success'] is False and 'nowhere' in answer['message']
    assert suite.state == 'Idle'
    # In a state that takes no simple goal.
    assert suite.client.set_emergency_stop(True).success
    suite.client.wait_for_state('Emergency Stop')
    estopped = refused(suite, 'goal', '1', '1')
    assert estopped.stdout.strip() == 'simple goal ignored in Emergency Stop'


def test_reverse_on_off(suite: RunningSuite) -> None:
    reverse = suite.record(Bool, 'robot_sm/reverse_mode')
    ok(suite, 'reverse', 'on')
    reverse.wait_for(lambda m: m.data is True, timeout=WAIT)
    ok(suite, 'reverse', 'off')
    reverse.wait_last(lambda m: m.data is False, WAIT)
