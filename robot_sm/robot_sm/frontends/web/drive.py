"""
A page's driving: the velocities its joystick sends, within the robot's limits, and the zeros.

While a thumb (a key, a gamepad's held enable button) drives, an operator page sends its
velocity 20 times a second (``drive`` messages, :mod:`~robot_sm.frontends.web.protocol`); the
console publishes each on the operators' own stream (``robot_sm/operator_cmd_vel``) as the
page's operator, and the mux drives with it in TELEOPERATION while that operator holds control.
:class:`DriveStream` keeps one page's stream: each velocity is held within the offered limits
(:class:`DriveLimits`: the mux's ``max_linear_velocity`` and ``max_angular_velocity``, or
:data:`FALLBACK_LINEAR` and :data:`FALLBACK_ANGULAR` when the mux sets none), and a stream that
moves the robot and then falls silent for :data:`DRIVE_SILENCE` seconds, or whose page goes,
gets an explicit zero from the console itself (the mux's ``operator_input_timeout`` is the
backstop). Pure: no aiohttp, no rclpy, time as an argument.
"""

from dataclasses import dataclass
import math
from typing import Any, Dict, Optional, Tuple

#: Seconds a page that drives may be silent before the console sends the zero (its messages
#: come every 0.05 s).
DRIVE_SILENCE = 0.3
#: What the page offers when the mux sets no limit (its parameter 0): m/s and rad/s.
FALLBACK_LINEAR = 0.5
FALLBACK_ANGULAR = 1.0
#: The largest speed a drive message may carry at all (m/s, rad/s): beyond it, it is refused.
MAX_DRIVE = 10.0

Velocity = Tuple[float, float]


@dataclass(frozen=True)
class DriveLimits:
    """The speeds a page may drive at: m/s and rad/s, and whether the mux set them."""

    max_linear: float = FALLBACK_LINEAR
    max_angular: float = FALLBACK_ANGULAR
    from_mux: bool = False

    def view(self) -> Dict[str, Any]:
        """Return the limits as the page is sent them."""
        return {'max_linear': self.max_linear, 'max_angular': self.max_angular,
                'from_mux': self.from_mux}


def _limit(value: Optional[float], fallback: float) -> Tuple[float, bool]:
    if value is not None and math.isfinite(value) and value > 0.0:
        return float(value), True
    return fallback, False


def drive_limits(max_linear: Optional[float], max_angular: Optional[float]) -> DriveLimits:
    """
    Return the limits the mux's parameters give (None: not known; 0: the mux sets none).

    Each limit the mux does not set falls back to the page's default.
    """
    linear, linear_set = _limit(max_linear, FALLBACK_LINEAR)
    angular, angular_set = _limit(max_angular, FALLBACK_ANGULAR)
    return DriveLimits(linear, angular, linear_set and angular_set)


def clamped(value: float, limit: float) -> float:
    """Return ``value`` held within ``-limit .. limit``."""
    return max(-limit, min(limit, value))


class DriveStream:
    """One page's stream of velocities, and when it needs a zero from the console."""

    def __init__(self, silence: float = DRIVE_SILENCE) -> None:
        self.silence = silence
        #: Whether the last velocity published was not zero (the robot may be moving for it).
        self.moving = False
        self._last = -math.inf

    def take(self, linear: float, angular: float, limits: DriveLimits,
             now: float) -> Velocity:
        """Take a velocity the page sent at ``now``; return what to publish (within limits)."""
        velocity = (clamped(linear, limits.max_linear), clamped(angular, limits.max_angular))
        self.moving = velocity != (0.0, 0.0)
        self._last = now
        return velocity

    def due(self, now: float) -> float:
        """Return the seconds until the stream counts as silent (inf while it does not move)."""
        return self._last + self.silence - now if self.moving else math.inf

    def silent(self, now: float) -> bool:
        """Return whether the stream moved and fell silent: then publish one zero (it stops)."""
        if self.due(now) > 0.0:
            return False
        self.moving = False
        return True

    def end(self) -> bool:
        """Return whether the page that goes leaves the robot moving: then publish one zero."""
        moving, self.moving = self.moving, False
        return moving
