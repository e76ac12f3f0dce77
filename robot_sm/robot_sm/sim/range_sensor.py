"""A planar range sensor that reveals the cells it can see on a map being explored."""

from dataclasses import dataclass
import math
from typing import Optional, Tuple

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

    def _cast(self, truth: OccupancyGrid, pose: Pose2D, others: Optional[np.ndarray],
              other_radius: float) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                            np.ndarray]:
        """
        March every ray in half-cell steps from ``pose``.

        Returns the distances of the steps, each step's (row, col), whether it is on the map,
        and per ray the index of its first blocked step (the number of steps when nothing
        blocks it). Obstacle cells, the map's edge and the discs of ``other_radius`` around
        ``others`` ((M, 2) centres) block a ray.
        """
        step = truth.resolution / 2.0
        distances = np.arange(0.0, self.max_range + step, step)
        first_angle, _, increment = self.angles()
        angles = pose.yaw + first_angle + increment * np.arange(self.rays)
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
        if others is not None and len(others):
            # Where each ray enters each other robot's disc (rays x robots), the nearest per ray.
            centres = np.asarray(others, dtype=np.float64).reshape(-1, 2) - (pose.x, pose.y)
            along = (np.outer(np.cos(angles), centres[:, 0])
                     + np.outer(np.sin(angles), centres[:, 1]))
            across = (centres ** 2).sum(axis=1)[None, :] - along ** 2
            inside = (across <= other_radius ** 2) & (along > 0.0)
            entry = along - np.sqrt(np.maximum(other_radius ** 2 - across, 0.0))
            hit = np.where(inside, entry, np.inf).min(axis=1)
            blocked |= distances[None, :] >= hit[:, None]
        # Index of the first blocking step per ray (the ray's length when nothing blocks it).
        first = np.where(blocked.any(axis=1), blocked.argmax(axis=1), distances.size)
        return distances, rows, cols, on_map, first

    def reveal(self, truth: OccupancyGrid, known: OccupancyGrid, pose: Pose2D,
               others: Optional[np.ndarray] = None, other_radius: float = 0.0) -> int:
        """
        Copy what the sensor sees at ``pose`` from ``truth`` into ``known``; count new cells.

        Other robots (discs of ``other_radius`` around the (M, 2) centres ``others``) block
        the rays as walls do: what is behind them stays unseen.
        """
        distances, rows, cols, on_map, first = self._cast(truth, pose, others, other_radius)
        seen = (np.arange(distances.size)[None, :] <= first[:, None]) & on_map
        before = int(np.count_nonzero(known.data >= 0))
        known.data[rows[seen], cols[seen]] = truth.data[rows[seen], cols[seen]]
        return int(np.count_nonzero(known.data >= 0)) - before

    def ranges(self, truth: OccupancyGrid, pose: Pose2D, others: Optional[np.ndarray] = None,
               other_radius: float = 0.0) -> np.ndarray:
        """
        Return each ray's range to the first wall or other robot, in half-cell steps.

        A ray that meets nothing within ``sensor_range`` reads ``inf`` (REP-117). The rays go
        counter-clockwise from ``angle_min``, as :meth:`angles` gives them.
        """
        distances, _, _, _, first = self._cast(truth, pose, others, other_radius)
        hit = first < distances.size
        return np.where(hit, distances[np.minimum(first, distances.size - 1)], np.inf)

    def angles(self) -> Tuple[float, float, float]:
        """Return the first ray's angle, the last one's and the step, relative to the heading."""
        if self.fov >= 2.0 * math.pi:
            step = 2.0 * math.pi / self.rays
            return -math.pi, math.pi - step, step
        step = self.fov / max(1, self.rays - 1)
        return -self.fov / 2.0, self.fov / 2.0, step
