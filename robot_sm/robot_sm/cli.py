# PYTHON_ARGCOMPLETE_OK
"""
robot-sm: start a robot_sm suite, and operate a running one, from the command line.

A thin front-end over :mod:`robot_sm.api` and :func:`robot_sm.bringup.run_up`. Exit codes: 0
when the suite did what was asked (``up``: when stopped by SIGINT or SIGTERM), 1 when it answered
``success=false`` (its message is printed), 2 on a usage error, a world or parameter file ``up``
cannot use, or when the suite did not answer within ``--timeout``.
"""

import argparse
import dataclasses
import json
import math
import pathlib
import sys
import time
from typing import Any, Callable, Dict, Iterable, List, Optional

EXIT_OK, EXIT_REFUSED, EXIT_UNAVAILABLE = 0, 1, 2


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f'{text} is not a finite number')
    return value


def _complete_worlds(**_: Any) -> Iterable[str]:
    """Complete --world with the shipped worlds (argcomplete calls this)."""
    from robot_sm.resources import shipped_worlds
    return shipped_worlds()


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog='robot-sm', description='Operate a running robot_sm suite.',
        epilog='Exit codes: 0 done, 1 refused by the suite, 2 usage error or suite unreachable.')
    add_arguments(parser)
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options and every subcommand to ``parser`` (robot-sm's, or ros2's)."""
    from robot_sm.resources import shipped_worlds
    parser.add_argument('--namespace', '-n', default='',
                        help='namespace the suite runs in (default: the root)')
    parser.add_argument('--timeout', '-t', type=_finite, default=5.0,
                        help='seconds to wait for the suite to answer (default 5)')
    parser.add_argument('--json', action='store_true', help='print machine-readable JSON')
    commands = parser.add_subparsers(dest='command', metavar='COMMAND', required=True)

    up = commands.add_parser(
        'up', help='run the suite in this process until Ctrl-C',
        description='Run the suite (and the simulation, and teleop) in this process until '
                    'SIGINT or SIGTERM, for machines without ros2 launch. Loads '
                    'config/robot_sm.yaml (and config/sim.yaml with --sim), then --params.')
    up.add_argument('--sim', action='store_true',
                    help='also run base_controller and robot_sim, the simulated robot')
    world = up.add_argument('--world', metavar='NAME',
                            help='world of the simulation (needs --sim): '
                                 f"{', '.join(shipped_worlds())} or a map YAML file")
    setattr(world, 'completer', _complete_worlds)
    up.add_argument('--params', nargs='+', action='extend', default=[], metavar='FILE',
                    type=pathlib.Path, help='ROS parameter files, loaded last, in order')
    up.add_argument('--teleop', action='store_true', help='also run teleop_retargeting')
    up.add_argument('--remote', action='store_true',
                    help='operator station on another computer: load config/remote.yaml (the '
                         'robot stops when the operator heartbeat is lost)')

    connect = commands.add_parser(
        'connect', help='be the operator until Ctrl-C: publish the heartbeat, show whether the '
                        'robot hears it')
    connect.add_argument('--rate', type=_finite, metavar='HZ',
                         help='heartbeats per second (default 10)')

    status = commands.add_parser('status', help='show state, mode, e-stop, waypoints and pose')
    status.add_argument('--watch', '-w', action='store_true', help='refresh every second')

    estop = commands.add_parser('estop', help='engage or release the software e-stop')
    estop.add_argument('action', choices=['on', 'off'])

    mode = commands.add_parser('mode', help='select the operation mode')
    mode.add_argument('mode', choices=['autonomy', 'teleop', 'stopped'])

    waypoint = commands.add_parser('waypoint', help='edit the waypoint list')
    verbs = waypoint.add_subparsers(dest='verb', metavar='VERB', required=True)
    add = verbs.add_parser('add', help='add a waypoint at X Y [YAW]')
    add.add_argument('x', type=_finite)
    add.add_argument('y', type=_finite)
    add.add_argument('yaw', type=_finite, nargs='?', default=0.0)
    add.add_argument('--routine', '-r', default='', help='routine to run on arrival')
    add.add_argument('--at', type=int, default=-1, metavar='POS',
                     help='insert before this index (default: append)')
    here = verbs.add_parser('here', help="add a waypoint at the robot's pose")
    here.add_argument('--routine', '-r', default='')
    here.add_argument('--at', type=int, default=-1, metavar='POS')
    verbs.add_parser('list', help='list the waypoints')
    move = verbs.add_parser('move', help='move waypoint POS to X Y [YAW]')
    move.add_argument('position', type=int)
    move.add_argument('x', type=_finite)
    move.add_argument('y', type=_finite)
    move.add_argument('yaw', type=_finite, nargs='?', default=0.0)
    remove = verbs.add_parser('remove', help='remove waypoint POS')
    remove.add_argument('position', type=int)
    routine = verbs.add_parser('routine', help="set waypoint POS's routine ('' for none)")
    routine.add_argument('position', type=int)
    routine.add_argument('routine')
    verbs.add_parser('routines', help='list the routines waypoints can name')
    verbs.add_parser('reset', help='mark every waypoint pending again')

    follow = commands.add_parser('follow', help='start or stop waypoint following')
    follow_verbs = follow.add_subparsers(dest='verb', metavar='VERB', required=True)
    start = follow_verbs.add_parser('start')
    start.add_argument('--mode', '-m', choices=['single', 'roundtrip', 'patrol'])
    start.add_argument('--reverse', action='store_true', help='highest index first')
    follow_verbs.add_parser('stop')

    explore = commands.add_parser('explore', help='start or stop exploration')
    explore_verbs = explore.add_subparsers(dest='verb', metavar='VERB', required=True)
    explore_start = explore_verbs.add_parser('start')
    explore_start.add_argument('--interrupt', action='store_true', default=None,
                               help='abandon a goal as soon as it is no longer a frontier')
    explore_start.add_argument('--finish', dest='interrupt', action='store_false',
                               help='always finish the current goal (default)')
    explore_verbs.add_parser('stop')

    goal = commands.add_parser('goal', help='drive to X Y [YAW], or cancel')
    goal.add_argument('x', help="goal x, or 'cancel'")
    goal.add_argument('y', type=_finite, nargs='?')
    goal.add_argument('yaw', type=_finite, nargs='?', default=0.0)
    goal.add_argument('--frame', default='map', help='frame of the goal (default map)')

    reverse = commands.add_parser('reverse', help='drive backwards (on) or forwards (off)')
    reverse.add_argument('action', choices=['on', 'off'])

    commands.add_parser('plugins', help='list the installed plugin states and routines')

    record = commands.add_parser(
        'record', help="record the suite's topics to an MCAP file until Ctrl-C",
        description="Record the suite's topics in --namespace (as they appear) to an MCAP file "
                    'that ros2 bag play and Foxglove open, until Ctrl-C or --duration.')
    record.add_argument('--output', '-o', type=pathlib.Path, metavar='FILE',
                        help='MCAP file to write (default: robot_sm_<UTC time>.mcap)')
    record.add_argument('--topic', action='append', default=[], metavar='TOPIC',
                        help='record only these topics (relative to the namespace; repeatable)')
    record.add_argument('--duration', type=_finite, metavar='S', help='stop after S seconds')


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {key: _jsonable(item) for key, item in dataclasses.asdict(value).items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    return value


def format_waypoints(waypoints: List[Any]) -> str:
    """Return an aligned table of waypoints."""
    if not waypoints:
        return '  (no waypoints)'
    lines = ['  pos  id     x        y       yaw    routine        status']
    for w in waypoints:
        lines.append(f'  {w.index:>3}  {w.waypoint_id:<4} {w.x:>7.2f}  {w.y:>7.2f}  '
                     f'{w.yaw:>6.2f}    {(w.routine or "-"):<14} {w.status}')
    return '\n'.join(lines)


def format_status(status: Any) -> str:
    """Return the one-screen status display."""
    estop = 'ENGAGED' if status.emergency_stop else 'released'
    pose = (f'({status.pose[0]:.2f}, {status.pose[1]:.2f}, yaw {status.pose[2]:.2f})'
            if status.pose else f'unknown ({status.pose_error})')
    last = f'    (last: {status.outcome})' if status.outcome else ''
    visited = sum(w.visited for w in status.waypoints)
    unreachable = sum(w.unreachable for w in status.waypoints)
    return '\n'.join([
        f'state      {status.state}{last}',
        f'mode       {status.mode}    e-stop {estop}',
        f"driving    {'reverse' if status.driving_reverse else 'forward'}",
        f'pose       {pose}',
        f'waypoints  {len(status.waypoints)} ({visited} visited, {unreachable} unreachable), '
        f"{status.following_mode}, {'reverse' if status.following_reverse else 'forward'}",
        format_waypoints(status.waypoints),
    ])


def list_plugins() -> List[Dict[str, str]]:
    """Return the installed plugin states without instantiating them."""
    from robot_sm.statemachine.constants import ROUTINE_SUFFIX
    from robot_sm.statemachine.registry import installed_plugins
    return [{'name': name, 'target': target,
             'kind': 'routine' if name.endswith(ROUTINE_SUFFIX) else 'state'}
            for name, target in sorted(installed_plugins().items())]


def _run(args: argparse.Namespace, emit: Callable[[Any, str], None]) -> int:
    if args.command == 'up':
        from robot_sm.bringup import run_up
        return run_up(args.sim, args.world, args.params, args.namespace, args.teleop,
                      args.remote)
    if args.command == 'connect':
        from robot_sm.operator_station.connect import connect
        return connect(args.namespace, args.rate, args.json)
    if args.command == 'record':
        from robot_sm.nodes.topic_recorder import record
        return record(args.namespace, args.output, args.topic, args.duration)

    from robot_sm.api import Result, SuiteClient

    if args.command == 'plugins':
        plugins = list_plugins()
        emit(plugins, '\n'.join(f"{p['name']:<24} {p['kind']:<8} {p['target']}"
                                for p in plugins) or 'no plugins installed')
        return EXIT_OK
    if args.command == 'goal' and args.x != 'cancel':
        try:
            args.x = _finite(args.x)
        except (ValueError, argparse.ArgumentTypeError):
            print(f"robot-sm goal: x must be a number or 'cancel', got {args.x!r}",
                  file=sys.stderr)
            return EXIT_UNAVAILABLE
        if args.y is None:
            print('robot-sm goal: y is required', file=sys.stderr)
            return EXIT_UNAVAILABLE
    with SuiteClient(namespace=args.namespace, timeout=args.timeout) as suite:
        if args.command == 'status':
            while True:
                status = suite.status()
                if not args.watch:
                    emit(status, format_status(status))
                    return EXIT_OK
                sys.stdout.write('\x1b[2J\x1b[H' + format_status(status) + '\n')
                sys.stdout.flush()
                time.sleep(1.0)
        result: Result
        if args.command == 'estop':
            result = suite.set_emergency_stop(args.action == 'on')
        elif args.command == 'mode':
            result = suite.set_mode(args.mode)
        elif args.command == 'reverse':
            result = suite.set_reverse(args.action == 'on')
        elif args.command == 'waypoint':
            if args.verb == 'list':
                result = suite.waypoints()
                if result.success:
                    emit(result.data, f'{result.message}\n'
                                      f"{format_waypoints(result.data['waypoints'])}")
                    return EXIT_OK
            elif args.verb == 'add':
                result = suite.add_waypoint(args.x, args.y, args.yaw, args.routine, args.at)
            elif args.verb == 'here':
                result = suite.add_waypoint_here(args.routine, args.at)
            elif args.verb == 'move':
                result = suite.move_waypoint(args.position, args.x, args.y, args.yaw)
            elif args.verb == 'remove':
                result = suite.remove_waypoint(args.position)
            elif args.verb == 'routine':
                result = suite.set_routine(args.position, args.routine)
            elif args.verb == 'routines':
                result = suite.routines()
            else:
                result = suite.reset_waypoints()
        elif args.command == 'follow':
            result = (suite.start_waypoint_following(args.mode, args.reverse)
                      if args.verb == 'start' else suite.stop_waypoint_following())
        elif args.command == 'explore':
            result = (suite.start_exploration(args.interrupt)
                      if args.verb == 'start' else suite.stop_exploration())
        else:  # goal
            result = (suite.cancel_goal() if args.x == 'cancel'
                      else suite.send_goal(args.x, args.y, args.yaw, args.frame))
        emit(result, result.message)
        return EXIT_OK if result.success else EXIT_REFUSED


def main(argv: Optional[List[str]] = None) -> int:
    """Run the robot-sm command; return its exit code."""
    parser = build_parser()
    try:
        import argcomplete
        argcomplete.autocomplete(parser)
    except ImportError:
        pass
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return EXIT_UNAVAILABLE if exit_.code else EXIT_OK
    return run(args)


def run(args: argparse.Namespace) -> int:
    """Run the command ``args`` name; return its exit code."""

    def emit(data: Any, text: str) -> None:
        print(json.dumps(_jsonable(data), indent=2) if args.json else text)

    from robot_sm.api import SuiteUnavailable
    try:
        return _run(args, emit)
    except SuiteUnavailable as error:
        print(f'robot-sm: {error}', file=sys.stderr)
        return EXIT_UNAVAILABLE
    except KeyboardInterrupt:
        return EXIT_OK


def entry_point() -> None:
    """Console script entry point."""
    sys.exit(main())


class Ros2Command:
    """Operate a running robot_sm suite (robot-sm as a ros2 command)."""

    # ros2cli loads this class from the ros2cli.command entry point and calls it like its own
    # CommandExtension; nothing here imports ros2cli, so the package works without it.
    NAME = 'robot_sm'
    EXTENSION_POINT_VERSION = '0.1'

    def add_arguments(self, parser: argparse.ArgumentParser, cli_name: str, *,
                      argv: Optional[List[str]] = None) -> None:
        """Add robot-sm's options and subcommands to ``ros2 robot_sm``."""
        add_arguments(parser)

    def main(self, *, parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
        """Run the command; return robot-sm's exit code."""
        return run(args)


if __name__ == '__main__':
    entry_point()
