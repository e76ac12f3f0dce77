# PYTHON_ARGCOMPLETE_OK
"""
robot-sm: start a robot_sm suite, and operate a running one, from the command line.

Shaped like a ros2cli command: one function per verb (:mod:`robot_sm.frontends.cli_verbs`), whose
docstring is its help, registered in one table (:data:`VERBS`), from which ``robot-sm``,
``ros2 robot_sm`` (the ros2cli.command entry point, :class:`Ros2Command`) and argcomplete's
completion are all built (:mod:`robot_sm.frontends.cli_parser`). Each verb is a thin front-end
over :mod:`robot_sm.client` (``up`` over :func:`robot_sm.bringup.up.run_up`); most are done by
the ``robot-sm`` daemon (:mod:`robot_sm.frontends.daemon`) when one runs, with the same output.
Exit codes: 0 when the suite did what was asked (``up``: when stopped by SIGINT or SIGTERM), 1
when it answered ``success=false`` (its message is printed), 2 on a usage error, a world or
parameter file ``up`` cannot use, or when the suite did not answer within ``--timeout``.
"""

import argparse
import json
import os
import sys
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence

from robot_sm.frontends import cli_arguments as arguments, cli_control as control
from robot_sm.frontends import cli_incidents, cli_verbs as verbs
from robot_sm.frontends.cli_parser import add_verbs
from robot_sm.frontends.cli_verbs import Emit, EXIT_OK, EXIT_REFUSED, EXIT_UNAVAILABLE
from robot_sm.frontends.command import entry_point
from robot_sm.frontends.daemon import control as daemon_control


class Verb(NamedTuple):
    """
    A verb: the function that does it, whose docstring is its help, and the arguments it takes.

    A suite verb's function asks the suite (``function(suite, args)``, a
    :class:`robot_sm.client.SuiteClient`) and returns its :class:`~robot_sm.client.Result`, which
    is printed; the exit code is 1 when the suite refused. Any other verb's function is
    ``function(args, emit)`` and returns the exit code.
    """

    function: Callable[..., Any]
    arguments: Sequence[Callable[[argparse.ArgumentParser], None]] = ()
    asks_suite: bool = True
    #: Whether the daemon does it (:mod:`robot_sm.frontends.daemon`); ``--watch`` never.
    in_daemon: bool = True
    #: Whether doing it twice does what doing it once does (it reads, or sets a value): then a
    #: daemon that ends before it answers is taken over by the command's own process.
    repeatable: bool = False
    #: Whether it takes --operator after the verb (no for a verb with an --operator of its own).
    names_operator: bool = True

    def for_daemon(self, args: argparse.Namespace) -> bool:
        """Return whether the command ``args`` name is one the daemon does."""
        return self.in_daemon and not args.no_daemon and not getattr(args, 'watch', False)

    def main(self, args: argparse.Namespace, emit: Emit) -> int:
        """Do what the verb does; return the exit code."""
        if not self.asks_suite:
            return int(self.function(args, emit))
        with verbs.suite_of(args) as suite:
            result = self.function(suite, args)
        emit(result, result.message)
        if getattr(result, 'control_acquired', False):
            print('robot-sm: you hold the control of the robot now (robot-sm control give-up '
                  'gives it up)', file=sys.stderr)
        return EXIT_OK if result.success else EXIT_REFUSED


#: Every verb, by the words that name it, in the order ``--help`` lists them.
VERBS: Dict[str, Verb] = {
    'up': Verb(verbs.up, [arguments.up_options], asks_suite=False, in_daemon=False),
    'connect': Verb(verbs.connect, [arguments.connect_options], asks_suite=False,
                    in_daemon=False),
    'web': Verb(verbs.web, [arguments.web_options], asks_suite=False, in_daemon=False),
    'status': Verb(verbs.status, [arguments.watch_option], asks_suite=False, repeatable=True),
    'cycle': Verb(verbs.cycle, asks_suite=False, repeatable=True),
    'fleet': Verb(verbs.fleet, [arguments.watch_option, arguments.expect_option],
                  asks_suite=False, repeatable=True),
    'fleet estop': Verb(verbs.fleet_estop, [arguments.on_off, arguments.expect_option],
                        asks_suite=False, repeatable=True),
    'fleet pause': Verb(verbs.fleet_pause, [arguments.expect_option], asks_suite=False),
    'fleet continue': Verb(verbs.fleet_resume, [arguments.expect_option], asks_suite=False),
    'fleet forget': Verb(verbs.fleet_forget, [arguments.forget_names], asks_suite=False,
                         in_daemon=False),
    'estop': Verb(verbs.estop, [arguments.on_off], repeatable=True),
    'mode': Verb(verbs.mode, [arguments.mode_name], repeatable=True),
    'waypoint add': Verb(verbs.waypoint_add, [arguments.pose, arguments.routine_and_insertion]),
    'waypoint here': Verb(verbs.waypoint_here, [arguments.routine_and_insertion]),
    'waypoint list': Verb(verbs.waypoint_list, asks_suite=False, repeatable=True),
    'waypoint move': Verb(verbs.waypoint_move, [arguments.position, arguments.pose]),
    'waypoint remove': Verb(verbs.waypoint_remove, [arguments.position]),
    'waypoint routine': Verb(verbs.waypoint_routine, [arguments.position, arguments.routine_name]),
    'waypoint routines': Verb(verbs.waypoint_routines, repeatable=True),
    'waypoint reset': Verb(verbs.waypoint_reset),
    'follow start': Verb(verbs.follow_start, [arguments.follow_options]),
    'follow stop': Verb(verbs.follow_stop),
    'explore start': Verb(verbs.explore_start, [arguments.explore_options]),
    'explore stop': Verb(verbs.explore_stop),
    'goal send': Verb(verbs.goal_send, [arguments.pose, arguments.goal_frame]),
    'goal cancel': Verb(verbs.goal_cancel),
    'reverse': Verb(verbs.reverse, [arguments.on_off], repeatable=True),
    'pause': Verb(verbs.pause, repeatable=True),
    'continue': Verb(verbs.resume, repeatable=True),
    'control': Verb(control.control_status, asks_suite=False, repeatable=True),
    'control take': Verb(control.control_take, repeatable=True),
    'control give-up': Verb(control.control_give_up, repeatable=True),
    'audit': Verb(control.audit, [control.audit_options], asks_suite=False, repeatable=True,
                  names_operator=False),
    'plugins': Verb(verbs.plugins, asks_suite=False, repeatable=True),
    'record': Verb(verbs.record, [arguments.record_options], asks_suite=False, in_daemon=False),
    'incidents': Verb(cli_incidents.incidents, [cli_incidents.incidents_arguments],
                      asks_suite=False, in_daemon=False),
    'snapshot': Verb(cli_incidents.snapshot),
    'daemon start': Verb(daemon_control.start, asks_suite=False, in_daemon=False),
    'daemon stop': Verb(daemon_control.stop, [arguments.all_daemons], asks_suite=False,
                        in_daemon=False),
    'daemon status': Verb(daemon_control.status, [arguments.all_daemons], asks_suite=False,
                          in_daemon=False),
}
#: Help of the commands that group verbs.
GROUPS = {'waypoint': 'edit the waypoint list', 'follow': 'start or stop waypoint following',
          'explore': 'start or stop exploration', 'goal': 'drive to X Y [YAW], or cancel',
          'daemon': 'start, stop or show the daemon that does the commands'}
#: The verb a group's first word stands for when it is not one of the group's verbs.
DEFAULT_VERBS = {'goal': 'send'}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options and every verb of :data:`VERBS` to ``parser`` (robot-sm's, or ros2's)."""
    arguments.common_options(parser)
    add_verbs(parser, VERBS, GROUPS, DEFAULT_VERBS)


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every verb."""
    parser = argparse.ArgumentParser(
        prog='robot-sm', description='Operate a running robot_sm suite.',
        epilog='Exit codes: 0 done, 1 refused by the suite, 2 usage error or suite unreachable.')
    add_arguments(parser)
    return parser


def _jsonable(value: Any) -> Any:
    import dataclasses
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {key: _jsonable(item) for key, item in dataclasses.asdict(value).items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    return value


def main(argv: Optional[List[str]] = None, start_daemon: bool = False) -> int:
    """
    Parse and run the robot-sm command line ``argv`` in this process; return its exit code.

    ``start_daemon``: start the daemon afterwards (for the next commands) if it would have done
    this one. ``robot-sm`` itself asks the daemon first (:mod:`robot_sm.frontends.command`).
    """
    parser = build_parser()
    if '_ARGCOMPLETE' in os.environ:  # completing: the shell's Tab, not a command
        try:
            import argcomplete
            argcomplete.autocomplete(parser)
        except ImportError:
            pass
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return EXIT_UNAVAILABLE if exit_.code else EXIT_OK
    try:
        return run(args)
    finally:
        if start_daemon and args.run_verb.for_daemon(args):
            _start_daemon(args)


def _start_daemon(args: argparse.Namespace) -> None:
    """Start the daemon, with the suite or the fleet of this command prepared."""
    from robot_sm.frontends.daemon import client, protocol
    fleet = args.run_verb in (VERBS['fleet'], VERBS['fleet estop'])
    prepare = f'fleet:{args.namespace or "/"}' if fleet else f'suite:{args.namespace}'
    try:
        client.start_daemon(protocol.socket_path(protocol.environment()), prepare)
    except protocol.DaemonUnusable:
        pass


def run(args: argparse.Namespace) -> int:
    """Run the verb ``args`` name; return its exit code."""

    def emit(data: Any, text: str) -> None:
        print(json.dumps(_jsonable(data), indent=2) if args.json else text)

    try:
        return args.run_verb.main(args, emit)
    except KeyboardInterrupt:
        return EXIT_OK
    except Exception as error:  # noqa: B902 - one kind is an answer, the others are raised
        # Only robot_sm.client raises SuiteUnavailable: a verb that never imported it (plugins,
        # daemon) did not, and leaves rclpy unimported.
        connection = sys.modules.get('robot_sm.client.connection')
        if connection is None or not isinstance(error, connection.SuiteUnavailable):
            raise
        print(f'robot-sm: {error}', file=sys.stderr)
        return EXIT_UNAVAILABLE


class Ros2Command:
    """Operate a running robot_sm suite (robot-sm as a ros2 command)."""

    # ros2cli loads this class from the ros2cli.command entry point and calls it like its own
    # CommandExtension; nothing here imports ros2cli, so the package works without it.
    NAME = 'robot_sm'
    EXTENSION_POINT_VERSION = '0.1'

    def add_arguments(self, parser: argparse.ArgumentParser, cli_name: str, *,
                      argv: Optional[List[str]] = None) -> None:
        add_arguments(parser)

    def main(self, *, parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
        """Run the verb; return robot-sm's exit code."""
        return run(args)


if __name__ == '__main__':
    entry_point()
