"""
Broadcast TF from a node when tf2_ros is installed; without it, say so once and do nothing.

tf2_ros and tf2_msgs are on every ROS install but have no pip wheels, so a node that publishes
TF must also run without them (its other outputs unchanged). :class:`TfBroadcaster` hides the
difference: ``send`` and ``send_static`` publish on ``/tf`` and ``/tf_static`` through tf2_ros's
broadcasters, or do nothing. Like tf2_ros, it uses the absolute topics; a robot in a namespace
that keeps its own TF tree remaps them (``--ros-args -r /tf:=tf -r /tf_static:=tf_static``).

:func:`planar_transform` and :func:`planar_odometry` build the messages of a pose in the plane.
"""

from typing import Any, Dict, Optional

from builtin_interfaces.msg import Time
from geometry_msgs.msg import TransformStamped
from nav_msgs.msg import Odometry
from rclpy.node import Node
from robot_sm.planar import Pose2D, quaternion_from_yaw


def planar_transform(parent: str, child: str, stamp: Time, x: float = 0.0, y: float = 0.0,
                     yaw: float = 0.0) -> TransformStamped:
    """Return the transform ``parent`` -> ``child`` of a pose ``(x, y, yaw)`` in the plane."""
    transform = TransformStamped()
    transform.header.frame_id = parent
    transform.header.stamp = stamp
    transform.child_frame_id = child
    transform.transform.translation.x = float(x)
    transform.transform.translation.y = float(y)
    rotation = transform.transform.rotation
    rotation.x, rotation.y, rotation.z, rotation.w = quaternion_from_yaw(yaw)
    return transform


def planar_odometry(frame: str, child: str, stamp: Time, pose: Pose2D, linear: float,
                    angular: float) -> Odometry:
    """Return the odometry of a base at ``pose`` in ``frame`` moving at (linear, angular)."""
    odom = Odometry()
    odom.header.stamp = stamp
    odom.header.frame_id = frame
    odom.child_frame_id = child
    odom.pose.pose.position.x = pose.x
    odom.pose.pose.position.y = pose.y
    _, _, qz, qw = quaternion_from_yaw(pose.yaw)
    odom.pose.pose.orientation.z = qz
    odom.pose.pose.orientation.w = qw
    odom.twist.twist.linear.x = linear
    odom.twist.twist.angular.z = angular
    return odom


class TfBroadcaster:
    """Send transforms on ``/tf`` and static ones on ``/tf_static``, if tf2_ros is installed."""

    def __init__(self, node: Node) -> None:
        self._node = node
        self._dynamic: Optional[Any] = None
        self._static: Optional[Any] = None
        #: Every static transform sent so far, by child frame: /tf_static latches one message.
        self._static_transforms: Dict[str, TransformStamped] = {}
        try:
            import tf2_ros
        except ImportError:
            node.get_logger().info('tf2_ros is not installed: no TF is broadcast')
            self._tf2_ros: Optional[Any] = None
            return
        self._tf2_ros = tf2_ros

    @property
    def available(self) -> bool:
        """Return whether transforms are broadcast (tf2_ros is installed)."""
        return self._tf2_ros is not None

    def send(self, *transforms: TransformStamped) -> None:
        """Broadcast ``transforms`` on ``/tf``."""
        if self._tf2_ros is None:
            return
        if self._dynamic is None:
            self._dynamic = self._tf2_ros.TransformBroadcaster(self._node)
        self._dynamic.sendTransform(list(transforms))

    def send_static(self, *transforms: TransformStamped) -> None:
        """
        Latch ``transforms`` on ``/tf_static`` with those sent before (a child's newest wins).

        ``/tf_static`` keeps one message per publisher, so every call sends all of them, as
        tf2_ros's C++ broadcaster does.
        """
        if self._tf2_ros is None:
            return
        if self._static is None:
            self._static = self._tf2_ros.StaticTransformBroadcaster(self._node)
        for transform in transforms:
            self._static_transforms[transform.child_frame_id] = transform
        self._static.sendTransform(list(self._static_transforms.values()))
