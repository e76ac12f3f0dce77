"""
Per-tick cost of teleop retargeting, IK included, against the frame of a 90 Hz XR device.

One tick of :class:`robot_sm.teleop.arm_teleop.ArmTeleop` runs the control pipeline (three
debounced selectors and the state manager), the retargeting graph (clutch, roll, gripper,
reorderer) and the position IK of the bundled SO-101 URDF with pinocchio. It is measured on two
scripted operator motions at 90 Hz while RUNNING and squeezing:

- ``tracking``: the hand circles (8 cm radius, 0.25 Hz) with a breathing trigger and a rolling
  wrist, the usual case: the IK converges in a few warm-started iterations;
- ``out_of_reach``: the hand is held 1 m beyond the arm's reach, the worst case: every tick uses
  all IK iterations.

Baselines measured in the same run: the same pipeline without the IK (``session.step``) and one
pinocchio forward-kinematics call. Target: p99 of a full tick at most 250 us in every case, out of
reach included (the 11.1 ms frame of a 90 Hz device is the outer bound).
"""

import math
import pathlib
import sys
import time
from typing import Callable, Dict, List

import numpy as np
import pinocchio as pin
from report import print_table, save, summary
from robot_sm.teleop import quaternion
from robot_sm.teleop.arm_teleop import ArmTeleop, TeleopSettings
from robot_sm.teleop.controller import ControllerSample
from robot_sm.teleop.ik import PositionIk

URDF = pathlib.Path(__file__).resolve().parents[1] / 'robot_sm' / 'config' / 'so101_arm.urdf'
FRAME_90HZ_US = 1e6 / 90.0
PERIOD = 1.0 / 90.0
TICKS = 20000
WARMUP = 500
TARGET_P99_US = 250.0


def make_teleop() -> ArmTeleop:
    ik = PositionIk.from_urdf_file(str(URDF), initial_arm_positions=[0.0, 0.0, 0.3, 0.5])
    return ArmTeleop(TeleopSettings(), ik)


def left_hand(primary: float = 0.0) -> ControllerSample:
    return ControllerSample(grip_is_valid=True, primary_click=primary)


def tracking_hand(k: int) -> ControllerSample:
    phase = 2.0 * math.pi * 0.25 * k * PERIOD
    position = np.array([0.08 * math.sin(phase), 0.08 * (1.0 - math.cos(phase)), 1.0])
    orientation = quaternion.from_axis_angle(np.array([0.0, 0.0, 1.0]), 0.5 * math.sin(phase))
    return ControllerSample(grip_position=position, grip_orientation=orientation,
                            grip_is_valid=True, squeeze_value=1.0,
                            trigger_value=0.5 + 0.5 * math.sin(3.0 * phase))


def out_of_reach_hand(k: int) -> ControllerSample:
    hand = tracking_hand(0)
    position = np.array([1.0 + 0.01 * math.sin(k * 0.1), 0.0, 1.0]) if k else hand.grip_position
    return ControllerSample(grip_position=position, grip_orientation=hand.grip_orientation,
                            grip_is_valid=True, squeeze_value=1.0)


def start_running(teleop: ArmTeleop, right: ControllerSample) -> float:
    """Toggle twice with the left primary button; return the time reached."""
    now = 0.0
    for primary in (0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0):
        now += PERIOD
        out = teleop.tick(now, left_hand(primary), right)
    assert out.state.value == 'running', out.state
    return now


def time_ticks(step: Callable[[float, ControllerSample], object],
               hand: Callable[[int], ControllerSample], start: float) -> List[float]:
    """Return the duration (s) of each measured call of ``step``."""
    samples: List[float] = []
    now = start
    for k in range(WARMUP + TICKS):
        now += PERIOD
        right = hand(k)
        begin = time.perf_counter()
        step(now, right)
        elapsed = time.perf_counter() - begin
        if k >= WARMUP:
            samples.append(elapsed)
    return samples


def measure(motion: str, hand: Callable[[int], ControllerSample]) -> Dict[str, Dict[str, float]]:
    full = make_teleop()
    start = start_running(full, hand(0))
    full_samples = time_ticks(lambda now, right: full.tick(now, left_hand(), right), hand, start)

    no_ik = make_teleop()
    start = start_running(no_ik, hand(0))
    left = left_hand()

    def pipeline_only(now: float, right: ControllerSample) -> None:
        no_ik.session.step({'controllers': {'left': left, 'right': right},
                            'robot_ee_pose': {'value': None},
                            'robot_base_pose': {'value': None}}, now)

    pipeline_samples = time_ticks(pipeline_only, hand, start)
    return {f'{motion}: full tick (pipeline + IK)': summary(full_samples, 1e6),
            f'{motion}: pipeline without IK': summary(pipeline_samples, 1e6)}


def measure_fk() -> Dict[str, float]:
    model = pin.buildModelFromUrdf(str(URDF))
    data = model.createData()
    q = pin.neutral(model)
    samples = []
    for k in range(WARMUP + TICKS):
        q[0] = 0.5 * math.sin(k * 0.01)
        begin = time.perf_counter()
        pin.framesForwardKinematics(model, data, q)
        elapsed = time.perf_counter() - begin
        if k >= WARMUP:
            samples.append(elapsed)
    return summary(samples, 1e6)


def main() -> int:
    results: Dict[str, Dict[str, float]] = {}
    results.update(measure('tracking', tracking_hand))
    results.update(measure('out_of_reach', out_of_reach_hand))
    results['pinocchio FK alone'] = measure_fk()

    rows = [{'case': name, 'p50 us': figures['p50'], 'p99 us': figures['p99'],
             'max us': figures['max'],
             'p99 % of 90 Hz frame': 100.0 * figures['p99'] / FRAME_90HZ_US}
            for name, figures in results.items()]
    ratios = {}
    for motion in ('tracking', 'out_of_reach'):
        full = results[f'{motion}: full tick (pipeline + IK)']
        pipeline = results[f'{motion}: pipeline without IK']
        ratios[f'{motion}: full / pipeline without IK (p50)'] = full['p50'] / pipeline['p50']
        ratios[f'{motion}: full / FK alone (p50)'] = full['p50'] / results[
            'pinocchio FK alone']['p50']
    print_table(f'teleop tick cost, {TICKS} ticks per case (frame of a 90 Hz device: '
                f'{FRAME_90HZ_US:.0f} us)', rows)
    for name, ratio in ratios.items():
        print(f'{name}: {ratio:.2f}x')
    worst_p99 = max(results[f'{m}: full tick (pipeline + IK)']['p99']
                    for m in ('tracking', 'out_of_reach'))
    verdict = 'met' if worst_p99 <= TARGET_P99_US else 'MISSED'
    print(f'target p99 <= {TARGET_P99_US:.0f} us: {verdict} (worst p99 {worst_p99:.0f} us)')
    path = save('teleop', {'unit': 'microseconds', 'ticks': TICKS, 'frame_90hz_us': FRAME_90HZ_US,
                           'results': results, 'ratios': ratios, 'target_p99_us': TARGET_P99_US,
                           'target_p99_met': worst_p99 <= TARGET_P99_US})
    print(f'saved {path}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
