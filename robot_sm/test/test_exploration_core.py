"""Frontier search on hand-made grids: extraction, size filter, cost order, blacklist, the end."""

import math

import numpy as np
import pytest
from robot_sm.exploration import FrontierSearch, is_blacklisted, select_goal
from robot_sm.grid import FREE, OccupancyGrid, OCCUPIED, UNKNOWN
from robot_sm.planar import Pose2D


def grid_from(rows: list, resolution: float = 1.0) -> OccupancyGrid:
    """Build a grid from strings: '.' free, '#' occupied, '?' unknown; first string = top."""
    table = {'.': FREE, '#': OCCUPIED, '?': UNKNOWN}
    data = np.array([[table[c] for c in row] for row in reversed(rows)], np.int8)
    return OccupancyGrid(data, resolution)


def test_frontier_cells_border_reachable_free_space_only() -> None:
    grid = grid_from([
        '??????',
        '?...#?',
        '?...#?',
        '######',
        '?....?',  # free but not reachable from the robot above the wall
    ])
    frontiers = FrontierSearch(min_frontier_size=0.0).search(grid, Pose2D(1.5, 3.5))
    assert len(frontiers) == 1
    frontier = frontiers[0]
    # Top row above the 3 free columns, the left column beside the 2 free rows.
    assert frontier.cells == 5
    assert frontier.size == 5.0
    cells = {(1.5, 4.5), (2.5, 4.5), (3.5, 4.5), (0.5, 3.5), (0.5, 2.5)}
    assert frontier.middle in cells and frontier.nearest in cells
    assert frontier.distance == pytest.approx(1.0)


def test_small_frontiers_are_dropped() -> None:
    grid = grid_from([
        '#?######',
        '#......?',
        '#......?',
        '#......?',
        '########',
    ], resolution=0.5)
    search = FrontierSearch(min_frontier_size=1.0)
    frontiers = search.search(grid, Pose2D(1.0, 1.0))
    assert [f.cells for f in frontiers] == [3]  # the 1-cell gap at the top is too small


def test_cost_prefers_near_and_large_frontiers_in_metres() -> None:
    data = np.full((40, 40), FREE, np.int8)
    data[:, 0] = UNKNOWN  # a long frontier at x = 0
    data[39, 30:32] = UNKNOWN  # a short one near the robot
    grid = OccupancyGrid(data, 0.1)
    robot = Pose2D(3.0, 3.7)
    near_weighted = FrontierSearch(0.0, potential_scale=10.0, gain_scale=1.0).search(grid, robot)
    size_weighted = FrontierSearch(0.0, potential_scale=0.1, gain_scale=1.0).search(grid, robot)
    assert near_weighted[0].cells == 2 and size_weighted[0].cells == 40
    for frontier in near_weighted:
        # distance and size are both in metres: no extra resolution factor.
        assert frontier.cost == pytest.approx(10.0 * frontier.distance - frontier.size)
    assert near_weighted[0].distance == pytest.approx(math.hypot(0.05, 0.25), abs=1e-9)


def test_blacklisted_goals_are_skipped() -> None:
    data = np.full((20, 20), FREE, np.int8)
    data[:, 0] = UNKNOWN
    data[:, 19] = UNKNOWN
    grid = OccupancyGrid(data, 0.1)
    frontiers = FrontierSearch(0.0).search(grid, Pose2D(0.5, 1.0))
    assert len(frontiers) == 2
    best = frontiers[0]
    assert select_goal(frontiers, [], 0.3) == best
    assert select_goal(frontiers, [best.middle], 0.3) == frontiers[1]
    assert select_goal(frontiers, [f.middle for f in frontiers], 0.3) is None
    assert is_blacklisted((1.0, 1.0), [(1.2, 1.0)], 0.25)
    assert not is_blacklisted((1.0, 1.0), [(1.2, 1.2)], 0.25)  # Euclidean, not a box


def test_exploration_ends_when_no_frontier_is_left() -> None:
    grid = grid_from([
        '#####',
        '#...#',
        '#...#',
        '#####',
    ])
    assert FrontierSearch(0.0).search(grid, Pose2D(2.0, 2.0)) == []


def test_goal_faces_away_from_the_robot() -> None:
    data = np.full((10, 10), FREE, np.int8)
    data[:, 9] = UNKNOWN
    frontier = FrontierSearch(0.0).search(OccupancyGrid(data, 1.0), Pose2D(1.5, 5.0))[0]
    goal = frontier.goal(Pose2D(1.5, 5.0))
    assert (goal.x, goal.y) == frontier.middle
    assert goal.yaw == pytest.approx(math.atan2(goal.y - 5.0, goal.x - 1.5))
