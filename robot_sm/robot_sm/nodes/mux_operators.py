"""
What the mux knows of operators: who holds control, the operators' own stream, the STOP records.

:class:`MuxOperators` is part of :class:`robot_sm.nodes.robot_control_mux.RobotControlMux`:

- it follows ``robot_sm/control`` (the gateway's, transient local): while an operator holds
  control, raw ROS requests that move the robot (``set_operation_mode``, a release on
  ``emergency_stop``) are refused naming the holder, unless the lab setting opens raw ROS.
  Control counts only while the gateway (the state interface) publishes it: without it nobody
  can hold control, and raw ROS works as RSM's tools expect;
- it takes the operators' own teleoperation stream (``robot_sm/operator_cmd_vel``,
  robot_sm_msgs/OperatorTwist) only from the operator who holds control; anybody else's
  commands are dropped and counted;
- it records every STOP, every release and every e-stop the mux engages by itself on
  ``robot_sm/_mux/audit``, which the gateway writes to the audit log.
"""

import time
from typing import Any, Callable, Optional

from robot_sm import qos
from robot_sm.contract import MUX_AUDIT, OPERATOR_CMD_VEL
from robot_sm.gateway.request import OperatorId
from robot_sm.mux import ControlMux, Velocity
from robot_sm.mux.inputs import OPERATOR
from robot_sm.nodes.command_messages import operator_message
from robot_sm.nodes.control_view import ControlView
from robot_sm_msgs.msg import AuditEntry, OperatorTwist

#: Seconds between two warnings about a stream from an operator without control.
WARN_PERIOD = 5.0


class MuxOperators:
    """Control, the operators' stream and the STOP records of the mux node."""

    _mux: ControlMux
    _now: Callable[[], float]
    _forward: Callable[[Optional[Velocity]], None]
    create_subscription: Callable[..., Any]
    create_publisher: Callable[..., Any]
    get_logger: Callable[[], Any]

    def _follow_operators(self) -> None:
        """Subscribe to control and the operators' stream; publish the STOP records."""
        self.control = ControlView(self)  # type: ignore[arg-type]
        self.create_subscription(OperatorTwist, OPERATOR_CMD_VEL, self._on_operator_twist,
                                 qos.COMMAND_IN)
        self._records = self.create_publisher(AuditEntry, MUX_AUDIT, qos.KEPT_RECORDS)
        self._warned_at = -WARN_PERIOD

    def raw_refusal(self) -> str:
        """Return why a raw request that moves the robot is refused now; '' if it is not."""
        return self.control.raw_refusal()

    def _on_operator_twist(self, msg: OperatorTwist) -> None:
        holder = self.control.holder()
        if holder is None or msg.by != holder:
            self._mux.inputs[OPERATOR].drop(self._now())
            now = time.monotonic()
            if now - self._warned_at >= WARN_PERIOD:
                self._warned_at = now
                self.get_logger().warning(
                    f'{OPERATOR_CMD_VEL} from {msg.by or "nobody named"} dropped: '
                    + (f'control is held by {holder}' if holder else 'nobody holds control'))
            return
        linear, angular = msg.twist.linear, msg.twist.angular
        velocity = Velocity(linear.x, linear.y, linear.z, angular.x, angular.y, angular.z)
        self._forward(self._mux.command(OPERATOR, velocity, self._now()))

    def record(self, kind: int, by: OperatorId, command: str, success: bool, message: str,
               code: int = 0) -> None:
        """Publish an audit record of the mux (the gateway writes it to the log)."""
        wall = time.time()
        entry = AuditEntry(kind=kind, command=command, success=success, code=code,
                           message=message, by=operator_message(by))
        entry.stamp.sec, entry.stamp.nanosec = int(wall), int((wall - int(wall)) * 1e9)
        self._records.publish(entry)
