"""
The arm demo's picture: what the arm reached against the clutch target, and each joint over time.

Left, the gripper's path in a top and a side view and the tracking error while engaged; right,
every joint against its URDF limits, on a background of the teleop state, with the clutch
engagements marked.
"""

import pathlib
from typing import Any, List, Optional, Tuple

import numpy as np
from robot_sm.demo.arm import ArmRun, tracking_figures

#: The teleop states' background colours.
STATE_COLOURS = {'STOPPED': '#d9d9d9', 'PAUSED': '#ffe599', 'RUNNING': '#b6d7a8'}


def draw_arm(run: ArmRun, path: pathlib.Path) -> None:
    """Write the arm picture: paths in two projections, joints against limits over time."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    figure = plt.figure(figsize=(16, 11))
    outer = figure.add_gridspec(1, 2, width_ratios=(1.0, 1.5), wspace=0.18)
    left = outer[0].subgridspec(3, 1, height_ratios=(1.0, 1.0, 0.6), hspace=0.35)
    _draw_paths(figure, left, run)
    _draw_errors(figure.add_subplot(left[2]), run)
    _draw_joints(figure, outer[1].subgridspec(len(run.joint_names), 1, hspace=0.12), run)
    figures = tracking_figures(run) if run.errors else None
    title = 'arm teleoperation: recorded XR session -> teleop_retargeting -> simulated SO-101 arm'
    if figures:
        title += (f"\ntracking error while engaged: median {figures['median'] * 1000:.1f} mm, "
                  f"p95 {figures['p95'] * 1000:.1f} mm, max {figures['max'] * 1000:.1f} mm "
                  f"(right after the reset), {figures['max_settled'] * 1000:.1f} mm otherwise")
    figure.suptitle(title, fontsize=12)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=80)
    plt.close(figure)


def _draw_paths(figure: Any, grid: Any, run: ArmRun) -> None:
    """Draw the clutch target and the reached path in a top and a side view."""
    targets = np.array([t for _, t in run.targets]) if run.targets else np.zeros((0, 3))
    reached = np.array([r for _, _, r, _ in run.samples]) if run.samples else np.zeros((0, 3))
    for row, (a, b, label) in enumerate(((0, 1, 'top view'), (0, 2, 'side view'))):
        axis = figure.add_subplot(grid[row])
        axis.plot(targets[:, a], targets[:, b], '-', color='tab:blue', linewidth=3.0,
                  alpha=0.45, label='clutch target (teleop/ee_target)')
        axis.plot(reached[:, a], reached[:, b], '-', color='tab:orange', linewidth=1.0,
                  label='reached (forward kinematics of joint_states)')
        axis.set_title(f'gripper_tcp in base_link, {label}', fontsize=10)
        axis.set_xlabel(f"{'xyz'[a]} (m)", fontsize=9)
        axis.set_ylabel(f"{'xyz'[b]} (m)", fontsize=9)
        axis.set_aspect('equal', adjustable='datalim')
        axis.grid(True, linewidth=0.3)
        axis.legend(loc='best', fontsize=7)


def _draw_errors(axis: Any, run: ArmRun) -> None:
    """Draw the tracking error while engaged over time, the resets dotted."""
    if run.error_times:
        axis.plot([t for t, _ in run.error_times], [1000.0 * e for _, e in run.error_times],
                  '.', markersize=2, color='tab:red')
    for start in run.resets:
        axis.axvline(start, color='black', linewidth=0.8, linestyle=':')
    axis.set_yscale('log')
    axis.set_title('tracking error while engaged (dotted: reset)', fontsize=10)
    axis.set_xlabel('time (s)', fontsize=9)
    axis.set_ylabel('mm', fontsize=9)
    axis.grid(True, linewidth=0.3)


def _state_spans(run: ArmRun) -> List[Tuple[float, float, str]]:
    """Return (start, end, state) of every teleop state the run went through."""
    return [(start, run.states[i + 1][0] if i + 1 < len(run.states) else run.duration, name)
            for i, (start, name) in enumerate(run.states)]


def _draw_joints(figure: Any, grid: Any, run: ArmRun) -> None:
    """Draw each joint against its limits, on the teleop state, clutch engagements dashed."""
    from matplotlib.patches import Patch
    times = np.array([t for t, _, _, _ in run.samples]) if run.samples else np.zeros(0)
    positions = np.array([p for _, p, _, _ in run.samples]) if run.samples else np.zeros((0, 0))
    spans = _state_spans(run)
    first: Optional[Any] = None
    for index, name in enumerate(run.joint_names):
        axis = figure.add_subplot(grid[index], sharex=first)
        first = first or axis
        for start, end, state in spans:
            axis.axvspan(start, end, color=STATE_COLOURS.get(state, 'white'), linewidth=0)
        for start in run.engagements:
            axis.axvline(start, color='tab:red', linewidth=0.8, linestyle='--')
        if len(times):
            axis.plot(times, positions[:, index], color='black', linewidth=1.0)
        assert run.limits is not None
        for limit in run.limits[:, index]:
            axis.axhline(limit, color='tab:purple', linewidth=0.8, linestyle=':')
        axis.set_ylabel(f'{name}\n(rad)', fontsize=8)
        axis.tick_params(labelsize=7)
        if index < len(run.joint_names) - 1:
            axis.tick_params(labelbottom=False)
    assert first is not None
    first.set_title('arm joints (black) against their URDF limits (dotted); background: teleop '
                    'state; dashed red: clutch engaged', fontsize=10)
    figure.axes[-1].set_xlabel('time (s)')
    handles = [Patch(color=colour, label=state) for state, colour in STATE_COLOURS.items()]
    first.legend(handles=handles, loc='upper right', fontsize=7, ncol=3)
