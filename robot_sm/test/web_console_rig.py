"""
What the web console's browser tests share: the suite and the console, and the operator's hands.

:class:`Robot` runs ``robot-sm up --sim --remote`` and ``robot-sm web`` as child processes and
sees what the suite does through a SuiteClient and recorders of the test; :class:`Operator` drives
headless Chromium (Debian's, through selenium) on the console's page as an operator does, waiting
for what each step relies on (a connected page, a tap that took, an answer shown).
"""

import os
import pathlib
import socket
import time
from typing import Any, List, Optional, Sequence, Tuple

from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from operator_suite import cli_command
from robot_sm import qos
from robot_sm.client import operator, SuiteClient
from robot_sm.demo.browser import Browser
from robot_sm.testing import NodeProcess, Recorder, RosHarness, SCHEDULING_SLACK, wait_until

#: Seconds the tests wait for what the page or the suite should do.
WAIT = 20.0
#: config/remote.yaml's heartbeat_timeout.
HEARTBEAT_TIMEOUT = 1.0
#: How long after the last heartbeat the mux may still latch its e-stop for the silence: the
#: heartbeat timeout, a tick of the mux, and the scheduling slack.
HEARTBEAT_STOP = HEARTBEAT_TIMEOUT + 0.05 + SCHEDULING_SLACK


def free_tcp_port() -> int:
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return int(probe.getsockname()[1])


def token_file(folder: pathlib.Path, name: str, token: str) -> pathlib.Path:
    path = folder / name
    path.write_text(token + '\n')
    path.chmod(0o600)
    return path


class Robot:
    """The suite and the console as child processes, and what the test sees of them."""

    def __init__(self, folder: pathlib.Path, name: str = 'web_browser',
                 suite: Sequence[str] = (), fleet: bool = True, recorder: bool = False) -> None:
        """
        Run the suite (``robot-sm up --sim --remote`` and ``suite``) and the console.

        ``fleet``: the console's fleet file names a robot that never starts as well;
        ``recorder``: the incident recorder runs beside the suite (the tests of its list).
        """
        self.ros = RosHarness(namespace=f'/{name}_{os.getpid()}')
        self.namespace = self.ros.namespace
        self.operator = 'browser-test-operator-token-0123456789abcdef'
        self.watcher = 'browser-test-read-only-token-0123456789abcdef'
        self.port = free_tcp_port()
        self.url = f'http://127.0.0.1:{self.port}'
        robot_sm = [*cli_command(), '--namespace', self.namespace]
        #: A robot the console's fleet file names that never starts.
        self.missing = f'{self.namespace}_robot9'
        fleet_file = folder / 'fleet.yaml'
        fleet_file.write_text(f'robots: [{self.namespace}, {self.missing}]\n')
        self.suite = NodeProcess([*robot_sm, 'up', '--sim', '--remote', *suite,
                                  *([] if recorder else ['--no-recorder'])])
        self.web = NodeProcess([*robot_sm, 'web', '--port', str(self.port),
                                *(['--fleet', str(fleet_file)] if fleet else []),
                                '--token-file',
                                str(token_file(folder, 'operator', self.operator)),
                                '--read-only-token-file',
                                str(token_file(folder, 'watcher', self.watcher))])
        # The test's own calls are those of the operator at the page (on this computer).
        page = operator('web@127.0.0.1', surface='web', address='127.0.0.1')
        self.client = SuiteClient(namespace=self.namespace, timeout=10.0, by=page,
                                  context=self.ros.context)
        self.cmd_vel: Recorder[Twist] = self.ros.record(Twist, 'cmd_vel', qos.COMMAND_IN)
        self.truth: Recorder[Odometry] = self.ros.record(Odometry, 'base_pose_ground_truth')

    def wait_ready(self) -> None:
        """Wait until the console serves and the suite has booted."""
        assert wait_until(lambda: 'served at' in self.web.output, 60.0), self.web.output
        self.client.wait_for_state(lambda state: state not in ('', 'Boot'), timeout=60.0)

    def mode(self) -> Tuple[str, bool]:
        found = self.client.wait_for_mode()
        return found.mode, found.emergency_stop

    def pose(self) -> Tuple[float, float]:
        result = self.client.robot_pose()
        assert result.success, result.message
        return result.data[0], result.data[1]

    def parked(self) -> Tuple[float, float]:
        """Wait until the simulated robot stands still (it has taken the zero); return where."""
        still = self.truth.wait_last(lambda m: m.twist.twist.linear.x == 0.0
                                     and m.twist.twist.angular.z == 0.0, timeout=WAIT)
        return still.pose.pose.position.x, still.pose.pose.position.y

    def waypoints(self) -> List[Any]:
        return list(self.client.waypoints().data['waypoints'])

    def at_rest(self) -> None:
        """
        Bring the suite back to rest: no activity, no waypoints, e-stop released, STOPPED.

        The operator must be heard (a page open): a release is refused while it is not.
        """
        state = self.client.state().message
        stops = {'W: ': self.client.stop_waypoint_following, 'E: ': self.client.stop_exploration,
                 'G: ': self.client.cancel_goal}
        for prefix, stop in stops.items():
            if state.startswith(prefix):
                stop()
        if self.mode()[1]:
            result = self.client.set_emergency_stop(False)
            assert result.success, result.message
        result = self.client.set_mode('stopped')
        assert result.success, result.message
        for _ in self.waypoints():
            assert self.client.remove_waypoint(0).success
        self.client.wait_for_state('Idle', timeout=WAIT)
        self.parked()

    def close(self) -> None:
        self.client.close()
        self.web.stop()
        self.suite.stop()
        self.ros.shutdown()


class Operator:
    """The browser, and the hands on the console's page."""

    def __init__(self, robot: Robot) -> None:
        self.robot = robot
        self.browser = Browser(1280, 800)
        self.driver = self.browser.driver
        self.home = self.driver.current_window_handle  # a blank tab that stays open
        self.page: Optional[str] = None
        #: When a console's tab was last closed (``time.monotonic()``), if ever.
        self.last_closed = float('-inf')

    def open_page(self, token: Optional[str] = None, size: Tuple[int, int] = (1280, 800),
                  name: str = '') -> None:
        """
        Open the console in a tab of ``size``, logged in with ``token`` (or the operator's).

        ``name``: the name given at the login (the page's operator is then ``name@127.0.0.1``).
        """
        self.driver.switch_to.new_window('tab')
        self.page = self.driver.current_window_handle
        self.prepare_tab()
        self.browser.resize(*size)
        self.driver.get(f'{self.robot.url}/login?token={token or self.robot.operator}'
                        + (f'&name={name}' if name else ''))
        self.until(lambda: self.text('link') == 'connected', 'the page did not connect')

    def prepare_tab(self) -> None:
        """Prepare a new tab before the page loads in it (nothing here)."""

    def close_page(self) -> None:
        """Close the console's tab, as an operator closes it."""
        self.driver.close()
        self.last_closed = time.monotonic()
        self.driver.switch_to.window(self.home)
        self.page = None

    def fresh_page(self) -> None:
        """
        Open the console in a new tab, then close the one open before, if any.

        The new page beats before the old one stops: the robot keeps hearing its operator.
        """
        old = self.page
        self.open_page()
        self.until(lambda: 'the robot hears your heartbeat' in self.text('presence'),
                   'the robot does not hear the page')
        if old is not None:
            new = self.page
            self.driver.switch_to.window(old)
            self.driver.close()
            self.last_closed = time.monotonic()
            self.driver.switch_to.window(new)

    def element(self, name: str) -> Any:
        return self.driver.find_element('id', name)

    def text(self, name: str) -> str:
        return str(self.element(name).text)

    def until(self, check: Any, why: str, timeout: float = WAIT) -> None:
        assert wait_until(check, timeout, interval=0.05), (
            f"{why}; link {self.text('link')!r}, answer {self.text('answer')!r}\n"
            + self.robot.web.output[-3000:])

    def click(self, name: str) -> None:
        self.element(name).click()

    def connected(self) -> bool:
        """Return whether the page's link is up (its controls take taps only then)."""
        return bool(self.driver.execute_script("return document.body.classList.contains('open')"))

    def screen_offset(self, x: float, y: float) -> Tuple[int, int]:
        """
        Return where (x, y) of the map is on the canvas, from its centre, in CSS pixels.

        The map is scrolled to the top of the page first, clear of the bar, so that all of it
        can be tapped (a click on a control further down may have scrolled the page).
        """
        self.driver.execute_script(
            "document.getElementById('map').scrollIntoView({block: 'start'})")
        scale, centre_x, centre_y = map(float, self.element('map').get_attribute(
            'data-view').split(','))
        return round((x - centre_x) * scale), round(-(y - centre_y) * scale)

    def actions(self) -> Any:
        from selenium.webdriver.common.action_chains import ActionChains
        return ActionChains(self.driver)

    def tap(self, x: float, y: float) -> None:
        self.actions().move_to_element_with_offset(self.element('map'),
                                                   *self.screen_offset(x, y)).click().perform()

    def drag(self, start: Tuple[float, float], end: Tuple[float, float]) -> None:
        canvas = self.element('map')
        self.actions().move_to_element_with_offset(canvas, *self.screen_offset(*start)) \
            .click_and_hold().move_by_offset(12, 0) \
            .move_to_element_with_offset(canvas, *self.screen_offset(*end)).release().perform()

    def long_press(self, x: float, y: float, confirm: bool = True) -> None:
        """Long-press (x, y) on the map; with ``confirm``, tap "Go there" when it is asked."""
        self.actions().move_to_element_with_offset(self.element('map'), *self.screen_offset(
            x, y)).click_and_hold().pause(1.0).release().perform()
        if confirm:
            self.until(lambda: self.element('goal-send').is_displayed(), 'no goal asked')
            self.click('goal-send')

    def robot_marker(self) -> Tuple[float, float]:
        shown = self.element('map').get_attribute('data-robot')
        x, y, _ = map(float, shown.split(','))
        return x, y

    def release_if_engaged(self) -> None:
        """
        Release the e-stop from the page if it is engaged (nobody beat before it opened).

        A page closed before this one opened stopped beating then: the mux latches its e-stop
        for that silence up to HEARTBEAT_STOP later, perhaps after this page opened. Only once
        that moment has passed is the mux's e-stop the one to release.
        """
        self.until(lambda: self.text('estop-off') != 'E-stop: not known yet'
                   or self.element('estop').is_displayed(), 'no e-stop shown')
        time.sleep(max(0.0, self.last_closed + HEARTBEAT_STOP - time.monotonic()))
        if self.robot.mode()[1]:
            self.release()

    def release(self) -> None:
        """
        Release the e-stop as an operator does: two taps on Release, each seen to take.

        Returns once the page shows the release, so that nothing on it moves after.
        """
        self.until(lambda: self.connected() and self.element('release').is_displayed(),
                   'no e-stop to release')
        self.click('release')
        self.until(lambda: self.text('release') == 'Tap again to release', 'the tap did not arm')
        self.click('release')
        assert wait_until(lambda: not self.robot.mode()[1], WAIT), self.text('answer')
        self.until(lambda: self.element('estop-off').is_displayed()
                   and self.text('answer').startswith('release:'), 'the release is not shown')
