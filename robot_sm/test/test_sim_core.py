"""The kinematic simulation: diff-drive integration, collisions, range sensor, arm joints."""

import math

import numpy as np
import pytest
from robot_sm.grid import FREE, OccupancyGrid, OCCUPIED, UNKNOWN
from robot_sm.planar import Pose2D
from robot_sm.sim import BaseSettings, DiffDriveBase, RangeSensor, SensorSettings


def open_room(size: int = 100, resolution: float = 0.05) -> OccupancyGrid:
    data = np.zeros((size, size), np.int8)
    data[0, :] = data[-1, :] = data[:, 0] = data[:, -1] = OCCUPIED
    return OccupancyGrid(data, resolution)


def run(base: DiffDriveBase, seconds: float, dt: float = 0.01, t0: float = 0.0,
        wheels: tuple = (), body: tuple = ()) -> float:
    t = t0
    while t < t0 + seconds - 1e-9:
        if wheels:
            base.command_wheels(*wheels, t)
        if body:
            base.command_body(*body, t)
        base.step(t, dt)
        t += dt
    return t


def test_wheel_speeds_integrate_to_the_seed_kinematics() -> None:
    base = DiffDriveBase(open_room(), Pose2D(1.0, 2.5, 0.0),
                         BaseSettings(wheel_radius=0.1, wheel_base=0.4))
    # r=0.1, L=0.4: wheels 3.0 / 7.0 rad/s give v = 0.5 m/s and w = 1 rad/s.
    run(base, 1.0, wheels=(3.0, 7.0))
    assert base.linear == pytest.approx(0.5) and base.angular == pytest.approx(1.0)
    # An arc of radius 0.5 m turned through 1 rad.
    assert base.pose.x == pytest.approx(1.0 + 0.5 * math.sin(1.0), abs=1e-6)
    assert base.pose.y == pytest.approx(2.5 + 0.5 * (1 - math.cos(1.0)), abs=1e-6)
    assert base.pose.yaw == pytest.approx(1.0)
    assert base.distance == pytest.approx(0.5, rel=1e-3)


def test_the_base_stops_at_a_wall_instead_of_entering_it() -> None:
    base = DiffDriveBase(open_room(), Pose2D(2.5, 2.5, 0.0), BaseSettings(robot_radius=0.1))
    run(base, 10.0, body=(0.5, 0.0))
    # The wall's inner face is at x = 4.95; the disc's edge must not cross it.
    assert base.collided
    assert 4.95 - 0.1 - 0.06 <= base.pose.x <= 4.95 - 0.1
    assert base.linear == 0.0


def test_a_silent_command_stops_the_base_after_the_timeout() -> None:
    base = DiffDriveBase(open_room(), Pose2D(1.0, 1.0, 0.0), BaseSettings(command_timeout=0.5))
    base.command_body(0.2, 0.0, now=0.0)
    t = run(base, 2.0)
    assert base.pose.x == pytest.approx(1.0 + 0.2 * 0.5, abs=0.01)
    assert base.linear == 0.0 and t == pytest.approx(2.0)


def test_non_finite_commands_are_ignored() -> None:
    base = DiffDriveBase(open_room(), Pose2D(1.0, 1.0, 0.0))
    base.command_body(0.1, 0.0, 0.0)
    base.command_body(math.nan, 0.0, 0.0)
    base.command_body(0.0, math.inf, 0.0)
    base.step(0.0, 0.1)
    assert base.pose.x == pytest.approx(1.01)


def test_start_inside_an_obstacle_is_refused() -> None:
    with pytest.raises(ValueError, match='inside an obstacle'):
        DiffDriveBase(open_room(), Pose2D(0.02, 2.0, 0.0))


def test_range_sensor_reveals_up_to_the_first_wall_only() -> None:
    truth = open_room(size=60, resolution=0.1)
    truth.data[:, 30] = OCCUPIED  # a wall at x = 3.0..3.1 m
    known = truth.blank_copy()
    sensor = RangeSensor(SensorSettings(sensor_range=10.0, sensor_rays=720))
    revealed = sensor.reveal(truth, known, Pose2D(1.5, 3.0, 0.0))
    assert revealed > 0
    assert known.value_at(2.95, 3.0) == FREE
    assert known.value_at(3.05, 3.0) == OCCUPIED  # the wall itself is seen
    assert known.value_at(4.0, 3.0) == UNKNOWN  # nothing behind it
    left = known.data[1:-1, 1:30]
    assert (left == FREE).mean() > 0.95
    assert sensor.reveal(truth, known, Pose2D(1.5, 3.0, 0.0)) == 0


def test_range_sensor_field_of_view_and_range_limit() -> None:
    truth = open_room(size=100, resolution=0.1)
    known = truth.blank_copy()
    sensor = SensorSettings(sensor_range=2.0, sensor_fov=math.pi / 2, sensor_rays=200)
    RangeSensor(sensor).reveal(truth, known, Pose2D(5.0, 5.0, 0.0))
    assert known.value_at(6.5, 5.0) == FREE  # ahead, in range
    assert known.value_at(7.5, 5.0) == UNKNOWN  # ahead, out of range
    assert known.value_at(3.5, 5.0) == UNKNOWN  # behind
