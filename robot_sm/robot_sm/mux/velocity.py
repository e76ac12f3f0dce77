"""
A velocity command as the mux sees it: six floats, immutable, cheap to build and compare.

The fields follow ``geometry_msgs/Twist`` (REP-103: metres per second and radians per second in
the robot's base frame). The mux never needs more than the six numbers, so a named tuple keeps
the hot path (one construction per incoming message) short.
"""

import math
from typing import NamedTuple, Optional


class Velocity(NamedTuple):
    """A twist: linear velocity (m/s) and angular velocity (rad/s) along x, y, z."""

    linear_x: float = 0.0
    linear_y: float = 0.0
    linear_z: float = 0.0
    angular_x: float = 0.0
    angular_y: float = 0.0
    angular_z: float = 0.0

    def is_zero(self) -> bool:
        """Return True if every component is exactly zero (NaN is not zero)."""
        return not any(self)

    def is_finite(self) -> bool:
        """Return True if no component is NaN or infinite."""
        return all(map(math.isfinite, self))

    def limited(self, max_linear: float, max_angular: float) -> Optional['Velocity']:
        """
        Return this velocity scaled down so that it respects the given limits.

        The linear limit bounds the length of the linear vector and the angular limit that of
        the angular vector; a limit of 0 means no limit. All six components are scaled by one
        common factor, so the commanded direction and the curvature of the path are kept: the
        robot follows the same path, only slower. Return None if a limited vector's length is
        beyond the float range (finite components near 1e308): such a command cannot be scaled.
        """
        scale = 1.0
        if max_linear > 0.0:
            speed = math.hypot(self.linear_x, self.linear_y, self.linear_z)
            if math.isinf(speed):
                return None
            if speed > max_linear:
                scale = max_linear / speed
        if max_angular > 0.0:
            turn = math.hypot(self.angular_x, self.angular_y, self.angular_z)
            if math.isinf(turn):
                return None
            if turn * scale > max_angular:
                scale = max_angular / turn
        if scale == 1.0:
            return self
        return Velocity(*(component * scale for component in self))


#: No motion.
ZERO = Velocity()
