"""Refusals quote the offending value cut to a readable length, wherever it came from."""

from geometry_msgs.msg import PoseStamped
import pytest
from rclpy.parameter import Parameter
from robot_sm import qos
from robot_sm.nodes.robot_control_mux import RobotControlMux
from robot_sm.nodes.service_provider import ServiceProvider
from robot_sm.nodes.state_interface import StateInterface
from robot_sm.parameters import ConfigurationError
from robot_sm.testing import RosHarness
from robot_sm_msgs.srv import AddWaypoint
from std_msgs.msg import String

HUGE = 'x' * 1_000_000
#: A refusal names the field and says what is wrong around the quoted value.
READABLE = 400


def test_short_values_are_quoted_whole_and_long_ones_cut() -> None:
    from robot_sm.quoting import QUOTE_LIMIT, quoted
    assert quoted('Wait') == "'Wait'"
    assert quoted(7) == '7'
    cut = quoted(HUGE)
    assert cut.startswith("'xxx") and cut.endswith('... (1000002 characters)')
    assert len(cut) < QUOTE_LIMIT + 30


def test_the_service_provider_cuts_a_huge_routine_name(ros: RosHarness) -> None:
    ros.start_node(ServiceProvider, {'waypoints_file': '', 'pose_source': 'topic'})
    request = AddWaypoint.Request(position=-1)
    request.waypoint.pose.orientation.w = 1.0
    request.waypoint.routine = HUGE
    answer = ros.call(AddWaypoint, 'robot_sm/add_waypoint', request, timeout=20.0)
    assert not answer.success
    assert answer.message.startswith("waypoint.routine: unknown routine 'xxx")
    assert len(answer.message) < READABLE, len(answer.message)


def test_the_state_interface_cuts_a_huge_frame_id(ros: RosHarness) -> None:
    outcomes = ros.record(String, 'robot_sm/state_outcome', qos.STATE)
    ros.start_node(StateInterface)
    goals = ros.publisher(PoseStamped, 'robot_sm/simple_goal', qos.EVENTS)
    ros.wait_for_subscribers(goals)
    goal = PoseStamped()
    goal.header.frame_id = HUGE
    goal.pose.orientation.w = 1.0
    goals.publish(goal)
    outcome = outcomes.wait_for(lambda m: 'simple goal ignored' in m.data, timeout=20.0)
    assert 'xxx' in outcome.data and len(outcome.data) < READABLE, len(outcome.data)


@pytest.mark.parametrize('parameter', ['teleop_timeout_mode', 'heartbeat_topic'])
def test_a_huge_parameter_value_is_cut_in_the_refusal(ros: RosHarness, parameter: str) -> None:
    with pytest.raises(ConfigurationError) as refusal:
        RobotControlMux(context=ros.context, namespace=ros.namespace,
                        parameter_overrides=[Parameter(parameter, value=HUGE + '/')])
    message = str(refusal.value)
    assert f"parameter '{parameter}'" in message and len(message) < READABLE, len(message)
