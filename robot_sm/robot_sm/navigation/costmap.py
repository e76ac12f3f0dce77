"""A navigation costmap: obstacles inflated by the robot's radius, with a cost that decays away."""

import math

import numpy as np
import numpy.typing as npt
from robot_sm.grid.occupancy_grid import OccupancyGrid
from scipy import ndimage

#: Cost of a cell the robot cannot enter.
LETHAL = math.inf


class Costmap:
    """
    Per-cell traversal cost derived from an occupancy grid.

    A cell whose centre is closer than ``robot_radius`` to an obstacle is lethal. Beyond that the
    cost falls linearly from 1 to 0 at ``inflation_radius``, so paths keep clear of walls where
    they can. Unknown cells are traversable with cost ``unknown_cost`` when ``allow_unknown`` is
    true (needed to drive to exploration frontiers) and lethal otherwise.
    """

    def __init__(self, grid: OccupancyGrid, robot_radius: float, inflation_radius: float,
                 allow_unknown: bool = True, unknown_cost: float = 0.5) -> None:
        if not (robot_radius >= 0.0 and inflation_radius >= robot_radius):
            raise ValueError('need 0 <= robot_radius <= inflation_radius, got '
                             f'{robot_radius} and {inflation_radius}')
        self.grid = grid
        obstacles = grid.obstacles()
        if obstacles.any():
            distance = ndimage.distance_transform_edt(~obstacles) * grid.resolution
        else:
            distance = np.full(obstacles.shape, math.inf)
        span = max(inflation_radius - robot_radius, 1e-9)
        cost = np.clip((inflation_radius - distance) / span, 0.0, 1.0)
        cost[distance < robot_radius] = LETHAL
        unknown = grid.unknown()
        if allow_unknown:
            cost[unknown] = np.maximum(cost[unknown], unknown_cost)
        else:
            cost[unknown] = LETHAL
        self.cost: npt.NDArray[np.float64] = cost

    def is_lethal(self, row: int, col: int) -> bool:
        """Return True if the robot cannot stand on cell (row, col) (or it is off the map)."""
        if not self.grid.contains(row, col):
            return True
        return bool(math.isinf(self.cost[row, col]))
