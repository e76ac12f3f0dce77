"""
The demo: the whole suite drives a simulated robot, with no robot and no ROS install needed.

1. Office world, full map: load the waypoints of ``config/demo_waypoints.yaml``, switch the mux
   to autonomy, follow the waypoints in ROUNDTRIP mode for one full round (one waypoint runs the
   ``Wait`` routine), end it with an e-stop while the robot drives on (the incident recorder
   writes it, and its figures are printed), release it, then send one simple goal; meanwhile
   the web operator console is photographed at a phone's and a laptop's size (where Chromium
   is installed).
2. Maze world, unknown map: explore until no frontier is left, the map revealed by the simulated
   range sensor.
3. The arm: a recorded XR session drives the simulated SO-101-class arm through teleop
   (:mod:`robot_sm.demo.arm`).

With ``--robots N`` it runs the fleet demo instead (:mod:`robot_sm.demo.fleet`): N robots in
the office world, each following its own waypoints, a fleet-wide stop and a release.

It prints state transitions and progress as it goes, writes a PNG of the maps, the paths driven
and the waypoints, one of the arm's motion, an MCAP recording of each phase's topics, prints a
summary and exits 0 on success (non-zero with the reason otherwise).
Run it with ``make demo`` (or ``python -m robot_sm.demo`` in the built environment).
"""

import argparse
import math
import pathlib
import sys
import time
from typing import Callable, List, Optional

from robot_sm.client import SuiteUnavailable
from robot_sm.demo.arm import ArmPhaseFailure, ArmRun, recorded_counts, run_arm, tracking_figures
from robot_sm.demo.arm_drawing import draw_arm
from robot_sm.demo.fleet import draw_fleet, FleetDemoFailure, run_fleet
from robot_sm.demo.incident import describe as describe_incident
from robot_sm.demo.suite_phases import DemoFailure, draw, Phase, run_exploration, run_waypoints
from robot_sm.resources import share_directory

#: Prints one line of the demo's narration.
Echo = Callable[[str], None]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog='python -m robot_sm.demo',
                                     description=__doc__.split('\n\n')[0].strip())
    parser.add_argument('--output', type=pathlib.Path, default=pathlib.Path('demo-output'),
                        help='folder for the PNG (default: demo-output)')
    parser.add_argument('--skip-exploration', action='store_true',
                        help='leave out the exploration of the maze')
    parser.add_argument('--skip-arm', action='store_true',
                        help='leave out the arm teleoperation phase')
    parser.add_argument('--arm-only', action='store_true',
                        help='only the arm teleoperation phase')
    parser.add_argument('--timeout', type=float, default=150.0,
                        help='seconds each phase may take (default 150)')
    parser.add_argument('--robots', type=int, metavar='N',
                        help='run the fleet demo with N robots (1 to 3) instead')
    return parser


def run_fleet_demo(files: List[pathlib.Path], plan: pathlib.Path, count: int,
                   output: pathlib.Path, timeout: float, echo: Echo) -> int:
    """Run the fleet demo, draw it and print its summary; return the exit code."""
    started = time.monotonic()
    echo(f'== fleet: {count} robots in the office, a fleet-wide stop and a release')
    try:
        run = run_fleet(files, plan, count, echo, timeout)
    except (FleetDemoFailure, DemoFailure, SuiteUnavailable) as error:
        echo(f'demo FAILED: {error}')
        return 1
    picture = output / 'demo-fleet.png'
    draw_fleet(run, picture)
    echo(f'picture: {picture}')
    echo('== summary')
    echo(f'  total time            {time.monotonic() - started:.1f} s')
    for robot in run.robots:
        zero_after = robot.wheels_zero_after or math.nan
        confirmed = run.stop_confirmed.get(robot.name) or math.nan
        echo(f'  {robot.name:<21} {robot.visited}/{len(robot.plan)} waypoints, '
             f'{robot.distance:.1f} m driven, wheels zero {zero_after * 1000:.0f} '
             f'ms after the fleet stop, confirmed in {confirmed * 1000:.0f} ms')
    return 0


class DemoRun:
    """What the phases of one demo run did, and the recordings they wrote."""

    def __init__(self) -> None:
        self.phases: List[Phase] = []
        self.arm: Optional[ArmRun] = None
        self.recordings: List[pathlib.Path] = []


def _run_phases(args: argparse.Namespace, files: List[pathlib.Path], config: pathlib.Path,
                run: DemoRun, echo: Echo) -> None:
    """Run the phases ``args`` ask for into ``run``; raise what ends the demo early."""
    if not args.arm_only:
        echo('== phase 1: office, waypoint round (ROUNDTRIP) and a simple goal')
        run.recordings.append(args.output / 'demo-waypoints.mcap')
        run.phases.append(run_waypoints(files, echo, config / 'demo_waypoints.yaml',
                                        args.timeout, run.recordings[-1], args.output))
        if not args.skip_exploration:
            echo('== phase 2: maze, exploration from an unknown map')
            run.recordings.append(args.output / 'demo-exploration.mcap')
            run.phases.append(run_exploration(files, echo, args.timeout, run.recordings[-1]))
    if not args.skip_arm:
        echo('== phase 3: the arm, teleoperated from a recorded XR session')
        run.arm = run_arm(files, echo, args.output, args.timeout)
        run.recordings.append(args.output / 'demo-arm.mcap')
        draw_arm(run.arm, args.output / 'demo-arm.png')
        echo(f"picture: {args.output / 'demo-arm.png'}")


def _summary(run: DemoRun, total: float, echo: Echo) -> None:
    echo('== summary')
    echo(f'  total time            {total:.1f} s')
    phases, arm = run.phases, run.arm
    if phases:
        first = phases[0].notes
        echo(f"  waypoints reached     {first['waypoints_reached']}/{first['waypoint_count']} "
             f"({first['waypoints_unreachable']} unreachable) in {phases[0].duration:.1f} s, "
             f'{phases[0].distance:.1f} m driven')
        echo(f"  simple goal           reached, {first['simple_goal_error'] * 100:.0f} cm off")
        if 'incident' in first:
            echo(f"  e-stop incident       {describe_incident(first['incident'])}")
    if len(phases) > 1:
        second = phases[1]
        echo(f"  exploration           {second.notes['explored_fraction']:.1%} of the free "
             f'space seen in {second.duration:.1f} s, {second.distance:.1f} m driven')
    if arm is not None:
        figures = tracking_figures(arm)
        echo(f'  arm teleoperation     {len(arm.engagements)} clutch engagements, tracking '
             f"error while engaged: median {figures['median'] * 1000:.1f} mm, "
             f"p95 {figures['p95'] * 1000:.1f} mm, max {figures['max'] * 1000:.1f} mm, "
             f"{figures['max_settled'] * 1000:.1f} mm outside the second after a reset "
             f"({int(figures['samples'])} samples)")
    for recording in run.recordings:
        counts = recorded_counts(recording)
        echo(f'  recording             {recording}: {sum(counts.values())} messages on '
             f'{len(counts)} topics (ros2 bag play, Foxglove)')


def main(argv: Optional[List[str]] = None) -> int:
    """Run the demo; return 0 on success."""
    args = _parser().parse_args(argv)

    def echo(text: str) -> None:
        print(text, flush=True)

    config = share_directory() / 'config'
    files = [config / 'robot_sm.yaml', config / 'sim.yaml']
    if args.robots is not None:
        return run_fleet_demo(files, config / 'demo_fleet_waypoints.yaml', args.robots,
                              args.output, args.timeout, echo)
    started = time.monotonic()
    run = DemoRun()
    try:
        _run_phases(args, files, config, run, echo)
    except (DemoFailure, ArmPhaseFailure, SuiteUnavailable) as error:
        echo(f'demo FAILED: {error}')
        return 1
    finally:
        if run.phases:
            picture = args.output / 'demo.png'
            draw(run.phases, picture)
            echo(f'picture: {picture}')
    _summary(run, time.monotonic() - started, echo)
    return 0


if __name__ == '__main__':
    sys.exit(main())
