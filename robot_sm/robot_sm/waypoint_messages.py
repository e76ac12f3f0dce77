"""
The waypoint core's values as messages and back: poses and waypoint lists.

A pose that comes from outside (a request, an operator's goal) enters the cores only through
:func:`checked_pose_of`, which is :func:`robot_sm.waypoints.pose.checked_pose`: every component
finite, the quaternion normalisable, stored normalised. Values that come back from the store
are already valid and are converted as they are.
"""

from typing import Any

from geometry_msgs.msg import Point, Pose as PoseMsg, Quaternion
from robot_sm.waypoints.pose import checked_pose, Pose
from robot_sm.waypoints.waypoint_list import FollowingMode, Waypoint, WaypointList
from robot_sm_msgs.msg import Waypoint as WaypointMsg, WaypointArray


def checked_pose_of(msg: PoseMsg, field: str) -> Pose:
    """
    Return the validated core pose of a ``geometry_msgs/Pose``, its quaternion normalised.

    :raises robot_sm.waypoints.RequestError: naming ``field`` if the pose is not usable.
    """
    p, q = msg.position, msg.orientation
    return checked_pose(field, p.x, p.y, p.z, q.x, q.y, q.z, q.w)


def pose_of(msg: PoseMsg) -> Pose:
    """Return the core pose of a ``geometry_msgs/Pose`` that is known to be valid."""
    p, q = msg.position, msg.orientation
    return Pose(p.x, p.y, p.z, q.x, q.y, q.z, q.w)


def pose_message(pose: Pose) -> PoseMsg:
    """Return the ``geometry_msgs/Pose`` of a core pose."""
    return PoseMsg(position=Point(x=pose.x, y=pose.y, z=pose.z),
                   orientation=Quaternion(x=pose.qx, y=pose.qy, z=pose.qz, w=pose.qw))


def waypoint_array(waypoints: WaypointList, frame_id: str, stamp: Any) -> WaypointArray:
    """Return the list as a ``robot_sm_msgs/WaypointArray`` in ``frame_id``, stamped ``stamp``."""
    array = WaypointArray(mode=int(waypoints.mode), reverse=waypoints.reverse)
    array.header.frame_id = frame_id
    array.header.stamp = stamp
    array.waypoints = [
        WaypointMsg(pose=pose_message(w.pose), visited=w.visited, unreachable=w.unreachable,
                    routine=w.routine, id=w.id)
        for w in waypoints.waypoints]
    return array


def waypoint_list(array: WaypointArray) -> WaypointList:
    """Return the core list of a ``robot_sm_msgs/WaypointArray`` (as the store published it)."""
    waypoints = tuple(Waypoint(id=w.id, pose=pose_of(w.pose), visited=w.visited,
                               unreachable=w.unreachable, routine=w.routine)
                      for w in array.waypoints)
    return WaypointList(waypoints, FollowingMode(array.mode), bool(array.reverse),
                        next_id=max((w.id for w in waypoints), default=0) + 1)
