"""
The ``base_controller`` node: ``cmd_vel`` (base twist) in, ``wheel_command`` (wheel speeds) out.

It runs :class:`robot_sm.drive.wheel_commander.WheelCommander`: differential-drive kinematics, an
optional wheel speed limit that keeps the path's curvature, and an optional low-pass filter. It
publishes at ``update_frequency`` and at once when a command arrives; a command older than
``command_timeout`` gives zero wheel speeds at the next tick; NaN/Inf commands are dropped, and
finite commands always give finite wheel speeds within ``max_wheel_speed`` (without a limit, one
too large for that is refused). Drops and refusals are counted on ``/diagnostics`` (1 Hz).
"""

import sys
from typing import Any, List, Optional

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import Twist
from rclpy.node import Node
from robot_sm import qos
from robot_sm.drive.wheel_commander import WHEEL_PARAMETERS, WheelCommander, WheelSettings
from robot_sm.nodes.node_parameters import declare_parameters
from robot_sm.nodes.runner import run_node, seconds_clock
from robot_sm.parameters import config_from, rate
from sensor_msgs.msg import JointState
from std_msgs.msg import Header

#: Seconds during which a dropped or refused command keeps diagnostics at WARN.
RECENT = 5.0


PARAMETERS = [
    *WHEEL_PARAMETERS,
    rate('update_frequency', 20.0, 'Rate at which wheel_command is published.', 1.0, 1000.0),
]


class BaseControllerNode(Node):
    """Turn base velocity commands into wheel velocity commands for a differential drive."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__('base_controller', **kwargs)
        config = declare_parameters(self, PARAMETERS)
        period = 1.0 / config['update_frequency']
        self.commander = WheelCommander(config_from(WheelSettings, config), filter_period=period)
        self._now = seconds_clock(self)
        self._publisher = self.create_publisher(JointState, 'wheel_command', qos.COMMAND_OUT)
        self._diagnostics_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self.create_subscription(Twist, 'cmd_vel', self._on_cmd_vel, qos.COMMAND_IN)
        self.create_timer(period, self._publish)
        self.create_timer(1.0, self._publish_diagnostics)
        self._accepted = 0
        self._last_problem: Optional[float] = None
        self._wheels: List[float] = [0.0] * len(self.commander.wheel_joints)
        self.get_logger().info(
            f"wheels {config['wheel_joint_names']}: radius {config['wheel_radius']} m, base "
            f"{config['wheel_base']} m, limit {config['max_wheel_speed'] or 'none'}, filter "
            f"alpha {config['filter_alpha']}, timeout {config['command_timeout']} s, "
            f"{config['update_frequency']} Hz")

    @property
    def dropped_commands(self) -> int:
        """Return the number of cmd_vel messages dropped for a NaN or infinite component."""
        return self.commander.dropped_commands

    def _on_cmd_vel(self, msg: Twist) -> None:
        linear, angular = msg.linear, msg.angular
        commander = self.commander
        now = self._now()
        if not commander.command(linear.x, angular.z, now, linear.y, linear.z, angular.x,
                                 angular.y):
            self._last_problem = now
            self.get_logger().warn(
                f'dropped a cmd_vel: {commander.dropped_commands} non-finite, '
                f'{commander.refused_commands} too large for finite wheel speeds (set '
                'max_wheel_speed) so far', throttle_duration_sec=1.0)
            return
        self._accepted += 1
        self._publish()

    def _publish(self) -> None:
        wheels = self.commander.update(self._now())
        msg = JointState()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.name = list(self.commander.wheel_joints)
        msg.velocity = self._wheels = [float(w) for w in wheels]
        self._publisher.publish(msg)

    def _publish_diagnostics(self) -> None:
        commander = self.commander
        now = self._now()
        if self._last_problem is not None and now - self._last_problem <= RECENT:
            level, summary = 1, 'dropping cmd_vel messages: non-finite, or too large for ' \
                                'finite wheel speeds'
        elif commander.is_stale(now):
            level, summary = 0, 'no fresh cmd_vel: wheels commanded to zero'
        else:
            level, summary = 0, 'following cmd_vel'
        values = [
            ('accepted', str(self._accepted)),
            ('dropped non-finite', str(commander.dropped_commands)),
            ('refused too large', str(commander.refused_commands)),
            ('wheel command (rad/s)', ' '.join(f'{w:.3f}' for w in self._wheels)),
        ]
        status = DiagnosticStatus(
            level=bytes([level]), name=f'{self.get_name()}: wheel commands', message=summary,
            hardware_id=self.get_fully_qualified_name(),
            values=[KeyValue(key=key, value=value) for key, value in values])
        header = Header(stamp=self.get_clock().now().to_msg())
        self._diagnostics_pub.publish(DiagnosticArray(header=header, status=[status]))


def main(args: Optional[List[str]] = None) -> None:
    """Run the base_controller node."""
    sys.exit(run_node(BaseControllerNode, args))


if __name__ == '__main__':
    main()
