"""
The demo's pictures of the web operator console: a phone and a laptop, mid-round.

While the office round runs, the console (:mod:`robot_sm.frontends.web`) serves the demo's
suite from this process, and headless Chromium (Debian's, driven by selenium) opens it at a
phone's and at a laptop's size once the robot is on its way, waits until the map, the robot and
the waypoints are drawn, and saves ``web-console-phone.png`` and ``web-console-laptop.png``.
Where Chromium is not installed it says so, and the demo goes on without them.
"""

import pathlib
import threading
import time
from typing import Any, Callable, List, Optional

from robot_sm.bringup.running_suite import RunningSuite

#: Seconds after the start of following before the pictures are taken.
DELAY = 6.0
#: Name, width, height (CSS pixels) and whether it is a phone (touch, pixel ratio 2).
SIZES = (('phone', 390, 844, True), ('laptop', 1280, 800, False))
#: What the page must show before it is photographed (a script run in the page).
READY = ("const map = document.getElementById('map');"
         "return document.body.classList.contains('open') && Boolean(map.dataset.robot)"
         " && document.querySelectorAll('#waypoints tbody tr').length > 0;")


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
        for name, width, height, phone in SIZES:
            path = self.output / f'web-console-{name}.png'
            try:
                with Browser(width, height, mobile=phone) as browser:
                    browser.driver.get(f'{self._server.url}/login?token={self._token}')
                    deadline = time.monotonic() + 20.0
                    while not browser.driver.execute_script(READY):
                        if time.monotonic() > deadline:
                            raise TimeoutError('the page did not show the robot in 20 s')
                        time.sleep(0.1)
                    time.sleep(1.0)  # the map and the path are drawn
                    self.saved.append(browser.screenshot(path))
            except Exception as error:  # noqa: B902 - a picture must not fail the demo
                self.echo(f'web console picture ({name}) not taken: {error}')

    def finish(self) -> List[pathlib.Path]:
        """Wait for the pictures, stop the console; return the pictures saved."""
        if self._thread is not None:
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
