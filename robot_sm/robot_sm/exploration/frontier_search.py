"""
Frontier search on an occupancy grid, after explore_lite's method.

A frontier cell is an unknown cell with a 4-neighbour in the known free space reachable from the
robot; frontier cells are grouped into frontiers by 8-connectivity. Frontiers smaller than
``min_frontier_size`` metres are dropped, and each is given explore_lite's cost
``potential_scale * distance - gain_scale * size``, with both the distance to the robot and the
size in metres. (explore_lite multiplies the distance, already in metres, by the resolution a
second time; that quirk is not copied.) The search is vectorised with scipy.ndimage.
"""

from dataclasses import dataclass
import math
from typing import Iterable, List, Optional, Sequence, Tuple

import numpy as np
from robot_sm.grid.occupancy_grid import OccupancyGrid
from robot_sm.planar import Pose2D
from scipy import ndimage

Point = Tuple[float, float]

_FOUR = ndimage.generate_binary_structure(2, 1)
_EIGHT = ndimage.generate_binary_structure(2, 2)


@dataclass(frozen=True)
class Frontier:
    """One frontier: its size, where it is, and what it costs to go there."""

    #: Number of frontier cells.
    cells: int
    #: Length of the frontier in metres (cells times resolution).
    size: float
    #: Mean position of its cells.
    centroid: Point
    #: The frontier cell nearest the centroid: a goal that lies on the frontier itself.
    middle: Point
    #: The frontier cell nearest the robot.
    nearest: Point
    #: Straight-line distance from the robot to ``nearest`` in metres.
    distance: float
    #: potential_scale * distance - gain_scale * size (lower is better).
    cost: float

    def goal(self, robot: Pose2D) -> Pose2D:
        """Return a goal pose at ``middle``, facing away from the robot (toward the unknown)."""
        yaw = math.atan2(self.middle[1] - robot.y, self.middle[0] - robot.x)
        return Pose2D(self.middle[0], self.middle[1], yaw)


class FrontierSearch:
    """Find and rank frontiers; parameters as in explore_lite."""

    def __init__(self, min_frontier_size: float = 0.3, potential_scale: float = 3.0,
                 gain_scale: float = 1.0) -> None:
        if not (math.isfinite(min_frontier_size) and min_frontier_size >= 0.0):
            raise ValueError(f'min_frontier_size must be >= 0, got {min_frontier_size}')
        for name, value in (('potential_scale', potential_scale), ('gain_scale', gain_scale)):
            if not math.isfinite(value):
                raise ValueError(f'{name} must be a finite number, got {value}')
        self.min_frontier_size = min_frontier_size
        self.potential_scale = potential_scale
        self.gain_scale = gain_scale

    def reachable_free(self, grid: OccupancyGrid, robot: Pose2D) -> np.ndarray:
        """Return the mask of free cells connected to the robot (from its nearest free cell)."""
        free = grid.free()
        if not free.any():
            return free
        row, col = grid.cell_of(robot.x, robot.y)
        if not (grid.contains(row, col) and free[row, col]):
            # Start from the free cell nearest the robot, as explore_lite does.
            rows, cols = np.nonzero(free)
            nearest = int(np.argmin((rows - row) ** 2 + (cols - col) ** 2))
            row, col = int(rows[nearest]), int(cols[nearest])
        labels, _ = ndimage.label(free, structure=_FOUR)
        return labels == labels[row, col]

    def search(self, grid: OccupancyGrid, robot: Pose2D) -> List[Frontier]:
        """Return the frontiers reachable from ``robot``, lowest cost first."""
        reachable = self.reachable_free(grid, robot)
        if not reachable.any():
            return []
        candidates = grid.unknown() & ndimage.binary_dilation(reachable, structure=_FOUR)
        labels, count = ndimage.label(candidates, structure=_EIGHT)
        if count == 0:
            return []
        rows, cols = np.nonzero(labels)
        ids = labels[rows, cols] - 1
        xs = grid.origin_x + (cols + 0.5) * grid.resolution
        ys = grid.origin_y + (rows + 0.5) * grid.resolution
        sizes = np.bincount(ids, minlength=count)
        cx = np.bincount(ids, weights=xs, minlength=count) / sizes
        cy = np.bincount(ids, weights=ys, minlength=count) / sizes
        to_robot = np.hypot(xs - robot.x, ys - robot.y)
        to_centroid = np.hypot(xs - cx[ids], ys - cy[ids])
        order_robot = np.lexsort((to_robot, ids))
        order_centroid = np.lexsort((to_centroid, ids))
        first = np.searchsorted(ids[order_robot], np.arange(count))
        nearest = order_robot[first]
        middle = order_centroid[np.searchsorted(ids[order_centroid], np.arange(count))]
        frontiers = []
        for k in range(count):
            size = float(sizes[k]) * grid.resolution
            if size < self.min_frontier_size:
                continue
            distance = float(to_robot[nearest[k]])
            frontiers.append(Frontier(
                cells=int(sizes[k]),
                size=size,
                centroid=(float(cx[k]), float(cy[k])),
                middle=(float(xs[middle[k]]), float(ys[middle[k]])),
                nearest=(float(xs[nearest[k]]), float(ys[nearest[k]])),
                distance=distance,
                cost=self.potential_scale * distance - self.gain_scale * size,
            ))
        frontiers.sort(key=lambda f: f.cost)
        return frontiers


def is_blacklisted(point: Point, failed: Iterable[Point], radius: float) -> bool:
    """Return True if ``point`` lies within ``radius`` metres (Euclidean) of a failed goal."""
    return any(math.hypot(point[0] - fx, point[1] - fy) <= radius for fx, fy in failed)


def select_goal(frontiers: Sequence[Frontier], failed: Sequence[Point],
                blacklist_radius: float) -> Optional[Frontier]:
    """Return the lowest-cost frontier whose goal is not near a failed goal, or None."""
    for frontier in frontiers:
        if not is_blacklisted(frontier.middle, failed, blacklist_radius):
            return frontier
    return None
