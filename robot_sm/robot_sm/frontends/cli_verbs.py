"""
What each verb of ``robot-sm`` does: one function per verb, whose docstring is its help.

The table that names them is :data:`robot_sm.frontends.cli.VERBS`. A suite verb
``verb(suite, args)`` asks the running suite through a :class:`robot_sm.client.SuiteClient` and
returns its :class:`~robot_sm.client.Result`; any other verb ``verb(args, emit)`` prints through
``emit`` (as :mod:`~robot_sm.frontends.cli_output` formats it) and returns the exit code. The
arguments each verb takes are added by :mod:`~robot_sm.frontends.cli_arguments`.
"""

import argparse
import sys
import time
from typing import Any, Callable, Dict, List

from robot_sm.frontends.cli_output import (
    format_acknowledgements,
    format_fleet,
    format_status,
    format_waypoints,
)
from robot_sm.frontends.cli_roster import Roster

EXIT_OK, EXIT_REFUSED, EXIT_UNAVAILABLE = 0, 1, 2

#: Prints a verb's answer: the data as JSON with ``--json``, else the text.
Emit = Callable[[Any, str], None]


class FreshClients:
    """
    Where the verbs get their clients: a new one for each command.

    The robot-sm daemon puts clients it keeps in its place
    (:class:`robot_sm.frontends.daemon.held_clients.HeldClients`).
    """

    def suite(self, namespace: str, timeout: float, by: Any = None) -> Any:
        """Return a client of the suite in ``namespace`` giving commands as ``by``."""
        from robot_sm.client import SuiteClient
        return SuiteClient(namespace=namespace, timeout=timeout, by=by)

    def fleet(self, within: str, timeout: float) -> Any:
        """Return a client of every suite under ``within`` (a context manager)."""
        from robot_sm.client.fleet import FleetClient
        return FleetClient(within=within, timeout=timeout)


#: Where the verbs get their clients.
CLIENTS = FreshClients()


def suite_of(args: argparse.Namespace) -> Any:
    """Return a client of the suite in ``--namespace`` giving commands as ``--operator``."""
    from robot_sm.client import operator
    return CLIENTS.suite(args.namespace, args.timeout,
                         operator(getattr(args, 'operator', None) or '', surface='cli'))


def up(args: argparse.Namespace, emit: Emit) -> int:
    """
    Run the suite in this process until Ctrl-C.

    Run the suite (and the simulation, and teleop) in this process until SIGINT or SIGTERM, for
    machines without ros2 launch. Loads config/robot_sm.yaml (and config/sim.yaml with --sim),
    then --params. With --robots N, a simulated fleet: one simulation, and each robot's suite in
    a process of its own. With --web, also the web operator console (robot-sm web). The
    incident recorder runs beside it in a process of its own, unless --no-recorder.
    """
    from robot_sm.bringup.up import run_up
    return run_up(args.sim, args.world, args.params, args.namespace, args.teleop, args.remote,
                  args.robots, args.discovery_server, args.fleet_robot,
                  args.web_port if args.web else None, not args.no_recorder)


def connect(args: argparse.Namespace, emit: Emit) -> int:
    """
    Be the operator until Ctrl-C: publish the heartbeat, show whether the robot hears it.

    Publish the operator heartbeat (robot_sm/operator_heartbeat) and show the suite's status
    and whether the robot hears the heartbeat, until Ctrl-C; with config/remote.yaml on the robot,
    closing it stops the robot.
    """
    from robot_sm.frontends.connect import connect as run_connect
    return run_connect(args.namespace, args.rate, args.json)


def web(args: argparse.Namespace, emit: Emit) -> int:
    """
    Serve the web operator console (a page for a phone or a laptop) until Ctrl-C.

    Serve the operator console of the suite in --namespace: the page shows the state, mode,
    e-stop, the map with the robot, its path and the waypoints, and operates the suite (a
    Software Stop always on screen). Binds 127.0.0.1 unless --host says otherwise; every request
    needs the access token, printed as a URL at start (or read from --token-file). While a page
    is open it is the operator heartbeat.
    """
    from robot_sm.frontends.web.main import run_web
    return run_web(args)


def status(args: argparse.Namespace, emit: Emit) -> int:
    """Show state, mode, e-stop, the input that drives, waypoints and pose."""
    with suite_of(args) as suite:
        while True:
            shown = _status_of(suite)
            if not args.watch:
                emit(shown, format_status(shown))
                return EXIT_OK
            sys.stdout.write('\x1b[2J\x1b[H' + format_status(shown) + '\n')
            sys.stdout.flush()
            time.sleep(1.0)


def _status_of(suite: Any) -> Any:
    """Return the suite's status; ``held`` says so when its operator is not heard."""
    from robot_sm.client.status import held_because, operator_heard, OPERATOR_PRESENT
    from std_msgs.msg import Bool
    suite.latched(Bool, OPERATOR_PRESENT, wait=False)  # discovered with the rest
    shown = suite.status()
    heard = operator_heard(suite)
    if heard is False:
        shown.held = held_because(shown.mode, shown.emergency_stop, heard)
    return shown


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
    namespace, with its state, mode, e-stop, pose and waypoint progress, and every robot
    expected (--fleet FILE, --expect NAMES, the robots earlier commands saw) that is NOT FOUND.
    The list is shown once the robots expected are found (or --timeout passes), or else once
    no new robot has come for 3 s (--watch: at once, and robots come and go as they are found
    and leave).
    """
    roster = Roster.of(args)
    if roster.problem:
        return _usage_error(roster.problem)
    with CLIENTS.fleet(args.namespace or '/', args.timeout) as client:
        while args.watch:
            # A robot that stopped answering holds a refresh up to a second, not --timeout.
            shown = client.status(timeout=min(args.timeout, 1.0), roster=roster.expected)
            sys.stdout.write('\x1b[2J\x1b[H' + (format_fleet(shown) if shown else
                             f'no robot_sm suite found under {client.within} yet') + '\n')
            sys.stdout.flush()
            roster.saw(robot.namespace for robot in shown if robot.found)
            time.sleep(1.0)
        found = client.wait_for_robots(roster.count, timeout=args.timeout,
                                       settle=client.settle_left(), roster=roster.expected)
        roster.saw(found)
        if not found and not roster.expected:
            return _no_robots(client.within, args.timeout)
        shown = client.status(timeout=args.timeout, roster=roster.expected)
    emit(shown, format_fleet(shown))
    missing = [robot.namespace for robot in shown if not robot.found]
    if missing:
        print(f"robot-sm: NOT FOUND: {', '.join(missing)}", file=sys.stderr)
    if roster.count is not None and len(found) < roster.count:
        print(f'robot-sm: expected {roster.count} robots, found {len(found)}', file=sys.stderr)
        return EXIT_UNAVAILABLE
    return EXIT_UNAVAILABLE if missing else EXIT_OK


def fleet_estop(args: argparse.Namespace, emit: Emit) -> int:
    """
    Engage or release every robot's e-stop at once; show each robot's answer.

    Engage (on) or release (off) the e-stop of every robot found under --namespace, each as
    soon as it is found (until the robots expected are found, or none new comes for 3 s), and
    show each robot's answer: confirmed (its mux said yes and its operation mode shows it), NOT
    CONFIRMED (found, but silent or refusing within --timeout) or NOT FOUND (expected: named in
    --fleet FILE or --expect NAMES, or seen by an earlier command, but not found within
    --timeout). Exits 1 if any robot is not confirmed (and when fewer robots than --expect N
    were found). Releasing releases the e-stop only: nothing moves until a mode is selected;
    it is refused by a robot whose control another operator holds (the STOP never is).
    """
    engaged = args.action == 'on'
    return _fleet_command(args, emit, lambda client, **options: client.emergency_stop(
        engaged, **options), 'engaged' if engaged else 'released')


def fleet_pause(args: argparse.Namespace, emit: Emit) -> int:
    """
    Pause every robot's running activity at once; show each robot's answer.

    Pause the activity of every robot found under --namespace (as fleet estop finds them): each
    robot holds still and keeps its activity's place. Answers and exit codes as fleet estop's;
    a robot whose control another operator holds refuses (NOT CONFIRMED, naming the holder).
    """
    return _fleet_command(args, emit, lambda client, **options: client.pause(**options),
                          'paused')


def fleet_resume(args: argparse.Namespace, emit: Emit) -> int:
    """
    Continue every robot's paused activity at once; show each robot's answer.

    Continue the paused activity of every robot found under --namespace, where it was.
    Answers and exit codes as fleet estop's.
    """
    return _fleet_command(args, emit, lambda client, **options: client.resume(**options),
                          'continued')


def _fleet_command(args: argparse.Namespace, emit: Emit, give: Callable[..., List[Any]],
                   done: str) -> int:
    from robot_sm.client import operator
    roster = Roster.of(args)
    if roster.problem:
        return _usage_error(roster.problem)
    by = operator(getattr(args, 'operator', None) or '', surface='cli')
    with CLIENTS.fleet(args.namespace or '/', args.timeout) as client:
        acknowledgements = give(client, timeout=args.timeout, expect=roster.count,
                                settle=client.settle_left(), roster=roster.expected, by=by)
        if not acknowledgements:
            return _no_robots(client.within, args.timeout)
    roster.saw(a.namespace for a in acknowledgements if a.found)
    emit(acknowledgements, format_acknowledgements(acknowledgements, done))
    code = EXIT_OK
    for verdict in ('NOT CONFIRMED', 'NOT FOUND'):
        named = [a.namespace for a in acknowledgements if a.verdict == verdict]
        if named:
            print(f"robot-sm: {verdict.lower()}: {', '.join(named)}", file=sys.stderr)
            code = EXIT_REFUSED
    found = sum(a.found for a in acknowledgements)
    if roster.count is not None and found < roster.count:
        print(f'robot-sm: expected {roster.count} robots, found {found}', file=sys.stderr)
        code = EXIT_REFUSED
    return code


def fleet_forget(args: argparse.Namespace, emit: Emit) -> int:
    """
    Forget robots that earlier commands saw: they are no longer expected.

    Forget the robots NAMES (all under --namespace without any) that fleet commands saw on
    this ROS domain: a fleet-wide stop no longer names them NOT FOUND when they are gone.
    """
    roster = Roster.of(args)
    forgotten = roster.forget(args.names)
    emit(forgotten, f"forgotten: {', '.join(forgotten)}" if forgotten else 'nothing to forget')
    return EXIT_OK


def _usage_error(problem: str) -> int:
    print(f'robot-sm: {problem}', file=sys.stderr)
    return EXIT_UNAVAILABLE


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
    """Start waypoint following (with --mode and --reverse in the same command)."""
    return suite.start_waypoint_following(args.mode, args.reverse)


def follow_stop(suite: Any, args: argparse.Namespace) -> Any:
    """Stop waypoint following."""
    return suite.stop_waypoint_following()


def explore_start(suite: Any, args: argparse.Namespace) -> Any:
    """Start exploration (with --interrupt or --finish in the same command)."""
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


def pause(suite: Any, args: argparse.Namespace) -> Any:
    """Pause the running activity: the robot holds still, the activity keeps its place."""
    return suite.pause()


def resume(suite: Any, args: argparse.Namespace) -> Any:
    """Continue the paused activity where it was (AUTONOMOUS is selected for it)."""
    return suite.resume()


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


def list_plugins() -> List[Dict[str, str]]:
    """Return the installed plugin states without instantiating them."""
    from robot_sm.statemachine.constants import ROUTINE_SUFFIX
    from robot_sm.statemachine.registry import installed_plugins
    return [{'name': name, 'target': target,
             'kind': 'routine' if name.endswith(ROUTINE_SUFFIX) else 'state'}
            for name, target in sorted(installed_plugins().items())]
