"""
The waypoint calls of :class:`robot_sm.client.SuiteClient`: the list and its edits.

Edits are commands of the gateway (``robot_sm/command``), given as the client's operator; each
method names the RSM service that does the same for raw ROS callers. A pose is checked (finite,
a normalisable quaternion) before anything is sent.
"""

import math
from typing import Any, Dict, Optional, Tuple

from geometry_msgs.msg import Pose, PoseStamped
from robot_sm.client.connection import Result, SuiteConnection
from robot_sm.client.status import FOLLOWING_MODE_NAMES, waypoint_infos
from robot_sm.contract import Command as Kind
from robot_sm.planar import quaternion_from_yaw, yaw_from_quaternion
from robot_sm.waypoint_messages import pose_message
from robot_sm.waypoints.errors import RequestError
from robot_sm.waypoints.pose import checked_pose
from robot_sm_msgs import srv


def planar_pose(x: float, y: float, yaw: float) -> Tuple[Optional[Pose], str]:
    """Return the pose at ``(x, y)`` facing ``yaw`` in the map, or None and why not."""
    if not math.isfinite(yaw):
        return None, f'yaw: must be finite (got {yaw!r})'
    try:
        checked = checked_pose('pose', x, y, 0.0, *quaternion_from_yaw(yaw))
    except RequestError as error:
        return None, str(error)
    return pose_message(checked), ''


class WaypointCalls(SuiteConnection):
    """The waypoint list's calls; :class:`robot_sm.client.SuiteClient` has them all."""

    def waypoints(self) -> Result:
        """
        Return the waypoint list (``data``: list of :class:`WaypointInfo`) and its mode.

        ``ros2 service call robot_sm/get_waypoints robot_sm_msgs/srv/GetWaypoints``
        """
        array = self.call(srv.GetWaypoints, 'robot_sm/get_waypoints').waypoint_array
        mode = FOLLOWING_MODE_NAMES.get(array.mode, str(array.mode))
        direction = 'reverse' if array.reverse else 'forward'
        return Result(True, f'{len(array.waypoints)} waypoints, {mode}, {direction}',
                      {'waypoints': waypoint_infos(array), 'mode': mode,
                       'reverse': bool(array.reverse)})

    def add_waypoint(self, x: float, y: float, yaw: float = 0.0, routine: str = '',
                     position: int = -1) -> Result:
        """
        Add a waypoint (before ``position``; -1 appends). ``data`` is the new waypoint's id.

        Command ADD_WAYPOINT (the RSM service: ``ros2 service call robot_sm/add_waypoint
        robot_sm_msgs/srv/AddWaypoint "{waypoint: {pose: {position: {x: 1.0, y: 2.0}}},
        position: -1}"``).
        """
        pose, problem = planar_pose(x, y, yaw)
        if pose is None:
            return Result(False, problem)
        return self.command(Kind.ADD_WAYPOINT, pose=PoseStamped(pose=pose), routine=routine,
                            position=position)

    def robot_pose(self) -> Result:
        """
        Return the robot's pose in the map frame (``data``: (x, y, yaw)).

        ``ros2 service call robot_sm/get_robot_pose robot_sm_msgs/srv/GetRobotPose``
        """
        response = self.call(srv.GetRobotPose, 'robot_sm/get_robot_pose')
        if not response.success:
            return Result(False, str(response.message))
        p, q = response.pose.position, response.pose.orientation
        return Result(True, str(response.message),
                      (p.x, p.y, yaw_from_quaternion(q.x, q.y, q.z, q.w)))

    def add_waypoint_here(self, routine: str = '', position: int = -1) -> Result:
        """Add a waypoint at the robot's current pose."""
        pose = self.robot_pose()
        if not pose.success:
            return pose
        x, y, yaw = pose.data
        return self.add_waypoint(x, y, yaw, routine, position)

    def move_waypoint(self, position: int, x: float, y: float, yaw: float = 0.0,
                      waypoint_id: Optional[int] = None) -> Result:
        """
        Move waypoint ``position`` (or the one with ``waypoint_id``) to a new pose.

        Command MOVE_WAYPOINT (``robot_sm/move_waypoint`` by index).
        """
        pose, problem = planar_pose(x, y, yaw)
        if pose is None:
            return Result(False, problem)
        return self.command(Kind.MOVE_WAYPOINT, pose=PoseStamped(pose=pose),
                            **_naming(position, waypoint_id))

    def remove_waypoint(self, position: int = -1, waypoint_id: Optional[int] = None) -> Result:
        """
        Remove waypoint ``position`` (or the one with ``waypoint_id``).

        Command REMOVE_WAYPOINT (``robot_sm/remove_waypoint`` by index).
        """
        return self.command(Kind.REMOVE_WAYPOINT, **_naming(position, waypoint_id))

    def set_routine(self, position: int, routine: str,
                    waypoint_id: Optional[int] = None) -> Result:
        """
        Set the routine of waypoint ``position`` (or of ``waypoint_id``; '' for none).

        Command SET_WAYPOINT_ROUTINE (``robot_sm/set_waypoint_routine`` by index).
        """
        return self.command(Kind.SET_WAYPOINT_ROUTINE, routine=routine,
                            **_naming(position, waypoint_id))

    def reorder_waypoint(self, position: int, to: int,
                         waypoint_id: Optional[int] = None) -> Result:
        """
        Move waypoint ``position`` (or ``waypoint_id``) to index ``to``; it keeps id and flags.

        Command REORDER_WAYPOINT.
        """
        return self.command(Kind.REORDER_WAYPOINT, position=to,
                            **_naming(position, waypoint_id))

    def routines(self) -> Result:
        """
        List the routines waypoints can name (``data``: list of names).

        ``ros2 service call robot_sm/get_waypoint_routines robot_sm_msgs/srv/GetWaypointRoutines``
        """
        names = list(self.call(srv.GetWaypointRoutines,
                               'robot_sm/get_waypoint_routines').waypoint_routines)
        return Result(True, ', '.join(names) if names else 'no routines', names)

    def reset_waypoints(self) -> Result:
        """
        Mark every waypoint pending again.

        Command RESET_WAYPOINTS (``ros2 service call robot_sm/reset_waypoints
        std_srvs/srv/Trigger``).
        """
        return self.command(Kind.RESET_WAYPOINTS)


def _naming(position: int, waypoint_id: Optional[int]) -> Dict[str, Any]:
    """Return the fields that name a waypoint: its id if given, else its index."""
    if waypoint_id is not None:
        return {'waypoint_id': waypoint_id}
    return {'index': position}
