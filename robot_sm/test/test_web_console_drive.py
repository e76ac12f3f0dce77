"""
Driving and operating from the web console, in a real browser, on the simulated robot.

``robot-sm up --sim --remote`` and ``robot-sm web`` run as child processes (``web_console_rig``);
headless Chromium (Debian's, driven by selenium) holds the joystick with the mouse, scripts a
gamepad (its ``navigator.getGamepads`` replaced) and hides the page, and the test watches
``cmd_vel``, the operators' stream the console publishes and the robot's pose. Each test opens
its own page and sets up what it relies on: driving and its zeros (letting go, the page hidden,
the link gone silent, a gamepad's enable button let go), control (greyed controls naming the
holder, a take-over asked first, shown to the page it was taken from; two names at one address
are two operators), Pause and Continue of a round, and the incidents list. Skipped, naming the
install command, where Chromium or its driver is missing; CI installs them (``.ci/run``).
"""

import math
import time
from typing import Iterator

import pytest
from robot_sm.client import operator as who
from robot_sm.client.incidents import incidents
from robot_sm.contract import Activity, STATE
from robot_sm.demo.browser import unavailable_reason
from robot_sm.frontends.web.drive import DRIVE_SILENCE
from robot_sm.testing import SCHEDULING_SLACK, wait_until
from robot_sm_msgs.msg import StateInfo
from web_console_drive_rig import Driver, DriveRobot, heading_share
from web_console_rig import WAIT

pytestmark = [pytest.mark.skipif(unavailable_reason() is not None,
                                 reason=unavailable_reason() or ''),
              pytest.mark.xdist_group('suites_as_processes')]
#: The mux's operator_input_timeout: the backstop the page's own zero must come before.
OPERATOR_INPUT_TIMEOUT = 0.5
SILENT = 'fell silent'  # what the console logs when it sent the zero itself
#: The incident recorder's after_seconds: an incident stays open (and is written) that long.
AFTER_SECONDS = 5.0


@pytest.fixture(scope='module')
def robot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DriveRobot]:
    started = DriveRobot(tmp_path_factory.mktemp('web_drive_tokens'))
    try:
        started.wait_ready()
        yield started
    finally:
        started.close()


@pytest.fixture(scope='module')
def browser(robot: DriveRobot) -> Iterator[Driver]:
    hands = Driver(robot)
    try:
        yield hands
    finally:
        hands.browser.close()


@pytest.fixture
def driver(browser: Driver) -> Iterator[Driver]:
    """Give the browser to a test; let go of the joystick and close the pages it left open."""
    yield browser
    browser.let_go()
    while browser.page is not None:
        browser.close_page()


def moved(robot: DriveRobot, start: tuple, metres: float) -> bool:
    x, y, _ = robot.where()
    return math.hypot(x - start[0], y - start[1]) > metres


def test_a_joystick_drag_drives_the_robot_that_way_and_letting_go_stops_it_at_once(
        robot: DriveRobot, driver: Driver) -> None:
    driver.open_page()
    driver.ready()
    start = robot.where()
    driver.hold(0, -60)  # up: forward
    driver.until(lambda: driver.pad_state() == 'driving', 'the page does not drive')
    assert wait_until(lambda: moved(robot, start, 0.15), WAIT, interval=0.1)
    # (On a loaded machine the browser's stream may have paused 0.3 s while driving.)
    silent = robot.web.output.count(SILENT)
    mark = time.monotonic()
    driver.let_go()
    assert robot.zero_after(mark) < OPERATOR_INPUT_TIMEOUT
    assert robot.web.output.count(SILENT) == silent  # the page's own zero, not the console's
    assert heading_share(start, robot.where()) > 0.9  # straight ahead
    assert driver.text('answer').startswith('drive: Teleop selected to drive')
    assert robot.client.control().holder == 'web@127.0.0.1'  # driving took control
    robot.parked()
    turned_from = robot.where()[2]
    driver.hold(60, 0)  # right: the robot turns clockwise
    assert wait_until(lambda: math.remainder(robot.where()[2] - turned_from, math.tau) < -0.3,
                      WAIT, interval=0.1)
    driver.let_go()


def test_a_drive_begun_as_teleop_fell_back_to_stopped_selects_teleop_again(
        robot: DriveRobot, driver: Driver) -> None:
    driver.open_page()
    driver.ready()
    start = robot.where()
    driver.hold(0, -60)
    assert wait_until(lambda: moved(robot, start, 0.1), WAIT, interval=0.1)
    driver.let_go()
    robot.parked()
    driver.script('window.heldUpdates = []')  # the page hears of nothing for a moment
    # Half a second after the last command, the mux's teleop idle fallback: STOPPED.
    assert wait_until(lambda: robot.mode() == ('stopped', False), WAIT), robot.mode()
    turned_from = robot.where()[2]
    driver.hold(60, 0)  # the page still believes the mode is Teleop
    driver.script('window.releaseUpdates()')
    turned = wait_until(lambda: math.remainder(robot.where()[2] - turned_from, math.tau) < -0.3,
                        WAIT, interval=0.1)
    assert turned, (robot.mode(), driver.text('answer'), driver.pad_state())
    assert robot.mode() == ('teleop', False)
    driver.let_go()


def test_a_page_hidden_while_driving_stops_the_robot(robot: DriveRobot, driver: Driver) -> None:
    driver.open_page()
    driver.ready()
    silent = robot.web.output.count(SILENT)
    driver.hold(0, -60)
    robot.cmd_vel.wait_for(lambda m: m.linear.x > 0.05, timeout=WAIT, after=time.monotonic())
    mark = time.monotonic()
    driver.visibility('hidden')  # the thumb stays down
    try:
        assert robot.zero_after(mark) < OPERATOR_INPUT_TIMEOUT
        driver.until(lambda: driver.pad_state() == 'ready', 'the page still drives')
        robot.parked()
        assert robot.moved_after_zero(mark) == []  # nothing more was sent
        assert robot.web.output.count(SILENT) == silent
    finally:
        driver.visibility('visible')


def test_a_driving_page_whose_link_falls_silent_is_stopped_by_the_console(
        robot: DriveRobot, driver: Driver) -> None:
    driver.open_page()
    driver.ready()
    silent = robot.web.output.count(SILENT)
    driver.hold(0, -60)
    robot.cmd_vel.wait_for(lambda m: m.linear.x > 0.05, timeout=WAIT, after=time.monotonic())
    # Nothing the page sends reaches the console any more (a dead uplink): it believes it drives.
    driver.script('window.sendSaved = WebSocket.prototype.send;'
                  'WebSocket.prototype.send = function () {};')
    mark = time.monotonic()
    try:
        assert robot.zero_after(mark) < DRIVE_SILENCE + SCHEDULING_SLACK
        assert wait_until(lambda: robot.web.output.count(SILENT) > silent, WAIT)
        robot.parked()
    finally:
        driver.script('WebSocket.prototype.send = window.sendSaved;')


def test_a_gamepad_drives_only_while_its_enable_button_is_held(robot: DriveRobot,
                                                               driver: Driver) -> None:
    driver.open_page()
    driver.ready()
    driver.fake_gamepad()
    looks = 'return document.getElementById("joystick").gamepadLooks || 0'
    mark = time.monotonic()
    driver.gamepad(forward=0.8, enable=False)  # the stick pushed, the enable button up
    seen = driver.script(looks)
    driver.until(lambda: driver.script(looks) >= seen + 10, 'the page does not look at the pad')
    assert robot.streamed(mark) == [] and driver.pad_state() == 'ready'
    driver.gamepad(forward=0.8, enable=True)
    robot.cmd_vel.wait_for(lambda m: m.linear.x > 0.05, timeout=WAIT, after=mark)
    silent = robot.web.output.count(SILENT)
    let_go = time.monotonic()
    driver.gamepad(forward=0.8, enable=False)  # the stick still pushed
    assert robot.zero_after(let_go) < OPERATOR_INPUT_TIMEOUT
    seen = driver.script(looks)
    driver.until(lambda: driver.script(looks) >= seen + 10, 'the page does not look at the pad')
    assert robot.moved_after_zero(let_go) == []
    assert robot.web.output.count(SILENT) == silent


def test_without_control_the_page_greys_its_controls_naming_the_holder_and_asks_before_taking(
        robot: DriveRobot, driver: Driver) -> None:
    driver.open_page(token=robot.watcher)  # read-only: no joystick, no Pause, no Take control
    driver.until(lambda: driver.text('control-line').startswith('Control:'), 'no control line')
    for name in ('joystick', 'pause', 'take-control'):
        assert not driver.element(name).is_displayed(), name
    driver.close_page()
    driver.open_page()
    driver.ready()
    alice = robot.client.with_operator(who('alice', surface='cli'))
    assert alice.take_control().success
    driver.until(lambda: driver.pad_state() == 'off'
                 and driver.text('joystick-note') == 'alice holds control', 'not greyed')
    assert 'alice' in driver.text('control-line')  # holds it (or took it from this page)
    for name in ('follow-start', 'mode-autonomy', 'pause', 'release'):
        assert 'control is held by alice (cli)' in driver.element(name).get_attribute('title')
    assert float(driver.element('follow-start').value_of_css_property('opacity')) < 0.6
    mark = time.monotonic()
    driver.hold(0, -60)  # a greyed joystick sends nothing
    driver.let_go()
    driver.click('follow-start')
    driver.until(lambda: 'Take control first' in driver.text('answer'), 'no refusal shown')
    assert robot.streamed(mark) == []
    driver.click('stop')  # STOP is never greyed: it works for anyone
    assert wait_until(lambda: robot.mode()[1], WAIT), driver.text('stop-note')
    driver.click('take-control')
    driver.until(lambda: driver.text('take-control') == 'Take it from alice? Tap again',
                 'not asked')
    assert robot.client.control().holder == 'alice'
    driver.click('take-control')
    assert wait_until(lambda: robot.client.control().holder == 'web@127.0.0.1', WAIT)
    driver.until(lambda: driver.text('control-line').startswith('Control: you (web@127.0.0.1)'),
                 'the page does not show its control')
    assert not driver.element('follow-start').get_attribute('title')


def test_two_names_at_one_address_are_two_operators_and_a_take_over_is_shown_where_it_took(
        robot: DriveRobot, driver: Driver) -> None:
    driver.open_page(name='ann')
    driver.ready()
    driver.click('take-control')  # nobody else holds it: taken at once
    assert wait_until(lambda: robot.client.control().holder == 'ann@127.0.0.1', WAIT)
    ann = driver.page
    driver.driver.switch_to.new_window('window')  # ben, beside her, on the same computer
    driver.driver.get(f'{robot.url}/login?token={robot.operator}&name=ben')
    driver.until(lambda: driver.pad_state() == 'off'
                 and driver.text('joystick-note') == 'ann@127.0.0.1 holds control', 'not greyed')
    driver.click('take-control')
    driver.until(lambda: 'Tap again' in driver.text('take-control'), 'not asked')
    driver.click('take-control')
    assert wait_until(lambda: robot.client.control().holder == 'ben@127.0.0.1', WAIT)
    driver.driver.close()
    driver.driver.switch_to.window(ann)
    driver.until(lambda: driver.text('control-line').startswith(
        'Control taken by ben@127.0.0.1 at '), 'ann is not told')
    assert 'taken' in driver.element('control-line').get_attribute('class')
    assert driver.text('joystick-note') == 'ben@127.0.0.1 holds control'


def test_pause_and_continue_from_the_page_hold_a_round_and_take_it_on(
        robot: DriveRobot, driver: Driver) -> None:
    states = robot.ros.record(StateInfo, STATE)
    driver.open_page()
    driver.ready()
    assert robot.client.take_control().success
    for row in robot.waypoints():
        assert robot.client.remove_waypoint(waypoint_id=row.waypoint_id).success
    for x, y in ((2.5, 1.0), (1.0, 1.0)):
        assert robot.client.add_waypoint(x, y).success
    assert robot.client.set_mode('autonomy').success
    assert robot.client.start_waypoint_following('patrol').success
    running = states.wait_last(lambda m: m.activity == Activity.WAYPOINT_FOLLOWING, WAIT)
    driver.until(lambda: driver.text('pause') == 'Pause' and driver.element('pause').is_enabled(),
                 'no Pause')
    driver.click('pause')
    paused = states.wait_last(lambda m: m.paused, WAIT)
    assert paused.paused_activity == Activity.WAYPOINT_FOLLOWING
    robot.parked()
    driver.until(lambda: driver.text('pause') == 'Continue', 'no Continue')
    driver.until(lambda: driver.text('resumable') == f'continues: {paused.resumable}',
                 'where it continues is not shown')
    mark = time.monotonic()
    driver.click('pause')
    again = states.wait_last(lambda m: not m.paused
                             and m.activity == Activity.WAYPOINT_FOLLOWING, WAIT)
    assert again.activity_id == running.activity_id  # the same run, taken on
    robot.cmd_vel.wait_for(lambda m: abs(m.linear.x) > 0.05, timeout=WAIT, after=mark)
    assert driver.text('answer').startswith('continue:')
    assert robot.client.stop_waypoint_following().success


def test_the_incidents_list_shows_a_stop_while_driving_with_its_figures(
        robot: DriveRobot, driver: Driver) -> None:
    driver.open_page()
    driver.ready()
    # The e-stop released here was engaged before (the heartbeat lost while no page was open):
    # the recorder keeps that incident open for its after_seconds, and a stop within them would
    # join it instead of being an incident of its own.
    released = time.monotonic()
    assert wait_until(lambda: time.monotonic() - released > AFTER_SECONDS, AFTER_SECONDS + 1.0)
    driver.hold(0, -70)
    robot.truth.wait_for(lambda m: m.twist.twist.linear.x > 0.1, timeout=WAIT,
                         after=time.monotonic())
    bob = robot.client.with_operator(who('bob', surface='cli'))
    assert bob.set_emergency_stop(True).success
    driver.let_go()
    listed = ('return Array.from(document.querySelectorAll("#incidents li"), (li) => ({'
              'id: Number(li.dataset.id), text: li.textContent, figures: Object.fromEntries('
              'Array.from(li.querySelectorAll(".figures span"), (s) => [s.className, '
              's.textContent]))}))')

    def shown() -> list:
        return [row for row in driver.script(listed) if 'STOP by bob' in row['text']]
    driver.until(shown, 'the incident is not listed', timeout=WAIT + AFTER_SECONDS)
    row = shown()[0]
    kept = next(r for r in incidents(robot.namespace) if r.id == row['id'])
    assert kept.speed is not None and kept.speed > 0.1
    assert row['figures'] == {'speed': f'{kept.speed:.2f} m/s',
                              'to-zero': f'zero after {kept.time_to_zero * 1000:.0f} ms',
                              'to-rest': f'at rest after {kept.time_to_rest:.2f} s',
                              'distance': f'travelled {kept.distance:.2f} m'}, row
