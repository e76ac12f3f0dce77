"""The base controller's command path: wheel speeds, timeout, NaN rejection, filter from rest."""

import numpy as np
import pytest
from robot_sm.drive.wheel_commander import WheelCommander, WheelSettings
from robot_sm_control import (
    DifferentialDriveController,
    JointState,
    LowPassFilterController,
    RobotState,
    RootState,
    SequentialController,
)


def test_commander_is_silent_until_a_command_and_stops_on_timeout() -> None:
    commander = WheelCommander(WheelSettings(0.1, 0.4, command_timeout=0.5))
    np.testing.assert_array_equal(commander.update(0.0), [0.0, 0.0])
    assert commander.command(0.5, 1.0, 1.0)
    np.testing.assert_allclose(commander.update(1.0), [3.0, 7.0])
    np.testing.assert_allclose(commander.update(1.49), [3.0, 7.0])
    np.testing.assert_array_equal(commander.update(1.5), [0.0, 0.0])
    np.testing.assert_array_equal(commander.update(1.2), [0.0, 0.0])  # stays stopped


def test_commander_drops_non_finite_commands() -> None:
    commander = WheelCommander(WheelSettings(0.1, 0.4))
    assert commander.command(0.5, 1.0, 0.0)
    for bad in ((float('nan'), 0.0), (0.0, float('inf')), (0.0, 0.0, float('nan'))):
        assert not commander.command(*bad[:2], 0.1, *bad[2:])
        np.testing.assert_allclose(commander.update(0.1), [3.0, 7.0])
    assert commander.dropped_commands == 3
    np.testing.assert_array_equal(commander.update(0.6), [0.0, 0.0])  # NaN did not refresh


def test_commander_refuses_a_command_too_large_for_finite_wheel_speeds_without_a_limit() -> None:
    commander = WheelCommander(WheelSettings(0.1, 0.4))
    assert not commander.command(1e308, 0.0, 0.0)
    assert commander.refused_commands == 1
    limited = WheelCommander(WheelSettings(0.1, 0.4, max_wheel_speed=3.5))
    assert limited.command(1e308, 0.0, 0.0)
    np.testing.assert_allclose(limited.update(0.0), [3.5, 3.5])


def test_commander_treats_a_clock_jumping_back_as_a_timeout() -> None:
    commander = WheelCommander(WheelSettings(0.1, 0.4))
    commander.command(0.5, 0.0, 10.0)
    np.testing.assert_array_equal(commander.update(2.0), [0.0, 0.0])


def test_commander_stops_at_once_with_a_filter_and_restarts_it_from_rest() -> None:
    commander = WheelCommander(WheelSettings(0.1, 0.4, filter_alpha=0.5, command_timeout=0.5,
                                             max_wheel_speed=3.5), filter_period=0.1)
    commander.command(0.5, 1.0, 0.0)
    commander.update(0.0)
    np.testing.assert_allclose(commander.update(0.1), [0.75, 1.75])
    np.testing.assert_allclose(commander.update(0.2), [1.125, 2.625])
    np.testing.assert_array_equal(commander.update(0.5), [0.0, 0.0])  # not filtered down
    commander.command(0.5, 1.0, 1.0)
    commander.update(1.0)
    np.testing.assert_allclose(commander.update(1.1), [0.75, 1.75])


@pytest.mark.parametrize('max_wheel_speed, filter_alpha', [(0.0, 1.0), (3.0, 1.0), (0.0, 0.3),
                                                           (3.0, 0.3)])
def test_commander_gives_what_the_library_chain_gives(max_wheel_speed: float,
                                                      filter_alpha: float) -> None:
    """Differential drive then low-pass filter, as the controller library composes them."""
    wheels = ['left_wheel_joint', 'right_wheel_joint']
    commander = WheelCommander(WheelSettings(0.03, 0.1125, max_wheel_speed=max_wheel_speed,
                                             filter_alpha=filter_alpha), filter_period=0.05)
    drive = DifferentialDriveController(wheels, 0.03, 0.1125,
                                        max_wheel_speed=max_wheel_speed or None)
    chain = drive if filter_alpha == 1.0 else SequentialController(
        [drive, LowPassFilterController(wheels, filter_alpha, period=0.05)])
    at_rest = RobotState(joints=JointState.from_name(wheels, velocities=(wheels, [0.0, 0.0])))
    rng = np.random.default_rng(5)
    assert chain.reset(at_rest, None, 0.0)
    t = 0.0
    for linear, angular, dt in zip(rng.normal(0.1, 0.3, 200), rng.normal(0.0, 2.0, 200),
                                   rng.uniform(0.0, 0.1, 200)):
        assert commander.command(linear, angular, t)
        setpoint = RobotState(root=RootState(linear_velocity=(linear, 0.0, 0.0),
                                             angular_velocity=(0.0, 0.0, angular)))
        if t == 0.0:
            commander.update(t)
        expected = chain.forward(at_rest, setpoint, t + dt).joints.velocities
        np.testing.assert_allclose(commander.update(t + dt), expected, rtol=1e-12, atol=1e-12)
        t += dt


def test_commander_settings_are_checked_like_the_node_s_parameters() -> None:
    for timeout in (0.0, -1.0, float('inf')):
        with pytest.raises(ValueError, match='command_timeout'):
            WheelSettings(0.1, 0.4, command_timeout=timeout)
    with pytest.raises(ValueError, match='wheel_joint_names'):
        WheelSettings(wheel_joint_names=['left', 'left'])
