"""The built-in navigation's settings: costmap, path follower, replanning, getting unstuck."""

from dataclasses import dataclass
import math

#: Settings that must be positive numbers (the path follower divides by, or scales with, them).
POSITIVE = ('max_linear', 'max_angular', 'lookahead', 'xy_tolerance', 'yaw_tolerance')


@dataclass(frozen=True)
class NavigatorConfig:
    """Parameters of :class:`GridNavigator` (metres, seconds, radians)."""

    # The costmap: what counts as an obstacle for a robot of this size.
    robot_radius: float = 0.12
    inflation_radius: float = 0.35
    allow_unknown: bool = True
    # The path follower: how fast it drives and how far ahead it aims.
    max_linear: float = 0.3
    max_angular: float = 1.5
    lookahead: float = 0.35
    # The goal: when it is reached, and how near is near enough.
    xy_tolerance: float = 0.1
    yaw_tolerance: float = 0.2
    use_goal_yaw: bool = True
    goal_relax_radius: float = 0.0
    # Replanning: how often, and after how many failed plans it gives up.
    replan_period: float = 2.0
    max_plan_failures: int = 3
    # Getting unstuck: no progress beyond pose_tolerance for idle_timeout backs up.
    pose_tolerance: float = 0.1
    idle_timeout: float = 10.0
    unstuck_duration: float = 2.0
    unstuck_speed: float = 0.1

    def __post_init__(self) -> None:
        """Refuse settings the path follower cannot work with (:class:`ValueError`)."""
        for name in POSITIVE:
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0.0):
                raise ValueError(f'{name} must be a positive number, got {value}')
