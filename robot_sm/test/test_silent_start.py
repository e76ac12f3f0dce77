"""
A freshly started suite is STOPPED (the restart interlock); an operator's start moves it anyway.

A start of waypoint following or exploration, or a simple goal, is a deliberate operator request:
in STOPPED the state interface selects AUTONOMOUS for it and says so; under the e-stop and in
teleoperation the start is refused and the mode stays. ``robot-sm status`` (the client's
``Status.held``) and the control panel say why the robot does not move on its own.
"""

from nav_msgs.msg import Odometry
from operator_suite import StartSuite
from robot_sm.bringup.parameter_files import shipped_parameter_files
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.client import held_because, ModeState
from robot_sm.qos import SENSOR
from robot_sm.testing import wait_until

WAIT = 20.0


def moved(suite: RunningSuite, odometry: 'list[Odometry]', distance: float) -> bool:
    if not odometry:
        return False
    first, last = odometry[0].pose.pose.position, odometry[-1].pose.pose.position
    return ((last.x - first.x) ** 2 + (last.y - first.y) ** 2) ** 0.5 >= distance


def test_a_start_in_stopped_selects_autonomy_and_the_robot_drives(
        start_suite: StartSuite) -> None:
    suite = start_suite(world='office', parameter_files=shipped_parameter_files(sim=True))
    odometry: 'list[Odometry]' = []
    suite.client.node.create_subscription(Odometry, 'odom', odometry.append, SENSOR)
    status = suite.client.status()
    assert (status.mode, status.emergency_stop) == ('stopped', False)
    assert status.held.startswith('the mux is STOPPED')
    assert suite.client.add_waypoint(2.0, 1.0).success
    answer = suite.client.start_waypoint_following()
    assert answer.success, answer.message
    assert answer.message.endswith('(the mux was STOPPED: AUTONOMOUS selected)'), answer.message
    assert suite.client.wait_for_mode('autonomy', timeout=WAIT) == ModeState('autonomy', False)
    assert wait_until(lambda: moved(suite, odometry, 0.3), timeout=WAIT), 'the robot stood still'
    assert suite.client.status().held == ''


def test_a_simple_goal_in_stopped_selects_autonomy(suite: RunningSuite) -> None:
    assert suite.client.status().mode == 'stopped'
    result = suite.client.go_to(1.0, 0.0).wait(WAIT)
    assert result.outcome.endswith('goal reached'), result
    assert suite.client.status().mode == 'autonomy'


def test_under_the_estop_or_in_teleoperation_a_start_is_refused_and_the_mode_stays(
        suite: RunningSuite) -> None:
    assert suite.client.set_mode('teleop').success
    suite.wait_state('Teleoperation', timeout=WAIT)
    refused = suite.client.start_exploration()
    assert (refused.success, refused.message) == (False, 'Teleoperation active')
    assert suite.client.status().mode == 'teleop'
    assert suite.client.set_emergency_stop(True).success
    suite.wait_state('Emergency Stop', timeout=WAIT)
    refused = suite.client.start_waypoint_following()
    assert (refused.success, refused.message) == (False, 'Emergency Stop')
    status = suite.client.status()
    assert status.emergency_stop and status.held.startswith('the e-stop is engaged: release it')
    assert suite.client.set_emergency_stop(False).success
    assert suite.client.wait_for_mode('stopped', emergency_stop=False, timeout=WAIT)


def test_the_reason_names_what_to_do() -> None:
    assert 'robot-sm estop off' in held_because('stopped', True)
    assert 'robot-sm mode autonomy' in held_because('stopped', False)
    assert held_because('teleop', False).startswith('teleoperation')
    assert held_because('autonomy', False) == ''
