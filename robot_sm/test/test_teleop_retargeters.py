"""Clutch, wrist roll, gripper and reorderer: the reference vectors and the safety rules."""

import logging
import math
from typing import Optional, Sequence

import numpy as np
import pytest
from robot_sm.teleop import quaternion
from robot_sm.teleop.clutch import ClutchRetargeter, EE_POSE_ELEMENTS
from robot_sm.teleop.controller import ControllerSample
from robot_sm.teleop.execution import ComputeContext, ExecutionEvents, ExecutionState
from robot_sm.teleop.gripper import closedness, GripperRetargeter
from robot_sm.teleop.reorderer import TensorReorderer
from robot_sm.teleop.roll import RollRetargeter, wrap_angle
from scipy.spatial.transform import Rotation

STOPPED, PAUSED, RUNNING = ExecutionState.STOPPED, ExecutionState.PAUSED, ExecutionState.RUNNING
IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])
Z = np.array([0.0, 0.0, 1.0])


def ctx(state: ExecutionState = RUNNING, reset: bool = False) -> ComputeContext:
    return ComputeContext(0.0, ExecutionEvents(reset=reset, state=state))


def grip(position: Sequence[float] = (0.0, 0.0, 0.0), orientation: np.ndarray = IDENTITY,
         squeeze: float = 1.0, valid: bool = True, trigger: float = 0.0) -> ControllerSample:
    return ControllerSample(grip_position=np.array(position, dtype=float),
                            grip_orientation=np.asarray(orientation, dtype=float),
                            grip_is_valid=valid, squeeze_value=squeeze, trigger_value=trigger)


def rot(axis: str, angle: float) -> np.ndarray:
    """Return the xyzw quaternion of an elementary rotation (scipy, the reference)."""
    return Rotation.from_euler(axis, angle).as_quat()


def pose(transform_rotation: np.ndarray, translation: Sequence[float]) -> np.ndarray:
    return quaternion.transform(np.array(translation, dtype=float), transform_rotation)


# --- clutch -----------------------------------------------------------------------------------

def clutch_step(clutch: ClutchRetargeter, sample: Optional[ControllerSample],
                context: Optional[ComputeContext] = None, ee: Optional[np.ndarray] = None,
                base: Optional[np.ndarray] = None) -> np.ndarray:
    out = clutch.compute({'controller': sample, 'robot_ee_pose': ee, 'robot_base_pose': base},
                         context or ctx())['ee_pose']
    assert out.shape == (7,) and np.all(np.isfinite(out))
    return out


def test_engaging_emits_home_exactly_then_follows_the_scaled_delta() -> None:
    clutch = ClutchRetargeter('c', (0.1, 0.2, 0.3), position_scale=0.5)
    assert np.allclose(clutch_step(clutch, grip((5, -3, 2)))[:3], (0.1, 0.2, 0.3), atol=0)
    assert clutch.is_engaged
    assert np.allclose(clutch_step(clutch, grip((5.4, -3, 2)))[:3], (0.3, 0.2, 0.3))


def test_no_jump_on_re_engage_and_gaps_do_not_move_the_target() -> None:
    clutch = ClutchRetargeter('c', (0.0, 0.0, 0.0))
    clutch_step(clutch, grip((1, 1, 1)))
    moved = clutch_step(clutch, grip((1.2, 1, 1)))[:3]
    # Squeeze released, hand wanders: target holds.
    for position in ((3, 3, 3), (-2, 0, 1)):
        assert np.array_equal(clutch_step(clutch, grip(position, squeeze=0.0))[:3], moved)
    assert not clutch.is_engaged
    # Re-squeeze far away: resumes from where it was, then relative motion again.
    assert np.allclose(clutch_step(clutch, grip((-2, 0, 1)))[:3], moved)
    assert np.allclose(clutch_step(clutch, grip((-2, 0, 1.1)))[:3], moved + (0, 0, 0.1))


@pytest.mark.parametrize('state', [STOPPED, PAUSED, ExecutionState.UNKNOWN])
def test_only_running_engages(state: ExecutionState) -> None:
    clutch = ClutchRetargeter('c', (0.1, 0.2, 0.3))
    for x in (0.0, 1.0, 2.0):
        assert np.allclose(clutch_step(clutch, grip((x, 0, 0)), ctx(state))[:3], (0.1, 0.2, 0.3))
    assert not clutch.is_engaged


def test_pause_while_squeezing_re_latches_on_resume() -> None:
    clutch = ClutchRetargeter('c', (0.0, 0.0, 0.0))
    clutch_step(clutch, grip((0, 0, 0)))
    assert np.allclose(clutch_step(clutch, grip((1, 0, 0)))[:3], (1, 0, 0))
    clutch_step(clutch, grip((5, 0, 0)), ctx(PAUSED))
    assert np.allclose(clutch_step(clutch, grip((5, 0, 0)))[:3], (1, 0, 0))


def test_squeeze_threshold_is_strict() -> None:
    clutch = ClutchRetargeter('c', (0.0, 0.0, 0.0))
    clutch_step(clutch, grip(squeeze=0.5))
    assert not clutch.is_engaged
    clutch_step(clutch, grip(squeeze=0.51))
    assert clutch.is_engaged
    clutch_step(clutch, grip(squeeze=float('nan')))
    assert not clutch.is_engaged


def test_without_require_squeeze_running_alone_engages() -> None:
    clutch = ClutchRetargeter('c', (0.0, 0.0, 0.0), require_squeeze=False)
    clutch_step(clutch, grip(squeeze=0.0))
    assert clutch.is_engaged


def test_base_rotation_maps_world_deltas_into_the_base_frame() -> None:
    # Base yawed +90°: a hand move along world +Y is base +X; world +X is base -Y.
    base = pose(rot('z', math.pi / 2), (2.0, 1.0, 0.0))
    clutch = ClutchRetargeter('c', (0.2, 0.0, 0.1))
    clutch_step(clutch, grip((0, 0, 0)), base=base)
    assert np.allclose(clutch_step(clutch, grip((0, 0.1, 0)), base=base)[:3], (0.3, 0.0, 0.1))
    assert np.allclose(clutch_step(clutch, grip((0.1, 0, 0)), base=base)[:3], (0.2, -0.1, 0.1))
    # The orientation is the grip's, expressed in the base frame.
    out = clutch_step(clutch, grip((0.1, 0, 0), rot('z', math.pi / 2)), base=base)
    assert np.allclose(np.abs(out[3:]), IDENTITY, atol=1e-9)


def test_measured_ee_gives_the_home_in_the_base_frame() -> None:
    base = pose(rot('z', math.pi / 2), (1.0, 0.0, 0.0))
    ee_world = pose(IDENTITY, (1.0, 0.3, 0.09))   # 0.3 m along the base's +X
    clutch = ClutchRetargeter('c', (0.0, 0.0, 0.0))
    assert np.allclose(clutch_step(clutch, grip((4, 4, 4)), ee=ee_world, base=base)[:3],
                       (0.3, 0.0, 0.09))
    # Without a base pose, world and base coincide.
    clutch = ClutchRetargeter('c', (0.0, 0.0, 0.0))
    assert np.allclose(clutch_step(clutch, grip((4, 4, 4)), ee=pose(IDENTITY, (0.3, 0.05, 0.09)))
                       [:3], (0.3, 0.05, 0.09))


def test_malformed_measurement_blocks_the_latch() -> None:
    clutch = ClutchRetargeter('c', (0.1, 0.2, 0.3))
    sheared = np.eye(4)
    sheared[0, 1] = 0.2
    for bad in (np.full((4, 4), np.nan), sheared, np.diag([2.0, 2.0, 2.0, 1.0])):
        assert np.allclose(clutch_step(clutch, grip((1, 0, 0)), base=bad)[:3], (0.1, 0.2, 0.3))
        assert not clutch.is_engaged
        assert np.allclose(clutch_step(clutch, grip((1, 0, 0)), ee=bad)[:3], (0.1, 0.2, 0.3))
        assert not clutch.is_engaged


@pytest.mark.parametrize('bad', [
    None,
    grip(valid=False),
    grip((math.nan, 0, 0)),
    grip((math.inf, 0, 0)),
    grip(orientation=np.zeros(4)),
    grip(orientation=np.array([0.0, 0.0, 0.0, math.nan])),
])
def test_dropped_or_invalid_frames_hold_the_pose_and_re_arm(
        bad: Optional[ControllerSample]) -> None:
    clutch = ClutchRetargeter('c', (0.0, 0.0, 0.0))
    clutch_step(clutch, grip((0, 0, 0)))
    held = clutch_step(clutch, grip((0.1, 0, 0)))
    for _ in range(3):
        assert np.array_equal(clutch_step(clutch, bad), held)
    assert not clutch.is_engaged
    # Released and re-squeezed inside the gap at another place: no jump.
    assert np.allclose(clutch_step(clutch, grip((0.7, 0.5, 0))), held)


def test_reset_restores_the_configured_home_and_may_latch_in_the_same_tick() -> None:
    clutch = ClutchRetargeter('c', (0.1, 0.2, 0.3))
    clutch_step(clutch, grip((0, 0, 0)))
    clutch_step(clutch, grip((0.5, 0, 0)))
    out = clutch_step(clutch, grip((0.5, 0, 0)), ctx(RUNNING, reset=True))
    assert np.allclose(out, (0.1, 0.2, 0.3, 0, 0, 0, 1))
    assert clutch.is_engaged
    out = clutch_step(clutch, None, ctx(STOPPED, reset=True))
    assert np.allclose(out, (0.1, 0.2, 0.3, 0, 0, 0, 1))


@pytest.mark.parametrize('kwargs, field', [
    ({'position_scale': 0.0}, 'position_scale'),
    ({'position_scale': -1.0}, 'position_scale'),
    ({'position_scale': math.inf}, 'position_scale'),
    ({'position_scale': math.nan}, 'position_scale'),
    ({'squeeze_threshold': 1.0}, 'squeeze_threshold'),
    ({'squeeze_threshold': -0.1}, 'squeeze_threshold'),
    ({'home_position': (0.0, 0.0)}, 'home_position'),
    ({'home_position': (0.0, math.nan, 0.0)}, 'home_position'),
])
def test_clutch_rejects_bad_configuration(kwargs: dict, field: str) -> None:
    arguments = {'home_position': (0.1, 0.2, 0.3), **kwargs}
    with pytest.raises(ValueError, match=field):
        ClutchRetargeter('c', **arguments)


# --- roll -------------------------------------------------------------------------------------

@pytest.mark.parametrize('angle', [0.3, 1.0, -0.7, 2.5, -2.5, math.pi - 1e-6, -(math.pi - 1e-6)])
def test_twist_recovers_pure_z_rotations_including_near_180_degrees(angle: float) -> None:
    assert quaternion.twist_angle(rot('z', angle), Z) == pytest.approx(angle, abs=1e-9)
    # Sign flip of the quaternion (same rotation) gives the same twist.
    assert quaternion.twist_angle(-rot('z', angle), Z) == pytest.approx(angle, abs=1e-9)


def test_twist_reference_vectors() -> None:
    assert quaternion.twist_angle(IDENTITY, Z) == 0.0
    assert quaternion.twist_angle(rot('x', 0.9), Z) == pytest.approx(0.0, abs=1e-12)
    assert quaternion.twist_angle(rot('y', 0.9), Z) == pytest.approx(0.0, abs=1e-12)
    assert quaternion.twist_angle(rot('x', math.pi), Z) == 0.0   # pure 180° swing
    assert quaternion.twist_angle(
        (Rotation.from_euler('z', 0.8) * Rotation.from_euler('x', 0.5)).as_quat(), Z
    ) == pytest.approx(0.8, abs=1e-9)
    skew = Rotation.from_rotvec(0.6 * np.array([1.0, 0.0, 0.4]) / np.linalg.norm([1, 0, 0.4]))
    twisted = (Rotation.from_euler('z', 0.8) * skew).as_quat()
    assert quaternion.twist_angle(twisted, Z) == pytest.approx(1.02877, abs=1e-4)


def test_quaternion_helpers_match_scipy() -> None:
    rng = np.random.default_rng(1)
    for r in list(Rotation.random(50, random_state=2)) + [Rotation.from_euler('x', math.pi),
                                                          Rotation.from_euler('y', math.pi)]:
        q = r.as_quat()
        other = Rotation.from_quat(rng.normal(size=4))
        assert np.allclose(quaternion.to_matrix(q), r.as_matrix())
        product = quaternion.multiply(q, other.as_quat())
        assert np.allclose(quaternion.to_matrix(product), (r * other).as_matrix())
        back = quaternion.from_matrix(r.as_matrix())
        assert back[3] >= 0 and np.allclose(quaternion.to_matrix(back), r.as_matrix())


def roll_step(roll: RollRetargeter, sample: Optional[ControllerSample],
              context: Optional[ComputeContext] = None) -> float:
    value = roll.compute({'controller': sample}, context or ctx())['roll_command']
    assert math.isfinite(value)
    return value


def test_world_z_roll_follows_rotation_about_world_z_from_the_engage_pose() -> None:
    roll = RollRetargeter('r')
    start = rot('x', 0.4)   # tilted grip; twist about world Z is measured regardless
    assert roll_step(roll, grip(orientation=start)) == 0.0
    for angle in (0.4, -1.1, 2.0, 3.1):
        turned = quaternion.multiply(rot('z', angle), start)
        assert roll_step(roll, grip(orientation=turned)) == pytest.approx(angle, abs=1e-9)


def test_world_z_roll_near_180_degrees_is_well_conditioned() -> None:
    roll = RollRetargeter('r')
    roll_step(roll, grip())
    for angle in (math.pi - 1e-3, math.pi - 1e-7, -(math.pi - 1e-7)):
        assert roll_step(roll, grip(orientation=rot('z', angle))) == pytest.approx(angle, abs=1e-6)


def test_body_z_roll_ignores_heading_and_tilt() -> None:
    base = rot('y', math.pi / 2)
    world_roll, body_roll = RollRetargeter('w'), RollRetargeter('b', twist_axis='body_z')
    for r in (world_roll, body_roll):
        roll_step(r, grip(orientation=base))
    about_body_z = quaternion.multiply(base, rot('z', 0.5))
    assert roll_step(body_roll, grip(orientation=about_body_z)) == pytest.approx(0.5, abs=1e-9)
    about_body_x = quaternion.multiply(base, rot('x', 0.5))
    assert roll_step(body_roll, grip(orientation=about_body_x)) == pytest.approx(0.0, abs=1e-9)
    heading = quaternion.multiply(rot('z', 0.7), base)
    assert roll_step(world_roll, grip(orientation=heading)) == pytest.approx(0.7, abs=1e-9)


def test_roll_holds_when_disengaged_and_resumes_without_a_jump() -> None:
    roll = RollRetargeter('r', roll_offset=0.2)
    assert roll_step(roll, grip(), ctx(STOPPED)) == 0.2
    roll_step(roll, grip())
    assert roll_step(roll, grip(orientation=rot('z', 0.6))) == pytest.approx(0.8)
    # Released, hand turned further: held. Re-engaged at the new orientation: continues.
    assert roll_step(roll, grip(orientation=rot('z', 1.5), squeeze=0.0)) == pytest.approx(0.8)
    assert roll_step(roll, grip(orientation=rot('z', 1.5))) == pytest.approx(0.8)
    assert roll_step(roll, grip(orientation=rot('z', 1.2))) == pytest.approx(0.5)
    assert roll_step(roll, grip(orientation=rot('z', 1.2)), ctx(RUNNING, reset=True)) == 0.2


@pytest.mark.parametrize('bad', [
    None, grip(valid=False, orientation=rot('z', 1.0)), grip(orientation=np.zeros(4)),
    grip(orientation=np.array([math.nan, 0, 0, 1.0])),
    grip(orientation=rot('z', 1.0), squeeze=0.2),
])
def test_roll_validity_gates(bad: Optional[ControllerSample]) -> None:
    roll = RollRetargeter('r')
    roll_step(roll, grip())
    held = roll_step(roll, grip(orientation=rot('z', 0.3)))
    assert roll_step(roll, bad) == pytest.approx(held)
    # The zero or NaN quaternion was not latched as reference: engaging again continues.
    assert roll_step(roll, grip(orientation=rot('z', -1.0))) == pytest.approx(held)


def test_roll_wrapping_is_optional() -> None:
    free, wrapped = RollRetargeter('f'), RollRetargeter('w', wrap_roll=True)
    for r in (free, wrapped):
        for angle in (0.0, 3.0):   # engage, turn 3 rad
            roll_step(r, grip(orientation=rot('z', angle)))
        roll_step(r, grip(orientation=rot('z', 3.0), squeeze=0.0))
        roll_step(r, grip())        # re-engage at 0
        roll_step(r, grip(orientation=rot('z', 1.0)))
    assert roll_step(free, grip(orientation=rot('z', 1.0))) == pytest.approx(4.0)
    assert roll_step(wrapped, grip(orientation=rot('z', 1.0))) == pytest.approx(4.0 - 2 * math.pi)
    assert wrap_angle(-math.pi) == math.pi


def test_roll_rejects_bad_configuration() -> None:
    with pytest.raises(ValueError, match='twist_axis'):
        RollRetargeter('r', twist_axis='aim')
    with pytest.raises(ValueError, match='roll_sign'):
        RollRetargeter('r', roll_sign=0.5)
    with pytest.raises(ValueError, match='roll_offset'):
        RollRetargeter('r', roll_offset=math.nan)


# --- gripper ----------------------------------------------------------------------------------

@pytest.mark.parametrize('trigger, expected', [
    (0.0, 0.0), (0.05, 0.0), (0.04, 0.0), (0.1, 0.05263), (0.5, 0.47368), (0.525, 0.5),
    (1.0, 1.0), (1.2, 1.0), (-0.3, 0.0),
])
def test_gripper_deadzone_vectors(trigger: float, expected: float) -> None:
    assert closedness(trigger) == pytest.approx(expected, abs=1e-5)


def test_gripper_holds_on_absent_or_nan_and_reset_opens() -> None:
    gripper = GripperRetargeter('g')

    def step(sample: Optional[ControllerSample], reset: bool = False) -> float:
        return gripper.compute({'controller': sample}, ctx(STOPPED, reset))['gripper_command']

    assert step(grip(trigger=1.0)) == 1.0
    assert step(None) == 1.0
    assert step(grip(trigger=math.nan)) == 1.0
    assert step(None, reset=True) == 0.0
    with pytest.raises(ValueError, match='gripper_deadzone'):
        GripperRetargeter('g', deadzone=1.0)


# --- reorderer --------------------------------------------------------------------------------

FIVE_D = ['pos_x', 'pos_y', 'pos_z', 'roll_value', 'gripper_value']


def reorderer(order: Sequence[str]) -> TensorReorderer:
    return TensorReorderer(
        {'ee_pose': EE_POSE_ELEMENTS, 'roll_command': ['roll_value'],
         'gripper_command': ['gripper_value']},
        order, 'action', {'ee_pose': 'array'})


INPUTS = {'ee_pose': np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]), 'roll_command': 1.5,
          'gripper_command': 0.25}


def test_reorderer_builds_the_5d_action_and_drops_the_quaternion() -> None:
    out = reorderer(FIVE_D).compute(INPUTS, ctx())['output']
    assert out.dtype == np.float32
    assert np.allclose(out, [0.1, 0.2, 0.3, 1.5, 0.25])


def test_reorderer_builds_the_8d_action() -> None:
    order = [*EE_POSE_ELEMENTS, 'gripper_value']
    out = reorderer(order).compute(INPUTS, ctx())['output']
    assert np.allclose(out, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.25])
    assert out[7] == pytest.approx(0.25)


def test_reorderer_unknown_names_stay_zero_with_a_warning(
        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        node = reorderer(['pos_x', 'elbow', 'pos_x'])
    assert 'elbow' in caplog.text
    assert np.allclose(node.compute(INPUTS, ctx())['output'], [0.1, 0.0, 0.1])


def test_reorderer_mapping_errors_name_the_input_and_indices() -> None:
    node = reorderer(FIVE_D)
    with pytest.raises(ValueError, match=r"Mapping error in action: input 'ee_pose'\[2\] "
                                         r'-> output\[2\]'):
        node.compute({**INPUTS, 'ee_pose': np.array([0.1, 0.2])}, ctx())
    with pytest.raises(ValueError, match='input_types'):
        TensorReorderer({'a': ['x']}, ['x'], 'r', {'a': 'matrix'})
    with pytest.raises(ValueError, match='output_order'):
        TensorReorderer({'a': ['x']}, [], 'r')
