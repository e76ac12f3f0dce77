"""The service_provider node over DDS: every service and topic, valid and invalid requests."""

import math
import os
import pathlib
import threading
import time
from typing import Any, Dict, List

from geometry_msgs.msg import Point, PointStamped, Pose, PoseArray, PoseStamped, Quaternion
from nav_msgs.msg import Odometry
import pytest
from rclpy.node import Node
from robot_sm.nodes.service_provider import ServiceProvider
from robot_sm.parameters import ConfigurationError
from robot_sm.qos import STATE
from robot_sm.testing import RosHarness
from robot_sm.waypoints import WaypointFile
from robot_sm_msgs.msg import GoalStatus, Waypoint, WaypointArray
from robot_sm_msgs.srv import (
    AddFailedGoal,
    AddWaypoint,
    FinishRound,
    GetFailedGoals,
    GetNavigationGoal,
    GetRobotPose,
    GetWaypointRoutines,
    GetWaypoints,
    GoalCompleted,
    MoveWaypoint,
    RemoveWaypoint,
    SetNavigationGoal,
    SetWaypointFollowingMode,
    SetWaypointRoutine,
    WaypointUnreachable,
    WaypointVisited,
)
from std_msgs.msg import Bool
from std_srvs.srv import SetBool, Trigger

EXPLORATION, WAYPOINT_FOLLOWING, SIMPLE_GOAL = (
    SetNavigationGoal.Request.EXPLORATION, SetNavigationGoal.Request.WAYPOINT_FOLLOWING,
    SetNavigationGoal.Request.SIMPLE_GOAL)


def pose(x: float = 0.0, y: float = 0.0, qz: float = 0.0, qw: float = 1.0) -> Pose:
    return Pose(position=Point(x=x, y=y), orientation=Quaternion(z=qz, w=qw))


def start(ros: RosHarness, tmp_path: pathlib.Path, **parameters: Any) -> ServiceProvider:
    values: Dict[str, Any] = {'waypoints_file': str(tmp_path / 'waypoints.yaml'),
                              'waypoint_routines': ['Wait', 'Reversing']}
    values.update(parameters)
    return ros.start_node(ServiceProvider, parameters=values)


def add(ros: RosHarness, x: float, position: int = -1, routine: str = '') -> Any:
    request = AddWaypoint.Request(position=position)
    request.waypoint = Waypoint(pose=pose(x), routine=routine)
    return ros.call(AddWaypoint, 'robot_sm/add_waypoint', request)


def listed(ros: RosHarness) -> WaypointArray:
    return ros.call(GetWaypoints, 'robot_sm/get_waypoints').waypoint_array


def summary(array: WaypointArray) -> List[tuple]:
    return [(w.id, w.pose.position.x, w.visited, w.unreachable, w.routine)
            for w in array.waypoints]


def test_waypoint_services_edit_the_list_and_publish_each_change(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    start(ros, tmp_path, map_frame='world')
    published = ros.record(WaypointArray, 'robot_sm/waypoints', STATE)
    published.wait_for(lambda m: len(m.waypoints) == 0)

    assert [add(ros, x).id for x in (0.0, 1.0, 2.0)] == [1, 2, 3]
    response = add(ros, 0.5, position=1, routine='Wait')
    assert response.success and response.id == 4 and response.message == \
        'Added waypoint 4 at index 1'
    assert summary(listed(ros)) == [(1, 0.0, False, False, ''), (4, 0.5, False, False, 'Wait'),
                                    (2, 1.0, False, False, ''), (3, 2.0, False, False, '')]

    calls = [
        (MoveWaypoint, 'move_waypoint', MoveWaypoint.Request(position=3, pose=pose(7.0))),
        (RemoveWaypoint, 'remove_waypoint', RemoveWaypoint.Request(position=0)),
        (WaypointVisited, 'waypoint_visited', WaypointVisited.Request(position=0)),
        (WaypointUnreachable, 'waypoint_unreachable', WaypointUnreachable.Request(position=1)),
        (SetWaypointRoutine, 'set_waypoint_routine',
         SetWaypointRoutine.Request(position=2, routine='Reversing')),
        (SetWaypointFollowingMode, 'set_waypoint_following_mode',
         SetWaypointFollowingMode.Request(mode=WaypointArray.PATROL, reverse=True)),
    ]
    for srv, name, request in calls:
        response = ros.call(srv, f'robot_sm/{name}', request)
        assert response.success, (name, response.message)
    array = listed(ros)
    assert summary(array) == [(4, 0.5, True, False, 'Wait'), (2, 1.0, False, True, ''),
                              (3, 7.0, False, False, 'Reversing')]
    assert array.mode == WaypointArray.PATROL and array.reverse
    assert array.header.frame_id == 'world'
    latest = published.wait_for(lambda m: m.mode == WaypointArray.PATROL)
    assert summary(latest) == summary(array) and latest.header == array.header
    stamp = latest.header.stamp.sec + latest.header.stamp.nanosec * 1e-9
    assert abs(stamp - time.time()) < 5.0, 'the header stamp is the time of the last change'

    sent = time.monotonic()
    assert ros.call(Trigger, 'robot_sm/reset_waypoints').success
    reset = published.wait_for(after=sent)
    assert not any(w.visited or w.unreachable for w in reset.waypoints)
    count = len(published.messages)
    assert ros.call(Trigger, 'robot_sm/reset_waypoints').success  # nothing to reset
    assert not ros.call(RemoveWaypoint, 'robot_sm/remove_waypoint',
                        RemoveWaypoint.Request(position=5)).success
    listed(ros)
    time.sleep(0.2)
    assert len(published.messages) == count, 'published on change only'
    assert published.messages[-1] == reset
    # 1 initial + 4 adds + 6 edits + 1 reset
    assert count == 12
    assert WaypointFile(tmp_path / 'waypoints.yaml').load(0.0).waypoints.next_id == 5


@pytest.mark.parametrize('srv, name, request_, field', [
    (AddWaypoint, 'add_waypoint', AddWaypoint.Request(position=-2), 'position: -2'),
    (AddWaypoint, 'add_waypoint',
     AddWaypoint.Request(waypoint=Waypoint(pose=pose(qw=0.0))), 'waypoint.pose.orientation:'),
    (AddWaypoint, 'add_waypoint', AddWaypoint.Request(waypoint=Waypoint(pose=pose(math.nan))),
     'waypoint.pose.position.x: must be finite'),
    (AddWaypoint, 'add_waypoint',
     AddWaypoint.Request(waypoint=Waypoint(pose=pose(), routine='Dance')),
     "waypoint.routine: unknown routine 'Dance'"),
    (MoveWaypoint, 'move_waypoint', MoveWaypoint.Request(position=2, pose=pose()),
     'position: 2 is out of range'),
    (MoveWaypoint, 'move_waypoint', MoveWaypoint.Request(position=0, pose=pose(qw=math.inf)),
     'pose.orientation.w: must be finite'),
    (RemoveWaypoint, 'remove_waypoint', RemoveWaypoint.Request(position=-1), 'position: -1'),
    (WaypointVisited, 'waypoint_visited', WaypointVisited.Request(position=9), 'position: 9'),
    (WaypointUnreachable, 'waypoint_unreachable', WaypointUnreachable.Request(position=2),
     'position: 2'),
    (SetWaypointRoutine, 'set_waypoint_routine',
     SetWaypointRoutine.Request(position=0, routine='Dance'), "routine: unknown routine 'Dance'"),
    (SetWaypointRoutine, 'set_waypoint_routine', SetWaypointRoutine.Request(position=3),
     'position: 3'),
    (SetWaypointFollowingMode, 'set_waypoint_following_mode',
     SetWaypointFollowingMode.Request(mode=3), 'mode: 3 is not a following mode'),
    (SetNavigationGoal, 'set_navigation_goal',
     SetNavigationGoal.Request(goal=pose(), navigation_mode=5), 'navigation_mode: 5'),
    (SetNavigationGoal, 'set_navigation_goal',
     SetNavigationGoal.Request(goal=pose(), navigation_mode=WAYPOINT_FOLLOWING,
                               waypoint_position=2), 'waypoint_position: 2 is out of range'),
    (SetNavigationGoal, 'set_navigation_goal',
     SetNavigationGoal.Request(goal=pose(qw=0.0), navigation_mode=SIMPLE_GOAL),
     'goal.orientation: must be a non-zero quaternion'),
    (GoalCompleted, 'navigation_goal_completed',
     GoalCompleted.Request(status=GoalStatus(goal_status=7)), 'status.goal_status: 7'),
    (AddFailedGoal, 'add_failed_goal', AddFailedGoal.Request(goal=pose(y=-math.inf)),
     'goal.position.y: must be finite'),
])
def test_invalid_requests_are_refused_naming_the_field_and_change_nothing(
        ros: RosHarness, tmp_path: pathlib.Path, srv: Any, name: str, request_: Any,
        field: str) -> None:
    start(ros, tmp_path)
    add(ros, 0.0)
    add(ros, 1.0)
    published = ros.record(WaypointArray, 'robot_sm/waypoints', STATE)
    published.wait_for(lambda m: len(m.waypoints) == 2)
    before = listed(ros)
    goal_before = ros.call(GetNavigationGoal, 'robot_sm/get_navigation_goal')

    response = ros.call(srv, f'robot_sm/{name}', request_)
    assert not response.success
    assert response.message.startswith(field), response.message
    assert listed(ros) == before
    assert ros.call(GetNavigationGoal, 'robot_sm/get_navigation_goal') == goal_before
    assert ros.call(GetFailedGoals, 'robot_sm/get_failed_goals').failed_goals.poses == []
    assert len(published.messages) == 1


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


def test_clicked_points_in_the_map_frame_become_waypoints(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    start(ros, tmp_path)
    published = ros.record(WaypointArray, 'robot_sm/waypoints', STATE)
    clicks = ros.publisher(PointStamped, 'clicked_point')
    ros.wait_for_subscribers(clicks)
    for frame, x in (('odom', 9.0), ('map', 1.0), ('map', math.nan), ('', 2.0), ('/map', 3.0)):
        click = PointStamped(point=Point(x=x, y=0.5))
        click.header.frame_id = frame
        clicks.publish(click)
    array = published.wait_for(lambda m: len(m.waypoints) == 3)
    assert [(w.pose.position.x, w.pose.position.y, w.pose.orientation.w)
            for w in array.waypoints] == [(1.0, 0.5, 1.0), (2.0, 0.5, 1.0), (3.0, 0.5, 1.0)]
    time.sleep(0.2)
    assert len(listed(ros).waypoints) == 3


def test_clicked_points_can_be_switched_off(ros: RosHarness, tmp_path: pathlib.Path) -> None:
    start(ros, tmp_path, add_waypoints_from_clicked_point=False)
    time.sleep(0.2)
    assert ros.probe.count_subscribers(f'{ros.namespace}/clicked_point') == 0


def test_routines_come_from_the_parameter(ros: RosHarness, tmp_path: pathlib.Path) -> None:
    start(ros, tmp_path, waypoint_routines=['Inspect'])
    routines = ros.call(GetWaypointRoutines, 'robot_sm/get_waypoint_routines')
    assert list(routines.waypoint_routines) == ['Inspect']
    assert add(ros, 0.0, routine='Inspect').success
    assert not add(ros, 0.0, routine='Wait').success


def test_persistence_can_be_switched_off(ros: RosHarness, tmp_path: pathlib.Path) -> None:
    start(ros, tmp_path, waypoints_file='')
    assert add(ros, 1.0).success
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize('parameters, problem', [
    ({'waypoint_routines': ['Wait', 'Wait']}, "'waypoint_routines' must not name a routine"),
    ({'waypoint_routines': ['']}, "'waypoint_routines' must not hold empty names"),
    ({'pose_source': 'gps'}, "'pose_source' must be one of 'tf', 'topic'"),
    ({'failed_goal_tolerance': -0.1}, "'failed_goal_tolerance' must be >= 0"),
    ({'navigation_reverse_timeout': 0.0}, "'navigation_reverse_timeout' must be >= 0.01"),
    ({'map_frame': ''}, "'map_frame' must not be empty"),
])
def test_bad_parameters_refuse_to_start(ros: RosHarness, tmp_path: pathlib.Path,
                                        parameters: Dict[str, Any], problem: str) -> None:
    with pytest.raises(ConfigurationError, match=problem):
        start(ros, tmp_path, **parameters)


def test_the_default_waypoints_file_is_one_per_namespace(ros: RosHarness) -> None:
    node = ros.start_node(ServiceProvider)  # waypoints_file left at its default
    expected = (pathlib.Path(os.environ['ROS_HOME']) / 'robot_sm' / ros.namespace.strip('/')
                / 'waypoints.yaml')
    assert node.get_parameter('waypoints_file').value == str(expected)
    assert add(ros, 1.5).success
    assert [w.pose.x for w in WaypointFile(expected).load(0.0).waypoints.waypoints] == [1.5]
