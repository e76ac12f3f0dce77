"""Several robots in one world: batched stepping, collisions between robots, sensors."""

import math

import numpy as np
import pytest
from robot_sm.grid import OccupancyGrid, OCCUPIED, UNKNOWN
from robot_sm.planar import Pose2D
from robot_sm.sim import BaseSettings, DiffDriveBase, FleetBases, RangeSensor, SensorSettings


def open_room(size: int = 100, resolution: float = 0.05) -> OccupancyGrid:
    data = np.zeros((size, size), np.int8)
    data[0, :] = data[-1, :] = data[:, 0] = data[:, -1] = OCCUPIED
    return OccupancyGrid(data, resolution)


def test_a_batch_step_moves_every_robot_as_its_own_base_would() -> None:
    world = open_room()
    starts = [Pose2D(1.0, 1.0, 0.0), Pose2D(2.5, 2.5, 1.0), Pose2D(4.0, 1.0, math.pi / 2),
              Pose2D(1.0, 4.0, -2.0)]
    settings = BaseSettings(command_timeout=0.3)
    fleet = FleetBases(world, starts, settings)
    alone = [DiffDriveBase(world, pose, settings) for pose in starts]
    # Wheels, a twist, one into the north wall (y = 4.95), and one that goes silent.
    commands = [('wheels', (3.0, 7.0)), ('body', (0.3, -0.8)), ('body', (0.5, 0.0)),
                ('body', (0.0, 1.5))]
    t, dt = 0.0, 0.02
    for tick in range(400):
        for i, (kind, (a, b)) in enumerate(commands):
            if i == 3 and tick > 50:
                continue                                # robot 3 goes silent: the watchdog
            if kind == 'wheels':
                alone[i].command_wheels(a, b, t)
                fleet.command_wheels(i, a, b, t)
            else:
                alone[i].command_body(a, b, t)
                fleet.command_body(i, a, b, t)
        for base in alone:
            base.step(t, dt)
        fleet.step(t, dt)
        t += dt
        for i, base in enumerate(alone):
            assert fleet.pose(i).x == pytest.approx(base.pose.x, abs=1e-9), (tick, i)
            assert fleet.pose(i).y == pytest.approx(base.pose.y, abs=1e-9), (tick, i)
            assert fleet.pose(i).yaw == pytest.approx(base.pose.yaw, abs=1e-9), (tick, i)
            assert fleet.collided[i] == base.collided
            assert fleet.linear[i] == pytest.approx(base.linear, abs=1e-12)
            assert fleet.angular[i] == pytest.approx(base.angular, abs=1e-12)
    assert alone[2].collided and fleet.collided[2]          # the wall stopped robot 2
    assert fleet.linear[3] == 0.0 and fleet.angular[3] == 0.0  # the silent one stopped
    assert fleet.distance == pytest.approx([b.distance for b in alone])


def test_robots_driving_at_each_other_stop_before_their_discs_touch() -> None:
    fleet = FleetBases(open_room(), [Pose2D(1.5, 2.5, 0.0), Pose2D(3.5, 2.5, math.pi)],
                       BaseSettings(robot_radius=0.2))
    t = 0.0
    for _ in range(300):
        fleet.command_body(0, 0.5, 0.0, t)
        fleet.command_body(1, 0.5, 0.0, t)
        fleet.step(t, 0.02)
        t += 0.02
        assert fleet.x[1] - fleet.x[0] >= 0.4              # never overlapping
    assert fleet.collided.all()
    assert fleet.x[1] - fleet.x[0] == pytest.approx(0.4, abs=0.03)  # stopped touching
    assert (fleet.linear == 0.0).all()
    # Backing away is free.
    fleet.command_body(0, -0.5, 0.0, t)
    fleet.step(t, 0.02)
    assert not fleet.collided[0] and fleet.linear[0] == -0.5


def test_a_robot_stops_at_a_standing_robot_and_the_other_is_not_pushed() -> None:
    fleet = FleetBases(open_room(), [Pose2D(1.0, 2.5, 0.0), Pose2D(2.0, 2.5, 0.0)])
    t = 0.0
    for _ in range(200):
        fleet.command_body(0, 0.4, 0.0, t)
        fleet.step(t, 0.02)
        t += 0.02
    assert fleet.collided[0] and not fleet.collided[1]
    assert fleet.x[1] == 2.0
    assert 1.8 - 0.01 <= fleet.x[0] <= 1.8


def test_start_poses_must_be_free_and_apart() -> None:
    with pytest.raises(ValueError, match='robot 1 .* inside an obstacle'):
        FleetBases(open_room(), [Pose2D(1.0, 1.0, 0.0), Pose2D(0.02, 1.0, 0.0)])
    with pytest.raises(ValueError, match='robots 0 and 1 overlap'):
        FleetBases(open_room(), [Pose2D(1.0, 1.0, 0.0), Pose2D(1.1, 1.0, 0.0)])
    with pytest.raises(ValueError, match='at least one robot'):
        FleetBases(open_room(), [])


def test_the_range_sensor_sees_the_other_robots_and_not_behind_them() -> None:
    world = open_room()
    sensor = RangeSensor(SensorSettings(sensor_range=3.0, sensor_rays=4))
    me = Pose2D(1.0, 2.5, 0.0)
    # Rays at -pi, -pi/2, 0, pi/2: the one ahead (index 2) meets the robot at x = 2.0.
    others = np.array([[2.0, 2.5]])
    alone = sensor.ranges(world, me)
    seen = sensor.ranges(world, me, others, other_radius=0.1)
    assert alone[2] == math.inf                   # nothing within 3 m ahead without it
    # Readings come in half-cell steps (2.5 cm here).
    assert seen[2] == pytest.approx(0.9, abs=world.resolution)
    assert seen[0] == alone[0] == pytest.approx(0.975, abs=world.resolution)  # the wall
    known = world.blank_copy()
    sensor = RangeSensor(SensorSettings(sensor_range=3.0, sensor_rays=360))
    sensor.reveal(world, known, me, others, other_radius=0.1)
    assert known.value_at(1.5, 2.5) != UNKNOWN
    assert known.value_at(2.5, 2.5) == UNKNOWN    # hidden behind the other robot
    clear = world.blank_copy()
    sensor.reveal(world, clear, me)
    assert clear.value_at(2.5, 2.5) != UNKNOWN
