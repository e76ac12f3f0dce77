"""The service_provider node over DDS: goals, failed goals, exploration, reverse mode, pose."""

import math
import pathlib
import threading
import time
from typing import Any, List

from geometry_msgs.msg import PoseArray, PoseStamped
from nav_msgs.msg import Odometry
import pytest
from rclpy.node import Node
from robot_sm.qos import STATE
from robot_sm.testing import RosHarness
from robot_sm.waypoints import WaypointFile
from robot_sm_msgs.msg import GoalStatus, WaypointArray
from robot_sm_msgs.srv import (
    AddFailedGoal,
    FinishRound,
    GetFailedGoals,
    GetNavigationGoal,
    GetRobotPose,
    GoalCompleted,
    SetNavigationGoal,
    SetWaypointFollowingMode,
    WaypointVisited,
)
from service_provider_calls import (
    add,
    EXPLORATION,
    listed,
    pose,
    start,
    summary,
    WAYPOINT_FOLLOWING,
)
from std_msgs.msg import Bool
from std_srvs.srv import SetBool, Trigger


def test_navigation_goal_keeps_its_waypoint_by_id_and_completion_marks_it(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    start(ros, tmp_path)
    initial = ros.call(GetNavigationGoal, 'robot_sm/get_navigation_goal')
    assert (initial.navigation_mode, initial.waypoint_position) == (-1, -1)
    for x in (0.0, 1.0, 2.0):
        add(ros, x)
    request = SetNavigationGoal.Request(goal=pose(1.0, qz=1.0, qw=1.0),
                                        navigation_mode=WAYPOINT_FOLLOWING,
                                        waypoint_position=1, routine='Wait')
    assert ros.call(SetNavigationGoal, 'robot_sm/set_navigation_goal', request).success
    add(ros, -1.0, position=0)  # the goal's waypoint moves from index 1 to 2
    goal = ros.call(GetNavigationGoal, 'robot_sm/get_navigation_goal')
    assert (goal.navigation_mode, goal.waypoint_position, goal.routine) == (
        WAYPOINT_FOLLOWING, 2, 'Wait')
    assert goal.goal.orientation.z == pytest.approx(math.sqrt(0.5)), 'stored normalised'

    completed = GoalCompleted.Request(navigation_status=True)
    completed.status.goal_status = GoalStatus.REACHED
    response = ros.call(GoalCompleted, 'robot_sm/navigation_goal_completed', completed)
    assert response.success and response.message == 'Waypoint 2 completed: visited'
    assert [w.visited for w in listed(ros).waypoints] == [False, False, True, False]

    request.waypoint_position = 3
    ros.call(SetNavigationGoal, 'robot_sm/set_navigation_goal', request)
    completed.status.goal_status = GoalStatus.ABORTED
    ros.call(GoalCompleted, 'robot_sm/navigation_goal_completed', completed)
    completed.status.goal_status = GoalStatus.FAILED
    ros.call(GoalCompleted, 'robot_sm/navigation_goal_completed', completed)
    assert [(w.visited, w.unreachable) for w in listed(ros).waypoints][3] == (False, True)


def test_finish_round_applies_the_following_mode_s_rule_in_one_change(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    start(ros, tmp_path)
    published = ros.record(WaypointArray, 'robot_sm/waypoints', STATE)
    for x in (0.0, 1.0, 2.0):
        add(ros, x)
    for position in range(3):
        ros.call(WaypointVisited, 'robot_sm/waypoint_visited',
                 WaypointVisited.Request(position=position))

    def finish(mode: int) -> Any:
        ros.call(SetWaypointFollowingMode, 'robot_sm/set_waypoint_following_mode',
                 SetWaypointFollowingMode.Request(mode=mode, reverse=False))
        published.wait_for(lambda m: m.mode == mode)
        called = time.monotonic()
        answer = ros.call(FinishRound, 'robot_sm/finish_round')
        assert answer.success
        after = summary(answer.waypoint_array)
        if after != summary(published.last):
            # One change, published once: never a list half-way through the rule.
            published.wait_for(lambda m: summary(m) == after, after=called)
            assert [summary(m) for m in published.since(called)] == [after]
        return answer

    def flags(answer: Any) -> List[tuple]:
        return [(w.visited, w.unreachable) for w in answer.waypoint_array.waypoints]

    single = finish(WaypointArray.SINGLE)
    assert (single.continues, single.message) == (False, 'Single round finished')
    assert flags(single) == [(True, False)] * 3
    patrol = finish(WaypointArray.PATROL)
    assert patrol.continues and patrol.waypoint_array.reverse
    # Turned around: the flags cleared, and the endpoint just reached marked visited.
    assert flags(patrol) == [(False, False), (False, False), (True, False)]
    roundtrip = finish(WaypointArray.ROUNDTRIP)
    assert roundtrip.continues and flags(roundtrip) == [(False, False)] * 3
    saved = WaypointFile(str(tmp_path / 'waypoints.yaml')).load(0.0).waypoints
    assert [(w.visited, w.unreachable) for w in saved.waypoints] == [(False, False)] * 3


def test_failed_goals_from_exploration_and_the_blacklist_services(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    start(ros, tmp_path, failed_goal_tolerance=0.1)
    goal = SetNavigationGoal.Request(goal=pose(4.0, 2.0), navigation_mode=EXPLORATION,
                                     waypoint_position=-1)
    ros.call(SetNavigationGoal, 'robot_sm/set_navigation_goal', goal)
    failed = GoalCompleted.Request(navigation_status=True)
    failed.status.goal_status = GoalStatus.FAILED
    for _ in range(3):  # reported again and again: recorded once
        assert ros.call(GoalCompleted, 'robot_sm/navigation_goal_completed', failed).success
    response = ros.call(AddFailedGoal, 'robot_sm/add_failed_goal',
                        AddFailedGoal.Request(goal=pose(4.05, 2.05)))
    assert response.success and 'not added again' in response.message
    ros.call(AddFailedGoal, 'robot_sm/add_failed_goal', AddFailedGoal.Request(goal=pose(9.0)))
    listed_goals = ros.call(GetFailedGoals, 'robot_sm/get_failed_goals').failed_goals
    assert [(p.position.x, p.position.y) for p in listed_goals.poses] == [(4.0, 2.0), (9.0, 0.0)]
    assert listed_goals.header.frame_id == 'map'
    assert ros.call(Trigger, 'robot_sm/reset_failed_goals').success
    assert ros.call(GetFailedGoals, 'robot_sm/get_failed_goals').failed_goals.poses == []


def test_exploration_mode_and_goal_obsolete(ros: RosHarness, tmp_path: pathlib.Path) -> None:
    start(ros, tmp_path)
    mode = ros.record(Bool, 'robot_sm/exploration_mode', STATE)
    obsolete = ros.record(Bool, 'robot_sm/goal_obsolete', STATE)
    mode.wait_for(lambda m: m.data is True)  # interrupt by default, as in RSM melodic
    obsolete.wait_for(lambda m: m.data is False)
    assert ros.call(Trigger, 'robot_sm/get_exploration_mode').success is True

    ros.call(SetNavigationGoal, 'robot_sm/set_navigation_goal', SetNavigationGoal.Request(
        goal=pose(2.0), navigation_mode=EXPLORATION))
    goals = ros.publisher(PoseArray, 'robot_sm/exploration_goals')
    ros.wait_for_subscribers(goals)
    frontiers = PoseArray(poses=[pose(5.0), pose(2.03, 0.03)])
    frontiers.header.frame_id = 'map'
    goals.publish(frontiers)
    time.sleep(0.3)
    assert [m.data for m in obsolete.messages] == [False], 'still a frontier: not obsolete'
    frontiers.poses = [pose(5.0)]
    goals.publish(frontiers)
    obsolete.wait_for(lambda m: m.data is True)

    ros.call(SetNavigationGoal, 'robot_sm/set_navigation_goal', SetNavigationGoal.Request(
        goal=pose(5.0), navigation_mode=EXPLORATION))
    obsolete.wait_for(lambda m: m.data is False, after=0.0)
    assert [m.data for m in obsolete.messages] == [False, True, False]

    response = ros.call(SetBool, 'robot_sm/set_exploration_mode', SetBool.Request(data=False))
    assert response.success and response.message == 'Exploration mode set to finish'
    mode.wait_for(lambda m: m.data is False)
    assert ros.call(Trigger, 'robot_sm/get_exploration_mode').success is False
    frontiers.poses = []
    goals.publish(frontiers)
    time.sleep(0.3)
    assert [m.data for m in obsolete.messages] == [False, True, False]


def test_reverse_mode_changes_directly_without_a_handshake_service(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    start(ros, tmp_path)
    reverse = ros.record(Bool, 'robot_sm/reverse_mode', STATE)
    reverse.wait_for(lambda m: m.data is False)
    get = ros.call(Trigger, 'robot_sm/get_reverse_mode')
    assert (get.success, get.message) == (False, 'Forward mode active')
    response = ros.call(SetBool, 'robot_sm/set_reverse_mode', SetBool.Request(data=True))
    assert response.success and response.message == 'Reverse mode active'
    reverse.wait_for(lambda m: m.data is True)
    again = ros.call(SetBool, 'robot_sm/set_reverse_mode', SetBool.Request(data=True))
    assert not again.success and again.message == 'data: already in the requested mode: reverse'
    assert ros.call(Trigger, 'robot_sm/get_reverse_mode').success is True
    assert [m.data for m in reverse.messages] == [False, True]


def test_reverse_mode_changes_only_when_the_navigation_accepts(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    start(ros, tmp_path, navigation_reverse_service='robot_sm/set_navigation_to_reverse',
          navigation_reverse_timeout=0.5)
    reverse = ros.record(Bool, 'robot_sm/reverse_mode', STATE)
    reverse.wait_for(lambda m: m.data is False)
    set_true = SetBool.Request(data=True)

    missing = ros.call(SetBool, 'robot_sm/set_reverse_mode', set_true)
    assert not missing.success and missing.message.endswith(
        'set_navigation_to_reverse is not available; reverse mode unchanged')

    answers: List[Any] = [(False, 'reverse stack not running')]
    asked: List[bool] = []

    def navigation(request: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
        asked.append(request.data)
        answer = answers.pop(0)
        if answer == 'slow':
            time.sleep(1.5)
            answer = (True, 'too late')
        response.success, response.message = answer
        return response

    # The navigation in a node (and executor) of its own, so that its slow answer blocks only it.
    navigator = ros.add_node(Node('navigation', namespace=ros.namespace, context=ros.context))
    navigator.create_service(SetBool, 'robot_sm/set_navigation_to_reverse', navigation)
    refused = ros.call(SetBool, 'robot_sm/set_reverse_mode', set_true, timeout=10.0)
    assert not refused.success
    assert refused.message.endswith('refused: reverse stack not running; reverse mode unchanged')
    assert ros.call(Trigger, 'robot_sm/get_reverse_mode').success is False

    answers.append('slow')
    result: List[Any] = []
    thread = threading.Thread(target=lambda: result.append(ros.call(
        SetBool, 'robot_sm/set_reverse_mode', set_true, timeout=10.0)))
    thread.start()
    time.sleep(0.1)
    began = time.monotonic()
    assert listed(ros).waypoints == [], 'other services answer during the handshake'
    busy = ros.call(SetBool, 'robot_sm/set_reverse_mode', set_true)
    assert not busy.success and 'already waiting' in busy.message
    assert time.monotonic() - began < 0.4
    thread.join(timeout=10.0)
    assert not result[0].success and 'did not answer within 0.5 s' in result[0].message
    time.sleep(1.2)  # the late acceptance must not change the mode either
    assert ros.call(Trigger, 'robot_sm/get_reverse_mode').success is False

    answers.append((True, 'switched'))
    accepted = ros.call(SetBool, 'robot_sm/set_reverse_mode', set_true, timeout=10.0)
    assert accepted.success and accepted.message == 'Reverse mode active'
    reverse.wait_for(lambda m: m.data is True)
    assert asked == [True, True, True]
    assert [m.data for m in reverse.messages] == [False, True]


def test_reverse_handshake_times_out_in_steady_time_under_sim_time(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    """With use_sim_time and no /clock, the handshake still gives up after its timeout."""
    start(ros, tmp_path, use_sim_time=True, navigation_reverse_service='navigation_reverse',
          navigation_reverse_timeout=0.3)

    def silent(_: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
        time.sleep(1.0)
        return response

    navigator = ros.add_node(Node('navigation', namespace=ros.namespace, context=ros.context))
    navigator.create_service(SetBool, 'navigation_reverse', silent)
    began = time.monotonic()
    response = ros.call(SetBool, 'robot_sm/set_reverse_mode', SetBool.Request(data=True))
    assert not response.success and 'did not answer within 0.3 s' in response.message
    assert time.monotonic() - began < 0.9


def test_robot_pose_without_tf2_ros_says_how_to_get_one(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    start(ros, tmp_path)
    response = ros.call(GetRobotPose, 'robot_sm/get_robot_pose')
    assert not response.success
    try:
        import tf2_ros  # noqa: F401
    except ImportError:
        assert 'tf2_ros is not installed' in response.message
        assert 'pose_source to topic' in response.message
    else:  # on a robot: no transform is published in this test
        assert 'no transform map -> base_footprint' in response.message


def test_robot_pose_from_an_odometry_topic(ros: RosHarness, tmp_path: pathlib.Path) -> None:
    start(ros, tmp_path, pose_source='topic', pose_topic='localization/odom')
    response = ros.call(GetRobotPose, 'robot_sm/get_robot_pose')
    assert not response.success and 'no pose received on' in response.message
    assert 'localization/odom' in response.message

    odometry = ros.publisher(Odometry, 'localization/odom')
    ros.wait_for_subscribers(odometry)
    message = Odometry()
    message.header.frame_id = 'map'
    message.pose.pose = pose(1.5, -2.0, qz=3.0, qw=4.0)
    odometry.publish(message)

    def answered() -> Any:
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            reply = ros.call(GetRobotPose, 'robot_sm/get_robot_pose')
            if reply.success or 'no pose received' not in reply.message:
                return reply
            time.sleep(0.02)
        raise TimeoutError('no pose')

    response = answered()
    assert response.success
    assert (response.pose.position.x, response.pose.position.y) == (1.5, -2.0)
    assert (response.pose.orientation.z, response.pose.orientation.w) == (0.6, 0.8)

    message.header.frame_id = 'odom'
    odometry.publish(message)
    deadline = time.monotonic() + 5.0
    while response.success and time.monotonic() < deadline:
        response = ros.call(GetRobotPose, 'robot_sm/get_robot_pose')
    assert not response.success
    assert "is in frame 'odom', not in map_frame 'map'" in response.message


def test_robot_pose_from_a_pose_stamped_topic(ros: RosHarness, tmp_path: pathlib.Path) -> None:
    start(ros, tmp_path, pose_source='topic', pose_topic='robot_pose',
          pose_topic_type='pose_stamped')
    publisher = ros.publisher(PoseStamped, 'robot_pose')
    ros.wait_for_subscribers(publisher)
    message = PoseStamped(pose=pose(3.0, qw=0.0))  # zero quaternion: not a pose
    publisher.publish(message)
    deadline = time.monotonic() + 5.0
    response = ros.call(GetRobotPose, 'robot_sm/get_robot_pose')
    while 'no pose received' in response.message and time.monotonic() < deadline:
        response = ros.call(GetRobotPose, 'robot_sm/get_robot_pose')
    assert not response.success and response.message.startswith('pose.orientation:')
    publisher.publish(PoseStamped(pose=pose(3.0)))
    while not response.success and time.monotonic() < deadline:
        response = ros.call(GetRobotPose, 'robot_sm/get_robot_pose')
    assert response.success and response.pose.position.x == 3.0
