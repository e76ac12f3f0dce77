"""GridNavigator in closed loop with the simulated base: reach, fail, get unstuck, reverse."""

import math
import pathlib
from typing import Tuple

import numpy as np
import pytest
from robot_sm.grid import load_map, OccupancyGrid, OCCUPIED
from robot_sm.navigation import GridNavigator, NavigationStatus, NavigatorConfig
from robot_sm.planar import Pose2D
from robot_sm.sim import BaseSettings, DiffDriveBase

WORLDS = pathlib.Path(__file__).resolve().parents[1] / 'config' / 'worlds'
DT = 0.05


def run(navigator: GridNavigator, base: DiffDriveBase, seconds: float,
        allowed: bool = True) -> Tuple[NavigationStatus, str, float]:
    t = 0.0
    step = None
    navigator.set_allowed_to_move(allowed)
    while t < seconds:
        step = navigator.step(base.pose, t)
        if step.status != NavigationStatus.ACTIVE:
            return step.status, step.message, t
        if allowed:
            base.command_body(step.command.linear, step.command.angular, t)
        base.step(t, DT)
        t += DT
    assert step is not None
    return step.status, step.message, t


def office() -> OccupancyGrid:
    return load_map(WORLDS / 'office.yaml')


@pytest.mark.parametrize('reverse', [False, True])
def test_reaches_a_goal_in_another_room(reverse: bool) -> None:
    world = office()
    base = DiffDriveBase(world, Pose2D(1.0, 1.0, 0.0), BaseSettings(robot_radius=0.1))
    navigator = GridNavigator(NavigatorConfig(max_linear=0.4))
    navigator.set_map(world)
    goal = Pose2D(6.5, 5.0, math.pi)
    navigator.set_goal(goal, reverse=reverse)
    status, message, t = run(navigator, base, 120.0)
    assert status == NavigationStatus.SUCCEEDED, message
    assert base.pose.distance_to(goal) <= 0.1
    assert abs(math.remainder(base.pose.yaw - goal.yaw, 2 * math.pi)) <= 0.2
    assert not base.collided


def test_a_goal_inside_an_obstacle_fails_with_the_reason() -> None:
    world = office()
    navigator = GridNavigator()
    navigator.set_map(world)
    navigator.set_goal(Pose2D(4.1, 1.1, 0.0))  # the middle of the desk
    base = DiffDriveBase(world, Pose2D(1.0, 1.0, 0.0))
    status, message, t = run(navigator, base, 10.0)
    assert status == NavigationStatus.FAILED
    assert 'obstacle' in message and t < 1.0


def test_a_goal_near_a_wall_is_relaxed_when_allowed() -> None:
    world = office()
    base = DiffDriveBase(world, Pose2D(1.0, 1.0, 0.0), BaseSettings(robot_radius=0.1))
    config = NavigatorConfig(goal_relax_radius=0.3, use_goal_yaw=False)
    navigator = GridNavigator(config)
    navigator.set_map(world)
    navigator.set_goal(Pose2D(2.62, 1.5, 0.0))  # 8 cm from the room divider at x = 2.7 m
    status, message, _ = run(navigator, base, 60.0)
    assert status == NavigationStatus.SUCCEEDED, message
    assert base.pose.distance_to(Pose2D(2.62, 1.5)) < 0.35


def test_an_unmapped_obstacle_gets_one_unstuck_attempt_then_fails() -> None:
    world = office()
    # The real world has a box in the corridor that the navigator's map does not know about.
    real = OccupancyGrid(world.data.copy(), world.resolution)
    rows, cols = real.cell_of(3.0, 3.0)
    real.data[rows - 10:rows + 10, cols:cols + 4] = OCCUPIED
    base = DiffDriveBase(real, Pose2D(1.5, 3.0, 0.0), BaseSettings(robot_radius=0.1))
    config = NavigatorConfig(idle_timeout=2.0, unstuck_duration=1.0, replan_period=100.0)
    navigator = GridNavigator(config)
    navigator.set_map(world)
    navigator.set_goal(Pose2D(5.0, 3.0, 0.0))
    backed_off = []
    t = 0.0
    while t < 30.0:
        step = navigator.step(base.pose, t)
        if step.message == 'getting unstuck':
            backed_off.append(step.command.linear)
        if step.status != NavigationStatus.ACTIVE:
            break
        base.command_body(step.command.linear, step.command.angular, t)
        base.step(t, DT)
        t += DT
    assert step.status == NavigationStatus.FAILED
    assert 'stuck' in step.message
    assert backed_off and all(v < 0 for v in backed_off)  # it backed away, once
    assert len(backed_off) <= int(config.unstuck_duration / DT) + 1


def test_no_stuck_failure_while_the_mux_does_not_forward() -> None:
    world = office()
    base = DiffDriveBase(world, Pose2D(1.0, 1.0, 0.0))
    navigator = GridNavigator(NavigatorConfig(idle_timeout=1.0, unstuck_duration=0.5))
    navigator.set_map(world)
    navigator.set_goal(Pose2D(2.0, 1.0, 0.0))
    status, _, _ = run(navigator, base, 5.0, allowed=False)
    assert status == NavigationStatus.ACTIVE


def test_waits_for_a_map_and_replans_when_the_map_reveals_a_wall() -> None:
    truth = office()
    navigator = GridNavigator(NavigatorConfig(replan_period=100.0))
    base = DiffDriveBase(truth, Pose2D(1.0, 3.0, 0.0), BaseSettings(robot_radius=0.1))
    navigator.set_goal(Pose2D(4.0, 3.0, 0.0))
    assert navigator.step(base.pose, 0.0).message == 'waiting for a map'
    empty = OccupancyGrid(np.zeros_like(truth.data), truth.resolution)
    navigator.set_map(empty)
    navigator.step(base.pose, 0.0)
    straight = list(navigator.path)
    blocked = OccupancyGrid(empty.data.copy(), empty.resolution)
    row, col = blocked.cell_of(2.5, 3.0)
    blocked.data[row - 8:row + 8, col:col + 2] = OCCUPIED
    navigator.set_map(blocked)
    navigator.step(base.pose, 0.1)
    assert navigator.path != straight
    assert max(abs(y - 3.0) for _, y in navigator.path) > 0.3


def test_invalid_configuration_and_goals_are_refused() -> None:
    with pytest.raises(ValueError):
        GridNavigator(NavigatorConfig(idle_timeout=1.0, unstuck_duration=2.0))
    with pytest.raises(ValueError):
        GridNavigator().set_goal(Pose2D(math.nan, 0.0, 0.0))
