"""
The demo's pictures of the web operator console: a phone and a laptop, mid-round.

While the office round runs, the console (:mod:`robot_sm.frontends.web`) serves the demo's
suite from this process, and headless Chromium (Debian's, driven by selenium) opens it at a
phone's and at a laptop's size once the robot is on its way, waits until the map, the robot, the
waypoints and the cycle diagram are drawn, and saves ``web-console-phone.png``,
``web-console-laptop.png`` and, scrolled to the operating cycle and the timeline,
``web-console-cycle.png``: pages of another operator than the demo's, which holds control (their
controls greyed with its name). Once the round is over, :meth:`ConsoleScreenshots.driving` has the
demo give control up, and a phone's page drives the robot with its joystick (turning it in place)
for ``web-console-driving.png``. Where Chromium is not installed it says so, and the demo goes on
without them.
"""

import pathlib
import threading
import time
from typing import Any, Callable, List, Optional

from robot_sm.bringup.running_suite import RunningSuite

#: Seconds after the start of following before the pictures are taken.
DELAY = 6.0
#: Name, width, height (CSS pixels), whether it is a phone (touch, pixel ratio 2), and the part
#: of the page scrolled to under the bar ('': the top).
SIZES = (('phone', 390, 844, True, ''), ('laptop', 1280, 800, False, ''),
         ('cycle', 1280, 800, False, 'cycle-panel'))
#: What the page must show before it is photographed (a script run in the page).
READY = ("const map = document.getElementById('map');"
         "return document.body.classList.contains('open') && Boolean(map.dataset.robot)"
         " && document.querySelectorAll('#waypoints tbody tr').length > 0"
         " && Boolean(document.getElementById('cycle').dataset.current)"
         " && document.querySelectorAll('#timeline li').length > 0;")
#: Scrolls the part named to just under the bar and the e-stop line.
SCROLL = ('const part = document.getElementById(arguments[0]);'
          'const above = document.getElementById("bar").offsetHeight'
          ' + document.querySelector(".estop-slot").offsetHeight + 12;'
          'window.scrollTo(0, part.getBoundingClientRect().top + window.scrollY - above);')


class ConsoleScreenshots:
    """The console on the demo's suite, and a thread that photographs it."""

    def __init__(self, suite: RunningSuite, output: Optional[pathlib.Path],
                 echo: Callable[[str], None]) -> None:
        """Serve the console of ``suite`` and take the pictures into ``output`` (None: none)."""
        from robot_sm.demo.browser import unavailable_reason
        self.echo = echo
        self.output = output or pathlib.Path('.')
        self.saved: List[pathlib.Path] = []
        self._server: Optional[Any] = None
        self._thread: Optional[threading.Thread] = None
        if output is None:
            return
        reason = unavailable_reason()
        if reason:
            echo(f'web console pictures left out: {reason}')
            return
        from robot_sm.frontends.web.gate import Gate
        from robot_sm.frontends.web.server import WebServer, WebServerThread
        from robot_sm.frontends.web.tokens import AccessTokens, new_token
        self._token = new_token()
        self._server = WebServerThread(WebServer(
            suite.context, suite.namespace, Gate(AccessTokens(self._token), tls=False), port=0))
        self._thread = threading.Thread(target=self._photograph, name='demo_web', daemon=True)
        self._thread.start()

    def _photograph(self) -> None:
        from robot_sm.demo.browser import Browser
        time.sleep(DELAY)
        assert self._server is not None
        for name, width, height, phone, part in SIZES:
            path = self.output / f'web-console-{name}.png'
            try:
                with Browser(width, height, mobile=phone) as browser:
                    browser.driver.get(f'{self._server.url}/login?token={self._token}')
                    deadline = time.monotonic() + 20.0
                    while not browser.driver.execute_script(READY):
                        if time.monotonic() > deadline:
                            raise TimeoutError('the page did not show the robot in 20 s')
                        time.sleep(0.1)
                    if part:
                        browser.driver.execute_script(SCROLL, part)
                    time.sleep(1.0)  # the map and the path are drawn
                    self.saved.append(browser.screenshot(path))
            except Exception as error:  # noqa: B902 - a picture must not fail the demo
                self.echo(f'web console picture ({name}) not taken: {error}')

    def driving(self, give_up: Callable[[], Any]) -> None:
        """Photograph a phone's page as it turns the robot in place, once ``give_up`` ran."""
        if self._server is None or self._thread is None:
            return
        self._thread.join(timeout=90.0)  # the pictures of the round first
        from robot_sm.demo.browser import Browser
        from selenium.webdriver.common.action_chains import ActionChains
        give_up()
        path = self.output / 'web-console-driving.png'
        state = "return document.getElementById('joystick').dataset.state"
        try:
            with Browser(390, 844) as browser:
                driver = browser.driver
                driver.get(f'{self._server.url}/login?token={self._token}&name=phone')
                self._wait(lambda: driver.execute_script(state) == 'ready')
                pad = driver.find_element('id', 'joystick')
                ActionChains(driver).move_to_element(pad).click_and_hold() \
                    .move_by_offset(40, -12).perform()  # ahead and to the right
                try:
                    self._wait(lambda: driver.execute_script(state) == 'driving')
                    time.sleep(1.5)  # the answer shown, the robot turning
                    self.saved.append(browser.screenshot(path))
                finally:
                    ActionChains(driver).release().perform()
        except Exception as error:  # noqa: B902 - a picture must not fail the demo
            self.echo(f'web console picture (driving) not taken: {error}')

    @staticmethod
    def _wait(check: Callable[[], bool], timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                raise TimeoutError(f'the page was not ready in {timeout:g} s')
            time.sleep(0.1)

    def finish(self) -> List[pathlib.Path]:
        """Wait for the pictures, stop the console; return the pictures saved."""
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout=90.0)
        if self._server is not None:
            self._server.close()
        for path in self.saved:
            self.echo(f'picture: {path} (the web console)')
        return self.saved

    def __enter__(self) -> 'ConsoleScreenshots':
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.finish()
