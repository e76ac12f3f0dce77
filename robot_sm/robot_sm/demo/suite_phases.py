"""
The demo's phases on the mobile robot: a waypoint round in the office, exploring the maze.

Each phase starts the suite with the simulated robot (:class:`~robot_sm.bringup.running_suite.
RunningSuite`), drives it through :mod:`robot_sm.client` as an operator would, narrates its
state changes and progress, records its topics, and returns a :class:`Phase` to draw.
"""

from dataclasses import dataclass, field
import math
import pathlib
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from nav_msgs.msg import Odometry
from robot_sm.bringup.recorder import Recorder
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.bringup.suite_nodes import NodeSpec, SIMULATION, SUITE
from robot_sm.client.tasks import (
    describe,
    Task,
    TaskEnded,
    TaskFeedback,
    TaskResult,
    TaskStatus,
    WaitTimeout,
)
from robot_sm.demo.drawing import draw_grid, path_driven, save_map_figure
from robot_sm.demo.incident import DemoRecorder, stop_while_driving
from robot_sm.demo.web_screenshots import ConsoleScreenshots
from robot_sm.grid import OccupancyGrid
import yaml


SIMPLE_GOAL = (3.3, 1.9, 0.0)


MAZE_START = (0.5, 0.5, 0.0)


#: Seconds between two progress lines.
PROGRESS_EVERY = 5.0


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

    def drive(self, odometry: Sequence[Odometry]) -> None:
        """Take the path driven from odometry: a point every 2 cm, and its length."""
        self.path, self.distance = path_driven(odometry)


class Narrator:
    """Tell what the suite does during a phase: its states as they change, and progress."""

    def __init__(self, suite: RunningSuite, phase: Phase, echo: Callable[[str], None]) -> None:
        self.suite = suite
        self.phase = phase
        self.echo = echo
        self.odom: Recorder[Odometry] = suite.record(Odometry, 'odom', 10)
        self._told = 0

    def tell_states(self) -> None:
        """Print the state changes not told yet."""
        stamped = self.suite.states.stamped
        for index in range(self._told, len(stamped)):
            stamp, msg = stamped[index]
            if index == 0 or msg.data != stamped[index - 1][1].data:
                self.echo(f'[{stamp - self.phase.started:6.1f} s] state: {msg.data}')
        self._told = len(stamped)

    def pose_text(self) -> str:
        """Return the robot's position from odometry, as text."""
        msg = self.odom.last
        if msg is None:
            return '(unknown)'
        return f'({msg.pose.pose.position.x:.2f}, {msg.pose.pose.position.y:.2f})'

    def follow(self, task: Task, what: str, timeout: float,
               progress: Callable[[TaskFeedback], str],
               until: Optional[Callable[[TaskFeedback], bool]] = None,
               ) -> Union[TaskFeedback, TaskResult]:
        """
        Wait until ``until`` holds (else until the task ends) and return what was awaited.

        Prints the states and, every :data:`PROGRESS_EVERY` seconds, ``progress``.

        :raises DemoFailure: after ``timeout``, or if the task ends before ``until`` holds.
        """
        deadline = time.monotonic() + timeout
        next_report = time.monotonic() + PROGRESS_EVERY
        while True:
            try:
                return task.wait(0.1) if until is None else task.wait_for_feedback(until, 0.1)
            except TaskEnded as ended:
                raise DemoFailure(f'{what}: {ended}') from ended
            except WaitTimeout:
                pass
            finally:
                self.tell_states()
            now = time.monotonic()
            if now > deadline:
                raise DemoFailure(f'{what}: not done within {timeout:.0f} s '
                                  f'({describe(task.feedback())})')
            if now >= next_report:
                next_report = now + PROGRESS_EVERY
                self.phase.drive(self.odom.messages)
                self.echo(f'[{now - self.phase.started:6.1f} s] {progress(task.feedback())}')


def _check(result: Any, what: str) -> Any:
    if not result.success:
        raise DemoFailure(f'{what}: {result.message}')
    return result


def _started(task: Task, what: str) -> Task:
    result = task.result()
    if result is not None:
        raise DemoFailure(f'{what}: {result.message}')
    return task


TOPIC_RECORDER = NodeSpec('topic_recorder', 'robot_sm.nodes.topic_recorder:TopicRecorder')
#: Seconds the incident recorder writes after an incident (its default).
AFTER_SECONDS = 5.0


def _start_suite(world: str, overrides: Dict[str, Dict[str, Any]],
                 files: List[pathlib.Path], recording: pathlib.Path) -> RunningSuite:
    import rclpy.logging
    for spec in list(SUITE) + list(SIMULATION) + [TOPIC_RECORDER]:
        # The demo prints its own progress lines: the nodes only speak up for warnings.
        rclpy.logging.set_logger_level(spec.executable, rclpy.logging.LoggingSeverity.WARN)
    recording.parent.mkdir(parents=True, exist_ok=True)
    # The demo starts from a clean slate every time: no e-stop latched by an earlier session.
    mux = {'emergency_stop_file': '', **overrides.get('robot_control_mux', {})}
    return RunningSuite(world=world, parameter_files=files, extra_nodes=[TOPIC_RECORDER],
                        parameters={**overrides, 'robot_control_mux': mux,
                                    'topic_recorder': {'output': str(recording)}})


def _speed(odometry: Optional[Odometry]) -> float:
    if odometry is None:
        return 0.0
    return math.hypot(odometry.twist.twist.linear.x, odometry.twist.twist.linear.y)


def run_waypoints(files: List[pathlib.Path], echo: Callable[[str], None],
                  waypoints_file: pathlib.Path, timeout: float, recording: pathlib.Path,
                  pictures: Optional[pathlib.Path] = None) -> Phase:
    """
    Phase 1: one ROUNDTRIP round over the demo waypoints ended by an e-stop, then a simple goal.

    The e-stop, engaged while the robot drives on into the next round, is an incident of the
    incident recorder (written to ``incidents/`` beside the recording), whose figures are kept in
    the phase's notes. With ``pictures``, the web console's pictures are taken into that folder
    meanwhile, and at the end a phone's page drives the robot (turning it where the goal left
    it), given control by the demo.
    """
    phase = Phase('waypoint round and simple goal', 'office', started=time.monotonic())
    plan = yaml.safe_load(waypoints_file.read_text())['waypoints']
    overrides = {'state_interface': {'Navigation.max_linear_speed': 0.45,
                                     'WaitRoutine.wait_duration': 2.0},
                 'robot_sim': {'start_x': 1.0, 'start_y': 1.0}}
    with DemoRecorder(recording.parent / 'incidents', parameter_files=files) as recorder, \
            _start_suite('office', overrides, files, recording) as suite, \
            ConsoleScreenshots(suite, pictures, echo) as console:
        client, narrator = suite.client, Narrator(suite, phase, echo)
        narrator.tell_states()
        if not recorder.wait_ready():
            raise DemoFailure(f'the incident recorder did not start: {recorder.output()}')
        for point in plan:
            _check(client.add_waypoint(point['x'], point['y'], point.get('yaw', 0.0),
                                       point.get('routine', '')), 'add waypoint')
        echo(f'loaded {len(plan)} waypoints from {waypoints_file.name}')
        _check(client.set_mode('autonomy'), 'autonomy mode')
        following = _started(client.follow_waypoints('roundtrip'), 'start waypoint following')
        echo('waypoint following started (ROUNDTRIP)')
        done = narrator.follow(
            following, 'one round of waypoint following', timeout,
            lambda f: (f'{f.state} | waypoints {f.visited + f.unreachable}/{f.total} | pose '
                       f'{narrator.pose_text()} | driven {phase.distance:.1f} m'),
            until=lambda f: f.rounds >= 1)
        assert isinstance(done, TaskFeedback)
        phase.notes['waypoints_reached'] = done.visited
        phase.notes['waypoints_unreachable'] = done.unreachable
        phase.notes['waypoint_count'] = done.total
        echo(f'round complete: {done.visited}/{done.total} reached')
        try:
            phase.notes['incident'] = stop_while_driving(
                lambda: _check(client.set_emergency_stop(True), 'e-stop'),
                lambda: _speed(narrator.odom.last), recorder, AFTER_SECONDS, echo)
        except RuntimeError as failure:
            raise DemoFailure(str(failure)) from failure
        narrator.follow(following, 'stop following', 10.0, describe)
        _check(client.set_emergency_stop(False), 'release the e-stop')
        client.wait_for_state('Idle')
        _check(client.set_mode('autonomy'), 'autonomy mode')

        x, y, yaw = SIMPLE_GOAL
        goal = _started(client.go_to(x, y, yaw), 'simple goal')
        echo(f'simple goal sent: ({x}, {y})')
        result = narrator.follow(goal, 'simple goal', timeout / 2,
                                 lambda f: f'{f.state} | pose {narrator.pose_text()}')
        assert isinstance(result, TaskResult)
        if result.status is not TaskStatus.SUCCEEDED:
            raise DemoFailure(f'simple goal: {result.status.value}: {result.message}')
        last = narrator.odom.last
        error = math.dist((last.pose.pose.position.x, last.pose.pose.position.y), (x, y)) \
            if last is not None else math.inf
        phase.notes['simple_goal_error'] = error
        if error > 0.2:
            raise DemoFailure(f'the simple goal ended {error:.2f} m from ({x}, {y})')
        echo(f'simple goal reached ({error * 100:.0f} cm off)')
        console.driving(lambda: _check(client.release_control(), 'give control up'))
        phase.ended = time.monotonic()
        phase.drive(narrator.odom.messages)
        phase.grid = suite.nodes['robot_sim'].world
        phase.waypoints = list(suite.lists.last.waypoints)  # type: ignore[union-attr]
        phase.notes['goal'] = (x, y)
        return phase


def run_exploration(files: List[pathlib.Path], echo: Callable[[str], None],
                    timeout: float, recording: pathlib.Path) -> Phase:
    """Phase 2: explore the maze from an unknown map until no frontier is left."""
    phase = Phase('exploration', 'maze', started=time.monotonic())
    overrides: Dict[str, Dict[str, Any]] = {
        'state_interface': {'calculate_goal_plugin': 'CalculateGoal',
                            'mapping_plugin': 'MappingDummy',
                            'Navigation.max_linear_speed': 0.45},
        'robot_sim': {'reveal_map': True, 'start_x': MAZE_START[0], 'start_y': MAZE_START[1],
                      'start_yaw': MAZE_START[2], 'sensor_range': 2.5},
    }
    with _start_suite('maze', overrides, files, recording) as suite:
        client, narrator = suite.client, Narrator(suite, phase, echo)
        sim = suite.nodes['robot_sim']
        narrator.tell_states()
        _check(client.set_mode('autonomy'), 'autonomy mode')
        task = _started(client.explore(interrupt=True), 'start exploration')
        echo('exploration started (interrupt mode)')
        result = narrator.follow(
            task, 'exploration', timeout,
            lambda f: (f'{f.state} | explored {sim.explored_fraction():.0%} | {f.goals} goals | '
                       f'pose {narrator.pose_text()} | driven {phase.distance:.1f} m'))
        assert isinstance(result, TaskResult)
        phase.ended = time.monotonic()
        phase.drive(narrator.odom.messages)
        phase.notes['explored_fraction'] = sim.explored_fraction()
        phase.notes['exploration_goals'] = result.feedback.goals
        phase.grid = OccupancyGrid(sim.known.data.copy(), sim.known.resolution,
                                   sim.known.origin_x, sim.known.origin_y)
        echo(f'exploration ended ({result.status.value}: {result.message}): '
             f'{phase.notes["explored_fraction"]:.1%} of the free space seen')
        return phase


def draw(phases: List[Phase], path: pathlib.Path) -> None:
    """Write a PNG with one panel per phase: the map, the path and the waypoints."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from robot_sm.contract import WAYPOINT_COLOURS, waypoint_status
    figure, axes = plt.subplots(1, len(phases), figsize=(7 * len(phases), 6))
    if len(phases) == 1:
        axes = [axes]
    for axis, phase in zip(axes, phases):
        if phase.grid is not None:
            draw_grid(axis, phase.grid)
        if phase.path:
            xs, ys = zip(*phase.path)
            axis.plot(xs, ys, '-', color='tab:orange', linewidth=1.5, label='path driven')
            axis.plot(xs[0], ys[0], 'o', color='tab:orange', markersize=8, label='start')
        for index, waypoint in enumerate(phase.waypoints):
            colour = WAYPOINT_COLOURS[waypoint_status(waypoint.visited, waypoint.unreachable)]
            p = waypoint.pose.position
            axis.plot(p.x, p.y, 'v', color=colour[:3], markersize=12)
            label = f'{index}: {waypoint.routine}' if waypoint.routine else str(index)
            axis.annotate(label, (p.x, p.y), textcoords='offset points', xytext=(6, 6))
        if 'goal' in phase.notes:
            axis.plot(*phase.notes['goal'], '*', color='tab:purple', markersize=16,
                      label='simple goal')
        title = f'{phase.world}: {phase.name} ({phase.duration:.0f} s, {phase.distance:.1f} m)'
        if 'explored_fraction' in phase.notes:
            title += f'\nexplored {phase.notes["explored_fraction"]:.0%} of the free space'
        axis.set_title(title)
    save_map_figure(figure, axes, path)
