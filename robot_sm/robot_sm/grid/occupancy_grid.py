"""An occupancy grid with its geometry: resolution and origin in the map frame."""

from dataclasses import dataclass
import math
from typing import Tuple

import numpy as np
import numpy.typing as npt

UNKNOWN = -1
FREE = 0
OCCUPIED = 100
#: Cells at or above this value count as obstacles (as map_server's trinary maps do).
OBSTACLE_THRESHOLD = 65


@dataclass
class OccupancyGrid:
    """
    Occupancy values on a regular grid, as in ``nav_msgs/OccupancyGrid``.

    ``data`` has shape (height, width) and dtype int8; ``data[row, col]`` covers the square whose
    lower-left corner is ``origin + (col, row) * resolution``. The origin's yaw is not supported
    (map_server maps have yaw 0).
    """

    data: npt.NDArray[np.int8]
    resolution: float
    origin_x: float = 0.0
    origin_y: float = 0.0

    def __post_init__(self) -> None:
        if self.data.ndim != 2:
            raise ValueError(f'grid data must be 2-D, got shape {self.data.shape}')
        if not (math.isfinite(self.resolution) and self.resolution > 0.0):
            raise ValueError(f'resolution must be a positive number, got {self.resolution}')
        self.data = np.asarray(self.data, dtype=np.int8)

    @property
    def height(self) -> int:
        """Return the number of rows (cells along y)."""
        return int(self.data.shape[0])

    @property
    def width(self) -> int:
        """Return the number of columns (cells along x)."""
        return int(self.data.shape[1])

    def cell_of(self, x: float, y: float) -> Tuple[int, int]:
        """Return the (row, col) of the cell containing map point (x, y); may be outside."""
        col = math.floor((x - self.origin_x) / self.resolution)
        row = math.floor((y - self.origin_y) / self.resolution)
        return row, col

    def center_of(self, row: int, col: int) -> Tuple[float, float]:
        """Return the map coordinates (x, y) of the centre of cell (row, col)."""
        return (self.origin_x + (col + 0.5) * self.resolution,
                self.origin_y + (row + 0.5) * self.resolution)

    def contains(self, row: int, col: int) -> bool:
        """Return True if (row, col) lies on the grid."""
        return 0 <= row < self.height and 0 <= col < self.width

    def value_at(self, x: float, y: float) -> int:
        """Return the value of the cell at map point (x, y); UNKNOWN outside the grid."""
        row, col = self.cell_of(x, y)
        return int(self.data[row, col]) if self.contains(row, col) else UNKNOWN

    def obstacles(self) -> npt.NDArray[np.bool_]:
        """Return a boolean mask of the cells that are obstacles."""
        return self.data >= OBSTACLE_THRESHOLD

    def free(self) -> npt.NDArray[np.bool_]:
        """Return a boolean mask of the known free cells."""
        return (self.data >= 0) & (self.data < OBSTACLE_THRESHOLD)

    def unknown(self) -> npt.NDArray[np.bool_]:
        """Return a boolean mask of the unknown cells."""
        return self.data < 0

    def blank_copy(self, value: int = UNKNOWN) -> 'OccupancyGrid':
        """Return a grid of the same geometry filled with ``value``."""
        return OccupancyGrid(np.full_like(self.data, value), self.resolution,
                             self.origin_x, self.origin_y)
