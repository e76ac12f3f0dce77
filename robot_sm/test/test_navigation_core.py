"""Built-in navigation: costmap inflation, shortest paths, pure pursuit on the simulated base."""

import math
import pathlib

import numpy as np
import pytest
from robot_sm.grid import load_map, OccupancyGrid, OCCUPIED, UNKNOWN
from robot_sm.navigation import Costmap, NavigatorConfig, NoPathError, plan_path, PurePursuit
from robot_sm.planar import Pose2D
from robot_sm.sim import BaseSettings, DiffDriveBase

WORLDS = pathlib.Path(__file__).resolve().parents[1] / 'config' / 'worlds'


def room_with_wall() -> OccupancyGrid:
    """Return a 5 m x 5 m room with a wall at x = 2.5 m that leaves a gap at the top."""
    data = np.zeros((100, 100), np.int8)
    data[0, :] = data[-1, :] = data[:, 0] = data[:, -1] = OCCUPIED
    data[:80, 50] = OCCUPIED
    return OccupancyGrid(data, 0.05)


def test_inflation_makes_cells_near_walls_lethal_and_costly() -> None:
    costmap = Costmap(room_with_wall(), robot_radius=0.15, inflation_radius=0.5)
    row = 40
    assert costmap.is_lethal(row, 50)
    assert costmap.is_lethal(row, 48)  # 0.1 m from the wall
    assert not costmap.is_lethal(row, 46)  # 0.2 m from the wall
    assert 0.0 < costmap.cost[row, 46] < 1.0
    assert costmap.cost[row, 25] == 0.0  # 1.25 m away
    assert costmap.is_lethal(-1, 3)  # off the map


def test_unknown_cells_are_allowed_or_lethal_by_choice() -> None:
    grid = room_with_wall()
    grid.data[40:60, 20:30] = UNKNOWN
    assert not Costmap(grid, 0.1, 0.3, allow_unknown=True).is_lethal(50, 25)
    assert Costmap(grid, 0.1, 0.3, allow_unknown=False).is_lethal(50, 25)


def test_path_goes_around_the_wall_through_the_gap() -> None:
    costmap = Costmap(room_with_wall(), robot_radius=0.15, inflation_radius=0.4)
    path = plan_path(costmap, (1.0, 1.0), (4.0, 1.0))
    assert path[0] == (1.0, 1.0) and path[-1] == (4.0, 1.0)
    assert max(y for _, y in path) > 4.0  # through the gap above y = 4 m
    # Every segment stays off lethal cells.
    for (x0, y0), (x1, y1) in zip(path, path[1:]):
        for s in np.linspace(0.0, 1.0, 50):
            row, col = costmap.grid.cell_of(x0 + s * (x1 - x0), y0 + s * (y1 - y0))
            assert not costmap.is_lethal(row, col)
    length = sum(math.dist(a, b) for a, b in zip(path, path[1:]))
    assert length < 9.5  # 1 -> gap -> 4 is about 8.1 m; smoothing keeps it near that
    assert len(path) < 12


def test_unreachable_goals_are_reported() -> None:
    grid = room_with_wall()
    grid.data[80:, 50] = OCCUPIED  # close the gap
    costmap = Costmap(grid, robot_radius=0.15, inflation_radius=0.3)
    with pytest.raises(NoPathError, match='no path'):
        plan_path(costmap, (1.0, 1.0), (4.0, 1.0))
    with pytest.raises(NoPathError, match='obstacle'):
        plan_path(costmap, (1.0, 1.0), (2.5, 1.0))


def drive(world: OccupancyGrid, start: Pose2D, goal: Pose2D, reverse: bool = False,
          seconds: float = 60.0) -> DiffDriveBase:
    costmap = Costmap(world, robot_radius=0.12, inflation_radius=0.35)
    base = DiffDriveBase(world, start, BaseSettings(robot_radius=0.1))
    follower = PurePursuit(NavigatorConfig(max_linear=0.4, yaw_tolerance=0.15))
    follower.set_path(plan_path(costmap, (start.x, start.y), (goal.x, goal.y)),
                      goal_yaw=goal.yaw, reverse=reverse)
    t, dt = 0.0, 0.05
    while t < seconds and not follower.done:
        command = follower.command(base.pose)
        base.command_body(command.linear, command.angular, t)
        base.step(t, dt)
        assert not base.collided
        t += dt
    assert follower.done, f'not there after {seconds} s: {base.pose}'
    return base


@pytest.mark.parametrize('reverse', [False, True])
def test_pure_pursuit_drives_the_simulated_base_to_the_goal(reverse: bool) -> None:
    goal = Pose2D(4.0, 1.0, math.pi / 2)
    base = drive(room_with_wall(), Pose2D(1.0, 1.0, 0.0), goal, reverse=reverse)
    assert base.pose.distance_to(goal) <= 0.1
    assert abs(math.remainder(base.pose.yaw - goal.yaw, 2 * math.pi)) <= 0.15


def test_office_world_crossing() -> None:
    world = load_map(WORLDS / 'office.yaml')
    base = drive(world, Pose2D(1.0, 1.0, 0.0), Pose2D(7.0, 5.0, 0.0), seconds=120.0)
    assert base.pose.distance_to(Pose2D(7.0, 5.0)) <= 0.1
