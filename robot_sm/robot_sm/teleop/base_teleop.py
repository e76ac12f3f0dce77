"""
Base teleop: a thumbstick as a velocity command for the mobile base while RUNNING.

Stick up drives forward at ``linear_scale`` m/s, stick x turns at ``angular_scale`` rad/s per unit
(negative by default: the thumbstick's x is right-positive, and pushing right should turn
clockwise, a negative yaw rate in REP-103). A ``deadzone`` around the centre is removed and the
rest rescaled to 0..1. While RUNNING a command is produced every tick (zero when the controller is
absent or reads NaN); on the first tick after leaving RUNNING one zero command is produced, then
nothing, so a stopped teleop never holds the base moving and never fights another source.
"""

import math
from typing import Optional, Tuple

from robot_sm.teleop.controller import ControllerSample
from robot_sm.teleop.execution import ExecutionState
from robot_sm.teleop.settings import checked


def shape_axis(value: float, deadzone: float) -> float:
    """Return ``value`` with the deadzone removed, rescaled and clamped to [-1, 1] (NaN → 0)."""
    if not math.isfinite(value) or abs(value) <= deadzone:
        return 0.0
    return math.copysign(min(1.0, (abs(value) - deadzone) / (1.0 - deadzone)), value)


class BaseTeleop:
    """Thumbstick → ``(linear x, angular z)`` while RUNNING; one zero on leaving RUNNING."""

    def __init__(self, *, linear_scale: float = 0.5, angular_scale: float = -1.0,
                 deadzone: float = 0.1) -> None:
        self.linear_scale = checked('base_linear_scale', linear_scale)
        self.angular_scale = checked('base_angular_scale', angular_scale)
        self.deadzone = checked('base_deadzone', deadzone)
        self._was_running = False

    def update(self, state: ExecutionState,
               sample: Optional[ControllerSample]) -> Optional[Tuple[float, float]]:
        """Return this tick's ``(linear, angular)`` command, or None when nothing is to be sent."""
        if state is ExecutionState.RUNNING:
            self._was_running = True
            if sample is None:
                return (0.0, 0.0)
            linear = self.linear_scale * shape_axis(float(sample.thumbstick_y), self.deadzone)
            angular = self.angular_scale * shape_axis(float(sample.thumbstick_x), self.deadzone)
            return (linear + 0.0, angular + 0.0)  # + 0.0 turns -0.0 into 0.0
        if self._was_running:
            self._was_running = False
            return (0.0, 0.0)
        return None
