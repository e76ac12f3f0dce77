"""
The demo: the whole suite drives a simulated robot, with no robot and no ROS install needed.

1. Office world, full map: load the waypoints of ``config/demo_waypoints.yaml``, switch the mux
   to autonomy, follow the waypoints in ROUNDTRIP mode for one full round (one waypoint runs the
   ``Wait`` routine), then send one simple goal.
2. Maze world, unknown map: explore until no frontier is left, the map revealed by the simulated
   range sensor.
3. The arm: a recorded XR session drives the simulated SO-101-class arm through teleop
   (:mod:`robot_sm.demo_arm`).

It prints state transitions and progress as it goes, writes a PNG of the maps, the paths driven
and the waypoints, one of the arm's motion, an MCAP recording of each phase's topics, prints a
summary and exits 0 on success (non-zero with the reason otherwise).
Run it with ``make demo`` (or ``python -m robot_sm.demo`` in the built environment).
"""

import argparse
from dataclasses import dataclass, field
import math
import pathlib
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from nav_msgs.msg import Odometry
from robot_sm.api import SuiteClient, SuiteUnavailable
from robot_sm.bringup import NodeSpec, SIMULATION, SUITE, SuiteProcess
from robot_sm.demo_arm import (ArmPhaseFailure, ArmRun, draw_arm, recorded_counts, run_arm,
                               tracking_figures)
from robot_sm.grid import OccupancyGrid
from robot_sm.qos import STATE
from robot_sm.resources import share_directory
from robot_sm_msgs.msg import WaypointArray
from std_msgs.msg import String
import yaml

SIMPLE_GOAL = (3.3, 1.9, 0.0)
MAZE_START = (0.5, 0.5, 0.0)


class DemoFailure(RuntimeError):
    """The demo could not do what it set out to do; the message says what."""


@dataclass
class Phase:
    """What one part of the demo did."""

    name: str
    world: str
    started: float = 0.0
    ended: float = 0.0
    path: List[Tuple[float, float]] = field(default_factory=list)
    distance: float = 0.0
    grid: Optional[OccupancyGrid] = None
    waypoints: List[Any] = field(default_factory=list)
    notes: Dict[str, Any] = field(default_factory=dict)

    @property
    def duration(self) -> float:
        """Return the phase's wall time in seconds."""
        return self.ended - self.started


class Observer:
    """Follow the suite's state, waypoints and odometry from the demo's side."""

    def __init__(self, client: SuiteClient, phase: Phase, echo: Callable[[str], None]) -> None:
        self.client = client
        self.phase = phase
        self.echo = echo
        self.lock = threading.Lock()
        self.state = ''
        self.states: List[Tuple[float, str]] = []
        self.waypoints: Optional[WaypointArray] = None
        self.visited_ids: set = set()
        self.unreachable_ids: set = set()
        self.pose: Optional[Tuple[float, float, float]] = None
        node = client.node
        node.create_subscription(String, 'robot_sm/state_info', self._on_state, STATE)
        node.create_subscription(WaypointArray, 'robot_sm/waypoints', self._on_waypoints, STATE)
        node.create_subscription(Odometry, 'odom', self._on_odom, 10)

    def _on_state(self, msg: String) -> None:
        with self.lock:
            if msg.data != self.state:
                self.state = msg.data
                self.states.append((time.monotonic(), msg.data))
                elapsed = time.monotonic() - self.phase.started
                self.echo(f'[{elapsed:6.1f} s] state: {msg.data}')

    def _on_waypoints(self, msg: WaypointArray) -> None:
        with self.lock:
            self.waypoints = msg
            for waypoint in msg.waypoints:
                if waypoint.visited:
                    self.visited_ids.add(waypoint.id)
                if waypoint.unreachable:
                    self.unreachable_ids.add(waypoint.id)

    def _on_odom(self, msg: Odometry) -> None:
        p = msg.pose.pose.position
        q = msg.pose.pose.orientation
        yaw = math.atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z))
        with self.lock:
            path = self.phase.path
            if not path or math.dist(path[-1], (p.x, p.y)) >= 0.02:
                if path:
                    self.phase.distance += math.dist(path[-1], (p.x, p.y))
                path.append((p.x, p.y))
            self.pose = (p.x, p.y, yaw)

    def wait_for(self, predicate: Callable[[], bool], timeout: float, what: str,
                 progress: Optional[Callable[[], str]] = None) -> None:
        """Wait until ``predicate``; print progress; raise DemoFailure after ``timeout``."""
        deadline = time.monotonic() + timeout
        last_progress = time.monotonic()
        while not predicate():
            now = time.monotonic()
            if now > deadline:
                raise DemoFailure(f'{what}: not done within {timeout:.0f} s '
                                  f'(state: {self.state or "unknown"})')
            if progress is not None and now - last_progress >= 5.0:
                last_progress = now
                self.echo(f'[{now - self.phase.started:6.1f} s] {progress()}')
            time.sleep(0.05)


def _check(result: Any, what: str) -> Any:
    if not result.success:
        raise DemoFailure(f'{what}: {result.message}')
    return result


RECORDER = NodeSpec('topic_recorder', 'robot_sm.nodes.topic_recorder:TopicRecorder')


def _start_suite(world: str, overrides: Dict[str, Dict[str, Any]],
                 files: List[pathlib.Path], recording: pathlib.Path) -> SuiteProcess:
    import rclpy.logging
    specs = list(SUITE) + list(SIMULATION) + [RECORDER]
    for spec in specs:
        # The demo prints its own progress lines: the nodes only speak up for warnings.
        rclpy.logging.set_logger_level(spec.executable, rclpy.logging.LoggingSeverity.WARN)
    sim = {'world': world, **overrides.get('robot_sim', {})}
    recording.parent.mkdir(parents=True, exist_ok=True)
    # The demo starts from a clean slate every time: no e-stop latched by an earlier session.
    mux = {'emergency_stop_file': '', **overrides.get('robot_control_mux', {})}
    return SuiteProcess(specs, files, {**overrides, 'robot_sim': sim, 'robot_control_mux': mux,
                                       'topic_recorder': {'output': str(recording)}})


def _pose_text(observer: Observer) -> str:
    pose = observer.pose
    return f'({pose[0]:.2f}, {pose[1]:.2f})' if pose else '(unknown)'


def run_waypoints(files: List[pathlib.Path], echo: Callable[[str], None],
                  waypoints_file: pathlib.Path, timeout: float, recording: pathlib.Path) -> Phase:
    """Phase 1: one ROUNDTRIP round over the demo waypoints, then a simple goal."""
    phase = Phase('waypoint round and simple goal', 'office')
    plan = yaml.safe_load(waypoints_file.read_text())['waypoints']
    overrides = {'state_interface': {'Navigation.max_linear_speed': 0.45,
                                     'WaitRoutine.wait_duration': 2.0},
                 'robot_sim': {'start_x': 1.0, 'start_y': 1.0}}
    suite = _start_suite('office', overrides, files, recording)
    client = SuiteClient(timeout=10.0, context=suite.context)
    try:
        phase.started = time.monotonic()
        observer = Observer(client, phase, echo)
        observer.wait_for(lambda: observer.state == 'Idle', 30.0, 'boot')
        for point in plan:
            _check(client.add_waypoint(point['x'], point['y'], point.get('yaw', 0.0),
                                       point.get('routine', '')), 'add waypoint')
        observer.wait_for(lambda: observer.waypoints is not None
                          and len(observer.waypoints.waypoints) == len(plan), 10.0,
                          'waypoints listed')
        ids = {w.id for w in observer.waypoints.waypoints}  # type: ignore[union-attr]
        echo(f'loaded {len(ids)} waypoints from {waypoints_file.name}')
        _check(client.set_mode('autonomy'), 'autonomy mode')
        _check(client.start_waypoint_following('roundtrip'), 'start waypoint following')
        echo('waypoint following started (ROUNDTRIP)')

        def round_done() -> bool:
            with observer.lock:
                return ids <= (observer.visited_ids | observer.unreachable_ids)

        def progress() -> str:
            with observer.lock:
                done = len(ids & (observer.visited_ids | observer.unreachable_ids))
            return (f'{observer.state} | waypoints {done}/{len(ids)} | pose '
                    f'{_pose_text(observer)} | driven {phase.distance:.1f} m')

        observer.wait_for(round_done, timeout, 'one round of waypoint following', progress)
        _check(client.stop_waypoint_following(), 'stop waypoint following')
        phase.notes['waypoints_reached'] = len(ids & observer.visited_ids)
        phase.notes['waypoints_unreachable'] = len(ids & observer.unreachable_ids)
        phase.notes['waypoint_count'] = len(ids)
        echo(f'round complete: {phase.notes["waypoints_reached"]}/{len(ids)} reached')
        observer.wait_for(lambda: observer.state == 'Idle', 10.0, 'stop following')

        x, y, yaw = SIMPLE_GOAL
        _check(client.send_goal(x, y, yaw), 'simple goal')
        echo(f'simple goal sent: ({x}, {y})')
        observer.wait_for(lambda: observer.state.startswith('G:'), 10.0, 'simple goal accepted')
        observer.wait_for(lambda: observer.state == 'Idle', timeout / 2, 'simple goal',
                          progress=lambda: f'{observer.state} | pose {_pose_text(observer)}')
        pose = observer.pose
        error = math.dist((pose[0], pose[1]), (x, y)) if pose else math.inf
        phase.notes['simple_goal_error'] = error
        if error > 0.2:
            raise DemoFailure(f'the simple goal ended {error:.2f} m from ({x}, {y})')
        echo(f'simple goal reached ({error * 100:.0f} cm off)')
        phase.ended = time.monotonic()
        phase.grid = suite.nodes['robot_sim'].world
        phase.waypoints = list(observer.waypoints.waypoints)  # type: ignore[union-attr]
        phase.notes['goal'] = (x, y)
        return phase
    finally:
        client.close()
        suite.shutdown()


def run_exploration(files: List[pathlib.Path], echo: Callable[[str], None],
                    timeout: float, recording: pathlib.Path) -> Phase:
    """Phase 2: explore the maze from an unknown map until no frontier is left."""
    phase = Phase('exploration', 'maze')
    overrides = {
        'state_interface': {'calculate_goal_plugin': 'CalculateGoal',
                            'mapping_plugin': 'MappingDummy',
                            'Navigation.max_linear_speed': 0.45},
        'robot_sim': {'reveal_map': True, 'start_x': MAZE_START[0], 'start_y': MAZE_START[1],
                      'start_yaw': MAZE_START[2], 'sensor_range': 2.5},
    }
    suite = _start_suite('maze', overrides, files, recording)
    client = SuiteClient(timeout=10.0, context=suite.context)
    sim = suite.nodes['robot_sim']
    try:
        phase.started = time.monotonic()
        observer = Observer(client, phase, echo)
        observer.wait_for(lambda: observer.state == 'Idle', 30.0, 'boot')
        _check(client.set_mode('autonomy'), 'autonomy mode')
        _check(client.start_exploration(interrupt=True), 'start exploration')
        echo('exploration started (interrupt mode)')
        observer.wait_for(lambda: observer.state.startswith('E:'), 10.0, 'exploration start')
        observer.wait_for(
            lambda: observer.state == 'Idle', timeout, 'exploration',
            progress=lambda: (f'{observer.state} | explored {sim.explored_fraction():.0%} | '
                              f'pose {_pose_text(observer)} | driven {phase.distance:.1f} m'))
        phase.ended = time.monotonic()
        phase.notes['explored_fraction'] = sim.explored_fraction()
        phase.grid = OccupancyGrid(sim.known.data.copy(), sim.known.resolution,
                                   sim.known.origin_x, sim.known.origin_y)
        echo(f'exploration ended: {phase.notes["explored_fraction"]:.1%} of the free space seen')
        return phase
    finally:
        client.close()
        suite.shutdown()


def draw(phases: List[Phase], path: pathlib.Path) -> None:
    """Write a PNG with one panel per phase: the map, the path and the waypoints."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from robot_sm.nodes.waypoint_markers import colour_of
    figure, axes = plt.subplots(1, len(phases), figsize=(7 * len(phases), 6))
    if len(phases) == 1:
        axes = [axes]
    for axis, phase in zip(axes, phases):
        grid = phase.grid
        if grid is not None:
            shade = {-1: 0.55, 0: 1.0}
            image = [[shade.get(int(v), 0.0 if v >= 65 else 1.0) for v in row]
                     for row in grid.data]
            extent = (grid.origin_x, grid.origin_x + grid.width * grid.resolution,
                      grid.origin_y, grid.origin_y + grid.height * grid.resolution)
            axis.imshow(image, cmap='gray', origin='lower', extent=extent, vmin=0.0, vmax=1.0)
        if phase.path:
            xs, ys = zip(*phase.path)
            axis.plot(xs, ys, '-', color='tab:orange', linewidth=1.5, label='path driven')
            axis.plot(xs[0], ys[0], 'o', color='tab:orange', markersize=8, label='start')
        for index, waypoint in enumerate(phase.waypoints):
            colour = colour_of(waypoint.visited, waypoint.unreachable)
            p = waypoint.pose.position
            axis.plot(p.x, p.y, 'v', color=(colour.r, colour.g, colour.b), markersize=12)
            label = f'{index}: {waypoint.routine}' if waypoint.routine else str(index)
            axis.annotate(label, (p.x, p.y), textcoords='offset points', xytext=(6, 6))
        if 'goal' in phase.notes:
            axis.plot(*phase.notes['goal'], '*', color='tab:purple', markersize=16,
                      label='simple goal')
        title = f'{phase.world}: {phase.name} ({phase.duration:.0f} s, {phase.distance:.1f} m)'
        if 'explored_fraction' in phase.notes:
            title += f'\nexplored {phase.notes["explored_fraction"]:.0%} of the free space'
        axis.set_title(title)
        axis.set_xlabel('x (m)')
        axis.set_ylabel('y (m)')
        axis.set_aspect('equal')
        axis.legend(loc='upper right', fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=90)
    plt.close(figure)


def main(argv: Optional[List[str]] = None) -> int:
    """Run the demo; return 0 on success."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0].strip())
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
    args = parser.parse_args(argv)

    def echo(text: str) -> None:
        print(text, flush=True)

    share = share_directory() / 'config'
    files = [share / 'robot_sm.yaml', share / 'sim.yaml']
    started = time.monotonic()
    phases: List[Phase] = []
    arm: Optional[ArmRun] = None
    recordings: List[pathlib.Path] = []
    try:
        if not args.arm_only:
            echo('== phase 1: office, waypoint round (ROUNDTRIP) and a simple goal')
            recordings.append(args.output / 'demo-waypoints.mcap')
            phases.append(run_waypoints(files, echo, share / 'demo_waypoints.yaml',
                                        args.timeout, recordings[-1]))
            if not args.skip_exploration:
                echo('== phase 2: maze, exploration from an unknown map')
                recordings.append(args.output / 'demo-exploration.mcap')
                phases.append(run_exploration(files, echo, args.timeout, recordings[-1]))
        if not args.skip_arm:
            echo('== phase 3: the arm, teleoperated from a recorded XR session')
            arm = run_arm(files, echo, args.output, args.timeout)
            recordings.append(args.output / 'demo-arm.mcap')
            draw_arm(arm, args.output / 'demo-arm.png')
            echo(f"picture: {args.output / 'demo-arm.png'}")
    except (DemoFailure, ArmPhaseFailure, SuiteUnavailable) as error:
        echo(f'demo FAILED: {error}')
        return 1
    finally:
        if phases:
            picture = args.output / 'demo.png'
            draw(phases, picture)
            echo(f'picture: {picture}')
    total = time.monotonic() - started
    echo('== summary')
    echo(f'  total time            {total:.1f} s')
    if phases:
        first = phases[0].notes
        echo(f"  waypoints reached     {first['waypoints_reached']}/{first['waypoint_count']} "
             f"({first['waypoints_unreachable']} unreachable) in {phases[0].duration:.1f} s, "
             f'{phases[0].distance:.1f} m driven')
        echo(f"  simple goal           reached, {first['simple_goal_error'] * 100:.0f} cm off")
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
    for recording in recordings:
        counts = recorded_counts(recording)
        echo(f'  recording             {recording}: {sum(counts.values())} messages on '
             f'{len(counts)} topics (ros2 bag play, Foxglove)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
