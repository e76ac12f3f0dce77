"""
What each verb of ``robot-sm`` does: one function per verb, whose docstring is its help.

The table that names them is :data:`robot_sm.cli.VERBS`. A suite verb ``verb(suite, args)`` asks
the running suite through a :class:`robot_sm.api.SuiteClient` and returns its
:class:`~robot_sm.api.Result`; any other verb ``verb(args, emit)`` prints through ``emit`` and
returns the exit code. The functions that add a verb's arguments to its parser are here too.
"""

import argparse
import math
import pathlib
import sys
import time
from typing import Any, Callable, Dict, Iterable, List

EXIT_OK, EXIT_REFUSED, EXIT_UNAVAILABLE = 0, 1, 2

#: Prints a verb's answer: the data as JSON with ``--json``, else the text.
Emit = Callable[[Any, str], None]


def finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f'{text} is not a finite number')
    return value


def complete_worlds(**_: Any) -> Iterable[str]:
    """Complete --world with the shipped worlds (argcomplete calls this)."""
    from robot_sm.resources import shipped_worlds
    return shipped_worlds()


def suite_of(args: argparse.Namespace) -> Any:
    """Return a client of the suite in ``--namespace`` (a context manager)."""
    from robot_sm.api import SuiteClient
    return SuiteClient(namespace=args.namespace, timeout=args.timeout)


# Arguments --------------------------------------------------------------------------------------


def on_off(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('action', choices=['on', 'off'])


def pose(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('x', type=finite)
    parser.add_argument('y', type=finite)
    parser.add_argument('yaw', type=finite, nargs='?', default=0.0)


def position(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('position', type=int)


def routine_and_insertion(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--routine', '-r', default='', help='routine to run on arrival')
    parser.add_argument('--at', type=int, default=-1, metavar='POS',
                        help='insert before this index (default: append)')


def watch_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--watch', '-w', action='store_true', help='refresh every second')


def expect_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--expect', type=int, metavar='N',
                        help='wait until N robots are found (within --timeout); fewer is an '
                             'error')


def mode_name(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('mode', choices=['autonomy', 'teleop', 'stopped'])


def routine_name(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('routine')


def goal_frame(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--frame', default='map', help='frame of the goal (default map)')


def up_options(parser: argparse.ArgumentParser) -> None:
    from robot_sm.resources import shipped_worlds
    parser.add_argument('--sim', action='store_true',
                        help='also run base_controller and robot_sim, the simulated robot')
    world = parser.add_argument('--world', metavar='NAME',
                                help='world of the simulation (needs --sim): '
                                     f"{', '.join(shipped_worlds())} or a map YAML file")
    setattr(world, 'completer', complete_worlds)
    parser.add_argument('--params', nargs='+', action='extend', default=[], metavar='FILE',
                        type=pathlib.Path, help='ROS parameter files, loaded last, in order')
    parser.add_argument('--teleop', action='store_true', help='also run teleop_retargeting')
    parser.add_argument('--remote', action='store_true',
                        help='operator station on another computer: load config/remote.yaml (the '
                             'robot stops when the operator heartbeat is lost)')
    parser.add_argument('--robots', type=int, metavar='N',
                        help='simulate a fleet (needs --sim): N suites in NAMESPACE/robot1 ... '
                             'robotN and one robot_sim for all of them')
    parser.add_argument('--discovery-server', default='', metavar='HOST:PORT',
                        help='be a client of this Fast DDS discovery server (sets '
                             'ROS_DISCOVERY_SERVER; start one with: fastdds discovery -i 0)')
    # One robot of a simulated fleet: its suite and base controller, robot_sim runs elsewhere.
    parser.add_argument('--fleet-robot', action='store_true', help=argparse.SUPPRESS)


def connect_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--rate', type=finite, metavar='HZ',
                        help='heartbeats per second (default 10)')


def record_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--output', '-o', type=pathlib.Path, metavar='FILE',
                        help='MCAP file to write (default: robot_sm_<UTC time>.mcap)')
    parser.add_argument('--topic', action='append', default=[], metavar='TOPIC',
                        help='record only these topics (relative to the namespace; repeatable)')
    parser.add_argument('--duration', type=finite, metavar='S', help='stop after S seconds')


def follow_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--mode', '-m', choices=['single', 'roundtrip', 'patrol'])
    parser.add_argument('--reverse', action='store_true', help='highest index first')


def explore_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--interrupt', action='store_true', default=None,
                        help='abandon a goal as soon as it is no longer a frontier')
    parser.add_argument('--finish', dest='interrupt', action='store_false',
                        help='always finish the current goal (default)')


# Verbs ------------------------------------------------------------------------------------------


def up(args: argparse.Namespace, emit: Emit) -> int:
    """
    Run the suite in this process until Ctrl-C.

    Run the suite (and the simulation, and teleop) in this process until SIGINT or SIGTERM, for
    machines without ros2 launch. Loads config/robot_sm.yaml (and config/sim.yaml with --sim),
    then --params. With --robots N, a simulated fleet: one simulation, and each robot's suite in
    a process of its own.
    """
    from robot_sm.bringup import run_up
    return run_up(args.sim, args.world, args.params, args.namespace, args.teleop, args.remote,
                  args.robots, args.discovery_server, args.fleet_robot)


def connect(args: argparse.Namespace, emit: Emit) -> int:
    """
    Be the operator until Ctrl-C: publish the heartbeat, show whether the robot hears it.

    Publish the operator heartbeat (robot_sm/operator_heartbeat) and show the suite's status
    and whether the robot hears the heartbeat, until Ctrl-C; with config/remote.yaml on the robot,
    closing it stops the robot.
    """
    from robot_sm.operator_station.connect import connect as run_connect
    return run_connect(args.namespace, args.rate, args.json)


def status(args: argparse.Namespace, emit: Emit) -> int:
    """Show state, mode, e-stop, the input that drives, waypoints and pose."""
    with suite_of(args) as suite:
        while True:
            shown = suite.status()
            if not args.watch:
                emit(shown, format_status(shown))
                return EXIT_OK
            sys.stdout.write('\x1b[2J\x1b[H' + format_status(shown) + '\n')
            sys.stdout.flush()
            time.sleep(1.0)


def cycle(args: argparse.Namespace, emit: Emit) -> int:
    """Show the operating cycle: each role's state, outcomes and interrupts."""
    from robot_sm.statemachine.cycle import table
    with suite_of(args) as suite:
        document = suite.cycle()
    emit(document, table(document))
    return EXIT_OK


def fleet(args: argparse.Namespace, emit: Emit) -> int:
    """
    List every robot (suite) under --namespace: state, mode, e-stop, pose, waypoints.

    List every robot_sm suite found on the ROS domain under --namespace (default: all), by
    namespace, with its state, mode, e-stop, pose and waypoint progress. The list is shown
    once --expect robots are found, or else once no new robot has come for 3 s (--watch: at
    once, and robots come and go as they are found and leave).
    """
    from robot_sm.fleet import FleetClient
    with FleetClient(within=args.namespace or '/', timeout=args.timeout) as client:
        while args.watch:
            # A robot that stopped answering holds a refresh up to a second, not --timeout.
            shown = client.status(timeout=min(args.timeout, 1.0))
            sys.stdout.write('\x1b[2J\x1b[H' + (format_fleet(shown) if shown else
                             f'no robot_sm suite found under {client.within} yet') + '\n')
            sys.stdout.flush()
            time.sleep(1.0)
        found = client.wait_for_robots(args.expect)
        if not found:
            return _no_robots(client.within, args.timeout)
        shown = client.status()
    emit(shown, format_fleet(shown))
    if args.expect is not None and len(found) < args.expect:
        print(f'robot-sm: expected {args.expect} robots, found {len(found)}', file=sys.stderr)
        return EXIT_UNAVAILABLE
    return EXIT_OK


def fleet_estop(args: argparse.Namespace, emit: Emit) -> int:
    """
    Engage or release every robot's e-stop at once; show each robot's answer.

    Engage (on) or release (off) the e-stop of every robot found under --namespace, each as
    soon as it is found (until --expect robots are found, or none new comes for 3 s), and show
    each robot's acknowledgement: its mux's answer and its operation mode showing the e-stop.
    Exits 1 naming every robot that did not confirm within --timeout (and when fewer robots
    than --expect were found). Releasing releases the e-stop only: nothing moves until a mode
    is selected.
    """
    from robot_sm.fleet import FleetClient, SETTLE_TIME
    engaged = args.action == 'on'
    with FleetClient(within=args.namespace or '/', timeout=args.timeout) as client:
        acknowledgements = client.emergency_stop(engaged, expect=args.expect,
                                                 settle=SETTLE_TIME)
        if not acknowledgements:
            return _no_robots(client.within, args.timeout)
    emit(acknowledgements, format_acknowledgements(acknowledgements, engaged))
    code = EXIT_OK
    not_confirmed = [a.namespace for a in acknowledgements if not a.confirmed]
    if not_confirmed:
        print(f"robot-sm: not confirmed: {', '.join(not_confirmed)}", file=sys.stderr)
        code = EXIT_REFUSED
    if args.expect is not None and len(acknowledgements) < args.expect:
        print(f'robot-sm: expected {args.expect} robots, found {len(acknowledgements)}',
              file=sys.stderr)
        code = EXIT_REFUSED
    return code


def _no_robots(within: str, timeout: float) -> int:
    print(f'robot-sm: no robot_sm suite found under {within} within {timeout:g} s',
          file=sys.stderr)
    return EXIT_UNAVAILABLE


def estop(suite: Any, args: argparse.Namespace) -> Any:
    """Engage or release the software e-stop."""
    return suite.set_emergency_stop(args.action == 'on')


def mode(suite: Any, args: argparse.Namespace) -> Any:
    """Select the operation mode."""
    return suite.set_mode(args.mode)


def waypoint_add(suite: Any, args: argparse.Namespace) -> Any:
    """Add a waypoint at X Y [YAW]."""
    return suite.add_waypoint(args.x, args.y, args.yaw, args.routine, args.at)


def waypoint_here(suite: Any, args: argparse.Namespace) -> Any:
    """Add a waypoint at the robot's pose."""
    return suite.add_waypoint_here(args.routine, args.at)


def waypoint_list(args: argparse.Namespace, emit: Emit) -> int:
    """List the waypoints."""
    with suite_of(args) as suite:
        result = suite.waypoints()
    if not result.success:
        emit(result, result.message)
        return EXIT_REFUSED
    emit(result.data, f"{result.message}\n{format_waypoints(result.data['waypoints'])}")
    return EXIT_OK


def waypoint_move(suite: Any, args: argparse.Namespace) -> Any:
    """Move waypoint POS to X Y [YAW]."""
    return suite.move_waypoint(args.position, args.x, args.y, args.yaw)


def waypoint_remove(suite: Any, args: argparse.Namespace) -> Any:
    """Remove waypoint POS."""
    return suite.remove_waypoint(args.position)


def waypoint_routine(suite: Any, args: argparse.Namespace) -> Any:
    """Set waypoint POS's routine ('' for none)."""
    return suite.set_routine(args.position, args.routine)


def waypoint_routines(suite: Any, args: argparse.Namespace) -> Any:
    """List the routines waypoints can name."""
    return suite.routines()


def waypoint_reset(suite: Any, args: argparse.Namespace) -> Any:
    """Mark every waypoint pending again."""
    return suite.reset_waypoints()


def follow_start(suite: Any, args: argparse.Namespace) -> Any:
    """Start waypoint following, with --mode and --reverse set first."""
    return suite.start_waypoint_following(args.mode, args.reverse)


def follow_stop(suite: Any, args: argparse.Namespace) -> Any:
    """Stop waypoint following."""
    return suite.stop_waypoint_following()


def explore_start(suite: Any, args: argparse.Namespace) -> Any:
    """Start exploration, with --interrupt or --finish set first."""
    return suite.start_exploration(args.interrupt)


def explore_stop(suite: Any, args: argparse.Namespace) -> Any:
    """Stop exploration."""
    return suite.stop_exploration()


def goal_send(suite: Any, args: argparse.Namespace) -> Any:
    """Drive to X Y [YAW]; 'send' may be left out (robot-sm goal X Y)."""
    return suite.send_goal(args.x, args.y, args.yaw, args.frame)


def goal_cancel(suite: Any, args: argparse.Namespace) -> Any:
    """Stop a running simple goal."""
    return suite.cancel_goal()


def reverse(suite: Any, args: argparse.Namespace) -> Any:
    """Drive backwards (on) or forwards (off)."""
    return suite.set_reverse(args.action == 'on')


def plugins(args: argparse.Namespace, emit: Emit) -> int:
    """List the installed plugin states and routines."""
    found = list_plugins()
    emit(found, '\n'.join(f"{p['name']:<24} {p['kind']:<8} {p['target']}" for p in found)
         or 'no plugins installed')
    return EXIT_OK


def record(args: argparse.Namespace, emit: Emit) -> int:
    """
    Record the suite's topics to an MCAP file until Ctrl-C.

    Record the suite's topics in --namespace (as they appear) to an MCAP file that ros2 bag play
    and Foxglove open, until Ctrl-C or --duration.
    """
    from robot_sm.nodes.topic_recorder import record as record_topics
    return record_topics(args.namespace, args.output, args.topic, args.duration)


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
        f'mode       {status.mode}    e-stop {estop}    input {status.selected_input}',
        f"driving    {'reverse' if status.driving_reverse else 'forward'}",
        f'pose       {pose}',
        f'waypoints  {len(status.waypoints)} ({visited} visited, {unreachable} unreachable), '
        f"{status.following_mode}, {'reverse' if status.following_reverse else 'forward'}",
        format_waypoints(status.waypoints),
    ])


def format_fleet(robots: List[Any]) -> str:
    """Return the fleet as a table, one robot a line."""
    width = max([len('robot')] + [len(robot.namespace) for robot in robots])
    lines = [f"{'robot':<{width}}  {'state':<24} {'mode':<10} {'e-stop':<9} "
             f"{'pose':<22} waypoints"]
    for robot in robots:
        estop = '?' if robot.emergency_stop is None else (
            'ENGAGED' if robot.emergency_stop else 'released')
        pose = (f'({robot.pose[0]:.2f}, {robot.pose[1]:.2f}, {robot.pose[2]:.2f})'
                if robot.pose else 'unknown')
        progress = (f'{robot.visited}/{robot.waypoints} visited'
                    + (f', {robot.unreachable} unreachable' if robot.unreachable else ''))
        last = f'    (last: {robot.outcome})' if robot.outcome else ''
        lines.append(f"{robot.namespace:<{width}}  {robot.state or '?':<24} "
                     f"{robot.mode or '?':<10} {estop:<9} {pose:<22} {progress}{last}")
    return '\n'.join(lines)


def format_acknowledgements(acknowledgements: List[Any], engaged: bool) -> str:
    """Return each robot's answer to a fleet-wide e-stop, one robot a line."""
    width = max([len(a.namespace) for a in acknowledgements] or [0])
    done = 'engaged' if engaged else 'released'
    return '\n'.join(
        f'{a.namespace:<{width}}  {done} (confirmed in {a.seconds * 1000:.0f} ms)'
        if a.confirmed else f'{a.namespace:<{width}}  NOT CONFIRMED: {a.message}'
        for a in acknowledgements)


def list_plugins() -> List[Dict[str, str]]:
    """Return the installed plugin states without instantiating them."""
    from robot_sm.statemachine.constants import ROUTINE_SUFFIX
    from robot_sm.statemachine.registry import installed_plugins
    return [{'name': name, 'target': target,
             'kind': 'routine' if name.endswith(ROUTINE_SUFFIX) else 'state'}
            for name, target in sorted(installed_plugins().items())]
