"""What the demo's map pictures share: the paths driven, the grid under them, the axes."""

import math
import pathlib
from typing import Any, Iterable, List, Tuple

from nav_msgs.msg import Odometry
import numpy as np
from robot_sm.grid import OccupancyGrid


def path_driven(odometry: Iterable[Odometry]) -> Tuple[List[Tuple[float, float]], float]:
    """Return the path driven (a point every 2 cm) and its length, from odometry."""
    path: List[Tuple[float, float]] = []
    distance = 0.0
    for msg in odometry:
        p = msg.pose.pose.position
        if not path or math.dist(path[-1], (p.x, p.y)) >= 0.02:
            if path:
                distance += math.dist(path[-1], (p.x, p.y))
            path.append((p.x, p.y))
    return path, distance


def draw_grid(axis: Any, grid: OccupancyGrid) -> None:
    """Draw ``grid`` in metres: occupied (>= 65) black, unknown grey, the rest white."""
    data = np.asarray(grid.data)
    image = np.where(data >= 65, 0.0, np.where(data == -1, 0.55, 1.0))
    extent = (grid.origin_x, grid.origin_x + grid.width * grid.resolution,
              grid.origin_y, grid.origin_y + grid.height * grid.resolution)
    axis.imshow(image, cmap='gray', origin='lower', extent=extent, vmin=0.0, vmax=1.0)


def save_map_figure(figure: Any, axes: Iterable[Any], path: pathlib.Path) -> None:
    """Label the map axes in metres with equal scales and a legend; write the PNG and close it."""
    import matplotlib.pyplot as plt
    for axis in axes:
        axis.set_xlabel('x (m)')
        axis.set_ylabel('y (m)')
        axis.set_aspect('equal')
        axis.legend(loc='upper right', fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=90)
    plt.close(figure)
