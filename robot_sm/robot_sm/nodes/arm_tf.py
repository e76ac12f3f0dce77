"""
The arm's TF: what robot_state_publisher would broadcast for the arm's URDF and joint positions.

Fixed joints go to ``/tf_static`` once (with the mount, ``base_frame`` ← the URDF's root link,
when they differ), movable joints to ``/tf`` on every :meth:`ArmTfBroadcaster.publish`, under the
URDF's link names, through the node's :class:`~robot_sm.nodes.tf_broadcast.TfBroadcaster`: where
tf2_ros is not installed (it has no PyPI wheel) nothing is broadcast, ``joint_states`` still
carries the arm, and robot_state_publisher can turn it into TF on a robot.
"""

from typing import Iterable, List, Mapping

from builtin_interfaces.msg import Time
from geometry_msgs.msg import TransformStamped
from robot_sm.nodes.tf_broadcast import TfBroadcaster
from robot_sm.sim.arm_model import ArmModel, LinkTransform


class ArmTfBroadcaster:
    """Broadcast an :class:`~robot_sm.sim.arm_model.ArmModel`'s link transforms."""

    def __init__(self, tf: TfBroadcaster, model: ArmModel, base_frame: str,
                 stamp: Time) -> None:
        self.model = model
        self._tf = tf
        fixed = model.fixed_transforms()
        if base_frame and base_frame != model.root_link:
            fixed.insert(0, LinkTransform(base_frame, model.root_link, (0.0, 0.0, 0.0),
                                          (0.0, 0.0, 0.0, 1.0)))
        tf.send_static(*_messages(fixed, stamp))

    @property
    def active(self) -> bool:
        """Return True if transforms are broadcast (tf2_ros is installed)."""
        return self._tf.available

    def publish(self, positions: Mapping[str, float], stamp: Time) -> None:
        """Broadcast the movable joints' transforms at ``positions``, stamped ``stamp``."""
        if self._tf.available:
            self._tf.send(*_messages(self.model.moving_transforms(positions), stamp))


def _messages(transforms: Iterable[LinkTransform], stamp: Time) -> List[TransformStamped]:
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
