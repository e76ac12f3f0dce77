"""Command scaling and clipping, control limits and the single-robot command controller."""

import numpy as np
import pytest

from robot_sm_control import (
    CommandController, ControlLimits, ControlType, DifferentialDriveLaw, JOINT_POSITION,
    JOINT_VELOCITY, JointLaw)
from robot_sm_control.limits import make_scaling

INF = np.inf


def arm_limits() -> ControlLimits:
    """Three DOFs: two limited joints and a continuous one (index 2)."""
    return ControlLimits(position=([-1.0, -2.0, -INF], [1.0, 2.0, INF]),
                         velocity=([-0.5, -0.5, -1.0], [0.5, 0.5, 1.0]),
                         effort=([-10.0, -10.0, -5.0], [10.0, 10.0, 5.0]),
                         has_limit=[True, True, False])


def arm_state(position: list = (0.0, 0.0, 0.0), velocity: list = (0.0, 0.0, 0.0)) -> dict:
    return {JOINT_POSITION: np.array(position, dtype=float),
            JOINT_VELOCITY: np.array(velocity, dtype=float),
            'joint_effort': np.zeros(3)}


def no_default() -> None:
    raise AssertionError('default output limits must not be asked for')


def test_reference_scaling_vectors() -> None:
    scaling = make_scaling(1, 'default', (-0.2, 0.2), no_default)
    np.testing.assert_allclose(scaling.preprocess(np.array([0.5, 2.0, -3.0])), [0.1, 0.2, -0.2])
    scaling = make_scaling(1, (-1.0, 1.0), (0.0, 10.0), no_default)
    np.testing.assert_allclose(scaling.preprocess(np.array([-1.0, 0.0, 1.0])), [0.0, 5.0, 10.0])


def test_scaling_off_and_clip_only() -> None:
    unscaled = make_scaling(2, None, (0.0, 10.0), no_default)
    np.testing.assert_array_equal(unscaled.preprocess(np.array([5.0, -7.0])), [5.0, -7.0])
    clip_only = make_scaling(2, (-1.0, [1.0, 3.0]), None, no_default)
    np.testing.assert_array_equal(clip_only.preprocess(np.array([5.0, 5.0])), [1.0, 3.0])


def test_scaling_works_per_dimension() -> None:
    scaling = make_scaling(2, 'default', ([0.0, -4.0], [2.0, 4.0]), no_default)
    np.testing.assert_allclose(scaling.preprocess(np.array([[1.0, 0.5], [-1.0, -1.0]])),
                               [[2.0, 2.0], [0.0, -4.0]])


@pytest.mark.parametrize('limits, message', [
    ((1.0, 1.0), 'below'), ((1.0, -1.0), 'below'), ((0.0, np.nan), 'finite'),
    ('maximum', "'default'"), ((0.0, [1.0, 2.0, 3.0]), '2 elements'), ((0.0,), 'pair'),
])
def test_scaling_rejects_unusable_limits(limits: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_scaling(2, limits, None, no_default)


def test_control_type_names() -> None:
    assert ControlType.from_name('Velocity') is ControlType.VELOCITY
    assert (ControlType.NONE, ControlType.POSITION, ControlType.EFFORT) == (-1, 0, 2)
    for bad in ('torque', 'none', 3):
        with pytest.raises(ValueError, match='unknown control type'):
            ControlType.from_name(bad)


def test_control_limits_validation() -> None:
    with pytest.raises(ValueError, match='has_limit'):
        ControlLimits(([0], [1]), ([0], [1]), ([0], [1]), has_limit=[1])
    with pytest.raises(ValueError, match='velocity limits lower'):
        ControlLimits(([0], [1]), ([0, 0], [1, 1]), ([0], [1]), has_limit=[True])
    with pytest.raises(ValueError, match='above'):
        ControlLimits(([0], [1]), ([2], [1]), ([0], [1]), has_limit=[True])


def test_position_control_clips_only_limited_dofs() -> None:
    law = JointLaw(arm_limits(), [0, 1, 2], 'position')
    np.testing.assert_array_equal(law.clip_control(np.array([[5.0, -5.0, 100.0]])),
                                  [[1.0, -2.0, 100.0]])
    velocity = JointLaw(arm_limits(), [0, 1, 2], 'velocity')
    np.testing.assert_array_equal(velocity.clip_control(np.array([[5.0, -5.0, 100.0]])),
                                  [[0.5, -0.5, 1.0]])
    effort = JointLaw(arm_limits(), [2], 'effort')
    np.testing.assert_array_equal(effort.clip_control(np.array([[100.0]])), [[5.0]])


def test_no_goal_holds_the_current_position_and_goals_are_sticky() -> None:
    controller = CommandController(JointLaw(arm_limits(), [0, 1], 'position'))
    assert controller.goal is None
    np.testing.assert_allclose(controller.step(arm_state([0.3, -0.4, 9.0])), [0.3, -0.4])
    # The no-op goal was kept: the arm sagging does not move the target.
    np.testing.assert_allclose(controller.step(arm_state([0.2, -0.5, 9.0])), [0.3, -0.4])
    controller.update_goal([0.5, 0.5], arm_state())  # default scaling: (-1, 1) -> limits
    for _ in range(3):
        np.testing.assert_allclose(controller.step(arm_state([0.9, 0.9, 0.0])), [0.5, 1.0])
    controller.reset()
    assert controller.goal is None and controller.control is None
    np.testing.assert_allclose(controller.step(arm_state([0.9, 0.9, 0.0])), [0.9, 0.9])


def test_delta_commands_add_to_the_current_value_and_clip_to_motor_limits() -> None:
    law = JointLaw(arm_limits(), [0, 2], 'position', use_delta_commands=True)
    controller = CommandController(law, command_input_limits=None, command_output_limits=None)
    controller.update_goal([0.5, 0.5], arm_state([0.7, 0.0, 10.0]))
    np.testing.assert_allclose(controller.goal['target'], [1.0, 10.5])
    np.testing.assert_allclose(controller.step(arm_state()), [1.0, 10.5])
    with pytest.raises(ValueError, match="'default' is not allowed with delta"):
        CommandController(law)
    scaled = CommandController(law, command_output_limits=(-0.2, 0.2))
    scaled.update_goal([0.5, -1.0], arm_state([0.0, 0.0, 1.0]))
    np.testing.assert_allclose(scaled.goal['target'], [0.1, 0.8])


def test_effort_control_holds_with_zero_effort_without_a_goal() -> None:
    state = arm_state([0.4, 0.2, 0.0], [0.25, -0.1, 0.0])
    effort = CommandController(JointLaw(arm_limits(), [0, 1], 'effort'))
    np.testing.assert_allclose(effort.step(state), [0.0, 0.0])  # no-op goal: zero effort


def test_update_goal_rejects_bad_commands_and_keeps_the_goal() -> None:
    controller = CommandController(JointLaw(arm_limits(), [0, 1], 'position'))
    controller.update_goal([0.5, 0.5], arm_state())
    for bad in ([0.5], [0.5, 0.5, 0.5], [np.nan, 0.0]):
        with pytest.raises(ValueError):
            controller.update_goal(bad, arm_state())
    np.testing.assert_allclose(controller.goal['target'], [0.5, 1.0])
    delta = CommandController(JointLaw(arm_limits(), [0, 1], 'position', True), None, None)
    with pytest.raises(ValueError, match='finite'):
        delta.update_goal([0.1, 0.1], arm_state([np.nan, 0.0, 0.0]))
    assert delta.goal is None


def test_step_refuses_a_non_finite_state() -> None:
    controller = CommandController(JointLaw(arm_limits(), [0, 1], 'position'))
    with pytest.raises(ValueError, match='not finite'):
        controller.step(arm_state([np.nan, 0.0, 0.0]))
    assert controller.goal is None and controller.control is None
    with pytest.raises(KeyError, match='joint_position'):
        controller.step({JOINT_VELOCITY: np.zeros(3)})


def test_bad_dof_indices_and_motor_types() -> None:
    with pytest.raises(ValueError, match='dof_idx'):
        JointLaw(arm_limits(), [0, 3])
    with pytest.raises(ValueError, match='duplicate'):
        JointLaw(arm_limits(), [1, 1])
    with pytest.raises(ValueError, match='unknown control type'):
        JointLaw(arm_limits(), [0], 'torque')


def wheel_limits(upper: float = 10.0, lower: float = -10.0) -> ControlLimits:
    return ControlLimits(position=([-INF] * 2, [INF] * 2),
                         velocity=([lower, -10.0], [upper, 10.0]),
                         effort=([-1.0] * 2, [1.0] * 2), has_limit=[False, False])


def test_differential_drive_law_reference_vector() -> None:
    law = DifferentialDriveLaw(wheel_limits(), [0, 1], wheel_radius=0.1, wheel_axle_length=0.4)
    controller = CommandController(law, None, None)
    controller.update_goal([0.5, 1.0], {})
    np.testing.assert_allclose(controller.step({JOINT_VELOCITY: np.zeros(2)}), [3.0, 7.0])
    np.testing.assert_array_equal(CommandController(law).step({JOINT_VELOCITY: np.zeros(2)}),
                                  [0.0, 0.0])


def test_differential_drive_default_limits_span_the_wheel_capability() -> None:
    law = DifferentialDriveLaw(wheel_limits(), [0, 1], wheel_radius=0.1, wheel_axle_length=0.4)
    controller = CommandController(law)  # (-1, 1) -> (+-1 m/s, +-5 rad/s)
    lower, upper = controller.scaling.output_limits
    np.testing.assert_allclose(upper, [1.0, 5.0])
    np.testing.assert_allclose(lower, [-1.0, -5.0])
    controller.update_goal([1.0, 0.0], {})
    np.testing.assert_allclose(controller.step({JOINT_VELOCITY: np.zeros(2)}), [10.0, 10.0])
    controller.update_goal([0.5, 0.5], {})
    np.testing.assert_allclose(controller.step({JOINT_VELOCITY: np.zeros(2)}), [0.0, 10.0])
    controller.update_goal([1.0, 1.0], {})  # beyond the wheels: clipped to their limits
    np.testing.assert_allclose(controller.step({JOINT_VELOCITY: np.zeros(2)}), [0.0, 10.0])
    for limits in (wheel_limits(upper=5.0), wheel_limits(lower=-5.0)):
        with pytest.raises(ValueError, match='symmetric'):
            CommandController(DifferentialDriveLaw(limits, [0, 1], 0.1, 0.4))
    with pytest.raises(ValueError, match='left, right'):
        DifferentialDriveLaw(wheel_limits(), [0], 0.1, 0.4)
