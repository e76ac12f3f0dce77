"""A planar range sensor that reveals the cells it can see on a map being explored."""

from dataclasses import dataclass
import math

import numpy as np

from robot_sm.grid.occupancy_grid import OccupancyGrid
from robot_sm.parameters import defaults, Param, Settings
from robot_sm.planar import Pose2D

SENSOR_PARAMETERS = (
    Param('sensor_range', 3.0, 'Range of the simulated sensor (m)', minimum=0.0,
          exclusive_minimum=True),
    Param('sensor_fov', 2.0 * math.pi, 'Field of view of the simulated sensor (rad)',
          minimum=0.0, exclusive_minimum=True, maximum=2.0 * math.pi),
    Param('sensor_rays', 360, 'Rays cast by the simulated sensor', minimum=1),
)
_default = defaults(SENSOR_PARAMETERS)


@dataclass(frozen=True)
class SensorSettings(Settings):
    """How far, how wide and how finely the simulated sensor sees."""

    SPECS = SENSOR_PARAMETERS

    sensor_range: float = _default('sensor_range')
    sensor_fov: float = _default('sensor_fov')
    sensor_rays: int = _default('sensor_rays')


class RangeSensor:
    """
    Cast ``sensor_rays`` rays over ``sensor_fov`` radians up to ``sensor_range`` metres.

    Each ray reveals the true value of every cell it crosses up to and including the first
    obstacle, which it does not pass; cells beyond stay as they were.
    """

    def __init__(self, settings: SensorSettings = SensorSettings()) -> None:
        self.max_range = settings.sensor_range
        self.fov = settings.sensor_fov
        self.rays = settings.sensor_rays

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
