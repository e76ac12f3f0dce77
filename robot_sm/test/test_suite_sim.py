"""
The whole suite driving the simulated robot over real DDS: waypoints, e-stop, simple goals, faults.

The mux, service provider, state interface (with the real Navigation plugin), base controller and
simulation run as they would from ``ros2 launch robot_sm sim.launch.py``, with the shipped
parameter files, in the office world. The probe plays the operator.
"""

import math
import pathlib
import time
from typing import Any, Dict, Iterator, List, Optional, Tuple

from geometry_msgs.msg import Point, Pose, PoseStamped, Quaternion, Twist
from nav_msgs.msg import Odometry
import pytest
from robot_sm import qos
from robot_sm.bringup import SIMULATION, SUITE, SuiteProcess
from robot_sm.testing import Recorder, RosHarness, wait_until
from robot_sm_msgs.msg import OperationMode
from robot_sm_msgs.srv import AddWaypoint, GetRobotPose, GetWaypoints, SetOperationMode
from std_msgs.msg import String
from std_srvs.srv import SetBool

CONFIG = pathlib.Path(__file__).resolve().parents[1] / 'config'
TICK = 0.05
#: Time DDS may take between nodes on a loaded 2-core machine.
TRANSPORT = 0.1
AUTONOMY_TIMEOUT = 0.5


class SimSuite:
    """The suite and the simulated robot in the test's namespace, and what the operator sees."""

    def __init__(self, ros: RosHarness,
                 overrides: Optional[Dict[str, Dict[str, Any]]] = None) -> None:
        self.ros = ros
        self.states: Recorder[String] = ros.record(String, 'robot_sm/state_info', qos.STATE)
        self.odom: Recorder[Odometry] = ros.record(Odometry, 'odom', qos.SENSOR)
        self.cmd_vel: Recorder[Twist] = ros.record(Twist, 'cmd_vel', qos.EVENTS)
        self.autonomy: Recorder[Twist] = ros.record(Twist, 'autonomy/cmd_vel', qos.EVENTS)
        parameters: Dict[str, Dict[str, Any]] = {
            'state_interface': {'Navigation.max_linear_speed': 0.45},
            'robot_sim': {'world': 'office', 'start_x': 1.0, 'start_y': 1.0},
        }
        for node, values in (overrides or {}).items():
            parameters.setdefault(node, {}).update(values)
        self.process = SuiteProcess(list(SUITE) + list(SIMULATION),
                                    [CONFIG / 'robot_sm.yaml', CONFIG / 'sim.yaml'], parameters,
                                    namespace=ros.namespace, context=ros.context)
        self.wait_state('Idle', timeout=30.0)

    def wait_state(self, name: str, after: float = 0.0, timeout: float = 10.0) -> float:
        self.states.wait_for(lambda m: m.data == name, timeout=timeout, after=after)
        return next(t for t, m in reversed(self.states.stamped) if m.data == name)

    def add_waypoint(self, x: float, y: float) -> None:
        request = AddWaypoint.Request(position=-1)
        request.waypoint.pose = Pose(position=Point(x=x, y=y), orientation=Quaternion(w=1.0))
        response = self.ros.call(AddWaypoint, 'robot_sm/add_waypoint', request)
        assert response.success, response.message

    def flags(self) -> List[Tuple[bool, bool]]:
        array = self.ros.call(GetWaypoints, 'robot_sm/get_waypoints').waypoint_array
        return [(w.visited, w.unreachable) for w in array.waypoints]

    def autonomy_mode(self) -> None:
        request = SetOperationMode.Request()
        request.operation_mode.mode = OperationMode.AUTONOMOUS
        response = self.ros.call(SetOperationMode, 'robot_sm/set_operation_mode', request)
        assert response.success, response.message

    def follow(self) -> None:
        self.autonomy_mode()
        response = self.ros.call(SetBool, 'robot_sm/start_stop_waypoint_following',
                                 SetBool.Request(data=True))
        assert response.success, response.message

    def estop(self, engaged: bool) -> float:
        """Engage or release the e-stop; return when the call was made."""
        called = time.monotonic()
        response = self.ros.call(SetBool, 'robot_sm/emergency_stop',
                                 SetBool.Request(data=engaged))
        assert response.success, response.message
        return called

    def position(self) -> Tuple[float, float]:
        msg = self.odom.last
        assert msg is not None, 'no odometry'
        return msg.pose.pose.position.x, msg.pose.pose.position.y

    def wait_moving(self, timeout: float = 15.0) -> None:
        """Wait until the robot drives faster than 0.1 m/s."""
        self.odom.wait_for(lambda m: abs(m.twist.twist.linear.x) > 0.1, timeout=timeout,
                           after=time.monotonic())

    def still_for(self, seconds: float) -> bool:
        """Return whether the robot moves less than 1 mm in ``seconds``."""
        before = self.position()
        time.sleep(seconds)
        return math.dist(before, self.position()) < 1e-3

    def close(self) -> None:
        self.process.shutdown()


@pytest.fixture
def sim(ros: RosHarness) -> Iterator[SimSuite]:
    suite = SimSuite(ros)
    try:
        yield suite
    finally:
        suite.close()


def test_operators_get_the_simulated_robot_s_pose_in_the_map_frame(sim: SimSuite) -> None:
    # What `robot-sm waypoint here`, `robot-sm status` and the panel's Set Waypoint ask for.
    sim.odom.wait_for()
    response = sim.ros.call(GetRobotPose, 'robot_sm/get_robot_pose')
    assert response.success, response.message
    assert response.message == 'Robot pose in map'
    assert (response.pose.position.x, response.pose.position.y) == sim.position() == (1.0, 1.0)


def test_waypoint_following_reaches_three_waypoints(sim: SimSuite) -> None:
    for x, y in ((2.0, 1.0), (2.0, 2.0), (1.0, 2.0)):
        sim.add_waypoint(x, y)
    sim.follow()
    start = time.monotonic()
    sim.wait_state('W: Navigation', after=start)
    sim.wait_state('Idle', after=start, timeout=60.0)
    assert sim.flags() == [(True, False)] * 3
    assert math.dist(sim.position(), (1.0, 2.0)) < 0.15


def test_an_unreachable_waypoint_is_marked_and_the_rest_are_visited(sim: SimSuite) -> None:
    # The second waypoint lies inside the wall between the two lower rooms.
    for x, y in ((2.0, 1.0), (2.75, 1.2), (1.0, 2.0)):
        sim.add_waypoint(x, y)
    sim.follow()
    start = time.monotonic()
    sim.wait_state('W: Navigation', after=start)
    sim.wait_state('Idle', after=start, timeout=60.0)
    assert sim.flags() == [(True, False), (False, True), (True, False)]


def test_estop_mid_route_stops_the_robot_until_released_and_restarted(sim: SimSuite) -> None:
    sim.add_waypoint(1.3, 4.7)
    sim.follow()
    sim.wait_moving()
    engaged = sim.estop(True)
    # The mux sends zero at once; the state machine follows on its next tick.
    sim.cmd_vel.wait_for(lambda m: m.linear.x == 0.0 and m.angular.z == 0.0,
                         after=engaged - 0.01, timeout=TICK + TRANSPORT)
    assert sim.wait_state('Emergency Stop', after=engaged - 0.5) - engaged < TICK + TRANSPORT
    assert wait_until(lambda: abs(sim.odom.last.twist.twist.linear.x) < 1e-6, 0.2)
    assert sim.still_for(1.0)
    released = sim.estop(False)
    sim.wait_state('Idle', after=released)
    assert sim.still_for(1.0)  # release never resumes motion
    sim.follow()
    sim.wait_moving()  # restarting does
    assert sim.flags() == [(False, False)]  # the interrupted waypoint was left to be visited


def test_a_simple_goal_during_waypoint_following_drives_to_the_simple_goal(
        sim: SimSuite) -> None:
    sim.add_waypoint(1.3, 4.7)
    sim.follow()
    sim.wait_moving()
    goal = sim.ros.publisher(PoseStamped, 'robot_sm/simple_goal', qos.EVENTS)
    sim.ros.wait_for_subscribers(goal)
    message = PoseStamped()
    message.header.frame_id = 'map'
    message.pose = Pose(position=Point(x=2.0, y=1.2), orientation=Quaternion(w=1.0))
    sent = time.monotonic()
    goal.publish(message)
    sim.wait_state('G: Navigation', after=sent)
    sim.wait_state('Idle', after=sent, timeout=40.0)
    assert math.dist(sim.position(), (2.0, 1.2)) < 0.15
    assert sim.flags() == [(False, False)]


def test_a_silent_navigation_is_zeroed_by_the_mux_and_the_robot_stops(sim: SimSuite) -> None:
    sim.add_waypoint(1.3, 4.7)
    sim.follow()
    sim.wait_moving()
    # The navigation hangs: its velocity publisher goes silent mid-route.
    node = sim.process.nodes['state_interface']
    publisher = node.endpoints.publisher('autonomy/cmd_vel', 'geometry_msgs/msg/Twist', 'command')
    publisher.publish = lambda message: None
    cut = time.monotonic()
    time.sleep(0.1)
    last_command = max(t for t, _ in sim.autonomy.stamped)
    zero = sim.cmd_vel.wait_for(lambda m: m.linear.x == 0.0 and m.angular.z == 0.0, after=cut,
                                timeout=2.0)
    assert zero is not None
    zero_at = next(t for t, m in sim.cmd_vel.stamped
                   if t >= cut and m.linear.x == 0.0 and m.angular.z == 0.0)
    assert zero_at - last_command < AUTONOMY_TIMEOUT + TICK + TRANSPORT
    assert wait_until(lambda: abs(sim.odom.last.twist.twist.linear.x) < 1e-6, 0.5)
    assert sim.still_for(0.5)
