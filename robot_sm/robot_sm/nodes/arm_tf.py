"""
The arm's TF: what robot_state_publisher would broadcast for the arm's URDF and joint positions.

Fixed joints go to ``/tf_static`` once (with the mount, ``base_frame`` ← the URDF's root link,
when they differ), movable joints to ``/tf`` on every :meth:`ArmTfBroadcaster.publish`, under the
URDF's link names. tf2_ros is imported here only; where it is not installed (it has no PyPI
wheel) the broadcaster says so once in the log and publishes nothing: ``joint_states`` still
carries the arm, and robot_state_publisher can turn it into TF on a robot.
"""

from typing import Any, Iterable, Mapping

from builtin_interfaces.msg import Time
from rclpy.node import Node
from robot_sm.sim.arm_model import ArmModel, LinkTransform


class ArmTfBroadcaster:
    """Broadcast an :class:`~robot_sm.sim.arm_model.ArmModel`'s link transforms with tf2_ros."""

    def __init__(self, node: Node, model: ArmModel, base_frame: str) -> None:
        self.model = model
        self._dynamic: Any = None
        try:
            from tf2_ros import StaticTransformBroadcaster, TransformBroadcaster
        except ImportError:
            node.get_logger().info("tf2_ros is not installed: the arm's TF is not broadcast "
                                   '(joint_states carries the arm)')
            return
        self._static = StaticTransformBroadcaster(node)
        self._dynamic = TransformBroadcaster(node)
        fixed = model.fixed_transforms()
        if base_frame and base_frame != model.root_link:
            fixed.insert(0, LinkTransform(base_frame, model.root_link, (0.0, 0.0, 0.0),
                                          (0.0, 0.0, 0.0, 1.0)))
        self._static.sendTransform(self._messages(fixed, node.get_clock().now().to_msg()))

    @property
    def active(self) -> bool:
        """Return True if transforms are broadcast (tf2_ros is installed)."""
        return self._dynamic is not None

    def publish(self, positions: Mapping[str, float], stamp: Time) -> None:
        """Broadcast the movable joints' transforms at ``positions``, stamped ``stamp``."""
        if self._dynamic is not None:
            self._dynamic.sendTransform(
                self._messages(self.model.moving_transforms(positions), stamp))

    @staticmethod
    def _messages(transforms: Iterable[LinkTransform], stamp: Time) -> list:
        from geometry_msgs.msg import TransformStamped
        messages = []
        for transform in transforms:
            message = TransformStamped()
            message.header.stamp = stamp
            message.header.frame_id = transform.parent
            message.child_frame_id = transform.child
            t, r = message.transform.translation, message.transform.rotation
            t.x, t.y, t.z = transform.translation
            r.x, r.y, r.z, r.w = transform.rotation
            messages.append(message)
        return messages
