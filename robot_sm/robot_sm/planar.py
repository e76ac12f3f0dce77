"""Planar poses and angles (REP-103: x forward, y left, yaw counter-clockwise, radians)."""

from dataclasses import dataclass
import math
from typing import Tuple


@dataclass(frozen=True)
class Pose2D:
    """A pose in the plane: position in metres, heading in radians."""

    x: float = 0.0
    y: float = 0.0
    yaw: float = 0.0

    def distance_to(self, other: 'Pose2D') -> float:
        """Return the Euclidean distance between the two positions."""
        return math.hypot(other.x - self.x, other.y - self.y)


def wrap_angle(angle: float) -> float:
    """Return ``angle`` wrapped to [-pi, pi)."""
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


def yaw_from_quaternion(x: float, y: float, z: float, w: float) -> float:
    """Return the yaw (rotation about z) of the quaternion (x, y, z, w)."""
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def quaternion_from_yaw(yaw: float) -> Tuple[float, float, float, float]:
    """Return the quaternion (x, y, z, w) of a rotation by ``yaw`` about z."""
    return (0.0, 0.0, math.sin(yaw / 2.0), math.cos(yaw / 2.0))
