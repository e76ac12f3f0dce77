"""
Waypoints grabbed in RViz: the service provider's interactive markers, RViz's side played here.

The probe does what RViz's InteractiveMarkers display does, with visualization_msgs alone: it
fetches the markers through the server's ``get_interactive_markers`` service and sends
``InteractiveMarkerFeedback`` for the end of a drag and for each menu entry; the waypoint list
must change as asked, and a drag to a non-finite pose must be refused and change nothing.
Without the interactive_markers library the node keeps the display-only markers.
"""

import importlib.util
import math
import pathlib
import time
from typing import Any, Dict, List

from geometry_msgs.msg import Pose
import pytest
from robot_sm.nodes.waypoint_interactive_markers import TOPIC_NAMESPACE
from robot_sm.testing import RosHarness, wait_until
from std_srvs.srv import SetBool
from test_service_provider_node import add, listed, pose, start, summary
from visualization_msgs.msg import InteractiveMarker, InteractiveMarkerFeedback
from visualization_msgs.srv import GetInteractiveMarkers

INSTALLED = importlib.util.find_spec('interactive_markers') is not None
WAIT = 10.0


class Rviz:
    """RViz's InteractiveMarkers display, as far as the protocol goes."""

    def __init__(self, ros: RosHarness) -> None:
        self.ros = ros
        self.feedback = ros.publisher(InteractiveMarkerFeedback, f'{TOPIC_NAMESPACE}/feedback')
        assert wait_until(lambda: self.feedback.get_subscription_count() > 0, timeout=WAIT)

    def markers(self) -> Dict[str, InteractiveMarker]:
        response = self.ros.call(GetInteractiveMarkers,
                                 f'{TOPIC_NAMESPACE}/get_interactive_markers')
        return {marker.name: marker for marker in response.markers}

    def send(self, marker: str, event: int, **fields: Any) -> None:
        msg = InteractiveMarkerFeedback(client_id='/rviz/InteractiveMarkers', marker_name=marker,
                                        event_type=event, **fields)
        msg.header.frame_id = 'map'
        self.feedback.publish(msg)

    def drag(self, marker: str, to: Pose) -> None:
        self.send(marker, InteractiveMarkerFeedback.POSE_UPDATE, pose=to)
        self.send(marker, InteractiveMarkerFeedback.MOUSE_UP, pose=to)

    def choose(self, marker: str, *titles: str) -> None:
        """Select the menu entry reached by ``titles`` (a submenu's title first)."""
        entries = self.markers()[marker].menu_entries
        parent = 0
        for title in titles:
            parent = next(e.id for e in entries if e.parent_id == parent and e.title == title)
        self.send(marker, InteractiveMarkerFeedback.MENU_SELECT, menu_entry_id=parent)


def changed(ros: RosHarness, before: List[tuple]) -> List[tuple]:
    assert wait_until(lambda: summary(listed(ros)) != before, timeout=WAIT), 'nothing changed'
    return summary(listed(ros))


@pytest.mark.skipif(not INSTALLED, reason='interactive_markers is not installed (no wheel '
                    'exists; every ROS install with RViz has it): only the display-only '
                    'markers are served')
def test_rviz_moves_deletes_and_edits_waypoints_through_interactive_markers(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    start(ros, tmp_path)
    for x in (1.0, 2.0, 3.0):
        assert add(ros, x).success
    following: List[bool] = []
    ros.probe.create_service(SetBool, 'robot_sm/start_stop_waypoint_following',
                             lambda request, response: following.append(request.data) or
                             SetBool.Response(success=True, message='started'))
    rviz = Rviz(ros)
    ids = [w.id for w in listed(ros).waypoints]
    names = [f'waypoint_{i}' for i in ids]
    markers = rviz.markers()
    assert sorted(markers) == sorted(names)
    assert markers[names[1]].description == f'1 (id {ids[1]})'
    assert markers[names[1]].header.frame_id == 'map'
    titles = {e.title for e in markers[names[0]].menu_entries}
    assert {'Delete', 'Routine', 'None', 'Wait', 'Reversing', 'Move up', 'Move down',
            'Start following from here'} <= titles

    # A drag ends: the waypoint moves there, with the yaw it was turned to. (The server takes
    # no feedback for a marker in the second after it made it, as when two clients drag it.)
    time.sleep(1.1)
    before = summary(listed(ros))
    rviz.drag(names[0], pose(4.0, 1.5, qz=math.sin(0.5), qw=math.cos(0.5)))
    assert changed(ros, before)[0][1] == 4.0
    moved = listed(ros).waypoints[0].pose
    assert (moved.position.y, round(moved.orientation.z, 6)) == (1.5, round(math.sin(0.5), 6))
    # A drag to a non-finite pose is refused: nothing changes.
    before = summary(listed(ros))
    rviz.drag(names[0], pose(float('nan'), 1.0))
    time.sleep(1.0)
    assert summary(listed(ros)) == before

    rviz.choose(names[1], 'Routine', 'Wait')
    assert changed(ros, before)[1][4] == 'Wait'
    assert wait_until(lambda: rviz.markers()[names[1]].description == f'1 (id {ids[1]}): Wait',
                      timeout=WAIT)
    before = summary(listed(ros))
    rviz.choose(names[1], 'Routine', 'None')
    assert changed(ros, before)[1][4] == ''
    before = summary(listed(ros))
    rviz.choose(names[0], 'Move down')  # a remove and an insert: a new id, pending
    after = changed(ros, before)
    assert [row[1] for row in after] == [2.0, 4.0, 3.0] and after[1][0] not in ids
    before = after
    rviz.choose(names[2], 'Move up')
    after = changed(ros, before)
    assert [row[1] for row in after] == [2.0, 3.0, 4.0]
    time.sleep(1.1)  # the new markers' second
    before = after
    rviz.choose(name_at(ros, 2), 'Start following from here')
    assert [row[2] for row in changed(ros, before)] == [True, True, False]
    assert wait_until(lambda: following == [True], timeout=WAIT)
    before = summary(listed(ros))
    rviz.choose(name_at(ros, 0), 'Delete')
    assert [row[1] for row in changed(ros, before)] == [3.0, 4.0]
    assert sorted(rviz.markers()) == sorted(f'waypoint_{row[0]}' for row in summary(listed(ros)))


def name_at(ros: RosHarness, index: int) -> str:
    return f'waypoint_{listed(ros).waypoints[index].id}'


@pytest.mark.skipif(INSTALLED, reason='interactive_markers is installed')
def test_without_the_library_only_display_markers_are_served(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    node = start(ros, tmp_path)
    assert not node._interactive.available
    time.sleep(0.5)
    services = dict(ros.probe.get_service_names_and_types())
    assert f'{ros.namespace}/{TOPIC_NAMESPACE}/get_interactive_markers' not in services
