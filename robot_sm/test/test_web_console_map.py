"""
A map whose origin is rotated, in a real browser: everything where it is in the map frame.

Every cell, the robot and the waypoints. A suite (with ScriptedNavigation) and the console's server
run in this process; the test publishes the map (its origin turned by a quarter turn, one occupied
block) and the robot's pose as a robot would, and headless Chromium (Debian's, through selenium)
opens the page. What the page drew is read back from its canvas, at the screen points of known
places of the map frame. Skipped, naming the install command, where Chromium or its driver is
missing.
"""

import math
import os
from typing import Iterator, List, Optional, Tuple

from nav_msgs.msg import OccupancyGrid, Odometry
from operator_suite import scripted
import pytest
from robot_sm import qos
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.client import operator as who
from robot_sm.demo.browser import unavailable_reason
from robot_sm.frontends.web.gate import Gate
from robot_sm.frontends.web.server import WebServer, WebServerThread
from robot_sm.frontends.web.tokens import AccessTokens
from robot_sm.testing import RosHarness, wait_until
from web_console_rig import Operator

pytestmark = pytest.mark.skipif(unavailable_reason() is not None,
                                reason=unavailable_reason() or '')
TOKEN = 'operator-token-for-the-rotated-map-0123456789'
#: The map: 40 x 20 cells of 10 cm, its origin at (1, 0.5) turned a quarter turn left; all
#: free but a block of cells 30..34 along its x and 5..14 along its y.
WIDTH, HEIGHT, RESOLUTION = 40, 20, 0.1
ORIGIN = (1.0, 0.5, math.pi / 2)
BLOCK = (range(30, 35), range(5, 15))
ROBOT = (0.0, 1.5)
WAYPOINT = (0.0, 2.5)
#: Colours the page draws: an occupied cell, a free one, a pending waypoint, the robot.
OCCUPIED, FREE, PENDING, MARKER = (0x22, 0x26, 0x2e), (255, 255, 255), (0x1f, 0x6f, 0xeb), \
    (0x24, 0x29, 0x2f)


def in_map_frame(i: float, j: float) -> Tuple[float, float]:
    """Return where the point (i, j) cells from the grid's origin is in the map frame."""
    x, y, yaw = ORIGIN
    u, v = i * RESOLUTION, j * RESOLUTION
    return x + math.cos(yaw) * u - math.sin(yaw) * v, y + math.sin(yaw) * u + math.cos(yaw) * v


def grid() -> OccupancyGrid:
    msg = OccupancyGrid()
    msg.header.frame_id = 'map'
    msg.info.width, msg.info.height, msg.info.resolution = WIDTH, HEIGHT, RESOLUTION
    msg.info.origin.position.x, msg.info.origin.position.y = ORIGIN[:2]
    msg.info.origin.orientation.z = math.sin(ORIGIN[2] / 2)
    msg.info.origin.orientation.w = math.cos(ORIGIN[2] / 2)
    cells = [0] * (WIDTH * HEIGHT)
    for i in BLOCK[0]:
        for j in BLOCK[1]:
            cells[j * WIDTH + i] = 100
    msg.data = cells
    return msg


class Console:
    """The suite, the console's server and what the browser rig needs of them."""

    def __init__(self) -> None:
        self.ros = RosHarness(namespace=f'/web_map_{os.getpid()}')
        self.suite: Optional[RunningSuite] = None
        self.server: Optional[WebServerThread] = None
        self.operator = TOKEN
        self.web = self  # the rig reads web.output when a wait fails
        self.output = ''

    def start(self) -> None:
        self.ros.publisher(OccupancyGrid, 'map', qos.STATE).publish(grid())
        pose = Odometry()
        pose.header.frame_id = 'map'
        pose.pose.pose.position.x, pose.pose.pose.position.y = ROBOT
        pose.pose.pose.orientation.w = 1.0
        odometry = self.ros.publisher(Odometry, 'base_pose_ground_truth', qos.SENSOR)
        self.ros.probe.create_timer(0.1, lambda: odometry.publish(pose))
        self.suite = RunningSuite(namespace=self.ros.namespace, context=self.ros.context,
                                  parameters=scripted())
        # The test's own calls are those of the operator at the page (on this computer).
        self.suite.client = self.suite.client.with_operator(
            who('web@127.0.0.1', surface='web', address='127.0.0.1'))
        assert self.suite.client.add_waypoint(*WAYPOINT).success
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
        hands.open_page(size=(800, 700))
        yield hands
    finally:
        hands.browser.close()


def colours(operator: Operator, points: List[Tuple[float, float]],
            aside: int = 0) -> List[Tuple[int, ...]]:
    """Return the colours the map's canvas shows at points of the map frame (``aside`` px left)."""
    screen = []
    canvas = operator.element('map')
    width, height = canvas.size['width'], canvas.size['height']
    for x, y in points:
        dx, dy = operator.screen_offset(x, y)
        screen.append([width / 2 + dx - aside, height / 2 + dy])
    found = operator.driver.execute_script(
        "const c = document.getElementById('map'), ratio = window.devicePixelRatio || 1;"
        'return arguments[0].map(([x, y]) => Array.from(c.getContext("2d").getImageData('
        'Math.round(x * ratio), Math.round(y * ratio), 1, 1).data.slice(0, 3)));', screen)
    return [tuple(colour) for colour in found]


def test_a_rotated_map_puts_its_cells_the_robot_and_the_waypoints_where_they_are(
        console: Console, operator: Operator) -> None:
    operator.until(lambda: operator.element('map').get_attribute('data-robot'), 'no robot')
    operator.until(lambda: len(operator.driver.find_elements(
        'css selector', '#waypoints tbody tr')) == 1, 'no waypoint')
    block = in_map_frame(32.5, 10.0)
    unturned = (ORIGIN[0] + 3.25, ORIGIN[1] + 1.0)  # where the block is if the yaw is left out
    free = in_map_frame(10.0, 3.0)
    operator.until(lambda: colours(operator, [block])[0] == OCCUPIED, 'the block is not shown')
    shown = colours(operator, [block, unturned, free, ROBOT])
    assert shown[0] == OCCUPIED and shown[1] != OCCUPIED and shown[2] == FREE, shown
    assert shown[3] == MARKER, shown
    assert colours(operator, [WAYPOINT], aside=6) == [PENDING]  # its number is in the middle
    # A tap adds a waypoint where the finger is in the map frame, on a cell of the turned map.
    spot = in_map_frame(25.0, 5.0)
    operator.tap(*spot)
    waypoints = console.suite.client.waypoints  # type: ignore[union-attr]
    assert wait_until(lambda: len(waypoints().data['waypoints']) == 2, 10.0)
    added = waypoints().data['waypoints'][1]
    assert math.hypot(added.x - spot[0], added.y - spot[1]) < 0.05, (added.x, added.y, spot)
