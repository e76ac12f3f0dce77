"""
Who holds control, as the mux and the service provider learn it: from ``robot_sm/control``.

The gateway (the state interface) publishes control, transient local, on every change. A node
that refuses raw ROS requests while an operator holds control follows it with a
:class:`ControlView`. Control counts only while its publisher is there: without the gateway
nobody can hold control, and raw ROS works as RSM's tools expect.
"""

from typing import Optional

from rclpy.node import Node
from robot_sm import qos
from robot_sm.contract import CONTROL
from robot_sm.gateway.control import raw_refusal, wall_clock
from robot_sm_msgs.msg import ControlState


class ControlView:
    """The newest ``robot_sm/control`` of the gateway, on ``node``."""

    def __init__(self, node: Node) -> None:
        self._control: Optional[ControlState] = None
        self._subscription = node.create_subscription(ControlState, CONTROL, self._on_control,
                                                      qos.STATE)

    def _on_control(self, msg: ControlState) -> None:
        self._control = msg

    def holder(self) -> Optional[str]:
        """Return the name of the operator holding control, or None."""
        control = self._control
        if control is None or not control.held or self._subscription.get_publisher_count() == 0:
            return None
        return str(control.holder.name)

    def raw_refusal(self) -> str:
        """Return why a raw request that moves the robot is refused now; '' if it is not."""
        holder, control = self.holder(), self._control
        if holder is None or control is None:
            return ''
        since = wall_clock(control.since.sec + control.since.nanosec * 1e-9)
        return raw_refusal(True, holder, since, bool(control.raw_ros_open))
