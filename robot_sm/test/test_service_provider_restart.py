"""A restarted service_provider has the waypoint list it had, even after a SIGKILL."""

import pathlib
import time
from typing import Any, List, Optional

from geometry_msgs.msg import Point, Pose, Quaternion
from robot_sm.nodes.service_provider import ServiceProvider
from robot_sm.testing import NodeProcess, python_module_argv, ros_args, RosHarness
from robot_sm.waypoints import WaypointFile
from robot_sm_msgs.msg import Waypoint, WaypointArray
from robot_sm_msgs.srv import AddWaypoint, GetWaypoints, SetWaypointFollowingMode, WaypointVisited

PROCESS_TIMEOUT = 30.0  # a fresh Python process importing rclpy on a loaded machine


def add(ros: RosHarness, x: float, routine: str = '') -> Any:
    request = AddWaypoint.Request(position=-1)
    request.waypoint = Waypoint(pose=Pose(position=Point(x=x, y=x / 3.0),
                                          orientation=Quaternion(z=0.6, w=0.8)),
                                routine=routine)
    response = ros.call(AddWaypoint, 'robot_sm/add_waypoint', request)
    assert response.success, response.message
    return response


def listed(ros: RosHarness, timeout: float = 5.0, node: Optional[NodeProcess] = None
           ) -> WaypointArray:
    """
    Return the list, asking again until a (re)started node answers within ``timeout``.

    After a SIGKILL the dead server stays discovered for a while: a request can go out before
    the new server is matched and be lost, so a short wait and a retry is what a client does.
    A node process that never answers is named with what it printed.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            wait = min(2.0, max(0.1, deadline - time.monotonic()))
            return ros.call(GetWaypoints, 'robot_sm/get_waypoints', timeout=wait).waypoint_array
        except TimeoutError as error:
            if time.monotonic() >= deadline:
                printed = f'; the node printed:\n{node.output}' if node is not None else ''
                raise TimeoutError(f'{error}{printed}') from None


def content(array: WaypointArray) -> List[tuple]:
    return [(w.id, w.pose.position.x, w.pose.position.y, w.pose.orientation.z,
             w.pose.orientation.w, w.visited, w.unreachable, w.routine)
            for w in array.waypoints] + [(array.mode, array.reverse)]


def process(ros: RosHarness, path: pathlib.Path) -> Any:
    argv = python_module_argv('robot_sm.nodes.service_provider', *ros_args(
        namespace=ros.namespace,
        parameters={'waypoints_file': str(path), 'waypoint_routines': ['Wait']}))
    return ros.start_process(argv)


def test_list_survives_a_clean_restart(ros: RosHarness, tmp_path: pathlib.Path) -> None:
    parameters = {'waypoints_file': str(tmp_path / 'waypoints.yaml'),
                  'waypoint_routines': ['Wait']}
    node = ros.start_node(ServiceProvider, parameters=parameters)
    for x in (1.0, 2.0, 3.0):
        add(ros, x, routine='Wait' if x == 2.0 else '')
    ros.call(WaypointVisited, 'robot_sm/waypoint_visited', WaypointVisited.Request(position=0))
    ros.call(SetWaypointFollowingMode, 'robot_sm/set_waypoint_following_mode',
             SetWaypointFollowingMode.Request(mode=WaypointArray.ROUNDTRIP, reverse=True))
    before = content(listed(ros))
    ros.stop_node(node)

    ros.start_node(ServiceProvider, parameters=parameters)
    assert content(listed(ros)) == before
    assert add(ros, 4.0).id == 4, 'ids are not reused after a restart'


def test_list_survives_sigkill_of_the_node_process(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    path = tmp_path / 'waypoints.yaml'
    first = process(ros, path)
    assert listed(ros, PROCESS_TIMEOUT, first).waypoints == []
    assert add(ros, 1.0).id == 1
    for x in (2.0, 3.0):
        add(ros, x, routine='Wait')
    before = content(listed(ros))
    first.kill()
    assert not first.alive()

    second = process(ros, path)
    assert content(listed(ros, PROCESS_TIMEOUT, second)) == before
    assert second.stop() == 0, second.output


def test_corrupt_file_is_reported_moved_aside_and_the_node_starts_empty(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    path = tmp_path / 'waypoints.yaml'
    path.write_text('waypoints:\n- {position: [1, 2, 0]\n')  # unterminated
    node = process(ros, path)
    assert listed(ros, PROCESS_TIMEOUT, node).waypoints == []
    aside = [p for p in tmp_path.iterdir() if p.name.startswith('waypoints.yaml.corrupt-')]
    assert len(aside) == 1
    assert aside[0].read_text() == 'waypoints:\n- {position: [1, 2, 0]\n', 'kept as it was'
    assert 'is not valid YAML' in node.output and f'moved it to {aside[0]}' in node.output

    add(ros, 5.0)
    assert WaypointFile(path).load(0.0).waypoints.waypoints[0].pose.x == 5.0
    assert aside[0].read_text() == 'waypoints:\n- {position: [1, 2, 0]\n', 'never overwritten'
    assert node.stop() == 0, node.output


def test_an_unusable_waypoints_file_refuses_to_start(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    blocker = tmp_path / 'not-a-directory'
    blocker.write_text('')
    node = process(ros, blocker / 'waypoints.yaml')
    assert node.wait(PROCESS_TIMEOUT) == 2, node.output
    assert "refusing to start: parameter 'waypoints_file': cannot create the directory" in \
        node.output
