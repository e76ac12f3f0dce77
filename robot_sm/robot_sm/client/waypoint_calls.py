"""
The waypoint calls of :class:`robot_sm.client.SuiteClient`: the list, its edits, its mode.

Each method documents the equivalent ``ros2 service call``; a pose is checked (finite, a
normalisable quaternion) before anything is sent.
"""

import math
from typing import Optional, Tuple

from geometry_msgs.msg import Pose
from robot_sm.client.connection import Result, SuiteConnection
from robot_sm.client.status import FOLLOWING_MODE_NAMES, FOLLOWING_MODES, waypoint_infos
from robot_sm.planar import quaternion_from_yaw, yaw_from_quaternion
from robot_sm.waypoint_messages import pose_message
from robot_sm.waypoints.errors import RequestError
from robot_sm.waypoints.pose import checked_pose
from robot_sm_msgs import srv
from robot_sm_msgs.msg import Waypoint
from std_srvs.srv import Trigger


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

        ``ros2 service call robot_sm/add_waypoint robot_sm_msgs/srv/AddWaypoint
        "{waypoint: {pose: {position: {x: 1.0, y: 2.0}}, routine: ''}, position: -1}"``
        """
        pose, problem = planar_pose(x, y, yaw)
        if pose is None:
            return Result(False, problem)
        request = srv.AddWaypoint.Request(position=position)
        request.waypoint = Waypoint(pose=pose, routine=routine)
        response = self.call(srv.AddWaypoint, 'robot_sm/add_waypoint', request)
        return Result(bool(response.success), str(response.message), int(response.id))

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

    def move_waypoint(self, position: int, x: float, y: float, yaw: float = 0.0) -> Result:
        """
        Move waypoint ``position`` to a new pose.

        ``ros2 service call robot_sm/move_waypoint robot_sm_msgs/srv/MoveWaypoint
        "{position: 0, pose: {position: {x: 1.0, y: 2.0}}}"``
        """
        pose, problem = planar_pose(x, y, yaw)
        if pose is None:
            return Result(False, problem)
        return self._trigger(srv.MoveWaypoint, 'robot_sm/move_waypoint',
                             srv.MoveWaypoint.Request(position=position, pose=pose))

    def remove_waypoint(self, position: int) -> Result:
        """
        Remove waypoint ``position``.

        ``ros2 service call robot_sm/remove_waypoint robot_sm_msgs/srv/RemoveWaypoint
        "{position: 0}"``
        """
        return self._trigger(srv.RemoveWaypoint, 'robot_sm/remove_waypoint',
                             srv.RemoveWaypoint.Request(position=position))

    def set_routine(self, position: int, routine: str) -> Result:
        """
        Set the routine of waypoint ``position`` ('' for none).

        ``ros2 service call robot_sm/set_waypoint_routine robot_sm_msgs/srv/SetWaypointRoutine
        "{position: 0, routine: Wait}"``
        """
        return self._trigger(srv.SetWaypointRoutine, 'robot_sm/set_waypoint_routine',
                             srv.SetWaypointRoutine.Request(position=position, routine=routine))

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

        ``ros2 service call robot_sm/reset_waypoints std_srvs/srv/Trigger``
        """
        return self._trigger(Trigger, 'robot_sm/reset_waypoints')

    def set_following_mode(self, mode: str, reverse: bool = False) -> Result:
        """
        Set the waypoint following mode (``single``, ``roundtrip``, ``patrol``) and direction.

        ``ros2 service call robot_sm/set_waypoint_following_mode
        robot_sm_msgs/srv/SetWaypointFollowingMode "{mode: 1, reverse: false}"``
        """
        if mode not in FOLLOWING_MODES:
            return Result(False, f"unknown following mode '{mode}': use one of "
                                 f"{', '.join(FOLLOWING_MODES)}")
        return self._trigger(
            srv.SetWaypointFollowingMode, 'robot_sm/set_waypoint_following_mode',
            srv.SetWaypointFollowingMode.Request(mode=FOLLOWING_MODES[mode], reverse=reverse))
