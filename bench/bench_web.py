"""
What the web operator console costs and how fast its Software Stop stops the robot.

``robot-sm up --sim`` (the office, the map revealed as the robot drives) and ``robot-sm web``
run in processes of their own, as on a robot; this process is the planner (a 50 Hz autonomy
stream), the base (it records ``cmd_vel``) and the pages.

- Stop: the page's Software Stop (a ``stop`` call over the console's WebSocket) → the first zero
  on ``cmd_vel``, against the same stop through ``SuiteClient.set_emergency_stop`` from this
  process, alternating in the same run.
- CPU of the console's process (user + system time from /proc) with no page open and the robot
  parked, and with five pages open (windows of headless Chromium where it is installed, each
  drawing the map, the cycle diagram and the timeline; else five WebSocket clients that ping as
  a page does) while the robot follows waypoints, then parked.
- Update rates a page sees while the robot drives: pose updates and maps per second.
- Driving (``web_drive.py``): a page's drive message → the first ``cmd_vel`` with that velocity
  and its zero → the first zero, against the same OperatorTwist from a plain rclpy publisher;
  with Chromium, a press on a real page's joystick → the first moving ``cmd_vel`` and its
  release → the first zero; and the console's CPU with the five pages open, one of them driving.

Run: ``tools/with_ros_env.sh python bench/bench_web.py [--stops N] [--drives N]``.
"""

import argparse
import asyncio
import json
import os
import pathlib
import random
import socket
import sys
import tempfile
import threading
import time
from typing import Any, Dict, List

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import aiohttp  # noqa: E402
from bench_safety import Base, moving, still  # noqa: E402
from geometry_msgs.msg import Twist, Vector3  # noqa: E402
from report import print_table, private_ros_home, save, summary  # noqa: E402
from robot_sm import qos  # noqa: E402
from robot_sm.client import operator, SuiteClient  # noqa: E402
from robot_sm.testing import NodeProcess, RosHarness, wait_until  # noqa: E402
from web_drive import (  # noqa: E402
    hold_joystick,
    measure_drive,
    measure_joystick,
    PAGE_OPERATOR,
)

NAMESPACE = f'/bench_web_{os.getpid()}'
TOKEN = 'bench-web-operator-token-0123456789abcdef'
#: Seconds each CPU figure is measured over.
CPU_WINDOW = 10.0


class Page:
    """A page's WebSocket, on an event loop of its own thread: pings at 10 Hz, counts updates."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.loop = asyncio.new_event_loop()
        self.counts: Dict[str, int] = {}
        self.answers: Dict[int, Any] = {}
        self._ws: Any = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self._running = asyncio.run_coroutine_threadsafe(self._run(), self.loop)
        if not self._ready.wait(30.0):
            raise TimeoutError('the page did not connect')

    async def _run(self) -> None:
        headers = {'Authorization': f'Bearer {TOKEN}'}
        async with aiohttp.ClientSession(headers=headers) as session:
            async with session.ws_connect(self.url.replace('http', 'ws') + '/ws') as ws:
                self._ws = ws
                self._ready.set()
                pinger = asyncio.ensure_future(self._ping(ws))
                async for msg in ws:
                    self._count(msg)
                pinger.cancel()

    async def _ping(self, ws: Any) -> None:
        seq = 0
        while True:
            seq += 1
            await ws.send_str(json.dumps({'type': 'ping', 'seq': seq}))
            await asyncio.sleep(0.1)

    def _count(self, msg: Any) -> None:
        if msg.type != aiohttp.WSMsgType.TEXT:
            return
        document = json.loads(msg.data)
        key = document.get('kind', document['type'])
        self.counts[key] = self.counts.get(key, 0) + 1
        if document['type'] == 'result':
            self.answers[document['id']] = document

    def send(self, action: str, call_id: int) -> None:
        """Send a call now (from any thread)."""
        message = json.dumps({'type': 'call', 'id': call_id, 'action': action, 'args': {}})
        self.loop.call_soon_threadsafe(asyncio.ensure_future, self._ws.send_str(message))

    def drive(self, linear: float, angular: float) -> None:
        """Send the velocity of the page's joystick now (from any thread)."""
        message = json.dumps({'type': 'drive', 'seq': 0, 'linear': linear, 'angular': angular})
        self.loop.call_soon_threadsafe(asyncio.ensure_future, self._ws.send_str(message))

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self._ws.close(), self.loop).result(5.0)
        self._running.result(5.0)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5.0)
        self.loop.close()


def cpu_seconds(pid: int) -> float:
    """Return the user + system CPU time of process ``pid`` (and its threads) in seconds."""
    fields = pathlib.Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def cpu_share(pid: int, seconds: float = CPU_WINDOW) -> float:
    """Return the share of one core process ``pid`` used over the next ``seconds``."""
    before, started = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return (cpu_seconds(pid) - before) / (time.monotonic() - started)


def free_tcp_port() -> int:
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return int(probe.getsockname()[1])


def measure_stops(ros: RosHarness, client: SuiteClient, page: Page,
                  samples: int) -> Dict[str, List[float]]:
    """Return stop → first zero on cmd_vel (s), through the page and through SuiteClient."""
    base = Base(ros, NAMESPACE)
    stream = ros.publisher(Twist, f'{NAMESPACE}/autonomy/cmd_vel', qos.COMMAND_OUT)
    timer = ros.probe.create_timer(0.02, lambda: stream.publish(Twist(linear=Vector3(x=0.5))))
    delays: Dict[str, List[float]] = {'web page (WebSocket)': [], 'SuiteClient': []}
    call_id = 0
    for _ in range(samples):
        for name in random.sample(list(delays), len(delays)):
            assert client.set_mode('autonomy').success
            base.expect(moving)
            base.wait()
            time.sleep(random.uniform(0.0, 0.05))  # no phase lock with the mux's 20 Hz tick
            base.expect(still)
            called = time.monotonic()
            if name == 'SuiteClient':
                assert client.set_emergency_stop(True).success
            else:
                call_id += 1
                page.send('stop', call_id)
            delays[name].append(base.wait() - called)
            if name != 'SuiteClient':
                assert wait_until(lambda: call_id in page.answers, 5.0)
                assert page.answers[call_id]['success'], page.answers[call_id]
            assert client.set_emergency_stop(False).success
    ros.probe.destroy_timer(timer)  # the planner goes quiet: navigation drives from now on
    return delays


def open_pages(url: str, count: int) -> List[Any]:
    """Open ``count`` pages: Chromium tabs where it is installed, else WebSocket clients."""
    from robot_sm.demo.browser import Browser, unavailable_reason
    if unavailable_reason() is not None:
        return [Page(url) for _ in range(count)]
    browser = Browser(1280, 800)
    browser.driver.get(f'{url}/login?token={TOKEN}')
    for _ in range(count - 1):  # windows, not tabs: a tab in the background is slowed down
        browser.driver.switch_to.new_window('window')
        browser.driver.get(f'{url}/')
    return [browser]


def start(folder: pathlib.Path) -> Dict[str, Any]:
    """Start the suite and the console; return them, the console's URL and a client."""
    token = folder / 'token'
    token.write_text(TOKEN)
    token.chmod(0o600)
    params = folder / 'reveal.yaml'
    params.write_text('/**/robot_sim:\n  ros__parameters:\n    reveal_map: true\n')
    port = free_tcp_port()
    robot_sm = [sys.executable, '-m', 'robot_sm.frontends.cli', '--namespace', NAMESPACE]
    suite = NodeProcess([*robot_sm, 'up', '--sim', '--params', str(params)])
    web = NodeProcess([*robot_sm, 'web', '--port', str(port), '--token-file', str(token)])
    if not wait_until(lambda: 'served at' in web.output, 60.0):
        raise TimeoutError(web.output)
    return {'suite': suite, 'web': web, 'url': f'http://127.0.0.1:{port}'}


def drive_round(client: SuiteClient) -> None:
    """Follow waypoints around the office, round after round."""
    for x, y in ((1.5, 1.5), (4.0, 2.9), (6.5, 1.0), (4.0, 2.9)):
        assert client.add_waypoint(x, y).success
    client.wait_for_state('Idle', timeout=30.0)  # out of Emergency Stop after the last release
    assert client.set_mode('autonomy').success
    # Just after the last release the state machine may still be handling its interrupt.
    started = client.start_waypoint_following('roundtrip')
    deadline = time.monotonic() + 10.0
    while not started.success and time.monotonic() < deadline:
        time.sleep(0.2)
        started = client.start_waypoint_following('roundtrip')
    assert started.success, started.message


def measure_rates(page: Page, seconds: float = 15.0) -> Dict[str, float]:
    """Return updates per second a page gets, by kind, over ``seconds`` of driving."""
    before = dict(page.counts)
    time.sleep(seconds)
    return {kind: (page.counts.get(kind, 0) - before.get(kind, 0)) / seconds
            for kind in ('pose', 'map', 'path', 'waypoints', 'state')}


def run(options: argparse.Namespace, folder: pathlib.Path) -> Dict[str, Any]:
    ros = RosHarness(namespace='/bench_web_probe')
    started = start(folder)
    # The bench's calls are those of its pages' operator (the token's pages: web@127.0.0.1).
    client = SuiteClient(namespace=NAMESPACE, timeout=10.0, context=ros.context,
                         by=operator(PAGE_OPERATOR, surface='web', address='127.0.0.1'))
    pages: List[Any] = []
    try:
        client.wait_for_state(lambda state: state not in ('', 'Boot'), timeout=60.0)
        web_pid = started['web'].pid
        idle = cpu_share(web_pid)
        page = Page(started['url'])
        pages.append(page)
        stops = measure_stops(ros, client, page, options.stops)
        drive_round(client)
        rates = measure_rates(page)
        pages += open_pages(started['url'], 5)
        time.sleep(3.0)  # the pages have loaded
        busy = cpu_share(web_pid)
        assert client.stop_waypoint_following().success
        client.wait_for_state('Idle', timeout=30.0)
        parked = cpu_share(web_pid)
        drives = measure_drive(ros, NAMESPACE, page, options.drives,
                               lambda: client.set_mode('teleop'))
        found = {'stops': stops, 'cpu_idle': idle, 'cpu_5_pages': busy,
                 'cpu_5_pages_parked': parked, 'rates': rates, 'drives': drives,
                 'pages': 'chromium windows' if len(pages) == 2 else 'websocket clients'}
        if len(pages) == 2:  # Chromium: its newest window is in front, the one that drives
            driver = pages[1].driver
            assert client.set_mode('teleop').success
            found['joystick'] = measure_joystick(ros, NAMESPACE, driver, options.presses)
            let_go = hold_joystick(driver)
            found['cpu_5_pages_one_driving'] = cpu_share(web_pid)
            let_go()
        return found
    finally:
        for opened in pages:
            opened.close()
        client.close()
        started['web'].stop()
        started['suite'].stop()
        ros.shutdown()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--stops', type=int, default=100, help='stops of each kind')
    parser.add_argument('--drives', type=int, default=100,
                        help='drive messages (and zeros) of each kind')
    parser.add_argument('--presses', type=int, default=30,
                        help="presses (and releases) of a real page's joystick")
    options = parser.parse_args()
    private_ros_home()
    with tempfile.TemporaryDirectory(prefix='bench_web_') as folder:
        found = run(options, pathlib.Path(folder))
    report: Dict[str, Any] = vars(options).copy()
    rows = []
    for name, samples in found['stops'].items():
        stats = summary(samples, 1000.0)
        report[f'stop_zero_ms {name}'] = stats
        rows.append({'measure': f'stop through {name} → first zero on cmd_vel', **stats})
    print_table('the Software Stop (ms)', rows)
    rows = []
    for name, kinds in found['drives'].items():
        for kind, samples in kinds.items():
            stats = summary(samples, 1000.0)
            report[f'drive_{kind}_ms {name}'] = stats
            what = 'velocity → first cmd_vel with it' if kind == 'drive' else 'zero → first zero'
            rows.append({'measure': f'{name}: {what}', **stats})
    for kind, samples in found.get('joystick', {}).items():
        stats = summary(samples, 1000.0)
        report[f'joystick_{kind}_ms'] = stats
        what = {'press': 'press → first moving cmd_vel', 'release': 'release → first zero',
                'devtools call': 'the DevTools call of a release itself'}[kind]
        rows.append({'measure': f"a real page's joystick (Chromium): {what}", **stats})
    print_table('driving (ms)', rows)
    report.update({key: found[key] for key in ('cpu_idle', 'cpu_5_pages', 'cpu_5_pages_parked',
                                               'rates', 'pages') + (
        ('cpu_5_pages_one_driving',) if 'cpu_5_pages_one_driving' in found else ())})
    print(f"CPU of the console's process: {found['cpu_idle']:.1%} of a core idle, "
          f"{found['cpu_5_pages']:.1%} with 5 pages open ({found['pages']}) while the robot "
          f"drives, {found['cpu_5_pages_parked']:.1%} with them open, the robot parked")
    if 'cpu_5_pages_one_driving' in found:
        print(f"  {found['cpu_5_pages_one_driving']:.1%} with them open, one of them driving "
              '(its joystick held, 20 messages a second)')
    print('a page gets, per second while the robot drives: ' + ', '.join(
        f'{kind} {rate:.1f}' for kind, rate in found['rates'].items()))
    print(f"saved {save('bench_web', report)}")
    return 0


if __name__ == '__main__':
    sys.exit(main())
