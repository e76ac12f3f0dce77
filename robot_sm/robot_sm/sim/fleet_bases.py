"""
Many differential-drive bases in one world, stepped as one batch.

:class:`FleetBases` is what :class:`~robot_sm.sim.diff_drive.DiffDriveBase` is for one robot,
for N robots at once: each robot's (forward speed, yaw rate) command becomes its wheel speeds
in one vectorised call of a :class:`robot_sm_control.ControllerGroup` with a
:class:`robot_sm_control.DifferentialDriveLaw` (one member per robot), and every pose integrates
and checks its collisions in array operations, not in a loop over robots. A robot stops, as
the single base does, at walls, at the map's edge, and at the other robots' discs.
"""

import math
from typing import List, Sequence

import numpy as np
import numpy.typing as npt
from robot_sm.grid.occupancy_grid import OccupancyGrid
from robot_sm.planar import Pose2D
from robot_sm.sim.diff_drive import BaseSettings, footprint_offsets
from robot_sm_control import ControllerGroup, ControlLimits, DifferentialDriveLaw

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


class FleetBases:
    """
    N kinematic differential-drive bases of the same size on one occupancy grid.

    Robot ``i`` integrates exactly as a :class:`~robot_sm.sim.diff_drive.DiffDriveBase` would
    on its own (same arcs, same command watchdog, same wall collisions); on top of that a step
    that would bring its disc onto another robot's disc (where that robot is or where it is
    going) is not taken. Robots that start overlapping may move apart.
    """

    def __init__(self, world: OccupancyGrid, poses: Sequence[Pose2D],
                 settings: BaseSettings = BaseSettings()) -> None:
        """
        Place one robot at each of ``poses``.

        :raises ValueError: if there is no pose, or a pose is inside an obstacle or overlaps
            another robot.
        """
        if not poses:
            raise ValueError('poses: at least one robot is needed')
        self.world = world
        self.count = len(poses)
        self.radius = settings.robot_radius
        self.wheel_radius = settings.wheel_radius
        self.wheel_base = settings.wheel_base
        self.command_timeout = settings.command_timeout
        self.x: FloatArray = np.array([p.x for p in poses], dtype=np.float64)
        self.y: FloatArray = np.array([p.y for p in poses], dtype=np.float64)
        self.yaw: FloatArray = np.array([p.yaw for p in poses], dtype=np.float64)
        self.linear: FloatArray = np.zeros(self.count)
        self.angular: FloatArray = np.zeros(self.count)
        self.wheel_speeds: FloatArray = np.zeros((self.count, 2))
        self.collided: BoolArray = np.zeros(self.count, dtype=np.bool_)
        self.distance: FloatArray = np.zeros(self.count)
        self._commands: FloatArray = np.zeros((self.count, 2))
        self._command_times: FloatArray = np.full(self.count, -math.inf)
        self._footprint = footprint_offsets(self.radius, world.resolution)
        self._obstacles = world.obstacles()
        unbounded = (np.full(2, -np.inf), np.full(2, np.inf))
        law = DifferentialDriveLaw(ControlLimits(unbounded, unbounded, unbounded, [False, False]),
                                   [0, 1], self.wheel_radius, self.wheel_base)
        self._group = ControllerGroup(law, command_input_limits=None, command_output_limits=None,
                                      capacity=self.count)
        self._members = np.array([self._group.add_member() for _ in range(self.count)])
        blocked = self._walls(self.x, self.y)
        if blocked.any():
            i = int(np.flatnonzero(blocked)[0])
            raise ValueError(f'start pose of robot {i} ({self.x[i]:.2f}, {self.y[i]:.2f}) is '
                             'inside an obstacle')
        overlaps = np.triu(_gaps(self.x, self.y, self.x, self.y) < 2.0 * self.radius, k=1)
        for i, j in zip(*np.nonzero(overlaps)):
            raise ValueError(f'start poses of robots {i} and {j} overlap')

    def pose(self, index: int) -> Pose2D:
        """Return robot ``index``'s pose."""
        return Pose2D(float(self.x[index]), float(self.y[index]), float(self.yaw[index]))

    def poses(self) -> List[Pose2D]:
        """Return every robot's pose."""
        return [self.pose(i) for i in range(self.count)]

    def command_wheels(self, index: int, left: float, right: float, now: float) -> None:
        """Command robot ``index``'s wheel angular velocities (rad/s)."""
        r = self.wheel_radius
        self.command_body(index, (left + right) * r / 2.0, (right - left) * r / self.wheel_base,
                          now)

    def command_body(self, index: int, linear: float, angular: float, now: float) -> None:
        """Command robot ``index``'s forward speed (m/s) and yaw rate (rad/s); NaN is ignored."""
        if not (math.isfinite(linear) and math.isfinite(angular)):
            return
        self._commands[index] = (linear, angular)
        self._command_times[index] = now

    def _walls(self, x: FloatArray, y: FloatArray) -> BoolArray:
        """Per robot: True if its disc at (x, y) overlaps an obstacle or leaves the map."""
        cols = np.floor((x - self.world.origin_x) / self.world.resolution).astype(np.int64)
        rows = np.floor((y - self.world.origin_y) / self.world.resolution).astype(np.int64)
        rows = rows[:, None] + self._footprint[None, :, 0]
        cols = cols[:, None] + self._footprint[None, :, 1]
        off = ((rows < 0) | (cols < 0) | (rows >= self.world.height)
               | (cols >= self.world.width)).any(axis=1)
        hit = self._obstacles[np.clip(rows, 0, self.world.height - 1),
                              np.clip(cols, 0, self.world.width - 1)].any(axis=1)
        return np.asarray(off | hit)

    def _bumps(self, x: FloatArray, y: FloatArray) -> BoolArray:
        """
        Per robot: True if its own move to (x, y) brings its disc onto another robot's.

        The other robot is checked where it is and where it is going, so two robots moving
        towards each other in the same step cannot end up overlapping; a robot standing still
        is never the one that bumps.
        """
        touching = 2.0 * self.radius
        gap_moved = _gaps(x, y, x, y)
        gap_still = _gaps(x, y, self.x, self.y)
        bumps = (((gap_moved < touching) & (gap_moved < _gaps(self.x, self.y, x, y)))
                 | ((gap_still < touching) & (gap_still < _gaps(self.x, self.y, self.x, self.y))))
        np.fill_diagonal(bumps, False)
        return np.asarray(bumps.any(axis=1))

    def step(self, now: float, dt: float) -> None:
        """Advance every robot by ``dt`` seconds at time ``now``."""
        fresh = now - self._command_times <= self.command_timeout
        commands = np.where(fresh[:, None], self._commands, 0.0)
        self._group.update_goals(self._members, commands, {'joint_velocity': self.wheel_speeds})
        wheels = self._group.step({'joint_velocity': self.wheel_speeds}).controls
        r = self.wheel_radius
        linear = (wheels[:, 0] + wheels[:, 1]) * r / 2.0
        angular = (wheels[:, 1] - wheels[:, 0]) * r / self.wheel_base
        straight = np.abs(angular) < 1e-9
        turning = np.where(straight, 1.0, angular)
        yaw = self.yaw + angular * dt
        radius = linear / turning
        x = np.where(straight, self.x + linear * dt * np.cos(self.yaw),
                     self.x + radius * (np.sin(yaw) - np.sin(self.yaw)))
        y = np.where(straight, self.y + linear * dt * np.sin(self.yaw),
                     self.y - radius * (np.cos(yaw) - np.cos(self.yaw)))
        yaw = np.where(straight, self.yaw, (yaw + math.pi) % (2.0 * math.pi) - math.pi)
        blocked = self._walls(x, y) | self._bumps(x, y)
        moving = ~blocked
        self.distance += np.where(moving, np.hypot(x - self.x, y - self.y), 0.0)
        self.x = np.where(moving, x, self.x)
        self.y = np.where(moving, y, self.y)
        self.yaw = np.where(moving, yaw, self.yaw)
        self.linear = np.where(moving, linear, 0.0)
        self.angular = np.where(moving, angular, 0.0)
        self.wheel_speeds = np.where(moving[:, None], wheels, 0.0)
        self.collided = blocked

    def others(self, index: int) -> FloatArray:
        """Return the (x, y) of every robot but ``index``, shape (N - 1, 2)."""
        others = np.arange(self.count) != index
        return np.stack([self.x[others], self.y[others]], axis=1)


def _gaps(x: FloatArray, y: FloatArray, other_x: FloatArray, other_y: FloatArray) -> FloatArray:
    """(N, N): the distance from (x[i], y[i]) to (other_x[j], other_y[j])."""
    return np.asarray(np.hypot(x[:, None] - other_x[None, :], y[:, None] - other_y[None, :]))
