"""What the service provider's node tests share: poses, starting the node, its waypoint calls."""

import pathlib
from typing import Any, Dict, List

from geometry_msgs.msg import Point, Pose, Quaternion
from robot_sm.nodes.service_provider import ServiceProvider
from robot_sm.testing import RosHarness
from robot_sm_msgs.msg import Waypoint, WaypointArray
from robot_sm_msgs.srv import AddWaypoint, GetWaypoints, SetNavigationGoal

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
