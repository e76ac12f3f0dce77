"""
The Navigation plugin with ``use_nav2``: goals go to Nav2's NavigateToPose action.

Nav2's interfaces are on every robot with Nav2 but cannot be installed from PyPI, so the test
that drives a NavigateToPose server needs them; without them, the test that runs here checks the
plugin's fallback to the built-in navigator.
"""

import importlib.util
import time
from types import SimpleNamespace
from typing import Any

from action_msgs.msg import GoalStatus
from geometry_msgs.msg import Point, Pose, PoseStamped, Quaternion
import pytest
from robot_sm import qos
from robot_sm.nodes.plugin_context import action_outcome
from robot_sm.nodes.robot_control_mux import RobotControlMux
from robot_sm.nodes.service_provider import ServiceProvider
from robot_sm.nodes.state_interface import StateInterface
from robot_sm.testing import RosHarness
from std_msgs.msg import String

HAVE_NAV2 = importlib.util.find_spec('nav2_msgs') is not None


def _send_goal(ros: RosHarness, x: float) -> None:
    goal = ros.publisher(PoseStamped, 'robot_sm/simple_goal', qos.EVENTS)
    ros.wait_for_subscribers(goal)
    message = PoseStamped()
    message.header.frame_id = 'map'
    message.pose = Pose(position=Point(x=x), orientation=Quaternion(w=1.0))
    goal.publish(message)


def _suite(ros: RosHarness, parameters: Any) -> Any:
    states = ros.record(String, 'robot_sm/state_info', qos.STATE)
    outcomes = ros.record(String, 'robot_sm/state_outcome', qos.STATE)
    ros.start_node(RobotControlMux)
    ros.start_node(ServiceProvider, {'waypoints_file': '', 'pose_source': 'topic'})
    ros.start_node(StateInterface, parameters)
    states.wait_for(lambda m: m.data == 'Idle', timeout=10.0)
    return states, outcomes


@pytest.mark.skipif(HAVE_NAV2, reason='nav2_msgs is installed: the fallback does not apply')
def test_without_nav2_the_built_in_navigator_is_used(ros: RosHarness) -> None:
    states, outcomes = _suite(ros, {'Navigation.use_nav2': True,
                                    'Navigation.startup_timeout': 0.3})
    _send_goal(ros, 1.0)
    states.wait_for(lambda m: m.data == 'G: Navigation', timeout=5.0)
    # No map and no odometry here: the built-in navigator gives up after startup_timeout.
    message = outcomes.wait_for(lambda m: 'within' in m.data, timeout=5.0).data
    assert message == 'G: Navigation: no robot pose on odom within 0.3 s'


@pytest.mark.skipif(not HAVE_NAV2, reason='needs nav2_msgs (ros-$ROS_DISTRO-nav2-msgs), which '
                                          'is not installable from PyPI')
def test_a_goal_goes_to_navigate_to_pose_and_its_result_ends_the_state(
        ros: RosHarness) -> None:
    from nav2_msgs.action import NavigateToPose
    from rclpy.action import ActionServer

    received = []

    def execute(handle: Any) -> Any:
        received.append(handle.request.pose)
        time.sleep(0.2)
        handle.succeed()
        return NavigateToPose.Result()

    ActionServer(ros.probe, NavigateToPose, 'navigate_to_pose', execute)
    states, outcomes = _suite(ros, {'Navigation.use_nav2': True})
    _send_goal(ros, 2.5)
    states.wait_for(lambda m: m.data == 'G: Navigation', timeout=5.0)
    states.wait_for(lambda m: m.data == 'Idle', timeout=10.0, after=time.monotonic())
    assert received[0].header.frame_id == 'map'
    assert received[0].pose.position.x == 2.5


@pytest.mark.skipif(not HAVE_NAV2, reason='needs nav2_msgs (ros-$ROS_DISTRO-nav2-msgs), which '
                                          'is not installable from PyPI')
def test_a_missing_nav2_server_fails_the_goal_after_the_timeout(ros: RosHarness) -> None:
    states, outcomes = _suite(ros, {'Navigation.use_nav2': True,
                                    'Navigation.nav2_server_timeout': 0.5})
    _send_goal(ros, 1.0)
    message = outcomes.wait_for(lambda m: 'did not come up' in m.data, timeout=5.0).data
    assert message == ("G: Navigation: Nav2's navigate_to_pose action server did not come up "
                       'within 0.5 s')


@pytest.mark.skipif(not HAVE_NAV2, reason='needs nav2_msgs (ros-$ROS_DISTRO-nav2-msgs), which '
                                          'is not installable from PyPI')
def test_an_abort_is_reported_with_nav2_s_error_code_and_message(ros: RosHarness) -> None:
    from nav2_msgs.action import NavigateToPose
    from rclpy.action import ActionServer

    def execute(handle: Any) -> Any:
        handle.abort()
        return NavigateToPose.Result(error_code=104, error_msg='no valid path found')

    ActionServer(ros.probe, NavigateToPose, 'navigate_to_pose', execute)
    states, outcomes = _suite(ros, {'Navigation.use_nav2': True})
    _send_goal(ros, 2.5)
    message = outcomes.wait_for(lambda m: 'Nav2' in m.data, timeout=10.0).data
    assert message == ('G: Navigation: Nav2: navigate_to_pose: aborted by the action server '
                       '(error_code 104: no valid path found)')


@pytest.mark.parametrize('status, result, outcome', [
    (GoalStatus.STATUS_ABORTED, SimpleNamespace(error_code=104, error_msg='no valid path'),
     'aborted by the action server (error_code 104: no valid path)'),
    (GoalStatus.STATUS_ABORTED, SimpleNamespace(error_code=101, error_msg=''),
     'aborted by the action server (error_code 101)'),
    (GoalStatus.STATUS_ABORTED, SimpleNamespace(error_code=0, error_msg=''),
     'aborted by the action server'),
    (GoalStatus.STATUS_ABORTED, SimpleNamespace(), 'aborted by the action server'),
    (GoalStatus.STATUS_CANCELED, SimpleNamespace(error_code=0, error_msg=''), 'canceled'),
    (GoalStatus.STATUS_SUCCEEDED, SimpleNamespace(error_code=0, error_msg=''), 'succeeded'),
])
def test_how_an_action_goal_ended_names_the_result_s_error(status: int, result: Any,
                                                           outcome: str) -> None:
    # What the test above sees through Nav2, for results shaped like NavigateToPose's.
    assert action_outcome(status, result) == outcome
