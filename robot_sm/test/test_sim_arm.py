"""The simulated arm: servo joints through the controller library, the URDF's links and limits."""

import math
import pathlib

import numpy as np
import pytest
from robot_sm.sim import ArmModel, ServoJoints
from robot_sm.teleop.ik import PositionIk
from robot_sm_control import ControlType

URDF_PATH = pathlib.Path(__file__).resolve().parents[1] / 'config' / 'so101_arm.urdf'
URDF = URDF_PATH.read_text()
JOINTS = ['shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex', 'wrist_roll', 'gripper']


def make_arm(time_constant: float = 0.1) -> ServoJoints:
    model = ArmModel(URDF)
    return ServoJoints(JOINTS, model.limits(JOINTS), time_constant)


def run(arm: ServoJoints, seconds: float, dt: float = 0.01) -> list:
    """Step the arm; return the largest absolute joint speed seen in each step."""
    speeds = []
    for _ in range(int(round(seconds / dt))):
        before = arm.positions.copy()
        arm.step(dt)
        speeds.append(float(np.max(np.abs(arm.positions - before))) / dt)
    return speeds


def test_a_small_move_follows_a_first_order_lag() -> None:
    arm = make_arm(time_constant=0.2)
    assert arm.command({'elbow_flex': 0.1}) == 1
    run(arm, 0.2)
    assert arm.positions[2] == pytest.approx(0.1 * (1.0 - math.exp(-1.0)), rel=1e-6)
    assert np.all(arm.positions[[0, 1, 3, 4, 5]] == 0.0)
    assert arm.velocities[2] > 0.0


def test_a_large_move_runs_at_the_urdf_speed_limit_and_arrives() -> None:
    arm = make_arm()
    arm.command({'shoulder_pan': 1.5, 'shoulder_lift': -1.5})
    speeds = run(arm, 0.1)
    # 6 rad/s in the URDF: the servo demand (15 rad/s at the start) is clipped to it.
    assert max(speeds) == pytest.approx(6.0, rel=1e-9)
    assert np.max(np.abs(arm.velocities)) <= 6.0 + 1e-9
    run(arm, 2.0)
    assert arm.positions[:2] == pytest.approx([1.5, -1.5], abs=1e-3)


def test_commands_beyond_the_limits_stop_at_the_limits() -> None:
    arm = make_arm()
    arm.command({'gripper': 5.0, 'wrist_roll': -9.0})
    assert arm.targets[4:] == pytest.approx([-2.74385, 1.74533])
    run(arm, 3.0)
    assert arm.positions[4:] == pytest.approx([-2.74385, 1.74533], abs=1e-6)
    assert arm.positions[5] <= 1.74533 and arm.positions[4] >= -2.74385


def test_unknown_joints_and_non_finite_values_change_nothing() -> None:
    arm = make_arm()
    assert arm.command({'knee': 1.0, 'elbow_flex': math.nan, 'gripper': math.inf}) == 0
    run(arm, 0.5)
    assert np.all(arm.positions == 0.0) and np.all(arm.targets == 0.0)
    arm.command({'gripper': 1.0})
    arm.command({'elbow_flex': 0.5})   # a command naming some joints keeps the others' targets
    assert arm.targets[[2, 5]] == pytest.approx([0.5, 1.0])


def test_link_transforms_chain_to_the_frames_the_ik_computes() -> None:
    model = ArmModel(URDF)
    assert model.joint_names == JOINTS and model.root_link == 'base_link'
    positions = dict(zip(JOINTS, [0.3, -0.4, 0.5, 0.2, 1.0, 0.8]))
    transforms = {t.child: t for t in model.link_transforms(positions)}
    assert transforms['shoulder_link'].parent == 'base_link'
    assert transforms['gripper_tcp'].parent == 'gripper_link'
    # Chain base_link → ... → gripper_tcp by hand and compare with the IK's own FK.
    chain = ['shoulder_link', 'upper_arm_link', 'lower_arm_link', 'wrist_link', 'gripper_link',
             'gripper_tcp']
    pose = np.eye(4)
    for child in chain:
        x, y, z, w = transforms[child].rotation
        step = np.eye(4)
        step[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
        step[:3, 3] = transforms[child].translation
        pose = pose @ step
    ik = PositionIk.from_urdf_file(str(URDF_PATH))
    expected = ik.forward([positions[name] for name in ik.joint_names])
    assert pose[:3, 3] == pytest.approx(expected, abs=1e-9)
    assert model.frame_position('gripper_tcp', positions) == pytest.approx(expected, abs=1e-9)
    fixed = model.fixed_transforms()
    assert [(t.parent, t.child) for t in fixed] == [('gripper_link', 'gripper_tcp')]
    assert fixed[0].translation == pytest.approx((0.0981, 0.0, 0.0))
    assert len(model.moving_transforms(positions)) == 6


def test_limits_come_from_the_urdf_and_unknown_joints_are_named() -> None:
    limits = ArmModel(URDF).limits(['gripper', 'shoulder_pan'])
    lower, upper = limits.limits(ControlType.POSITION)
    assert list(lower) == pytest.approx([-0.174533, -1.91986])
    assert list(upper) == pytest.approx([1.74533, 1.91986])
    with pytest.raises(ValueError, match="'knee' is not a movable joint"):
        ArmModel(URDF).limits(['shoulder_pan', 'knee'])
    with pytest.raises(ValueError, match='not a usable URDF'):
        ArmModel('<robot name="x"><joint name="j" type="fixed"/></robot>')
    with pytest.raises(ValueError, match='time_constant'):
        ServoJoints(JOINTS, ArmModel(URDF).limits(JOINTS), 0.0)
