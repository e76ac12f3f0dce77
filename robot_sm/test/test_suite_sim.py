"""
The whole suite driving the simulated robot over real DDS: waypoints, e-stop, simple goals, faults.

The mux, service provider, state interface (with the real Navigation plugin), base controller and
simulation run as they would from ``ros2 launch robot_sm sim.launch.py``, with the shipped
parameter files, in the office world. The probe plays the operator.
"""

import math
import time
from typing import List, Tuple

from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from operator_suite import estop, StartSuite
import pytest
from robot_sm import qos
from robot_sm.bringup.parameter_files import shipped_parameter_files
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.client.tasks import Task, TaskStatus
from robot_sm.testing import SCHEDULING_SLACK, wait_until

TICK = 0.05
#: Time DDS may take between nodes on a loaded 2-core machine.
AUTONOMY_TIMEOUT = 0.5


@pytest.fixture
def sim(start_suite: StartSuite) -> RunningSuite:
    """Start the suite and the simulated robot at (1, 1) in the office, as sim.launch.py does."""
    return start_suite(world='office', parameter_files=shipped_parameter_files(sim=True),
                       parameters={'state_interface': {'Navigation.max_linear_speed': 0.45},
                                   'robot_sim': {'start_x': 1.0, 'start_y': 1.0}})


class Robot:
    """What the operator sees of the simulated robot: its odometry and velocity commands."""

    def __init__(self, sim: RunningSuite) -> None:
        self.odom = sim.record(Odometry, 'odom', qos.SENSOR)
        self.cmd_vel = sim.record(Twist, 'cmd_vel', qos.EVENTS)
        self.autonomy = sim.record(Twist, 'autonomy/cmd_vel', qos.EVENTS)

    def position(self) -> Tuple[float, float]:
        msg = self.odom.last
        assert msg is not None, 'no odometry'
        return msg.pose.pose.position.x, msg.pose.pose.position.y

    def wait_moving(self, timeout: float = 15.0) -> None:
        """Wait until the robot drives faster than 0.1 m/s."""
        self.odom.wait_for(lambda m: abs(m.twist.twist.linear.x) > 0.1, timeout=timeout,
                           after=time.monotonic())

    def stopped(self, timeout: float) -> bool:
        """Return whether the odometry shows the robot standing within ``timeout`` seconds."""
        return wait_until(lambda: abs(self.odom.last.twist.twist.linear.x) < 1e-6, timeout)

    def still_for(self, seconds: float) -> bool:
        """Return whether the robot moves less than 1 mm in ``seconds``."""
        before = self.position()
        time.sleep(seconds)
        return math.dist(before, self.position()) < 1e-3


@pytest.fixture
def robot(sim: RunningSuite) -> Robot:
    return Robot(sim)


def follow(sim: RunningSuite, *points: Tuple[float, float]) -> Task:
    """Add the waypoints, select autonomy and start waypoint following; return the task."""
    for x, y in points:
        assert sim.client.add_waypoint(x, y).success
    assert sim.client.set_mode('autonomy').success
    task = sim.client.follow_waypoints()
    assert not task.is_done(), task.result()
    return task


def flags(sim: RunningSuite) -> List[Tuple[bool, bool]]:
    return [(w.visited, w.unreachable) for w in sim.client.waypoints().data['waypoints']]


def test_operators_get_the_simulated_robot_s_pose_in_the_map_frame(
        sim: RunningSuite, robot: Robot) -> None:
    # What `robot-sm waypoint here`, `robot-sm status` and the panel's Set Waypoint ask for.
    robot.odom.wait_for()
    pose = sim.client.robot_pose()
    assert pose.success, pose.message
    assert pose.message == 'Robot pose in map'
    assert pose.data[:2] == robot.position() == (1.0, 1.0)


def test_waypoint_following_reaches_three_waypoints(sim: RunningSuite, robot: Robot) -> None:
    task = follow(sim, (2.0, 1.0), (2.0, 2.0), (1.0, 2.0))
    task.wait_for_feedback(lambda f: f.goals >= 1, 10.0)
    result = task.wait(60.0)
    assert (result.status, result.state) == (TaskStatus.SUCCEEDED, 'Idle')
    assert flags(sim) == [(True, False)] * 3
    assert math.dist(robot.position(), (1.0, 2.0)) < 0.15


def test_an_unreachable_waypoint_is_marked_and_the_rest_are_visited(sim: RunningSuite) -> None:
    # The second waypoint lies inside the wall between the two lower rooms.
    task = follow(sim, (2.0, 1.0), (2.75, 1.2), (1.0, 2.0))
    task.wait_for_feedback(lambda f: f.goals >= 1, 10.0)
    result = task.wait(60.0)
    assert (result.status, result.state) == (TaskStatus.SUCCEEDED, 'Idle')
    assert (result.feedback.visited, result.feedback.unreachable) == (2, 1)
    assert flags(sim) == [(True, False), (False, True), (True, False)]


def test_estop_mid_route_stops_the_robot_until_released_and_restarted(
        sim: RunningSuite, robot: Robot) -> None:
    task = follow(sim, (1.3, 4.7))
    robot.wait_moving()
    engaged = estop(sim, True)
    # The mux sends zero at once; the state machine follows on its next tick.
    robot.cmd_vel.wait_for(lambda m: m.linear.x == 0.0 and m.angular.z == 0.0,
                           after=engaged - 0.01, timeout=TICK + SCHEDULING_SLACK)
    shown = sim.wait_state('Emergency Stop', after=engaged - 0.5)
    assert shown - engaged < TICK + SCHEDULING_SLACK
    assert task.wait(1.0).status is TaskStatus.STOPPED_BY_ESTOP
    assert robot.stopped(0.2)
    assert robot.still_for(1.0)
    released = estop(sim, False)
    sim.wait_state('Idle', after=released)
    assert robot.still_for(1.0)  # release never resumes motion
    follow(sim)
    robot.wait_moving()  # restarting does
    assert flags(sim) == [(False, False)]  # the interrupted waypoint was left to be visited


def test_a_simple_goal_during_waypoint_following_drives_to_the_simple_goal(
        sim: RunningSuite, robot: Robot) -> None:
    following = follow(sim, (1.3, 4.7))
    robot.wait_moving()
    sent = time.monotonic()
    goal = sim.client.go_to(2.0, 1.2)
    sim.wait_state('G: Navigation', after=sent)
    assert following.wait(1.0).status is TaskStatus.INTERRUPTED
    result = goal.wait(40.0)
    assert (result.status, result.state) == (TaskStatus.SUCCEEDED, 'Idle')
    assert math.dist(robot.position(), (2.0, 1.2)) < 0.15
    assert flags(sim) == [(False, False)]


def test_a_silent_navigation_is_zeroed_by_the_mux_and_the_robot_stops(
        sim: RunningSuite, robot: Robot) -> None:
    follow(sim, (1.3, 4.7))
    robot.wait_moving()
    # The navigation hangs: its velocity publisher goes silent mid-route.
    node = sim.nodes['state_interface']
    publisher = node.endpoints.publisher('autonomy/cmd_vel', 'geometry_msgs/msg/Twist', 'command')
    publisher.publish = lambda message: None
    cut = time.monotonic()
    time.sleep(0.1)
    last_command = max(t for t, _ in robot.autonomy.stamped)
    zero = robot.cmd_vel.wait_for(lambda m: m.linear.x == 0.0 and m.angular.z == 0.0,
                                  after=cut, timeout=2.0)
    assert zero is not None
    zero_at = next(t for t, m in robot.cmd_vel.stamped
                   if t >= cut and m.linear.x == 0.0 and m.angular.z == 0.0)
    assert zero_at - last_command < AUTONOMY_TIMEOUT + TICK + SCHEDULING_SLACK
    assert robot.stopped(0.5)
    assert robot.still_for(0.5)
