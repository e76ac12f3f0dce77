"""
Pause and continue with the simulated robot, judged by what the robot did.

The suite and the simulated robot run as ``sim.launch.py`` starts them (the shipped parameter
files, the office world and the maze). A pause mid-route holds the robot still (zero on
``cmd_vel``), continue drives to the same waypoint and on; a paused Wait routine waits only
what was left; a paused exploration explores on to the end; the e-stop wins over pause; and a
state interface killed with SIGKILL while paused, or while following, comes back paused and
finishes the round without visiting a waypoint twice.
"""

import math
import time
from typing import Dict, Iterator, List, Tuple

from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from operator_suite import StartSuite
import pytest
from robot_sm import qos
from robot_sm.bringup.parameter_files import shipped_parameter_files
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.testing import python_module_argv, ros_args, RosHarness, wait_until
from robot_sm_msgs.msg import StateInfo, WaypointArray
from test_exploration_sim import corner_of_the_maze, Maze  # noqa: F401,F811 - its fixture

WAIT = 30.0
SPEED = {'Navigation.max_linear_speed': 0.45}


class Robot:
    """What the operator sees of the robot: its odometry and the wheels' commands."""

    def __init__(self, suite: RunningSuite) -> None:
        self.suite = suite
        self.odom = suite.record(Odometry, 'odom', qos.SENSOR)
        self.cmd_vel = suite.record(Twist, 'cmd_vel', qos.EVENTS)
        self.infos = suite.record(StateInfo, 'robot_sm/state')

    def position(self) -> Tuple[float, float]:
        msg = self.odom.last
        assert msg is not None, 'no odometry'
        return msg.pose.pose.position.x, msg.pose.pose.position.y

    def wait_moving(self) -> None:
        self.odom.wait_for(lambda m: abs(m.twist.twist.linear.x) > 0.1, timeout=WAIT,
                           after=time.monotonic())

    def wait_info(self, predicate: object, after: float = 0.0) -> StateInfo:
        return self.infos.wait_for(predicate, timeout=WAIT, after=after)  # type: ignore

    def held_still(self, since: float, seconds: float) -> bool:
        """Wait ``seconds``; return whether every command since ``since`` was zero."""
        before = self.position()
        time.sleep(seconds)
        commands = [m for t, m in self.cmd_vel.stamped if t >= since]
        return bool(commands) and all(m.linear.x == 0.0 and m.angular.z == 0.0
                                      for m in commands) and \
            math.dist(before, self.position()) < 0.02


def paused(info: StateInfo) -> bool:
    return bool(info.paused) and info.name.startswith('Paused (')


def office(start_suite: StartSuite, state_interface: Dict[str, object] = {},
           **options: object) -> RunningSuite:
    """Start the suite and the robot at (1, 1) in the office, as sim.launch.py does."""
    return start_suite(world='office', parameter_files=shipped_parameter_files(sim=True),
                       parameters={'state_interface': {**SPEED, **state_interface},
                                   'robot_sim': {'start_x': 1.0, 'start_y': 1.0}}, **options)


def test_a_pause_mid_route_holds_still_and_continue_reaches_the_same_waypoint(
        start_suite: StartSuite) -> None:
    suite = office(start_suite)
    robot = Robot(suite)
    for x, y in ((2.6, 1.0), (2.6, 2.0)):
        assert suite.client.add_waypoint(x, y).success
    task = suite.client.follow_waypoints('single')
    robot.wait_moving()
    start = robot.position()
    answer = suite.client.pause()
    assert answer.success and answer.message.startswith('following round paused in W: ')
    info = robot.wait_info(paused, after=time.monotonic() - 1.0)
    assert info.resumable == 'following round, waypoint 1 of 2'
    assert robot.held_still(time.monotonic() + 0.5, 2.0)  # zero while paused
    assert math.dist(start, robot.position()) < 0.6  # it stopped on its way
    assert suite.client.status().paused == 'following round, waypoint 1 of 2'
    assert not task.is_done()  # the same activity, paused, not ended
    assert suite.client.resume().success
    result = task.wait(60.0)
    assert result.status.name == 'SUCCEEDED', result
    assert [w.visited for w in suite.client.waypoints().data['waypoints']] == [True, True]
    assert math.dist(robot.position(), (2.6, 2.0)) < 0.15


def test_a_paused_wait_waits_only_what_was_left(start_suite: StartSuite) -> None:
    suite = office(start_suite, {'WaitRoutine.wait_duration': 6.0})
    robot = Robot(suite)
    assert suite.client.add_waypoint(1.5, 1.0, routine='Wait').success
    assert suite.client.add_waypoint(2.0, 1.0).success
    suite.client.follow_waypoints('single')
    waiting = suite.wait_state('W: Waiting', timeout=WAIT)
    time.sleep(4.0 - (time.monotonic() - waiting))  # 4 of the 6 s waited
    assert suite.client.pause().success
    suite.wait_state('Paused (W: Waiting)', after=waiting)
    time.sleep(3.0)  # paused longer than what was left
    assert robot.infos.last is not None and paused(robot.infos.last)
    continued = time.monotonic()
    assert suite.client.resume().success
    suite.wait_state('W: Waiting', after=continued)
    left = suite.wait_state('W: Navigation', after=continued) - continued
    assert 1.0 < left < 4.0, f'waited {left:.1f} s after continuing (2 s were left of 6)'


def test_pause_then_an_e_stop_then_release_and_continue(start_suite: StartSuite) -> None:
    suite = office(start_suite)
    robot = Robot(suite)
    assert suite.client.add_waypoint(2.6, 1.0).success
    task = suite.client.follow_waypoints('single')
    robot.wait_moving()
    assert suite.client.pause().success
    robot.wait_info(paused)
    assert suite.client.set_emergency_stop(True).success
    suite.wait_state('Emergency Stop')
    refused = suite.client.resume()
    assert not refused.success and 'Emergency Stop' in refused.message
    released = time.monotonic()
    assert suite.client.set_emergency_stop(False).success
    info = robot.wait_info(paused, after=released)  # back to paused, not idle
    assert info.paused_activity == StateInfo.ACTIVITY_WAYPOINT_FOLLOWING
    assert robot.held_still(released + 0.5, 1.5)  # release never resumes motion
    assert suite.client.resume().success  # selects AUTONOMOUS (the mux is STOPPED)
    assert task.wait(60.0).status.name == 'SUCCEEDED'


def test_a_paused_exploration_explores_on_to_the_end(
        corner_of_the_maze: Maze) -> None:  # noqa: F811 - the fixture imported above
    maze = corner_of_the_maze  # a corner of the maze, as test_exploration_sim explores it
    task = maze.suite.client.explore(interrupt=False)
    shown = maze.suite.wait_state('E: Navigation', timeout=WAIT)
    assert maze.suite.client.pause().success
    maze.suite.wait_state(lambda name: name.startswith('Paused (E: '), after=shown)
    time.sleep(1.0)
    assert maze.suite.client.resume().success
    result = task.wait(120.0)
    assert result.status.name == 'SUCCEEDED', result
    assert maze.explored_fraction() >= 0.95


@pytest.fixture
def split(ros: RosHarness, start_suite: StartSuite) -> Iterator[Dict[str, object]]:
    """Start the office suite with its state interface in a process of its own (to kill)."""
    files = shipped_parameter_files(sim=True)
    suite = office(start_suite, leave_out=('state_interface',), ready_state=None)
    argv = python_module_argv('robot_sm.nodes.state_interface',
                              *ros_args(ros.namespace, dict(SPEED)))
    for path in files:
        argv += ['--params-file', str(path)]
    processes: List[object] = []

    def start() -> None:
        processes.append(ros.start_process(argv))

    start()
    suite.wait_state('Idle', timeout=WAIT)
    mux = suite.nodes['robot_control_mux']
    assert wait_until(lambda: mux.supervisor_heard, WAIT)  # else it refuses AUTONOMOUS
    yield {'suite': suite, 'start': start, 'processes': processes}


def visits(lists: List[WaypointArray]) -> Dict[int, int]:
    """Count how often each waypoint (by id) turned visited in the published lists."""
    counts: Dict[int, int] = {}
    before: Dict[int, bool] = {}
    for array in lists:
        for waypoint in array.waypoints:
            if waypoint.visited and not before.get(waypoint.id, False):
                counts[waypoint.id] = counts.get(waypoint.id, 0) + 1
            before[waypoint.id] = bool(waypoint.visited)
    return counts


@pytest.mark.parametrize('pause_first', [True, False])
def test_a_state_interface_killed_comes_back_paused_and_finishes_the_round(
        split: Dict[str, object], pause_first: bool) -> None:
    suite: RunningSuite = split['suite']  # type: ignore[assignment]
    robot = Robot(suite)
    for x, y in ((2.0, 1.0), (2.6, 1.2), (2.6, 2.0)):
        assert suite.client.add_waypoint(x, y).success
    assert suite.client.start_waypoint_following('single').success
    robot.wait_info(lambda i: i.name == 'W: Navigation' and any(
        w.visited for w in suite.lists.last.waypoints))
    robot.wait_moving()
    if pause_first:
        assert suite.client.pause().success
        robot.wait_info(paused)
    killed = time.monotonic()
    split['processes'][-1].kill()  # type: ignore[index]
    split['start']()  # type: ignore[operator]
    # Back, paused: never running by itself; it says where it will go on.
    robot.wait_info(lambda i: paused(i) and i.resumable.startswith('following round, waypoint '),
                    after=killed)
    assert robot.held_still(time.monotonic() + 0.5, 1.0)
    assert wait_until(lambda: suite.client.resume().success, WAIT)
    robot.wait_info(lambda i: i.name == 'Idle' and i.last_outcome == StateInfo.OUTCOME_SUCCEEDED,
                    after=killed)
    assert [w.visited for w in suite.client.waypoints().data['waypoints']] == [True] * 3
    assert set(visits(suite.lists.messages).values()) == {1}  # none visited twice
