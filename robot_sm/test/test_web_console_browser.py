"""
The web console in a real browser, on the simulated robot's suite, as an operator uses it.

``robot-sm up --sim --remote`` (the robot stops when the operator heartbeat is lost) and
``robot-sm web`` run as child processes; headless Chromium (Debian's, driven by selenium) opens
the page and clicks, taps, drags and long-presses it (``web_console_rig``). What the suite did is
checked through a SuiteClient of the test, over DDS. One suite, one console and one browser serve
the whole module; each test starts from the suite at rest (no activity, no waypoints, the e-stop
released, STOPPED) on a freshly opened page, and sets up what it relies on. Skipped,
naming the install command, where Chromium or its driver is missing; CI installs them
(``.ci/run``).
"""

import http.server
import math
import os
import signal
import threading
import time
from typing import Any, Iterator, List, Tuple

import pytest
from robot_sm.demo.browser import unavailable_reason
from robot_sm.testing import SCHEDULING_SLACK, wait_until
from web_console_rig import HEARTBEAT_TIMEOUT, Operator, Robot, WAIT

# The tests share one suite and browser: one worker of a parallel run takes them all, and runs
# them after or before the two-host tests (the heaviest files, with suites as processes).
pytestmark = [pytest.mark.skipif(unavailable_reason() is not None,
                                 reason=unavailable_reason() or ''),
              pytest.mark.xdist_group('suites_as_processes')]
#: What the page promises: "connection lost" within a second of its socket falling silent.
SILENCE_SHOWN = 1.0


@pytest.fixture(scope='module')
def robot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Robot]:
    started = Robot(tmp_path_factory.mktemp('web_tokens'))
    try:
        started.wait_ready()
        yield started
    finally:
        started.close()


@pytest.fixture(scope='module')
def hands(robot: Robot) -> Iterator[Operator]:
    hands = Operator(robot)
    try:
        yield hands
    finally:
        hands.browser.close()


@pytest.fixture
def operator(robot: Robot, hands: Operator) -> Operator:
    """Give the operator a page opened for this test, the suite at rest (any test, any order)."""
    hands.fresh_page()
    robot.at_rest()
    hands.until(lambda: not hands.element('estop').is_displayed()
                and not hands.driver.find_elements('css selector', '#waypoints tbody tr')
                and hands.text('state') == 'Idle', 'the page does not show the suite at rest')
    return hands


def add_waypoints(robot: Robot, operator: Operator, *points: Tuple[float, float]) -> None:
    """Add waypoints through the suite; return once the page shows them all."""
    for x, y in points:
        assert robot.client.add_waypoint(x, y).success
    operator.until(lambda: len(operator.driver.find_elements(
        'css selector', '#waypoints tbody tr')) == len(robot.waypoints()), 'not shown')


def drive_waypoints(robot: Robot, operator: Operator) -> None:
    """Have the robot follow two waypoints round trip in AUTONOMOUS; return once it drives."""
    add_waypoints(robot, operator, (4.5, 2.9), (1.0, 1.8))
    result = robot.client.start_waypoint_following('roundtrip')
    assert result.success, result.message
    operator.until(lambda: any(abs(m.linear.x) > 0.05 for m in robot.cmd_vel.messages[-5:]),
                   'the robot is not driving')


def test_a_phone_shows_the_stop_without_scrolling_even_scrolled_down(
        robot: Robot, operator: Operator) -> None:
    operator.browser.resize(390, 844)
    try:
        assert operator.driver.execute_script('return window.innerWidth') == 390
        for scrolled in (0, 10000):
            operator.driver.execute_script(f'window.scrollTo(0, {scrolled})')
            top, bottom, height, width = operator.driver.execute_script(
                "const r = document.getElementById('stop').getBoundingClientRect();"
                'return [r.top, r.bottom, window.innerHeight, r.width];')
            assert 0 <= top and bottom <= height and width >= 120, (top, bottom, height, width)
            assert operator.element('stop').is_displayed()
    finally:
        operator.browser.resize(1280, 800)


def test_the_page_shows_the_robot_and_the_robot_hears_the_operator(
        robot: Robot, operator: Operator) -> None:
    operator.until(lambda: operator.text('state') == robot.client.state().message,
                   'the state is not shown')
    operator.until(lambda: 'the robot hears your heartbeat' in operator.text('presence'),
                   'the robot does not hear the page')
    operator.until(lambda: operator.element('map').get_attribute('data-robot'), 'no robot')
    x, y = operator.robot_marker()
    assert math.hypot(x - robot.pose()[0], y - robot.pose()[1]) < 0.05
    # STOPPED, as after every start (config/remote.yaml engages nothing before the operator is
    # heard): the page says why the robot does not move.
    assert robot.mode() == ('stopped', False) and not operator.element('estop').is_displayed()
    operator.until(lambda: operator.text('mode') == 'stopped'
                   and operator.element('held').get_attribute('title').startswith(
                       'the mux is STOPPED (as after every start'), 'held is not shown')


def test_the_robot_selector_shows_an_expected_robot_that_is_missing(
        robot: Robot, operator: Operator) -> None:
    def options() -> List[Tuple[str, bool]]:  # the text whether shown or not (a closed list)
        return [(option.get_attribute('textContent'), option.is_enabled()) for option in
                operator.driver.find_elements('css selector', '#robot option')]

    operator.until(lambda: (f'{robot.missing} · NOT FOUND', False) in options(),
                   f'the missing robot is not listed: {options()}')


def test_release_takes_two_taps_and_selects_no_mode(robot: Robot, operator: Operator) -> None:
    assert robot.client.set_emergency_stop(True).success
    operator.until(lambda: operator.connected() and operator.element('release').is_displayed(),
                   'no e-stop to release')
    operator.click('release')
    operator.until(lambda: operator.text('release') == 'Tap again to release', 'not armed')
    time.sleep(0.5)
    assert robot.mode()[1], 'one tap released the e-stop'
    operator.click('release')
    assert wait_until(lambda: not robot.mode()[1], WAIT)
    operator.until(lambda: not operator.element('estop').is_displayed(), 'banner still shown')
    assert robot.mode() == ('stopped', False)


def test_the_stop_engages_the_mux_e_stop_and_the_page_shows_why(robot: Robot,
                                                                operator: Operator) -> None:
    operator.click('mode-autonomy')
    assert wait_until(lambda: robot.mode() == ('autonomy', False), WAIT), operator.text('answer')
    operator.until(lambda: operator.element('mode-autonomy').get_attribute('aria-pressed')
                   == 'true', 'the mode is not shown')
    operator.click('stop')
    assert wait_until(lambda: robot.mode()[1], WAIT), operator.text('stop-note')
    operator.until(lambda: operator.element('estop').is_displayed(), 'no e-stop banner')
    # The reason names who stopped it: this page.
    operator.until(lambda: 'STOP by web@127.0.0.1' in operator.text('estop-reason'),
                   'no reason shown')
    assert not operator.element('mode-autonomy').is_enabled()  # no mode during an e-stop


def test_a_refusal_of_the_suite_is_shown_to_the_operator(
        robot: Robot, operator: Operator) -> None:
    add_waypoints(robot, operator, (2.0, 1.5))
    # Another operator engaged the e-stop: a start from the page is refused, in the suite's words.
    assert robot.client.set_emergency_stop(True).success
    operator.until(lambda: operator.element('estop').is_displayed(), 'no e-stop banner')
    operator.click('follow-start')
    operator.until(lambda: operator.text('answer') == 'start following: Emergency Stop'
                   and 'refused' in operator.element('answer').get_attribute('class'),
                   'no refusal shown')
    assert robot.client.state().message == 'Emergency Stop'


def test_a_tap_on_the_map_adds_a_waypoint_the_service_provider_holds(
        robot: Robot, operator: Operator) -> None:
    operator.tap(2.0, 1.5)
    operator.until(lambda: len(robot.waypoints()) == 1, 'no waypoint added')
    added = robot.waypoints()[0]
    assert math.hypot(added.x - 2.0, added.y - 1.5) < 0.05, added
    operator.until(lambda: len(operator.driver.find_elements(
        'css selector', '#waypoints tbody tr')) == 1, 'the table does not show it')


def test_a_drag_moves_the_waypoint(robot: Robot, operator: Operator) -> None:
    add_waypoints(robot, operator, (2.0, 1.5))
    before = robot.waypoints()[0]
    operator.drag((before.x, before.y), (4.5, 2.9))
    operator.until(lambda: math.hypot(robot.waypoints()[0].x - 4.5,
                                      robot.waypoints()[0].y - 2.9) < 0.05, 'not moved')
    assert robot.waypoints()[0].waypoint_id == before.waypoint_id
    assert len(robot.waypoints()) == 1


def test_following_starts_and_the_robot_marker_moves(robot: Robot, operator: Operator) -> None:
    add_waypoints(robot, operator, (4.5, 2.9))
    operator.tap(1.0, 1.8)
    operator.until(lambda: len(robot.waypoints()) == 2, 'no second waypoint')
    operator.click('mode-autonomy')
    assert wait_until(lambda: robot.mode() == ('autonomy', False), WAIT)
    operator.driver.find_element('css selector', '#follow-mode option[value="roundtrip"]') \
        .click()
    start = operator.robot_marker()
    operator.click('follow-start')
    operator.until(lambda: operator.text('state').startswith('W: '), 'not following')
    operator.until(lambda: math.hypot(operator.robot_marker()[0] - start[0],
                                      operator.robot_marker()[1] - start[1]) > 0.3,
                   'the robot marker did not move')


def test_closing_the_page_stops_the_robot_and_nothing_moves_until_release_and_mode(
        robot: Robot, operator: Operator) -> None:
    drive_waypoints(robot, operator)
    assert robot.mode() == ('autonomy', False)
    closed = time.monotonic()
    operator.close_page()
    assert wait_until(lambda: robot.mode()[1], HEARTBEAT_TIMEOUT + 1.0 + SCHEDULING_SLACK)
    stopped = time.monotonic() - closed
    assert stopped <= HEARTBEAT_TIMEOUT + 0.3 + SCHEDULING_SLACK, stopped
    robot.cmd_vel.wait_last(lambda m: m.linear.x == 0.0 and m.angular.z == 0.0, timeout=WAIT)
    parked = robot.parked()
    operator.open_page()
    operator.until(lambda: operator.element('estop').is_displayed(), 'e-stop not shown')
    operator.release()
    time.sleep(2.0)
    assert robot.mode() == ('stopped', False)  # the page selected no mode by itself
    still = robot.parked()
    assert math.hypot(still[0] - parked[0], still[1] - parked[1]) < 0.01


def test_connection_lost_is_shown_within_a_second_and_the_robot_stops(
        robot: Robot, operator: Operator) -> None:
    operator.click('mode-autonomy')
    assert wait_until(lambda: robot.mode() == ('autonomy', False), WAIT)
    operator.until(lambda: operator.connected() and operator.text('answer').startswith(
        'mode autonomy:'), 'the answer is not shown')
    frozen = time.time()
    os.kill(robot.web.pid, signal.SIGSTOP)  # the console falls silent, its sockets stay open
    try:
        operator.until(lambda: operator.text('link').startswith('CONNECTION LOST'),
                       'the page did not notice', timeout=SILENCE_SHOWN + 5.0)
        # When the page showed it (its own clock, ms since 1970), not when this test looked.
        shown = float(operator.element('link').get_attribute('data-since')) / 1000.0 - frozen
        assert 0.0 < shown <= SILENCE_SHOWN + SCHEDULING_SLACK, shown
        assert wait_until(lambda: robot.mode()[1], HEARTBEAT_TIMEOUT + 1.0 + SCHEDULING_SLACK)
    finally:
        os.kill(robot.web.pid, signal.SIGCONT)
    operator.until(lambda: operator.text('link') == 'connected', 'the page did not reconnect')
    operator.until(lambda: operator.element('estop').is_displayed(), 'e-stop not shown')
    operator.release()
    assert robot.mode() == ('stopped', False)


def test_a_long_press_sends_the_robot_to_a_goal(robot: Robot, operator: Operator) -> None:
    operator.click('mode-autonomy')
    assert wait_until(lambda: robot.mode() == ('autonomy', False), WAIT)
    operator.long_press(1.5, 0.7)
    operator.until(lambda: operator.text('state').startswith('G: '), 'no goal taken')
    operator.click('goal-cancel')
    operator.until(lambda: operator.text('state') == 'Idle', 'the goal was not cancelled')


def test_a_read_only_page_shows_the_robot_and_no_control(
        robot: Robot, operator: Operator) -> None:
    operating = operator.page
    operator.open_page(token=robot.watcher)
    operator.until(lambda: operator.text('state') != '?', 'no state shown')
    assert not operator.element('stop').is_displayed()
    assert not operator.element('controls').is_displayed()
    assert 'read-only' in operator.text('role')
    operator.close_page()
    operator.driver.switch_to.window(operating)
    operator.page = operating


class ForeignSite(http.server.BaseHTTPRequestHandler):
    """A page of another site that tries to stop the robot through the operator's browser."""

    console = ''

    def do_GET(self) -> None:  # noqa: N802 - the handler's name
        script = (
            f"const ws = new WebSocket('{self.console.replace('http', 'ws')}/ws');"
            "ws.onopen = () => { ws.send(JSON.stringify({type: 'call', id: 1, action: 'stop'}));"
            " document.title = 'opened'; };"
            "ws.onclose = () => { if (document.title !== 'opened') document.title = 'refused'; };"
            f"fetch('{self.console}/api/stop', {{method: 'POST', mode: 'no-cors', "
            "credentials: 'include', body: '{}'});")
        body = f'<html><head><title>waiting</title><script>{script}</script></head></html>'
        self.send_response(200)
        self.send_header('Content-Type', 'text/html')
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args: Any) -> None:
        pass


def test_another_site_cannot_operate_the_robot_through_the_operator_s_browser(
        robot: Robot, operator: Operator) -> None:
    # The browser holds the operator's session cookie for 127.0.0.1 (the page is open).
    before = robot.mode(), robot.waypoints()
    ForeignSite.console = robot.url
    site = http.server.ThreadingHTTPServer(('127.0.0.1', 0), ForeignSite)
    serving = threading.Thread(target=site.serve_forever, daemon=True)
    serving.start()
    try:
        operator.driver.switch_to.new_window('tab')
        operator.driver.get(f'http://127.0.0.1:{site.server_address[1]}/')
        operator.until(lambda: operator.driver.title == 'refused', 'the socket was not refused')
        time.sleep(1.0)
        operator.driver.close()
        operator.driver.switch_to.window(operator.page)
    finally:
        site.shutdown()
        site.server_close()
    assert (robot.mode(), robot.waypoints()) == before
    assert '403' in robot.web.output or 'another site' in robot.web.output
