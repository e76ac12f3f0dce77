"""The service_provider node over DDS: the waypoint services, clicked points, its parameters."""

import math
import os
import pathlib
import time
from typing import Any, Dict

from geometry_msgs.msg import Point, PointStamped
import pytest
from robot_sm.nodes.service_provider import ServiceProvider
from robot_sm.parameters import ConfigurationError
from robot_sm.qos import STATE
from robot_sm.testing import RosHarness
from robot_sm.waypoints import WaypointFile
from robot_sm_msgs.msg import GoalStatus, Waypoint, WaypointArray
from robot_sm_msgs.srv import (
    AddFailedGoal,
    AddWaypoint,
    GetFailedGoals,
    GetNavigationGoal,
    GetWaypointRoutines,
    GoalCompleted,
    MoveWaypoint,
    RemoveWaypoint,
    SetNavigationGoal,
    SetWaypointFollowingMode,
    SetWaypointRoutine,
    WaypointUnreachable,
    WaypointVisited,
)
from service_provider_calls import (
    add,
    listed,
    pose,
    SIMPLE_GOAL,
    start,
    summary,
    WAYPOINT_FOLLOWING,
)
from std_srvs.srv import Trigger


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
