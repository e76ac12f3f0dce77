"""
Drive a differential-drive robot to a goal on an occupancy grid: plan, follow, replan, get unstuck.

:class:`GridNavigator` is the logic of the built-in Navigation plugin, free of ROS: feed it the map
when it changes and the robot's pose every tick, and it returns the velocity to command and
whether the goal was reached or failed, with the reason.

Stuck detection follows RSM's navigation state with its bugs fixed: the robot counts as moving
when x, y (both) or the wrapped yaw changed by more than ``pose_tolerance`` since the reference
pose; after ``idle_timeout`` seconds without moving (while allowed to move) it makes one unstuck
attempt (driving the other way for ``unstuck_duration`` seconds, then replanning); stuck again
after that, the goal fails. Planning failures are retried on map updates up to
``max_plan_failures`` times.
"""

from dataclasses import dataclass
import enum
import math
from typing import List, Optional, Tuple

from robot_sm.grid.occupancy_grid import OccupancyGrid
from robot_sm.navigation.config import NavigatorConfig
from robot_sm.navigation.costmap import Costmap
from robot_sm.navigation.planner import NoPathError, plan_path
from robot_sm.navigation.pure_pursuit import PurePursuit, VelocityCommand
from robot_sm.planar import Pose2D, wrap_angle

Point = Tuple[float, float]


class NavigationStatus(enum.Enum):
    """Where the navigation is."""

    ACTIVE = 'active'
    SUCCEEDED = 'succeeded'
    FAILED = 'failed'


@dataclass(frozen=True)
class NavigationStep:
    """The result of one tick: the command to send and the status, with a reason when done."""

    command: VelocityCommand
    status: NavigationStatus
    message: str = ''


class GridNavigator:
    """Plan on the latest map and follow the plan with pure pursuit."""

    def __init__(self, config: NavigatorConfig = NavigatorConfig()) -> None:
        if config.idle_timeout <= config.unstuck_duration:
            raise ValueError(f'idle_timeout ({config.idle_timeout}) must be longer than '
                             f'unstuck_duration ({config.unstuck_duration})')
        self.config = config
        self.follower = PurePursuit(config)
        self.costmap: Optional[Costmap] = None
        self.path: List[Point] = []
        self.goal: Optional[Pose2D] = None
        self.target: Optional[Point] = None
        self.reverse = False
        self._allowed_to_move = True
        self._map_changed = False
        self._planned_at = -math.inf
        self._plan_failures = 0
        self._last_plan_error = ''
        self._reference: Optional[Pose2D] = None
        self._reference_time = 0.0
        self._unstuck_until: Optional[float] = None
        self._unstuck_done = False
        self._done: Optional[NavigationStep] = None

    # ---- inputs -------------------------------------------------------------------------------

    def set_map(self, grid: OccupancyGrid) -> None:
        """Use ``grid`` for planning from now on (replans at the next tick)."""
        self.costmap = Costmap(grid, self.config.robot_radius, self.config.inflation_radius,
                               allow_unknown=self.config.allow_unknown)
        self._map_changed = True

    def set_goal(self, goal: Pose2D, reverse: bool = False) -> None:
        """Start driving to ``goal`` (forwards, or backwards when ``reverse``)."""
        for value in (goal.x, goal.y, goal.yaw):
            if not math.isfinite(value):
                raise ValueError(f'goal must be finite, got {goal}')
        self.goal = goal
        self.target = None
        self.reverse = reverse
        self.path = []
        self._planned_at = -math.inf
        self._plan_failures = 0
        self._reference = None
        self._unstuck_until = None
        self._unstuck_done = False
        self._done = None

    def set_reverse(self, reverse: bool) -> None:
        """Switch between driving forwards and backwards (replans at the next tick)."""
        if reverse != self.reverse:
            self.reverse = reverse
            self._planned_at = -math.inf

    def set_allowed_to_move(self, allowed: bool) -> None:
        """Tell whether commands reach the wheels (the mux is in AUTONOMOUS)."""
        self._allowed_to_move = allowed

    # ---- the tick -----------------------------------------------------------------------------

    def _finish(self, status: NavigationStatus, message: str) -> NavigationStep:
        self._done = NavigationStep(VelocityCommand(), status, message)
        return self._done

    def _resolve_target(self) -> Optional[str]:
        """Pick the point to drive to: the goal, or a free point near it; return a problem."""
        assert self.costmap is not None and self.goal is not None
        grid = self.costmap.grid
        row, col = grid.cell_of(self.goal.x, self.goal.y)
        if not self.costmap.is_lethal(row, col):
            self.target = (self.goal.x, self.goal.y)
            return None
        radius = self.config.goal_relax_radius
        if radius > 0.0:
            cells = int(math.ceil(radius / grid.resolution))
            best: Optional[Tuple[float, Point]] = None
            for dr in range(-cells, cells + 1):
                for dc in range(-cells, cells + 1):
                    distance = math.hypot(dr, dc) * grid.resolution
                    if distance <= radius and not self.costmap.is_lethal(row + dr, col + dc):
                        if best is None or distance < best[0]:
                            best = (distance, grid.center_of(row + dr, col + dc))
            if best is not None:
                self.target = best[1]
                return None
        return (f'goal ({self.goal.x:.2f}, {self.goal.y:.2f}) is in or too close to an '
                'obstacle')

    def _plan(self, pose: Pose2D, now: float) -> Optional[NavigationStep]:
        assert self.costmap is not None and self.goal is not None
        self._planned_at = now
        self._map_changed = False
        problem = self._resolve_target()
        if problem is None:
            assert self.target is not None
            try:
                self.path = plan_path(self.costmap, (pose.x, pose.y), self.target)
            except NoPathError as error:
                problem = str(error)
        if problem is not None:
            self._plan_failures += 1
            self._last_plan_error = problem
            if self._plan_failures >= self.config.max_plan_failures:
                return self._finish(NavigationStatus.FAILED, problem)
            self.path = []
            return None
        self._plan_failures = 0
        goal_yaw = self.goal.yaw if self.config.use_goal_yaw else None
        self.follower.set_path(self.path, goal_yaw=goal_yaw, reverse=self.reverse)
        return None

    def _moved(self, pose: Pose2D) -> bool:
        reference = self._reference
        assert reference is not None
        tolerance = self.config.pose_tolerance
        return (abs(pose.x - reference.x) > tolerance or abs(pose.y - reference.y) > tolerance
                or abs(wrap_angle(pose.yaw - reference.yaw)) > tolerance)

    def step(self, pose: Pose2D, now: float) -> NavigationStep:
        """Return the command for the robot at ``pose`` at time ``now`` (seconds)."""
        if self._done is not None:
            return self._done
        if self.goal is None:
            return NavigationStep(VelocityCommand(), NavigationStatus.ACTIVE, 'no goal')
        if self.costmap is None:
            return NavigationStep(VelocityCommand(), NavigationStatus.ACTIVE, 'waiting for a map')
        # Stuck detection: only counts while commands can move the robot.
        if self._reference is None or not self._allowed_to_move or self._moved(pose):
            self._reference, self._reference_time = pose, now
        if self._unstuck_until is not None:
            if now < self._unstuck_until:
                speed = self.config.unstuck_speed
                return NavigationStep(VelocityCommand(speed if self.reverse else -speed, 0.0),
                                      NavigationStatus.ACTIVE, 'getting unstuck')
            self._unstuck_until = None
            self._planned_at = -math.inf
            self._reference, self._reference_time = pose, now
        elif now - self._reference_time > self.config.idle_timeout:
            if self._unstuck_done:
                return self._finish(NavigationStatus.FAILED,
                                    f'stuck: no progress for {self.config.idle_timeout:g} s after '
                                    'an unstuck attempt')
            self._unstuck_done = True
            self._unstuck_until = now + self.config.unstuck_duration
            return NavigationStep(VelocityCommand(), NavigationStatus.ACTIVE, 'stuck: backing off')
        replan_due = now - self._planned_at >= self.config.replan_period
        if not self.path or replan_due or (self._map_changed and self._path_blocked()):
            finished = self._plan(pose, now)
            if finished is not None:
                return finished
            if not self.path:
                return NavigationStep(VelocityCommand(), NavigationStatus.ACTIVE,
                                      f'replanning: {self._last_plan_error}')
        command = self.follower.command(pose)
        if self.follower.done:
            return self._finish(NavigationStatus.SUCCEEDED, 'goal reached')
        return NavigationStep(command, NavigationStatus.ACTIVE, 'driving')

    def distance_remaining(self, pose: Pose2D) -> Optional[float]:
        """
        Return the distance left to the goal along the plan from ``pose`` (m), None without one.

        Measured from the plan's point nearest the robot; with no plan yet, the straight line.
        """
        if self.goal is None:
            return None
        path = self.path
        if not path:
            return math.hypot(self.goal.x - pose.x, self.goal.y - pose.y)
        nearest = min(range(len(path)),
                      key=lambda i: math.hypot(path[i][0] - pose.x, path[i][1] - pose.y))
        left = math.hypot(path[nearest][0] - pose.x, path[nearest][1] - pose.y)
        for (x0, y0), (x1, y1) in zip(path[nearest:], path[nearest + 1:]):
            left += math.hypot(x1 - x0, y1 - y0)
        return left

    def _path_blocked(self) -> bool:
        if self.costmap is None:
            return False
        for (x0, y0), (x1, y1) in zip(self.path, self.path[1:]):
            steps = max(1, int(math.hypot(x1 - x0, y1 - y0) / self.costmap.grid.resolution))
            for k in range(steps + 1):
                row, col = self.costmap.grid.cell_of(x0 + (x1 - x0) * k / steps,
                                                     y0 + (y1 - y0) * k / steps)
                if self.costmap.is_lethal(row, col):
                    return True
        return False
