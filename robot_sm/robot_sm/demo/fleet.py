"""
The fleet demo: three robots in the office world, one fleet-wide stop, and a release.

Each robot follows waypoints of its own (``config/demo_fleet_waypoints.yaml``) in ROUNDTRIP
mode; a few seconds in, the operator stops the whole fleet at once
(:meth:`robot_sm.client.fleet.FleetClient.emergency_stop`) and the demo times how long until every
robot's wheels are at zero; after a pause it releases the fleet, selects autonomy again on
every robot, and the robots finish their rounds. A PNG shows each robot's path in its own
colour, its waypoints, and where each robot was when the fleet stopped.
"""

from dataclasses import dataclass, field
import math
import pathlib
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from nav_msgs.msg import Odometry
from robot_sm.bringup.recorder import Recorder
from robot_sm.bringup.running_fleet import RunningFleet
from robot_sm.bringup.suite_nodes import fleet_names, ROBOT_NODES, SIMULATOR, SUITE
from robot_sm.client.fleet import FleetClient
from robot_sm.client.tasks import Task, TaskEnded, WaitTimeout
from robot_sm.demo.drawing import draw_grid, path_driven, save_map_figure
from robot_sm.grid import OccupancyGrid
import yaml

#: Seconds after the robots set off until the fleet-wide stop.
STOP_AFTER = 6.0
#: Seconds the fleet stays stopped; every robot must stand still meanwhile.
STOPPED_FOR = 3.0
#: Colours of the robots' paths, in order.
COLOURS = ('tab:orange', 'tab:blue', 'tab:green', 'tab:red', 'tab:purple', 'tab:brown')


class FleetDemoFailure(RuntimeError):
    """The fleet demo could not do what it set out to do; the message says what."""


@dataclass
class RobotRun:
    """What one robot of the fleet did."""

    name: str
    plan: List[Dict[str, Any]]
    path: List[Tuple[float, float]] = field(default_factory=list)
    distance: float = 0.0
    #: Where the robot was when the fleet stop was asked for.
    at_stop: Optional[Tuple[float, float]] = None
    #: Seconds from the fleet stop request to this robot's first standing odometry.
    wheels_zero_after: Optional[float] = None
    #: Metres the robot moved while the fleet was stopped (after its wheels were at zero).
    crept: float = 0.0
    visited: int = 0


@dataclass
class FleetRun:
    """What the fleet demo did."""

    robots: List[RobotRun]
    grid: Optional[OccupancyGrid] = None
    started: float = 0.0
    stop_requested: float = 0.0
    stop_confirmed: Dict[str, Optional[float]] = field(default_factory=dict)
    released: float = 0.0
    ended: float = 0.0


def _standing_since(odometry: Recorder[Odometry], after: float) -> Optional[float]:
    """Return the arrival time of the first standing odometry at or after ``after``, or None."""
    for stamp, msg in odometry.stamped:
        twist = msg.twist.twist
        if stamp >= after and twist.linear.x == 0.0 and twist.angular.z == 0.0:
            return stamp
    return None


def _check(result: Any, what: str) -> Any:
    if not result.success:
        raise FleetDemoFailure(f'{what}: {result.message}')
    return result


def _quiet_nodes(count: int) -> None:
    """Let the nodes speak up only for warnings: the demo prints its own progress lines."""
    import rclpy.logging
    for name in fleet_names(count):
        for spec in list(SUITE) + list(ROBOT_NODES):
            rclpy.logging.set_logger_level(f'{name}.{spec.executable}',
                                           rclpy.logging.LoggingSeverity.WARN)
    for spec in SIMULATOR:
        rclpy.logging.set_logger_level(spec.executable, rclpy.logging.LoggingSeverity.WARN)


def run_fleet(files: List[pathlib.Path], plan_file: pathlib.Path, count: int,
              echo: Callable[[str], None], timeout: float) -> FleetRun:
    """Run the fleet demo with ``count`` robots; return what they did."""
    plans = yaml.safe_load(plan_file.read_text())['robots']
    if not 1 <= count <= len(plans):
        raise FleetDemoFailure(f'{plan_file.name} has waypoints for 1 to {len(plans)} robots, '
                               f'not {count}')
    _quiet_nodes(count)
    parameters: Dict[str, Dict[str, Any]] = {
        'robot_control_mux': {'emergency_stop_file': ''},
        'state_interface': {'Navigation.max_linear_speed': 0.45}}
    with RunningFleet(count, world='office', parameter_files=files,
                      parameters=parameters) as fleet, FleetClient(timeout=5.0) as operator:
        run = FleetRun([RobotRun(name, plans[name]) for name in fleet.names])
        odometry = {name: suite.record(Odometry, 'odom', 10)
                    for name, suite in fleet.suites.items()}
        found = operator.wait_for_robots(count=count, timeout=10.0)
        echo(f"fleet view: {len(found)} robots ({', '.join(found)})")
        tasks: Dict[str, Task] = {}
        for robot in run.robots:
            client = fleet.suites[robot.name].client
            for point in robot.plan:
                _check(client.add_waypoint(point['x'], point['y'], point.get('yaw', 0.0)),
                       f'{robot.name}: add waypoint')
            _check(client.set_mode('autonomy'), f'{robot.name}: autonomy mode')
            tasks[robot.name] = client.follow_waypoints('roundtrip')
        run.started = time.monotonic()
        echo(f'{count} robots following their waypoints (ROUNDTRIP)')
        time.sleep(STOP_AFTER)
        _stop_the_fleet(run, operator, odometry, echo)
        _release_the_fleet(run, fleet, operator, tasks, echo)
        _finish_the_rounds(run, tasks, timeout, echo)
        for robot in run.robots:
            robot.path, robot.distance = path_driven(odometry[robot.name].messages)
        world = fleet.robot_sim.world
        run.grid = OccupancyGrid(world.data.copy(), world.resolution, world.origin_x,
                                 world.origin_y)
        return run


def _stop_the_fleet(run: FleetRun, operator: FleetClient,
                    odometry: Dict[str, Recorder[Odometry]], echo: Callable[[str], None]) -> None:
    """Engage every robot's e-stop at once; check each confirms, stops and stays still."""
    run.stop_requested = time.monotonic()
    for robot in run.robots:
        last = odometry[robot.name].last
        if last is not None:
            robot.at_stop = (last.pose.pose.position.x, last.pose.pose.position.y)
    acknowledgements = operator.emergency_stop(True)
    for ack in acknowledgements:
        run.stop_confirmed[ack.namespace.strip('/').rsplit('/', 1)[-1]] = ack.seconds
    missing = [ack.namespace for ack in acknowledgements if not ack.confirmed]
    if missing or len(acknowledgements) != len(run.robots):
        raise FleetDemoFailure(f'fleet stop: not confirmed by {missing or "all robots"}')
    time.sleep(STOPPED_FOR)
    for robot in run.robots:
        standing = _standing_since(odometry[robot.name], run.stop_requested)
        if standing is None:
            raise FleetDemoFailure(f'{robot.name} did not stop after the fleet stop')
        robot.wheels_zero_after = standing - run.stop_requested
        poses = [(m.pose.pose.position.x, m.pose.pose.position.y)
                 for t, m in odometry[robot.name].stamped if t >= standing]
        robot.crept = max((math.dist(poses[0], p) for p in poses), default=0.0)
        if robot.crept > 0.001:
            raise FleetDemoFailure(f'{robot.name} moved {robot.crept:.3f} m while stopped')
    slowest = max(r.wheels_zero_after or 0.0 for r in run.robots)
    echo(f'fleet stop: every robot confirmed, all wheels at zero within '
         f'{slowest * 1000:.0f} ms; standing still for {STOPPED_FOR:.0f} s')


def _release_the_fleet(run: FleetRun, fleet: RunningFleet, operator: FleetClient,
                       tasks: Dict[str, Task], echo: Callable[[str], None]) -> None:
    """Release every e-stop; the operator selects autonomy and starts following again."""
    run.released = time.monotonic()
    missing = [a.namespace for a in operator.emergency_stop(False) if not a.confirmed]
    if missing:
        raise FleetDemoFailure(f'fleet release: not confirmed by {missing}')
    for robot in run.robots:
        # The e-stop ended each robot's waypoint following: the operator starts it again.
        try:
            tasks[robot.name].wait(2.0)
        except WaitTimeout as error:
            raise FleetDemoFailure(f'{robot.name}: waypoint following went on through the '
                                   'fleet stop') from error
        suite = fleet.suites[robot.name]
        suite.wait_state('Idle', after=run.released, timeout=10.0)
        client = suite.client
        _check(client.set_mode('autonomy'), f'{robot.name}: autonomy mode after the release')
        tasks[robot.name] = client.follow_waypoints('roundtrip')
    echo('fleet released; autonomy and waypoint following started again on every robot')


def _finish_the_rounds(run: FleetRun, tasks: Dict[str, Task], timeout: float,
                       echo: Callable[[str], None]) -> None:
    """Wait until every robot completed a round, then stop its following."""
    deadline = time.monotonic() + timeout
    pending = dict(tasks)
    while pending:
        for name, task in list(pending.items()):
            try:
                feedback = task.wait_for_feedback(lambda f: f.rounds >= 1, 0.1)
            except WaitTimeout:
                continue
            except TaskEnded as ended:
                raise FleetDemoFailure(f'{name}: {ended}') from ended
            next(r for r in run.robots if r.name == name).visited = feedback.visited
            echo(f'[{time.monotonic() - run.started:6.1f} s] {name}: round complete, '
                 f'{feedback.visited}/{feedback.total} reached')
            _check(task.cancel(), f'{name}: stop waypoint following')
            del pending[name]
        if time.monotonic() > deadline:
            raise FleetDemoFailure(f'not every robot finished its round within {timeout:.0f}'
                                   f" s: {', '.join(pending)}")
    run.ended = time.monotonic()


def draw_fleet(run: FleetRun, path: pathlib.Path) -> None:
    """Write a PNG: the map, each robot's path and waypoints in its colour, the fleet stop."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    figure, axis = plt.subplots(figsize=(9, 7))
    if run.grid is not None:
        draw_grid(axis, run.grid)
    for index, robot in enumerate(run.robots):
        colour = COLOURS[index % len(COLOURS)]
        if robot.path:
            xs, ys = zip(*robot.path)
            axis.plot(xs, ys, '-', color=colour, linewidth=1.8,
                      label=f'{robot.name}: {robot.distance:.1f} m')
            axis.plot(xs[0], ys[0], 'o', color=colour, markersize=8)
        for number, point in enumerate(robot.plan):
            axis.plot(point['x'], point['y'], 'v', color=colour, markersize=11)
            axis.annotate(str(number), (point['x'], point['y']), textcoords='offset points',
                          xytext=(5, 5), color=colour)
        if robot.at_stop is not None:
            axis.plot(*robot.at_stop, 'X', color='black', markersize=13,
                      markeredgecolor='white')
    axis.plot([], [], 'X', color='black', markersize=10, label='where the fleet stop came')
    slowest = max((r.wheels_zero_after or 0.0) for r in run.robots)
    axis.set_title(f'office: {len(run.robots)} robots, fleet stop at '
                   f'{run.stop_requested - run.started:.1f} s (all wheels zero in '
                   f'{slowest * 1000:.0f} ms), released at {run.released - run.started:.1f} s')
    save_map_figure(figure, [axis], path)
