"""Differential drive and low-pass filter, with the seed's scenario."""

import numpy as np
import pytest

from robot_sm_control import (
    DifferentialDriveController, JointState, limited_wheel_velocities, LowPassFilterController,
    RobotState, RootState, SequentialController, wheel_velocities)

WHEELS = ['left_wheel_joint', 'right_wheel_joint']


def at_rest(space: list = WHEELS) -> RobotState:
    zeros = np.zeros(len(space))
    return RobotState(joints=JointState.from_name(space, positions=(space, zeros),
                                                  velocities=(space, zeros),
                                                  efforts=(space, zeros)))


def twist(v: float, w: float) -> RobotState:
    return RobotState(root=RootState(linear_velocity=[v, 0, 0], angular_velocity=[0, 0, w]))


def wheels_of(state: RobotState) -> np.ndarray:
    assert state.joints is not None and state.joints.velocity_names == WHEELS
    assert state.joints.positions is None and state.joints.efforts is None
    return state.joints.velocities


def test_reference_wheel_speeds() -> None:
    assert wheel_velocities(0.5, 1.0, 0.1, 0.4) == pytest.approx((3.0, 7.0))
    left, right = wheel_velocities(np.array([0.0, 0.2]), np.array([2.0, 0.0]), 0.1, 0.4)
    np.testing.assert_allclose(left, [-4.0, 2.0])
    np.testing.assert_allclose(right, [4.0, 2.0])


def test_controller_turns_a_root_twist_into_wheel_velocities() -> None:
    space = ['caster', 'left_wheel_joint', 'right_wheel_joint']
    drive = DifferentialDriveController(space, wheel_radius=0.1, wheel_base=0.4)
    assert drive.reset(at_rest(space), None, 0.0)
    out = drive.forward(at_rest(space), twist(0.5, 1.0), 0.0)
    assert out is not None and out.joints is not None
    assert out.joints.velocity_names == WHEELS
    np.testing.assert_allclose(out.joints.velocities, [3.0, 7.0])
    only_yaw = RobotState(root=RootState(angular_velocity=[0, 0, 1.0]))
    np.testing.assert_allclose(drive.forward(at_rest(space), only_yaw, 0.0).joints.velocities,
                               [-2.0, 2.0])


def test_controller_needs_a_root_setpoint_and_matching_joint_space() -> None:
    drive = DifferentialDriveController(WHEELS, 0.03, 0.1125)
    assert drive.forward(at_rest(), None, 0.0) is None
    assert drive.forward(at_rest(), RobotState(), 0.0) is None
    assert drive.forward(RobotState(), twist(0.1, 0.0), 0.0) is None
    assert drive.forward(at_rest(list(reversed(WHEELS))), twist(0.1, 0.0), 0.0) is None


@pytest.mark.parametrize('kwargs, message', [
    ({'wheel_radius': 0.0}, 'wheel_radius'), ({'wheel_base': -1.0}, 'wheel_base'),
    ({'wheel_radius': float('nan')}, 'wheel_radius'), ({'max_wheel_speed': 0.0}, 'max_wheel'),
    ({'wheel_joints': ['left_wheel_joint']}, '2 joints'),
    ({'wheel_joints': ['left_wheel_joint', 'nope']}, 'not in the control space'),
])
def test_controller_rejects_bad_configuration(kwargs: dict, message: str) -> None:
    config = {'wheel_radius': 0.03, 'wheel_base': 0.1125, **kwargs}
    with pytest.raises(ValueError, match=message):
        DifferentialDriveController(WHEELS, **config)


def test_speed_limit_scales_both_wheels_and_keeps_the_curvature() -> None:
    # r = 0.1, b = 0.4: 0.5 m/s and 1 rad/s give wheels 3 and 7 rad/s; within 3.5: 1.5 and 3.5.
    np.testing.assert_allclose(limited_wheel_velocities(0.5, 1.0, 0.1, 0.4, 3.5), [1.5, 3.5])
    np.testing.assert_allclose(limited_wheel_velocities(0.1, -0.5, 0.1, 0.4, 3.5), [2.0, 0.0])
    drive = DifferentialDriveController(WHEELS, 0.1, 0.4, max_wheel_speed=3.5)
    left, right = drive.forward(at_rest(), twist(0.5, 1.0), 0.0).joints.velocities
    # Curvature w / v of the base is (right - left) / (b (right + left) / 2): unchanged.
    assert (right - left) / (0.4 * (right + left) / 2) == pytest.approx(1.0 / 0.5)
    assert max(abs(left), abs(right)) == pytest.approx(3.5)
    assert limited_wheel_velocities(0.0, 0.0, 0.1, 0.4, 1.0) == (0.0, 0.0)


def test_filter_starts_from_the_estimated_state() -> None:
    lowpass = LowPassFilterController(WHEELS, alpha=0.5)
    moving = RobotState(joints=JointState.from_name(WHEELS, velocities=(WHEELS, [2.0, 4.0])))
    assert lowpass.forward(moving, twist(0, 0), 0.0) is None  # not reset
    assert lowpass.reset(moving, None, 0.0)
    setpoint = RobotState(joints=JointState.from_name(WHEELS, velocities=(WHEELS, [0.0, 0.0])))
    out = lowpass.forward(moving, setpoint, 0.1)
    np.testing.assert_allclose(wheels_of(out), [1.0, 2.0])
    np.testing.assert_allclose(wheels_of(lowpass.forward(moving, setpoint, 0.2)), [0.5, 1.0])


def test_filter_rejects_other_spaces_and_missing_joints() -> None:
    lowpass = LowPassFilterController(WHEELS, alpha=0.5)
    assert not lowpass.reset(RobotState(), None, 0.0)
    assert not lowpass.reset(at_rest(['a', 'b']), None, 0.0)
    assert lowpass.reset(at_rest(), None, 0.0)
    assert lowpass.forward(at_rest(), None, 0.0) is None
    assert lowpass.forward(at_rest(), twist(1, 0), 0.0) is None
    assert lowpass.forward(at_rest(), at_rest(['a', 'b']), 0.0) is None
    for alpha in (0.0, 1.5, -0.1):
        with pytest.raises(ValueError, match='alpha'):
            LowPassFilterController(WHEELS, alpha=alpha)
    with pytest.raises(ValueError, match='period'):
        LowPassFilterController(WHEELS, alpha=0.5, period=0.0)


def test_timed_filter_does_not_depend_on_the_call_rate() -> None:
    setpoint = RobotState(joints=JointState.from_name(WHEELS, velocities=(WHEELS, [1.0, 1.0])))
    coarse = LowPassFilterController(WHEELS, alpha=0.2, period=0.05)
    fine = LowPassFilterController(WHEELS, alpha=0.2, period=0.05)
    coarse.reset(at_rest(), None, 0.0)
    fine.reset(at_rest(), None, 0.0)
    for step in range(1, 11):
        out_coarse = coarse.forward(at_rest(), setpoint, 0.05 * step)
        for sub in range(1, 6):
            out_fine = fine.forward(at_rest(), setpoint, 0.05 * (step - 1) + 0.01 * sub)
    np.testing.assert_allclose(wheels_of(out_fine), wheels_of(out_coarse))
    np.testing.assert_allclose(wheels_of(out_coarse), 1.0 - 0.8 ** 10)


@pytest.mark.parametrize('alpha', [0.1, 0.01])
def test_seed_scenario_filter_cuts_wheel_noise_by_alpha_over_two_minus_alpha(
        alpha: float) -> None:
    """
    Noisy twist setpoints through the drive alone and through drive + low-pass filter.

    The seed's Jetbot (r = 0.03 m, b = 0.1125 m) follows v = 0.1 m/s, w = 1 rad/s with white noise
    of 0.1 m/s and 1 rad/s. A first-order low-pass y' = a x + (1 - a) y on white noise of
    variance s^2 has stationary variance s^2 a / (2 - a).
    """
    radius, base, v, w, sigma_v, sigma_w = 0.03, 0.1125, 0.1, 1.0, 0.1, 1.0
    rng = np.random.default_rng(20260611)
    burn_in, samples = int(10 / alpha), 20000
    drive = DifferentialDriveController(WHEELS, radius, base)
    filtered = SequentialController([DifferentialDriveController(WHEELS, radius, base),
                                     LowPassFilterController(WHEELS, alpha=alpha)])
    estimated = at_rest()
    assert drive.reset(estimated, None, 0.0) and filtered.reset(estimated, None, 0.0)
    # As in the seed loop, no setpoint yet: no command.
    assert drive.forward(estimated, None, 0.0) is None
    assert filtered.forward(estimated, None, 0.0) is None
    raw, smooth = [], []
    for step in range(burn_in + samples):
        setpoint = twist(v + rng.normal(0.0, sigma_v), w + rng.normal(0.0, sigma_w))
        t = 0.01 * step
        raw.append(wheels_of(drive.forward(estimated, setpoint, t)))
        smooth.append(wheels_of(filtered.forward(estimated, setpoint, t)))
    raw_arr, smooth_arr = np.array(raw)[burn_in:], np.array(smooth)[burn_in:]
    # Unfiltered wheel noise: var = (4 s_v^2 + b^2 s_w^2) / (2 r)^2 on both wheels.
    expected_raw = (4 * sigma_v ** 2 + base ** 2 * sigma_w ** 2) / (2 * radius) ** 2
    np.testing.assert_allclose(raw_arr.var(axis=0), expected_raw, rtol=4 * np.sqrt(2 / samples))
    # Filtered: the variance estimate of an AR(1) series with pole p = 1 - a has relative
    # standard deviation sqrt(2 (1 + p^2) / ((1 - p^2) N)); allow 4 of them.
    pole = 1.0 - alpha
    tolerance = 4 * np.sqrt(2 * (1 + pole ** 2) / ((1 - pole ** 2) * samples))
    ratio = smooth_arr.var(axis=0) / raw_arr.var(axis=0)
    np.testing.assert_allclose(ratio, alpha / (2 - alpha), rtol=tolerance)
    # The filter keeps the commanded motion: same mean wheel speeds (a steady left turn).
    mean_left, mean_right = wheel_velocities(v, w, radius, base)
    stderr = np.sqrt(expected_raw * alpha / (2 - alpha) * (1 + pole) / (1 - pole) / samples)
    np.testing.assert_allclose(smooth_arr.mean(axis=0), [mean_left, mean_right],
                               atol=5 * stderr)
