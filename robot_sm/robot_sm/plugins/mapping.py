"""
Mapping plugins: what exploration does at a reached goal before choosing the next one.

Both report their outcome to the service provider every time (RSM's RealSense mapping never
reported success, so failed goals were never forgiven).
"""

import math
from typing import Any, Dict, Optional

from robot_sm.navigation import VelocityCommand
from robot_sm.parameters import duration, Param
from robot_sm.plugins.conversions import pose2d, twist
from robot_sm.statemachine.behaviours import MappingState
from robot_sm.statemachine.constants import OperationMode

TWIST = 'geometry_msgs/msg/Twist'


class MappingDummy(MappingState):
    """Do nothing: the map is already up to date (a sensor that sees all around)."""

    NAME = 'Mapping Dummy'

    def update(self) -> None:
        """Succeed at once."""
        self.succeed()


class Spin(MappingState):
    """Turn in place once so that a sensor with a narrow field of view sees all around."""

    NAME = 'Spin'
    PARAMETERS = (
        Param('pose_topic', 'odom', 'nav_msgs/Odometry topic with the robot pose.'),
        Param('angular_speed', 1.0, 'Turn rate (rad/s).', minimum=0.05),
        duration('timeout', 20.0, 'Time after which an unfinished turn fails.', 0.1, 600.0),
    )

    def start(self) -> None:
        """Start turning from the current heading (what is left of a paused turn, continuing)."""
        context = self.context
        self._started = context.now()
        self._turned = float((self.resumed or {}).get('turned', 0.0))
        self._last_yaw: Optional[float] = None
        self._cmd = context.publisher('autonomy/cmd_vel', TWIST, 'command')
        self._pose = context.subscribe(context.parameter('pose_topic'),
                                       'nav_msgs/msg/Odometry', qos='sensor')
        self._mode = context.subscribe('robot_sm/operation_mode',
                                       'robot_sm_msgs/msg/OperationMode', qos='state')

    def on_pause(self) -> Dict[str, Any]:
        """Keep how far it has turned."""
        return {'turned': self._turned}

    def update(self) -> None:
        """Keep turning until a full turn is measured on the pose topic."""
        context = self.context
        if context.now() - self._started > context.parameter('timeout'):
            self.fail(f"the turn did not finish within {context.parameter('timeout'):g} s")
            return
        odometry = self._pose.latest
        if odometry is not None:
            yaw = pose2d(odometry.pose.pose).yaw
            if self._last_yaw is not None:
                self._turned += abs(math.remainder(yaw - self._last_yaw, 2.0 * math.pi))
            self._last_yaw = yaw
        if self._turned >= 2.0 * math.pi:
            self.succeed()
            return
        mode = self._mode.latest
        speed = context.parameter('angular_speed')
        if mode is not None and mode.mode != OperationMode.AUTONOMOUS:
            # Nothing reaches the wheels: do not count the time as turning.
            self._started = context.now()
        self._cmd.publish(twist(VelocityCommand(angular=speed)))

    def stop(self) -> None:
        """Stop turning."""
        self._cmd.publish(twist(VelocityCommand()))
