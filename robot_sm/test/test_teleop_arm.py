"""The whole teleop tick without ROS: buttons, clutch, IK and the base thumbstick together."""

import math
import pathlib
from typing import Optional, Sequence

import numpy as np
import pytest

from robot_sm.teleop.arm_teleop import ArmTeleop, TeleopOutput, TeleopSettings
from robot_sm.teleop.base_teleop import BaseTeleop, shape_axis
from robot_sm.teleop.controller import ControllerSample
from robot_sm.teleop.execution import ExecutionState
from robot_sm.teleop.ik import PositionIk

URDF = pathlib.Path(__file__).resolve().parents[1] / 'config' / 'so101_arm.urdf'
STOPPED, PAUSED, RUNNING = ExecutionState.STOPPED, ExecutionState.PAUSED, ExecutionState.RUNNING
PERIOD = 1.0 / 60.0


def hand(position: Sequence[float] = (0.0, 0.0, 1.0), *, primary: float = 0.0,
         secondary: float = 0.0, squeeze: float = 0.0, trigger: float = 0.0,
         stick: Sequence[float] = (0.0, 0.0), tracked: bool = True) -> ControllerSample:
    return ControllerSample(
        grip_position=np.array(position, dtype=float),
        grip_orientation=np.array([0.0, 0.0, 0.0, 1.0]), grip_is_valid=tracked,
        primary_click=primary, secondary_click=secondary, squeeze_value=squeeze,
        trigger_value=trigger, thumbstick_x=stick[0], thumbstick_y=stick[1])


class Operator:
    """Ticks an ArmTeleop at 60 Hz with the two hands as the test sets them."""

    def __init__(self, **settings: object) -> None:
        self.ik = PositionIk.from_urdf_file(str(URDF), initial_arm_positions=[0.0, 0.0, 0.3, 0.5])
        self.teleop = ArmTeleop(TeleopSettings(**settings), self.ik)  # type: ignore[arg-type]
        self.now = 0.0
        self.left: Optional[ControllerSample] = hand()
        self.right: Optional[ControllerSample] = hand()
        self.last: Optional[TeleopOutput] = None

    def tick(self, count: int = 1) -> TeleopOutput:
        for _ in range(count):
            self.now += PERIOD
            self.last = self.teleop.tick(self.now, self.left, self.right)
        assert self.last is not None
        return self.last

    def toggle(self) -> TeleopOutput:
        self.left = hand(primary=1.0)
        self.tick(3)
        self.left = hand()
        return self.tick(3)

    def run(self) -> TeleopOutput:
        self.tick(2)
        assert self.toggle().state is PAUSED
        out = self.toggle()
        assert out.state is RUNNING
        return out


def test_joint_targets_only_while_running_and_the_first_holds_the_start_pose() -> None:
    op = Operator()
    assert op.tick().joint_positions is None
    assert op.toggle().joint_positions is None   # PAUSED
    out = op.toggle()
    assert out.state is RUNNING and out.joint_positions is not None
    assert np.allclose(out.joint_positions[:4], [0.0, 0.0, 0.3, 0.5], atol=1e-6)
    assert out.action.shape == (5,) and out.action.dtype == np.float32


def test_hand_motion_moves_the_arm_by_scale_times_the_motion() -> None:
    op = Operator(position_scale=0.5)
    op.run()
    start = op.ik.forward(op.tick().joint_positions)
    op.right = hand((0.3, -0.2, 1.4), squeeze=1.0)   # engage far from where the hand was
    engaged = op.tick(3)
    assert np.allclose(op.ik.forward(engaged.joint_positions), start, atol=1e-4)
    op.right = hand((0.3, -0.2 + 0.1, 1.4 - 0.04), squeeze=1.0, trigger=1.0)
    moved = op.tick(40)   # the joint speed limit: settled within 0.7 s
    assert np.allclose(op.ik.forward(moved.joint_positions) - start, [0.0, 0.05, -0.02],
                       atol=0.002)
    assert moved.joint_positions[5] == pytest.approx(0.0)   # trigger: gripper closed


def test_pause_holds_and_resume_does_not_jump() -> None:
    op = Operator()
    op.run()
    op.right = hand((0.0, 0.0, 1.0), squeeze=1.0)
    op.tick(2)
    op.right = hand((0.05, 0.02, 1.0), squeeze=1.0)
    before = op.tick(40).joint_positions
    op.left = hand(primary=1.0)
    op.tick(3)
    assert op.last is not None and op.last.state is PAUSED
    op.left = hand()
    op.right = hand((0.4, -0.3, 1.2), squeeze=1.0)   # the hand wanders while paused
    assert op.tick(10).joint_positions is None
    op.toggle()
    resumed = op.tick().joint_positions
    assert np.allclose(resumed, before, atol=1e-4)


def test_joint_speed_is_limited_so_a_reset_returns_home_smoothly() -> None:
    op = Operator(max_joint_speed=2.0)
    op.run()
    op.right = hand((0.0, 0.0, 1.0), squeeze=1.0)
    op.tick(2)
    op.right = hand((-0.1, 0.15, 1.05), squeeze=1.0)   # 18 cm away from home
    away = op.tick(60).joint_positions
    start = op.ik.forward(away)
    op.left = ControllerSample(grip_is_valid=True, thumbstick_click=1.0)   # reset
    commands = [op.tick().joint_positions for _ in range(3)]
    assert op.last is not None and op.last.state is RUNNING
    op.left = hand()
    commands += [op.tick().joint_positions for _ in range(90)]
    steps = np.abs(np.diff(np.array([away, *commands]), axis=0))
    assert steps.max() <= 2.0 * PERIOD + 1e-9             # never faster than the limit
    home = op.ik.forward(np.array([0.0, 0.0, 0.3, 0.5, 0.0, 0.0]))
    assert np.linalg.norm(start - home) > 0.1
    assert np.linalg.norm(op.ik.forward(commands[-1]) - home) < 0.002   # and it gets there


def test_losing_the_control_controller_stops_with_one_reset() -> None:
    op = Operator()
    op.run()
    op.left = None
    outs = [op.tick() for _ in range(4)]
    assert [o.state for o in outs] == [STOPPED] * 4
    assert [o.reset for o in outs] == [True, False, False, False]
    assert all(o.joint_positions is None for o in outs)


def test_kill_held_stops_and_resets_every_tick() -> None:
    op = Operator()
    op.run()
    op.left = hand(secondary=1.0)
    outs = [op.tick() for _ in range(6)]
    assert outs[0].state is RUNNING   # debounce: registered on the second tick
    assert all(o.state is STOPPED and o.reset for o in outs[1:])


def test_untracked_arm_controller_holds_the_target() -> None:
    op = Operator()
    op.run()
    op.right = hand((0.0, 0.0, 1.0), squeeze=1.0)
    op.tick(2)
    op.right = hand((0.05, 0.0, 1.0), squeeze=1.0)
    held = op.tick(2).action.copy()
    op.right = hand((0.5, 0.5, 0.5), squeeze=1.0, tracked=False)
    out = op.tick(5)
    assert np.array_equal(out.action[:3], held[:3]) and np.all(np.isfinite(out.action))


def test_base_thumbstick_drives_while_running_and_zeroes_once_on_leaving() -> None:
    op = Operator(base_teleop=True, base_linear_scale=0.4, base_angular_scale=-1.2)
    assert op.tick().base_velocity is None
    op.run()
    op.left = hand(stick=(1.0, 1.0))
    linear, angular = op.tick().base_velocity
    assert linear == pytest.approx(0.4) and angular == pytest.approx(-1.2)
    op.left = None   # controller lost: STOPPED, one zero, then silence
    assert op.tick().base_velocity == (0.0, 0.0)
    assert op.tick().base_velocity is None
    assert Operator().run().base_velocity is None   # base_teleop off by default


def test_base_thumbstick_shaping() -> None:
    assert shape_axis(0.05, 0.1) == 0.0
    assert shape_axis(0.55, 0.1) == pytest.approx(0.5)
    assert shape_axis(-1.5, 0.1) == -1.0
    assert shape_axis(math.nan, 0.1) == 0.0
    base = BaseTeleop()
    assert base.update(RUNNING, None) == (0.0, 0.0)
    assert base.update(RUNNING, hand(stick=(math.nan, 0.5))) == (pytest.approx(0.5 * 4 / 9), 0.0)
    with pytest.raises(ValueError, match='base_deadzone'):
        BaseTeleop(deadzone=1.0)


def test_bad_hands_are_rejected() -> None:
    with pytest.raises(ValueError, match='arm_hand'):
        Operator(arm_hand='middle')
    with pytest.raises(ValueError, match='control_hand'):
        Operator(control_hand='')
    with pytest.raises(ValueError, match='max_joint_speed'):
        Operator(max_joint_speed=-1.0)
