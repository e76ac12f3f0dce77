"""Conversions between the ROS messages the plugins read and the cores' plain types."""

from typing import List, Sequence, Tuple

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Pose, PoseStamped, Twist
from nav_msgs.msg import OccupancyGrid as OccupancyGridMsg
from nav_msgs.msg import Path
import numpy as np
from robot_sm.grid import OccupancyGrid
from robot_sm.navigation import VelocityCommand
from robot_sm.planar import Pose2D, quaternion_from_yaw, yaw_from_quaternion
from robot_sm.waypoints.pose import Pose as GoalPose


def pose2d(pose: Pose) -> Pose2D:
    """Return the planar part of a ``geometry_msgs/Pose``."""
    q = pose.orientation
    return Pose2D(pose.position.x, pose.position.y, yaw_from_quaternion(q.x, q.y, q.z, q.w))


def pose_msg(pose: Pose2D) -> Pose:
    """Return a ``geometry_msgs/Pose`` on the ground plane for ``pose``."""
    msg = Pose()
    msg.position.x, msg.position.y = float(pose.x), float(pose.y)
    (msg.orientation.x, msg.orientation.y, msg.orientation.z,
     msg.orientation.w) = quaternion_from_yaw(pose.yaw)
    return msg


def planar(pose: GoalPose) -> Pose2D:
    """Return the planar part of a goal's pose."""
    return Pose2D(pose.x, pose.y, yaw_from_quaternion(pose.qx, pose.qy, pose.qz, pose.qw))


def goal_pose(pose: Pose2D) -> GoalPose:
    """Return the goal pose on the ground plane for ``pose``."""
    return GoalPose(float(pose.x), float(pose.y), 0.0, *quaternion_from_yaw(pose.yaw))


def grid_from_msg(msg: OccupancyGridMsg) -> OccupancyGrid:
    """Return the core grid of a ``nav_msgs/OccupancyGrid`` (origin yaw ignored)."""
    data = np.asarray(msg.data, dtype=np.int8).reshape(msg.info.height, msg.info.width)
    return OccupancyGrid(data, float(msg.info.resolution), msg.info.origin.position.x,
                         msg.info.origin.position.y)


def twist(command: VelocityCommand) -> Twist:
    """Return the ``geometry_msgs/Twist`` of a planar velocity command."""
    msg = Twist()
    msg.linear.x = float(command.linear)
    msg.angular.z = float(command.angular)
    return msg


def stamp(seconds: float) -> Time:
    """Return the ``builtin_interfaces/Time`` of ``seconds``."""
    nanoseconds = int(round(seconds * 1e9))
    return Time(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)


def path_msg(points: Sequence[Tuple[float, float]], frame_id: str, seconds: float) -> Path:
    """Return a ``nav_msgs/Path`` through ``points``, stamped ``seconds``."""
    msg = Path()
    msg.header.frame_id = frame_id
    msg.header.stamp = stamp(seconds)
    poses: List[PoseStamped] = []
    for x, y in points:
        pose = PoseStamped()
        pose.header = msg.header
        pose.pose.position.x, pose.pose.position.y = float(x), float(y)
        pose.pose.orientation.w = 1.0
        poses.append(pose)
    msg.poses = poses
    return msg
