"""Shortest paths on a costmap: Dijkstra over the 8-connected grid, then corner cutting."""

import math
from typing import List, Tuple

import numpy as np
from robot_sm.navigation.costmap import Costmap
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

Point = Tuple[float, float]


class NoPathError(RuntimeError):
    """No path joins the start and the goal; the message says why."""


#: Neighbour offsets (drow, dcol) of the 8-connected grid and their lengths in cells.
_NEIGHBOURS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def _graph(costmap: Costmap, cost_weight: float) -> coo_matrix:
    cost = costmap.cost
    height, width = cost.shape
    passable = np.isfinite(cost)
    index = np.arange(height * width).reshape(height, width)
    sources, targets, weights = [], [], []
    for drow, dcol in _NEIGHBOURS:
        rows_from = slice(max(0, -drow), height - max(0, drow))
        cols_from = slice(max(0, -dcol), width - max(0, dcol))
        rows_to = slice(max(0, drow), height - max(0, -drow))
        cols_to = slice(max(0, dcol), width - max(0, -dcol))
        ok = passable[rows_from, cols_from] & passable[rows_to, cols_to]
        length = math.hypot(drow, dcol)
        sources.append(index[rows_from, cols_from][ok])
        targets.append(index[rows_to, cols_to][ok])
        weights.append(length * (1.0 + cost_weight * cost[rows_to, cols_to][ok]))
    n = height * width
    return coo_matrix((np.concatenate(weights), (np.concatenate(sources),
                                                 np.concatenate(targets))), shape=(n, n))


def _line_is_clear(costmap: Costmap, a: Tuple[int, int], b: Tuple[int, int],
                   max_cost: float) -> bool:
    steps = max(abs(b[0] - a[0]), abs(b[1] - a[1]))
    if steps == 0:
        return True
    rows = np.rint(np.linspace(a[0], b[0], steps + 1)).astype(int)
    cols = np.rint(np.linspace(a[1], b[1], steps + 1)).astype(int)
    return bool(np.all(costmap.cost[rows, cols] <= max_cost))


def plan_path(costmap: Costmap, start: Point, goal: Point, cost_weight: float = 3.0,
              smoothing_max_cost: float = 0.3) -> List[Point]:
    """
    Return a path of map points from ``start`` to ``goal`` (both included).

    The path minimises length weighted by ``1 + cost_weight * cost`` over 8-connected cells and is
    then shortened by skipping corners wherever a straight segment stays on cells of cost at most
    ``smoothing_max_cost``. A start inside the inflated area is allowed to leave it.

    :raises NoPathError: if the goal is lethal or not connected to the start.
    """
    grid = costmap.grid
    start_cell = grid.cell_of(*start)
    goal_cell = grid.cell_of(*goal)
    if not grid.contains(*start_cell):
        raise NoPathError(f'start ({start[0]:.2f}, {start[1]:.2f}) is off the map')
    if costmap.is_lethal(*goal_cell):
        raise NoPathError(f'goal ({goal[0]:.2f}, {goal[1]:.2f}) is in or too close to an obstacle')
    width = grid.width
    cost = costmap.cost
    # Let a start that lies in the inflated area (after a bump, say) leave it.
    saved = cost[start_cell]
    cost[start_cell] = min(saved, 1.0) if math.isinf(saved) else saved
    try:
        graph = _graph(costmap, cost_weight).tocsr()
    finally:
        cost[start_cell] = saved
    start_index = start_cell[0] * width + start_cell[1]
    goal_index = goal_cell[0] * width + goal_cell[1]
    distances, predecessors = dijkstra(graph, indices=start_index, return_predecessors=True,
                                       min_only=False)
    if not math.isfinite(distances[goal_index]):
        raise NoPathError(f'no path to goal ({goal[0]:.2f}, {goal[1]:.2f})')
    cells: List[Tuple[int, int]] = []
    node = goal_index
    while node != start_index and node >= 0:
        cells.append(divmod(int(node), width))
        node = predecessors[node]
    cells.append(start_cell)
    cells.reverse()
    # Line-of-sight smoothing: keep a cell only where the straight segment would not be clear.
    kept = [cells[0]]
    anchor = 0
    for i in range(2, len(cells)):
        if not _line_is_clear(costmap, cells[anchor], cells[i], smoothing_max_cost):
            kept.append(cells[i - 1])
            anchor = i - 1
    if len(cells) > 1:
        kept.append(cells[-1])
    points = [grid.center_of(row, col) for row, col in kept]
    points[0] = (float(start[0]), float(start[1]))
    points[-1] = (float(goal[0]), float(goal[1]))
    return points
