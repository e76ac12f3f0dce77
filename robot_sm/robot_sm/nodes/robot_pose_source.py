"""
Where the service provider takes the robot pose from: tf2 (map -> robot frame) or a topic.

Each source is a function that returns the newest pose in the map frame or raises
:class:`PoseUnavailable` saying why there is none.
"""

from typing import Any, Callable, List, Tuple

from geometry_msgs.msg import Point, Pose as PoseMsg, PoseStamped
from nav_msgs.msg import Odometry
from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node
from rclpy.time import Time
from robot_sm.qos import SENSOR
from robot_sm.quoting import quoted

#: Returns the robot's pose in the map frame, or raises PoseUnavailable.
PoseLookup = Callable[[], PoseMsg]


class PoseUnavailable(Exception):
    """The robot pose cannot be given; the message says why."""


def other_frame(frame: str, map_frame: str) -> bool:
    """Return whether a header's ``frame`` names a frame other than ``map_frame`` (empty: no)."""
    return bool(frame) and frame.lstrip('/') != map_frame.lstrip('/')


def tf_pose_lookup(node: Node, map_frame: str, robot_frame: str) -> PoseLookup:
    """Look the pose up in tf2 (``map_frame`` -> ``robot_frame``), listening on ``node``."""
    try:
        import tf2_ros  # a robot has it; a plain pip environment may not
    except ImportError:
        node.get_logger().warning(
            'pose_source is tf but tf2_ros is not installed: get_robot_pose will fail')

        def missing() -> PoseMsg:
            raise PoseUnavailable(
                'tf2_ros is not installed: install it (ros-$ROS_DISTRO-tf2-ros) or set '
                'pose_source to topic with pose_topic')
        return missing
    buffer = tf2_ros.Buffer()
    listener = tf2_ros.TransformListener(buffer, node)

    def lookup() -> PoseMsg:
        assert listener is not None  # kept alive as long as the lookup
        try:
            transform = buffer.lookup_transform(map_frame, robot_frame, Time())
        except tf2_ros.TransformException as error:
            raise PoseUnavailable(
                f'no transform {map_frame} -> {robot_frame}: {error}') from None
        t, r = transform.transform.translation, transform.transform.rotation
        return PoseMsg(position=Point(x=t.x, y=t.y, z=t.z), orientation=r)
    return lookup


def topic_pose_lookup(node: Node, topic: str, kind: str, map_frame: str,
                      group: CallbackGroup) -> PoseLookup:
    """Take the newest pose on ``topic`` (``kind`` odometry or pose_stamped) in ``map_frame``."""
    latest: List[Tuple[str, PoseMsg]] = []

    def on_pose(msg: Any) -> None:
        pose = msg.pose.pose if kind == 'odometry' else msg.pose
        latest[:] = [(msg.header.frame_id, pose)]

    subscription = node.create_subscription(
        Odometry if kind == 'odometry' else PoseStamped, topic, on_pose, SENSOR,
        callback_group=group)

    def last_pose() -> PoseMsg:
        if not latest:
            raise PoseUnavailable(f'no pose received on {subscription.topic_name} yet')
        frame, pose = latest[0]
        if other_frame(frame, map_frame):
            raise PoseUnavailable(
                f'the pose on {subscription.topic_name} is in frame {quoted(frame)}, not in '
                f"map_frame '{map_frame}'")
        return pose
    return last_pose
