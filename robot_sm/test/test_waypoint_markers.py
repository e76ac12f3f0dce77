"""RViz waypoint markers from the service provider: colours, labels, the current goal."""

import pathlib
from typing import Dict, List

from robot_sm.nodes.waypoint_markers import COLOURS
from robot_sm.qos import STATE
from robot_sm.testing import RosHarness
from robot_sm_msgs.srv import SetNavigationGoal, WaypointUnreachable, WaypointVisited
from test_service_provider_node import add, listed, pose, start
from visualization_msgs.msg import Marker, MarkerArray


def by_namespace(array: MarkerArray) -> Dict[str, List[Marker]]:
    found: Dict[str, List[Marker]] = {}
    for marker in array.markers:
        if marker.action == Marker.ADD:
            found.setdefault(marker.ns, []).append(marker)
    return found


def colour(marker: Marker) -> tuple:
    return (round(marker.color.r, 2), round(marker.color.g, 2), round(marker.color.b, 2))


def test_markers_follow_visited_unreachable_and_the_current_goal(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    start(ros, tmp_path)
    markers = ros.record(MarkerArray, 'robot_sm/waypoint_markers', STATE)
    first = markers.wait_for()
    assert by_namespace(first) == {}
    assert first.markers[0].action == Marker.DELETEALL
    for x, routine in ((1.0, ''), (2.0, 'Wait'), (3.0, '')):
        assert add(ros, x, routine=routine).success
    ids = [w.id for w in listed(ros).waypoints]
    assert ros.call(WaypointVisited, 'robot_sm/waypoint_visited',
                    WaypointVisited.Request(position=0)).success
    assert ros.call(WaypointUnreachable, 'robot_sm/waypoint_unreachable',
                    WaypointUnreachable.Request(position=2)).success
    expected = [colour(Marker(color=COLOURS[s])) for s in ('visited', 'pending', 'unreachable')]
    latest = markers.wait_for(lambda a: [
        colour(m) for m in by_namespace(a).get('waypoint_poles', [])] == expected)
    groups = by_namespace(latest)
    assert [m.text for m in groups['waypoint_labels']] == ['0', '1: Wait', '2']
    assert [m.id for m in groups['waypoint_poles']] == ids
    assert [m.pose.position.x for m in groups['waypoint_flags']] == [1.0, 2.0, 3.0]
    assert 'waypoint_goal' not in groups
    assert latest.markers[0].header.frame_id == 'map'

    request = SetNavigationGoal.Request(
        goal=pose(2.0), waypoint_position=1, routine='Wait',
        navigation_mode=SetNavigationGoal.Request.WAYPOINT_FOLLOWING)
    assert ros.call(SetNavigationGoal, 'robot_sm/set_navigation_goal', request).success
    highlighted = markers.wait_for(lambda a: 'waypoint_goal' in by_namespace(a))
    groups = by_namespace(highlighted)
    assert [m.id for m in groups['waypoint_goal']] == [ids[1]]
    heights = [m.scale.z for m in groups['waypoint_poles']]
    assert heights[1] > heights[0] == heights[2]
