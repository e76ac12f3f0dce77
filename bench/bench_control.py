"""
Benchmark the controller library.

1. A batched :class:`ControllerGroup` against a Python loop over single
   :class:`CommandController` objects doing the same work, for 1, 100, 1,000 and 10,000 robots
   (a 7-DOF arm, delta joint-position commands): one control tick with sticky goals (step only)
   and with new goals for every robot (update + step). The outputs are checked to be equal.
2. The base controller's wheel path: :class:`robot_sm.drive.wheel_commander.WheelCommander` (one
   ``command`` and one ``update``, filter on) against the seed's chain of the library,
   ``SequentialController([DifferentialDriveController, LowPassFilterController])`` (per
   ``forward``, and with the setpoint built per message, as the base controller did before it
   used the library's arithmetic directly), the drive alone, and the same arithmetic in bare
   numpy.

Run with ``tools/with_ros_env.sh python bench/bench_control.py``; results go to
``bench/results/control.json``.
"""

import platform
import time
from typing import Any, Callable, Dict, List

import numpy as np
from report import print_table, save, summary
from robot_sm.drive.wheel_commander import WheelCommander, WheelSettings
from robot_sm_control import (
    CommandController,
    ControllerGroup,
    ControlLimits,
    DifferentialDriveController,
    JOINT_POSITION,
    JointLaw,
    JointState,
    LowPassFilterController,
    RobotState,
    RootState,
    SequentialController,
    wheel_velocities,
)

DOFS = 7
SIZES = (1, 100, 1_000, 10_000)
WHEELS = ['left_wheel_joint', 'right_wheel_joint']


def arm_law() -> JointLaw:
    lower = np.array([-2.9, -1.8, -2.9, -3.1, -2.9, -0.1, -np.inf])
    return JointLaw(ControlLimits(position=(lower, -lower), velocity=([-2.0] * DOFS, [2.0] * DOFS),
                                  effort=([-80.0] * DOFS, [80.0] * DOFS),
                                  has_limit=[True] * 6 + [False]),
                    range(DOFS), 'position', use_delta_commands=True)


def timed(run: Callable[[], Any], repeats: int) -> List[float]:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return samples


def bench_group() -> List[Dict[str, Any]]:
    rows = []
    rng = np.random.default_rng(1)
    for size in SIZES:
        positions = rng.uniform(-1.0, 1.0, (size, DOFS))
        commands = rng.uniform(-1.0, 1.0, (size, DOFS))
        batch = {JOINT_POSITION: positions}
        per_robot = [{JOINT_POSITION: positions[i]} for i in range(size)]
        members = list(range(size))
        group = ControllerGroup(arm_law(), command_output_limits=(-0.1, 0.1))
        singles = [CommandController(arm_law(), command_output_limits=(-0.1, 0.1))
                   for _ in range(size)]
        for _ in range(size):
            group.add_member()

        def group_update_step() -> None:
            group.update_goals(members, commands, batch)
            group.step(batch)

        def singles_update_step() -> None:
            for single, command, state in zip(singles, commands, per_robot):
                single.update_goal(command, state)
                single.step(state)

        def group_step() -> None:
            group.step(batch)

        def singles_step() -> None:
            for single, state in zip(singles, per_robot):
                single.step(state)

        group_update_step()
        singles_update_step()
        expected = np.array([single.control for single in singles])
        assert np.allclose(group.step(batch).controls, expected, rtol=0, atol=1e-12)
        repeats = max(7, min(2000, 200_000 // size))
        for work, batched, looped in (('step', group_step, singles_step),
                                      ('update+step', group_update_step, singles_update_step)):
            group_times = summary(timed(batched, repeats), 1e3)
            loop_times = summary(timed(looped, max(5, repeats // 20)), 1e3)
            rows.append({
                'robots': size, 'work': work,
                'group_p50_ms': group_times['p50'], 'group_p99_ms': group_times['p99'],
                'loop_p50_ms': loop_times['p50'], 'loop_p99_ms': loop_times['p99'],
                'group_us_per_robot': 1e3 * group_times['p50'] / size,
                'loop_us_per_robot': 1e3 * loop_times['p50'] / size,
                'speedup': loop_times['p50'] / group_times['p50'],
            })
    return rows


def per_call(run: Callable[[int], Any], calls: int) -> Dict[str, float]:
    samples = []
    for i in range(calls):
        start = time.perf_counter_ns()
        run(i)
        samples.append(time.perf_counter_ns() - start)
    return summary(samples, 1e-3)


def bench_chain() -> List[Dict[str, Any]]:
    rng = np.random.default_rng(2)
    calls = 20_000
    linear = 0.1 + rng.normal(0.0, 0.1, calls)
    angular = 1.0 + rng.normal(0.0, 1.0, calls)
    setpoints = [RobotState(root=RootState(linear_velocity=[v, 0.0, 0.0],
                                           angular_velocity=[0.0, 0.0, w]))
                 for v, w in zip(linear, angular)]
    estimated = RobotState(joints=JointState.from_name(WHEELS, velocities=(WHEELS, [0.0, 0.0])))
    drive = DifferentialDriveController(WHEELS, 0.03, 0.1125)
    chain = SequentialController([DifferentialDriveController(WHEELS, 0.03, 0.1125),
                                  LowPassFilterController(WHEELS, alpha=0.01)])
    assert chain.reset(estimated, None, 0.0)
    filtered = np.zeros((3, 2))
    commander = WheelCommander(WheelSettings(0.03, 0.1125, filter_alpha=0.01,
                                             command_timeout=10.0), filter_period=0.01)

    def wheel_path(i: int) -> None:
        commander.command(linear[i], angular[i], 0.01 * i)
        commander.update(0.01 * i)

    def bare(i: int) -> None:
        nonlocal filtered
        left, right = wheel_velocities(linear[i], angular[i], 0.03, 0.1125)
        data = np.zeros((3, 2))
        data[1] = (left, right)
        filtered = 0.01 * data + 0.99 * filtered

    results = {
        'bare numpy (kinematics + filter)': per_call(bare, calls),
        'WheelCommander (command + update)': per_call(wheel_path, calls),
        'DifferentialDriveController': per_call(
            lambda i: drive.forward(estimated, setpoints[i], 0.01 * i), calls),
        'Sequential[DiffDrive, LowPass]': per_call(
            lambda i: chain.forward(estimated, setpoints[i], 0.01 * i), calls),
        'Sequential + building the setpoint': per_call(
            lambda i: chain.forward(estimated, RobotState(root=RootState(
                linear_velocity=[linear[i], 0.0, 0.0],
                angular_velocity=[0.0, 0.0, angular[i]])), 0.01 * i), calls),
    }
    baseline = results['bare numpy (kinematics + filter)']['p50']
    return [{'call': name, 'p50_us': s['p50'], 'p99_us': s['p99'],
             'vs_bare_numpy': s['p50'] / baseline} for name, s in results.items()]


def main() -> None:
    group_rows = bench_group()
    print_table('Batched ControllerGroup vs a loop over CommandControllers (one tick, 7-DOF arm)',
                group_rows)
    print()
    chain_rows = bench_chain()
    print_table('Per call: the wheel path and the seed chain (20,000 calls)', chain_rows)
    path = save('control', {
        'machine': platform.processor() or platform.machine(), 'python': platform.python_version(),
        'numpy': np.__version__, 'group_vs_loop': group_rows, 'chain_per_call': chain_rows})
    print(f'\nsaved {path}')


if __name__ == '__main__':
    main()
