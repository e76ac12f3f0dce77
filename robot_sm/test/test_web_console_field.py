"""
The web console as a field station, in a real browser, on the simulated robot with its arm.

``robot-sm up --sim --remote --teleop`` (the robot stops when no operator page beats) and
``robot-sm web`` run as child processes (``web_console_field_rig``); headless Chromium (Debian's,
driven by selenium) opens the page as a phone or a laptop. Each test opens its own page and sets
up what it relies on, so each passes alone and in any order: the first screen of a phone, the
cycle diagram through a waypoint round, the timeline, an asked goal answered in the suite's
words, one heartbeat per page, the waypoint table changed in place, guessing strangers, the arm
panel and the log out. Skipped, naming the install command, where Chromium or its driver is
missing; CI installs them (``.ci/run``).
"""

import math
import threading
import time
from typing import Any, Iterator, List

import pytest
from robot_sm import qos
from robot_sm.client import operator as who
from robot_sm.contract import Activity, Outcome
from robot_sm.demo.browser import unavailable_reason
from robot_sm.resources import share_directory
from robot_sm.testing import SCHEDULING_SLACK, wait_until
from robot_sm_msgs.msg import ExecutionState
from sensor_msgs.msg import JointState
from web_console_field_rig import FieldOperator, FieldRobot
from web_console_http import flood
from web_console_rig import HEARTBEAT_TIMEOUT, WAIT

pytestmark = [pytest.mark.skipif(unavailable_reason() is not None,
                                 reason=unavailable_reason() or ''),
              pytest.mark.xdist_group('suites_as_processes')]
PHONE = (390, 844)


@pytest.fixture(scope='module')
def robot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldRobot]:
    started = FieldRobot(tmp_path_factory.mktemp('web_field_tokens'))
    try:
        started.wait_ready()
        yield started
    finally:
        started.close()


@pytest.fixture(scope='module')
def browser(robot: FieldRobot) -> Iterator[FieldOperator]:
    hands = FieldOperator(robot)
    try:
        yield hands
    finally:
        hands.browser.close()


@pytest.fixture
def operator(browser: FieldOperator) -> Iterator[FieldOperator]:
    """Give the browser to a test; close the pages the test left open."""
    yield browser
    while browser.page is not None:
        browser.close_page()


def test_a_phone_shows_stop_pause_and_the_joystick_first_with_nothing_cut_off(
        robot: FieldRobot, operator: FieldOperator) -> None:
    operator.open_page(size=PHONE)
    operator.until(lambda: operator.element('cycle').get_attribute('data-current'), 'no cycle')
    alice = robot.client.with_operator(who('alice', surface='cli'))
    for case in ('engaged', 'released', 'held by another'):
        if case == 'released':
            operator.release_if_engaged()
            box = operator.box('estop-off')  # one line while released
            assert box['height'] <= 50 and operator.text('estop-off') == 'E-stop released'
        elif case == 'engaged':
            assert robot.client.set_emergency_stop(True).success
            operator.until(lambda: operator.element('estop').is_displayed(), 'no e-stop')
            operator.until(lambda: operator.text('estop-reason'), 'no cause shown')
        else:  # the joystick greyed, naming the holder within its circle
            assert alice.take_control().success
            operator.until(lambda: operator.text('joystick-note') == 'alice holds control',
                           'the joystick does not name the holder')
            note, pad = operator.box('joystick-note'), operator.box('joystick')
            assert pad['top'] <= note['top'] and note['bottom'] <= pad['bottom'], (note, pad)
        operator.script('window.scrollTo(0, 0)')  # the first screen (a tap may have scrolled)
        for name in ('stop', 'pause', 'joystick', 'speed'):
            assert operator.reachable(name), f'{name} is not on the first screen ({case})'
        assert operator.box('joystick')['width'] >= 150  # under the thumb, at its full size
        cut, openable = operator.cut()
        assert not cut, (case, cut)
        for name in openable:  # cut to fit, a tap shows it whole
            operator.script(f"document.getElementById('{name}')"
                            ".scrollIntoView({block: 'center'})")
            operator.click(name)
            assert name not in operator.cut()[1], name
            operator.click(name)
    assert alice.release_control().success
    operator.until(lambda: operator.text('joystick-note') != 'alice holds control',
                   'the joystick still names alice')
    # The incidents note names the recorder's folder (a long path, no spaces): it must wrap too.
    operator.until(lambda: operator.text('incidents-note') not in ('', 'Not known yet.'),
                   'no incidents note')
    # What sticks out: a box past the edge, or text wider than its box (a long path in a note).
    # The diagram's parts are left out: its box clips them.
    wider = (f'return document.documentElement.scrollWidth <= {PHONE[0]} ? [] : '
             "Array.from(document.querySelectorAll('body *')).filter(e => !e.closest('svg') && "
             f'(e.getBoundingClientRect().right > {PHONE[0]} + 0.5 || '
             "getComputedStyle(e).overflowX === 'visible' && e.clientWidth > 0 && "
             'e.scrollWidth > e.clientWidth))'
             ".map(e => (e.id || e.getAttribute('class') || e.tagName) + ' ' + "
             "e.getBoundingClientRect().right + ' ' + e.scrollWidth + ' ' + "
             'JSON.stringify(e.textContent.slice(0, 60)))')
    assert wait_until(lambda: not operator.script(wider), WAIT), operator.script(wider)


def test_the_diagram_s_highlight_follows_the_state_through_a_waypoint_round(
        robot: FieldRobot, operator: FieldOperator) -> None:
    for row in reversed(robot.waypoints()):
        assert robot.client.remove_waypoint(waypoint_id=row.waypoint_id).success
    for x, y, routine in ((2.0, 1.0, 'Wait'), (2.2, 1.8, '')):
        assert robot.client.add_waypoint(x, y, routine=routine).success
    operator.open_page()
    operator.release_if_engaged()
    operator.until(lambda: operator.element('cycle').get_attribute('data-current') == 'idle',
                   'the diagram does not show Idle')
    operator.click('mode-autonomy')
    assert wait_until(lambda: robot.mode() == ('autonomy', False), WAIT), operator.text('answer')
    mark, started = len(robot.states.messages), time.monotonic()
    shown = len(operator.trail())  # ending in Idle (an e-stop released on opening comes before)
    operator.driver.find_element('css selector', '#follow-mode option[value="single"]').click()
    operator.click('follow-start')
    ended = robot.states.wait_for(
        lambda m: m.last_activity == Activity.WAYPOINT_FOLLOWING and m.role == 'idle'
        and m.last_outcome == Outcome.SUCCEEDED, timeout=60.0, after=started)
    assert ended is not None
    operator.until(lambda: operator.element('cycle').get_attribute('data-current') == 'idle',
                   'the highlight did not come back to Idle')
    suite = robot.roles(mark)
    assert {'waypoint_following', 'waypoint_navigation', 'routine'} <= set(suite), suite
    page = operator.trail()[shown - 1:]
    # The page showed them in the order the suite went through them (a state of one tick may
    # be gone before the page hears of it, on a loaded machine), and came back to Idle.
    went = iter(['idle', *suite])
    assert all(role in went for role in page), (page, suite)
    assert {'waypoint_navigation', 'routine'} <= set(page) and page[-1] == 'idle', page
    # The last transitions are traced, newest first: the round's end, back to Idle.
    newest = 'css selector', '#cycle [data-age="0"]'
    operator.until(lambda: [e.get_attribute('data-to') for e in
                            operator.driver.find_elements(*newest)] == ['idle'],
                   'the end of the round is not traced')
    assert ('waypoint_navigation', 'waypoint_following') in operator.traced()


def test_the_timeline_shows_an_e_stop_with_its_cause_and_another_operator_s_action(
        robot: FieldRobot, operator: FieldOperator) -> None:
    operator.open_page()
    operator.release_if_engaged()
    operator.click('mode-stopped')  # the page's operator holds control from now on
    operator.until(lambda: operator.text('answer').startswith('mode stopped:'), 'no answer')
    alice = robot.client.with_operator(who('alice', surface='cli'))
    refused = alice.set_mode('autonomy')  # the suite refuses her, and its audit log says so
    assert not refused.success
    operator.until(lambda: any('alice (cli)' in row and 'select_mode' in row
                               for row in operator.events('operator')), 'no action shown')
    bob = robot.client.with_operator(who('bob', surface='cli'))
    assert bob.set_emergency_stop(True).success  # a STOP needs no control
    assert wait_until(lambda: any('STOP by bob (cli)' in row
                                  for row in operator.events('estop')), WAIT, interval=0.05), (
        'no e-stop cause shown', operator.events('estop'), operator.text('estop-reason'))
    # Filters: by kind, and by the least level shown.
    operator.driver.find_element('css selector', '#timeline-panel input[value="operator"]') \
        .click()
    operator.until(lambda: not operator.events('operator'), 'the operators are still shown')
    operator.driver.find_element('css selector', '#timeline-level option[value="error"]') \
        .click()
    operator.until(lambda: not operator.events('estop'), 'warnings are still shown')


def test_a_long_pressed_goal_is_asked_first_and_answered_in_the_suite_s_words(
        robot: FieldRobot, operator: FieldOperator) -> None:
    operator.open_page()
    if not robot.mode()[1]:
        assert robot.client.set_emergency_stop(True).success
    operator.until(lambda: operator.element('estop').is_displayed(), 'no e-stop shown')
    answer = operator.text('answer')
    operator.long_press(3.0, 1.5, confirm=False)
    operator.until(lambda: operator.element('goal-confirm').is_displayed(), 'not asked')
    assert 'Send the robot to (3.00, 1.50)' in operator.text('goal-where')
    operator.click('goal-dismiss')
    assert not operator.element('goal-confirm').is_displayed()
    assert operator.text('answer') == answer  # nothing was sent
    operator.long_press(3.0, 1.5, confirm=True)
    operator.until(lambda: operator.text('answer').startswith('goal:')
                   and 'refused' in operator.element('answer').get_attribute('class'),
                   'no refusal shown')
    suite_says = robot.client.send_goal(3.0, 1.5).message
    assert operator.text('answer') == f'goal: {suite_says}'
    assert 'Emergency Stop' in suite_says


def test_each_operator_page_beats_and_the_robot_stops_when_the_last_one_closes(
        robot: FieldRobot, operator: FieldOperator) -> None:
    operator.open_page()
    first = operator.page
    operator.release_if_engaged()
    operator.driver.switch_to.new_window('window')
    operator.driver.get(f'{robot.url}/')
    operator.until(lambda: operator.text('link') == 'connected', 'the second page is out')
    operator.driver.close()  # one of the two pages closes: the other one beats on
    operator.driver.switch_to.window(first)
    closed = time.monotonic()
    while time.monotonic() - closed < 3 * HEARTBEAT_TIMEOUT:
        assert not robot.mode()[1], ('the robot stopped while a page was open',
                                     operator.text('estop-reason'), robot.web.output[-2000:])
        time.sleep(0.1)
    operator.close_page()
    assert wait_until(lambda: robot.mode()[1], HEARTBEAT_TIMEOUT + 1.0 + SCHEDULING_SLACK)


def test_the_waypoint_table_changes_in_place_and_an_open_routine_choice_survives(
        robot: FieldRobot, operator: FieldOperator) -> None:
    while len(robot.waypoints()) < 2:
        assert robot.client.add_waypoint(2.0 + len(robot.waypoints()), 1.0).success
    operator.open_page()
    rows = 'css selector', '#waypoints tbody tr'
    operator.until(lambda: len(operator.driver.find_elements(*rows)) == len(robot.waypoints()),
                   'the table does not show the waypoints')
    choice = operator.driver.find_element('css selector', '#waypoints tbody tr select')
    choice.click()
    is_open = 'return document.activeElement === arguments[0]'
    assert operator.driver.execute_script(is_open, choice)
    first = robot.waypoints()[0]
    assert robot.client.move_waypoint(-1, first.x + 0.5, first.y, 0.0,
                                      waypoint_id=first.waypoint_id).success
    assert robot.client.add_waypoint(5.0, 1.0).success
    operator.until(lambda: len(operator.driver.find_elements(*rows)) == len(robot.waypoints()),
                   'the new waypoint is not shown')
    x = operator.driver.find_element('css selector', '#waypoints tbody tr td.x')
    operator.until(lambda: x.text == f'{first.x + 0.5:.2f}', 'the move is not shown')
    assert choice.is_displayed()  # the same element: not rebuilt under the finger
    assert operator.driver.execute_script(is_open, choice)


def test_a_thousand_wrong_tokens_stop_neither_the_page_s_stop_nor_its_reconnect(
        robot: FieldRobot, operator: FieldOperator) -> None:
    operator.open_page()
    operator.release_if_engaged()
    tried = threading.Event()
    answers: List[Any] = []
    guessing = threading.Thread(
        target=lambda: answers.extend(flood(robot.url, 250, 4, tried)))
    guessing.start()
    try:
        assert wait_until(lambda: robot.web.output.count('wrong token') >= 100, WAIT)
        operator.click('stop')
        assert wait_until(lambda: robot.mode()[1], WAIT), operator.text('stop-note')
        operator.until(lambda: operator.text('stop-note') == 'stop sent', 'no stop shown')
        operator.driver.refresh()  # the page comes back with its session
        operator.until(lambda: operator.text('link') == 'connected', 'no reconnect')
        status = operator.driver.execute_async_script(
            "fetch('/api/session').then((a) => arguments[0](a.status));")
        assert status == 200
        assert not tried.is_set()
    finally:
        tried.set()
        guessing.join(timeout=120.0)
    assert len(answers) >= 1000 and set(answers) <= {401, 429}, set(answers)


def test_the_arm_panel_shows_teleop_the_clutch_and_each_joint_within_its_limits(
        robot: FieldRobot, operator: FieldOperator) -> None:
    from robot_sm.sim.arm_model import ArmModel
    model = ArmModel((share_directory() / 'config' / 'so101_arm.urdf').read_text())
    teleop = robot.ros.record(ExecutionState, 'teleop/execution_state', qos.STATE)
    command = robot.ros.publisher(JointState, 'joint_command')
    operator.open_page()
    operator.until(lambda: operator.element('arm-panel').is_displayed(), 'no arm panel')
    state = teleop.wait_for(lambda m: True, timeout=WAIT)
    names = {ExecutionState.STOPPED: 'STOPPED', ExecutionState.PAUSED: 'PAUSED',
             ExecutionState.RUNNING: 'RUNNING'}
    operator.until(lambda: operator.text('arm-state') == names[teleop.messages[-1].state],
                   f'teleop is {names[state.state]}')
    assert operator.text('arm-clutch') == 'released'  # nobody squeezes
    assert operator.text('arm-error').endswith('mm (clutch released)')
    joints = 'css selector', '#arm-joints tbody tr'
    operator.until(lambda: {row.get_attribute('data-joint') for row in
                            operator.driver.find_elements(*joints)} == set(model.joint_names),
                   'not every joint is shown')
    # The arm moves (a command of the test): the page shows it within its limits.
    lower, upper = -1.92, 1.92  # shoulder_pan in the URDF
    pan = "#arm-joints tr[data-joint='shoulder_pan']"
    target = 1.0
    assert wait_until(lambda: command.get_subscription_count() > 0, WAIT)

    def moved() -> bool:
        command.publish(JointState(name=['shoulder_pan'], position=[target]))
        share = operator.driver.find_element('css selector', pan).get_attribute('data-share')
        return math.isclose(float(share), (target - lower) / (upper - lower), abs_tol=0.01)
    operator.until(moved, 'the joint is not shown where it went')


def test_a_log_out_ends_the_page_s_session(robot: FieldRobot,
                                           operator: FieldOperator) -> None:
    operator.open_page()
    operator.click('logout')
    operator.until(lambda: operator.driver.title == 'robot_sm: log in', 'not logged out')
    operator.driver.get(f'{robot.url}/')
    assert operator.driver.title == 'robot_sm: log in'  # the cookie no longer lets it in
