"""
The page's activity buttons follow the typed activity, with a robot package's own states.

A suite whose navigation is the test package's ``Nav2Drive`` (states ``W: Nav2Drive``) and whose
exploration chooses its goals with ``WordyExploration`` (``E: Frontier Picker``), no robot, and the
console's server run in this process; headless Chromium (Debian's, through selenium) starts and
stops following and exploration from the page. Which buttons show a run (pressed, "running"),
and what Pause would pause, follow the suite's activity codes (``robot_sm/state``), never its
states' names, which the page shows as they are. Skipped, naming the install command, where
Chromium or its driver is missing.
"""

import os
from typing import Iterator, Optional

from operator_suite import scripted
import pytest
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.client import operator as who
from robot_sm.demo.browser import unavailable_reason
from robot_sm.frontends.web.gate import Gate
from robot_sm.frontends.web.server import WebServer, WebServerThread
from robot_sm.frontends.web.tokens import AccessTokens
from robot_sm.testing import RosHarness
from web_console_rig import Operator

pytestmark = [pytest.mark.skipif(unavailable_reason() is not None,
                                 reason=unavailable_reason() or ''),
              pytest.mark.xdist_group('suites_as_processes')]
TOKEN = 'operator-token-for-the-plugin-activities-0123456789'
#: The robot package's plugins, a goal taking 10 s (the round runs on while the page looks).
PLUGINS = {'navigation_plugin': 'Nav2Drive', 'Nav2Drive.drive_ticks': 200,
           'calculate_goal_plugin': 'WordyExploration'}


class Console:
    """The suite with the package's plugins, the console's server, and what the rig needs."""

    def __init__(self) -> None:
        self.ros = RosHarness(namespace=f'/web_plugins_{os.getpid()}')
        self.suite: Optional[RunningSuite] = None
        self.server: Optional[WebServerThread] = None
        self.operator = TOKEN
        self.web = self  # the rig reads web.output when a wait fails
        self.output = ''

    def start(self) -> None:
        self.suite = RunningSuite(namespace=self.ros.namespace, context=self.ros.context,
                                  parameters=scripted(PLUGINS))
        self.suite.client = self.suite.client.with_operator(
            who('web@127.0.0.1', surface='web', address='127.0.0.1'))
        assert self.suite.client.add_waypoint(1.0, 0.0).success
        self.server = WebServerThread(WebServer(self.ros.context, self.ros.namespace,
                                                Gate(AccessTokens(TOKEN), tls=False), port=0))
        self.url = self.server.url

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
        if self.suite is not None:
            self.suite.close()
        self.ros.shutdown()


@pytest.fixture(scope='module')
def console() -> Iterator[Console]:
    started = Console()
    try:
        started.start()
        yield started
    finally:
        started.close()


@pytest.fixture
def operator(console: Console) -> Iterator[Operator]:
    hands = Operator(console)  # type: ignore[arg-type]
    try:
        hands.open_page(size=(1280, 1000))
        yield hands
    finally:
        hands.browser.close()


def shown(operator: Operator) -> tuple:
    """Return which start buttons show a run, and what the groups' headings say."""
    pressed = tuple(operator.element(name).get_attribute('aria-pressed') == 'true'
                    for name in ('follow-start', 'explore-start'))
    return pressed + (operator.text('following-running'), operator.text('exploring-running'))


def test_the_buttons_follow_the_activity_of_a_robot_package_s_own_states(
        console: Console, operator: Operator) -> None:
    suite = console.suite
    assert suite is not None
    operator.until(lambda: operator.text('state') == 'Idle', 'not idle')
    assert shown(operator) == (False, False, '', '')
    operator.click('follow-start')
    operator.until(lambda: operator.text('state') == 'W: Nav2Drive', 'not following')
    operator.until(lambda: shown(operator) == (True, False, '· running', ''),
                   'the following is not shown running')
    assert operator.text('resumable') == 'pauses: waypoint following'
    assert operator.element('pause').is_enabled()
    operator.click('follow-stop')
    operator.until(lambda: operator.text('state') == 'Idle', 'the following did not stop')
    operator.until(lambda: shown(operator) == (False, False, '', ''), 'still shown running')
    assert not operator.element('pause').is_enabled()
    operator.click('explore-start')
    operator.until(lambda: operator.text('state').startswith('E: '), 'not exploring')
    operator.until(lambda: shown(operator) == (False, True, '', '· running'),
                   'the exploration is not shown running')
    operator.click('explore-stop')
    operator.until(lambda: shown(operator) == (False, False, '', ''), 'still shown exploring')
