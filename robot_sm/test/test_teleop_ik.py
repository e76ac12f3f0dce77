"""Position-only IK of the bundled SO-101 URDF, checked with pinocchio forward kinematics."""

import math
import pathlib

import numpy as np
import pinocchio as pin
import pytest

from robot_sm.teleop.ik import PositionIk

URDF = pathlib.Path(__file__).resolve().parents[1] / 'config' / 'so101_arm.urdf'
START = [0.0, 0.0, 0.3, 0.5]
#: A box in front of the arm, in the base frame (m): where a seated operator works.
WORKSPACE = (np.array([0.12, -0.2, 0.0]), np.array([0.35, 0.2, 0.25]))


def make_ik(**kwargs: object) -> PositionIk:
    return PositionIk.from_urdf_file(str(URDF), initial_arm_positions=START, **kwargs)


def fk(ik: PositionIk, positions: np.ndarray) -> np.ndarray:
    """Forward kinematics with pinocchio directly, independent of PositionIk.forward."""
    model = pin.buildModelFromUrdf(str(URDF))
    data = model.createData()
    q = pin.neutral(model)
    for name, value in zip(ik.joint_names, positions):
        q[model.joints[model.getJointId(name)].idx_q] = value
    pin.framesForwardKinematics(model, data, q)
    return np.array(data.oMf[model.getFrameId('gripper_tcp')].translation)


def within_limits(ik: PositionIk, positions: np.ndarray) -> bool:
    lower, upper = ik.limits
    return bool(np.all(positions >= lower) and np.all(positions <= upper))


def test_the_bundled_arm_has_the_so101_joints() -> None:
    ik = make_ik()
    assert ik.joint_names == ['shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex',
                              'wrist_roll', 'gripper']
    home = fk(ik, ik.positions)
    assert 0.2 < home[0] < 0.35 and abs(home[1]) < 1e-9 and 0.0 < home[2] < 0.15


def test_random_targets_in_the_workspace_are_reached_within_2_mm_from_a_cold_start() -> None:
    rng = np.random.default_rng(7)
    for target in rng.uniform(*WORKSPACE, size=(100, 3)):
        ik = make_ik(ik_max_iterations=200)
        positions = ik.solve(target, 0.0, 0.0)
        assert np.linalg.norm(fk(ik, positions) - target) < 0.002, target
        assert within_limits(ik, positions)


def test_a_moving_target_is_tracked_within_2_mm_with_the_per_tick_budget() -> None:
    ik = make_ik()   # default: at most 10 iterations per tick, warm-started
    home = fk(ik, ik.positions)
    for k in range(600):   # 10 s of a hand circling at 90 Hz, 8 cm radius
        phase = 2 * math.pi * k / 900
        target = home + np.array([0.08 * math.sin(phase), 0.08 * (1 - math.cos(phase)),
                                  0.05 * math.sin(2 * phase)])
        positions = ik.solve(target, 0.0, 0.0)
        assert np.linalg.norm(fk(ik, positions) - target) < 0.002, k


@pytest.mark.parametrize('target', [
    (2.0, 0.0, 0.1), (0.0, 0.0, 2.0), (-1.0, 0.0, 0.1), (0.1, 0.5, 0.1), (0.0, 0.0, -1.0),
    (0.0, 0.0, 0.0), (1e6, -1e6, 1e6),
])
def test_out_of_reach_targets_clamp_without_nan_or_limit_violations(target: tuple) -> None:
    ik = make_ik()
    for _ in range(20):
        positions = ik.solve(np.array(target), 0.0, 0.0)
        assert np.all(np.isfinite(positions)) and within_limits(ik, positions)
        assert math.isfinite(ik.last_error)


def test_out_of_reach_ahead_stretches_towards_the_target() -> None:
    ik = make_ik()
    home = fk(ik, ik.positions)
    errors = []
    for _ in range(30):
        ik.solve(np.array([2.0, 0.0, 0.1]), 0.0, 0.0)
        errors.append(ik.last_error)
    reached = fk(ik, ik.positions)
    # Monotone approach, no thrashing at the stretched-out singularity, then at rest.
    assert all(later <= earlier + 1e-9 for earlier, later in zip(errors, errors[1:]))
    assert reached[0] > home[0] + 0.1 and abs(reached[1]) < 1e-6   # forward, not sideways
    settled = ik.positions
    assert np.allclose(ik.solve(np.array([2.0, 0.0, 0.1]), 0.0, 0.0), settled, atol=1e-3)


def test_non_finite_inputs_keep_the_joints() -> None:
    ik = make_ik()
    before = ik.solve(np.array([0.25, 0.05, 0.1]), 0.3, 0.5)
    after = ik.solve(np.array([math.nan, 0.0, 0.1]), math.nan, math.inf)
    assert np.array_equal(before, after)
    assert ik.last_error == math.inf


def test_roll_and_gripper_channels_are_mapped_and_clamped() -> None:
    ik = make_ik(gripper_offset=1.0, gripper_scale=-1.0)
    target = np.array([0.25, 0.0, 0.1])
    positions = ik.solve(target, 0.7, 0.25)
    assert positions[4] == pytest.approx(0.7)
    assert positions[5] == pytest.approx(0.75)
    # The TCP is on the roll axis: rolling does not move it.
    assert np.allclose(fk(ik, positions), target, atol=2e-4)
    positions = ik.solve(target, 10.0, -5.0)
    lower, upper = ik.limits
    assert positions[4] == pytest.approx(upper[4]) and positions[5] == pytest.approx(upper[5])


@pytest.mark.parametrize('kwargs, match', [
    ({'ee_frame': 'nose'}, 'ee_frame'),
    ({'arm_joints': ['shoulder_pan', 'knee']}, 'arm_joints'),
    ({'roll_joint': 'shoulder_pan'}, 'must differ'),
    ({'gripper_joint': 'jaw'}, 'gripper_joint'),
    ({'ik_damping': 0.0}, 'ik_damping'),
    ({'ik_max_iterations': 0}, 'ik_max_iterations'),
    ({'ik_tolerance': -1.0}, 'ik_tolerance'),
    ({'gripper_scale': math.nan}, 'gripper_scale'),
])
def test_bad_configuration_is_rejected_with_the_field_named(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make_ik(**kwargs)


def test_initial_positions_must_fit_the_limits() -> None:
    with pytest.raises(ValueError, match='initial_arm_positions'):
        PositionIk.from_urdf_file(str(URDF), initial_arm_positions=[0.0, 3.0, 0.0, 0.0])
    with pytest.raises(ValueError, match='initial_arm_positions'):
        PositionIk.from_urdf_file(str(URDF), initial_arm_positions=[0.0, 0.0])


def test_unusable_urdf_text_or_file_is_rejected() -> None:
    with pytest.raises(ValueError, match='not a usable URDF'):
        PositionIk.from_urdf('<robot name="x"><link></robot')
    with pytest.raises(ValueError, match='cannot read URDF file'):
        PositionIk.from_urdf_file('/nonexistent/arm.urdf')
    continuous = URDF.read_text().replace('name="wrist_roll" type="revolute"',
                                          'name="wrist_roll" type="continuous"')
    with pytest.raises(ValueError, match='roll_joint'):
        PositionIk.from_urdf(continuous)


def test_once_the_arm_stands_at_the_edge_an_out_of_reach_target_costs_one_iteration() -> None:
    ik = make_ik()
    target = np.array([1.0, 0.0, 0.1])
    for _ in range(90):
        ik.solve(target, 0.0, 0.0)
    settled, error = ik.positions, ik.last_error
    ik.solve(target, 0.0, 0.0)
    assert ik.iterations == 1   # it moved no joint by more than STALL_STEP: no more iterations
    assert np.allclose(ik.positions, settled, atol=1e-4)
    assert ik.last_error == pytest.approx(error, abs=1e-6)
    home = fk(ik, np.array(START + [0.0, 1.0]))
    for _ in range(30):   # a target back in reach is tracked as before
        positions = ik.solve(home, 0.0, 0.0)
    assert np.linalg.norm(fk(ik, positions) - home) < 0.002
