"""A planar range sensor that reveals the cells it can see on a map being explored."""

import math

import numpy as np

from robot_sm.grid.occupancy_grid import OccupancyGrid
from robot_sm.planar import Pose2D


class RangeSensor:
    """
    Cast ``rays`` rays over ``fov`` radians up to ``max_range`` metres from the robot.

    Each ray reveals the true value of every cell it crosses up to and including the first
    obstacle, which it does not pass; cells beyond stay as they were.
    """

    def __init__(self, max_range: float = 3.0, fov: float = 2.0 * math.pi,
                 rays: int = 360) -> None:
        if not (math.isfinite(max_range) and max_range > 0.0):
            raise ValueError(f'max_range must be a positive number, got {max_range}')
        if not (0.0 < fov <= 2.0 * math.pi):
            raise ValueError(f'fov must be in (0, 2*pi], got {fov}')
        if rays < 1:
            raise ValueError(f'rays must be at least 1, got {rays}')
        self.max_range = max_range
        self.fov = fov
        self.rays = rays

    def reveal(self, truth: OccupancyGrid, known: OccupancyGrid, pose: Pose2D) -> int:
        """Copy what the sensor sees at ``pose`` from ``truth`` into ``known``; count new cells."""
        step = truth.resolution / 2.0
        distances = np.arange(0.0, self.max_range + step, step)
        if self.fov >= 2.0 * math.pi:
            angles = pose.yaw + np.linspace(-math.pi, math.pi, self.rays, endpoint=False)
        else:
            angles = pose.yaw + np.linspace(-self.fov / 2.0, self.fov / 2.0, self.rays)
        xs = pose.x + np.outer(np.cos(angles), distances)
        ys = pose.y + np.outer(np.sin(angles), distances)
        cols = np.floor((xs - truth.origin_x) / truth.resolution).astype(np.int64)
        rows = np.floor((ys - truth.origin_y) / truth.resolution).astype(np.int64)
        on_map = (rows >= 0) & (rows < truth.height) & (cols >= 0) & (cols < truth.width)
        # Steps off the map end a ray like an obstacle does.
        blocked = ~on_map
        rows_c = np.clip(rows, 0, truth.height - 1)
        cols_c = np.clip(cols, 0, truth.width - 1)
        blocked |= truth.obstacles()[rows_c, cols_c]
        # Index of the first blocking step per ray (the ray's length when nothing blocks it).
        first = np.where(blocked.any(axis=1), blocked.argmax(axis=1), distances.size)
        seen = (np.arange(distances.size)[None, :] <= first[:, None]) & on_map
        before = int(np.count_nonzero(known.data >= 0))
        known.data[rows[seen], cols[seen]] = truth.data[rows[seen], cols[seen]]
        return int(np.count_nonzero(known.data >= 0)) - before
