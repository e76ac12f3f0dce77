"""Follow a path of map points with pure pursuit, turning in place where the heading is far off."""

from dataclasses import dataclass
import math
from typing import List, Optional, Sequence, Tuple

from robot_sm.navigation.config import NavigatorConfig
from robot_sm.planar import Pose2D, wrap_angle

Point = Tuple[float, float]
#: Turn in place while the lookahead point is more than this off the heading (rad).
ROTATE_THRESHOLD = 0.8
#: Yaw rate per radian of heading error (1/s).
ANGULAR_GAIN = 2.5
#: Slow down within this distance of the goal (m), to a fifth of the top speed at most.
SLOWDOWN_DISTANCE = 0.4


@dataclass(frozen=True)
class VelocityCommand:
    """A body twist for a differential-drive base: forward speed (m/s), yaw rate (rad/s)."""

    linear: float = 0.0
    angular: float = 0.0


def _densify(path: List[Point], spacing: float) -> List[Point]:
    """Return ``path`` with points inserted so that neighbours are at most ``spacing`` apart."""
    dense = [path[0]]
    for (x0, y0), (x1, y1) in zip(path, path[1:]):
        pieces = max(1, math.ceil(math.hypot(x1 - x0, y1 - y0) / spacing))
        dense += [(x0 + (x1 - x0) * k / pieces, y0 + (y1 - y0) * k / pieces)
                  for k in range(1, pieces + 1)]
    return dense


class PurePursuit:
    """
    Steer along a path towards a lookahead point; finish at the goal position and heading.

    With ``reverse`` true the robot drives backwards along the path (its rear leads). When the
    lookahead point lies more than :data:`ROTATE_THRESHOLD` off the heading the robot turns in
    place first. Within ``xy_tolerance`` of the last point it turns to ``goal_yaw`` (when given)
    and then reports done.
    """

    def __init__(self, config: NavigatorConfig = NavigatorConfig()) -> None:
        """Follow with ``config``'s speeds, lookahead and tolerances."""
        self.config = config
        self._path: List[Point] = []
        self._goal_yaw: Optional[float] = None
        self._progress = 0
        self._at_position = False
        self.reverse = False

    def set_path(self, path: Sequence[Point], goal_yaw: Optional[float] = None,
                 reverse: bool = False) -> None:
        """Start following ``path`` (at least one point)."""
        if not path:
            raise ValueError('path is empty')
        self._path = _densify([(float(x), float(y)) for x, y in path], self.config.lookahead / 8.0)
        self._goal_yaw = goal_yaw
        self._progress = 0
        self._at_position = False
        self.reverse = reverse

    @property
    def done(self) -> bool:
        """Return True once the goal position (and heading, if given) is reached."""
        return self._at_position and self._goal_yaw is None

    def _clip_angular(self, value: float) -> float:
        return max(-self.config.max_angular, min(self.config.max_angular, value))

    def _lookahead_point(self, pose: Pose2D) -> Point:
        # Advance progress to the path point nearest the robot (never backwards).
        best = self._progress
        best_distance = math.inf
        for i in range(self._progress, len(self._path)):
            distance = math.hypot(self._path[i][0] - pose.x, self._path[i][1] - pose.y)
            if distance < best_distance:
                best, best_distance = i, distance
        self._progress = best
        lookahead = self.config.lookahead
        for i in range(best, len(self._path)):
            if math.hypot(self._path[i][0] - pose.x, self._path[i][1] - pose.y) >= lookahead:
                return self._path[i]
        return self._path[-1]

    def command(self, pose: Pose2D) -> VelocityCommand:
        """Return the velocity command for the robot at ``pose``."""
        if not self._path:
            return VelocityCommand()
        goal = self._path[-1]
        heading = wrap_angle(pose.yaw + math.pi) if self.reverse else pose.yaw
        distance_to_goal = math.hypot(goal[0] - pose.x, goal[1] - pose.y)
        if self._at_position or distance_to_goal <= self.config.xy_tolerance:
            self._at_position = True
            if self._goal_yaw is None:
                return VelocityCommand()
            error = wrap_angle(self._goal_yaw - pose.yaw)
            if abs(error) <= self.config.yaw_tolerance:
                self._goal_yaw = None
                return VelocityCommand()
            return VelocityCommand(0.0, self._clip_angular(ANGULAR_GAIN * error))
        target = self._lookahead_point(pose)
        alpha = wrap_angle(math.atan2(target[1] - pose.y, target[0] - pose.x) - heading)
        if abs(alpha) > ROTATE_THRESHOLD:
            return VelocityCommand(0.0, self._clip_angular(ANGULAR_GAIN * alpha))
        speed = self.config.max_linear * min(1.0, distance_to_goal / max(SLOWDOWN_DISTANCE, 1e-9))
        speed = max(speed, 0.2 * self.config.max_linear)
        distance_to_target = max(math.hypot(target[0] - pose.x, target[1] - pose.y), 1e-9)
        curvature = 2.0 * math.sin(alpha) / distance_to_target
        angular = speed * curvature
        if abs(angular) > self.config.max_angular:
            # Keep the curvature: slow down instead of cutting the turn.
            speed *= self.config.max_angular / abs(angular)
            angular = math.copysign(self.config.max_angular, angular)
        linear = -speed if self.reverse else speed
        return VelocityCommand(linear, angular)
