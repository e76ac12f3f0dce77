"""A kinematic differential-drive base that stops at obstacles."""

from dataclasses import dataclass
import math
from typing import Optional, Tuple

import numpy as np

from robot_sm.grid.occupancy_grid import OccupancyGrid
from robot_sm.parameters import defaults, duration, Param, Settings
from robot_sm.planar import Pose2D, wrap_angle

BASE_PARAMETERS = (
    Param('robot_radius', 0.1, 'Radius of the robot disc used for collisions (m)', minimum=0.0,
          exclusive_minimum=True),
    Param('wheel_radius', 0.03, 'Wheel radius (m)', minimum=0.0, exclusive_minimum=True),
    Param('wheel_base', 0.1125, 'Distance between the wheels (m)', minimum=0.0,
          exclusive_minimum=True),
    duration('command_timeout', 0.5, 'A command older than this is treated as zero', 0.01,
             10.0),
)
_default = defaults(BASE_PARAMETERS)


@dataclass(frozen=True)
class BaseSettings(Settings):
    """The simulated base's size, wheels and command watchdog."""

    SPECS = BASE_PARAMETERS

    robot_radius: float = _default('robot_radius')
    wheel_radius: float = _default('wheel_radius')
    wheel_base: float = _default('wheel_base')
    command_timeout: float = _default('command_timeout')


def footprint_offsets(radius: float, resolution: float) -> np.ndarray:
    """Return the cell offsets (drow, dcol) a disc of ``radius`` covers around its centre cell."""
    cells = int(math.ceil(radius / resolution))
    span = np.arange(-cells, cells + 1)
    rows, cols = np.meshgrid(span, span, indexing='ij')
    inside = np.hypot(rows, cols) * resolution <= radius
    return np.stack([rows[inside], cols[inside]], axis=1)


class DiffDriveBase:
    """
    Integrate wheel (or body) velocity commands into a pose on an occupancy grid.

    The base is a disc of ``robot_radius``. A step that would bring the disc onto an obstacle cell
    (or off the map) is not taken: the base stays where it was, its velocity becomes zero and
    ``collided`` is set until it moves freely again. A command older than ``command_timeout``
    seconds is treated as zero, as a motor driver's watchdog would.
    """

    def __init__(
        self,
        world: OccupancyGrid,
        pose: Pose2D,
        settings: BaseSettings = BaseSettings(),
    ) -> None:
        self.world = world
        self.pose = pose
        self.radius = settings.robot_radius
        self.wheel_radius = settings.wheel_radius
        self.wheel_base = settings.wheel_base
        self.command_timeout = settings.command_timeout
        self.linear = 0.0
        self.angular = 0.0
        self.collided = False
        self.distance = 0.0
        self._command: Tuple[float, float] = (0.0, 0.0)
        self._command_time: Optional[float] = None
        self._footprint = footprint_offsets(self.radius, world.resolution)
        self._obstacles = world.obstacles()
        if self.in_collision(pose):
            raise ValueError(f'start pose ({pose.x:.2f}, {pose.y:.2f}) is inside an obstacle')

    def in_collision(self, pose: Pose2D) -> bool:
        """Return True if the disc at ``pose`` overlaps an obstacle or leaves the map."""
        row, col = self.world.cell_of(pose.x, pose.y)
        rows = self._footprint[:, 0] + row
        cols = self._footprint[:, 1] + col
        if rows.min() < 0 or cols.min() < 0 or rows.max() >= self.world.height \
                or cols.max() >= self.world.width:
            return True
        return bool(self._obstacles[rows, cols].any())

    def command_wheels(self, left: float, right: float, now: float) -> None:
        """Command wheel angular velocities (rad/s)."""
        r = self.wheel_radius
        self.command_body((left + right) * r / 2.0, (right - left) * r / self.wheel_base, now)

    def command_body(self, linear: float, angular: float, now: float) -> None:
        """Command a body twist: forward speed (m/s) and yaw rate (rad/s)."""
        if not (math.isfinite(linear) and math.isfinite(angular)):
            return
        self._command = (linear, angular)
        self._command_time = now

    def step(self, now: float, dt: float) -> Pose2D:
        """Advance the simulation by ``dt`` seconds at time ``now``; return the new pose."""
        fresh = self._command_time is not None and now - self._command_time <= self.command_timeout
        linear, angular = self._command if fresh else (0.0, 0.0)
        pose = self.pose
        if abs(angular) < 1e-9:
            candidate = Pose2D(pose.x + linear * dt * math.cos(pose.yaw),
                               pose.y + linear * dt * math.sin(pose.yaw), pose.yaw)
        else:
            yaw = pose.yaw + angular * dt
            r = linear / angular
            candidate = Pose2D(pose.x + r * (math.sin(yaw) - math.sin(pose.yaw)),
                               pose.y - r * (math.cos(yaw) - math.cos(pose.yaw)),
                               wrap_angle(yaw))
        if self.in_collision(candidate):
            self.collided = True
            self.linear = self.angular = 0.0
            return pose
        self.collided = False
        self.distance += math.hypot(candidate.x - pose.x, candidate.y - pose.y)
        self.pose = candidate
        self.linear, self.angular = linear, angular
        return candidate
