"""
The arguments of ``robot-sm``'s verbs: one function per kind, adding it to a verb's parser.

The table of verbs (:data:`robot_sm.frontends.cli.VERBS`) names, for each verb, the functions
here that add its arguments.
"""

import argparse
import math
import pathlib
from typing import Any, Iterable

from robot_sm.contract import FOLLOWING_MODES, MODES


def finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f'{text} is not a finite number')
    return value


def complete_worlds(**_: Any) -> Iterable[str]:
    """Complete --world with the shipped worlds (argcomplete calls this)."""
    from robot_sm.resources import shipped_worlds
    return shipped_worlds()


def common_options(parser: argparse.ArgumentParser, after_verb: bool = False,
                   operator: bool = True) -> None:
    """
    Add the options every verb takes: before the verb, and (``after_verb``) after it.

    They are --namespace, --timeout, --json, --no-daemon and (unless not ``operator``: a verb
    with an --operator of its own) --operator.

    After the verb, as ros2cli's options are (``robot-sm status --json``), an option given
    there wins over the same before the verb; not given, it leaves that one's value.
    """
    def default(value: Any) -> Any:
        return argparse.SUPPRESS if after_verb else value

    parser.add_argument('--namespace', '-n', default=default(''),
                        help='namespace the suite runs in (default: the root)')
    parser.add_argument('--timeout', '-t', type=finite, default=default(5.0),
                        help='seconds to wait for the suite to answer (default 5)')
    parser.add_argument('--json', action='store_true', default=default(False),
                        help='print machine-readable JSON')
    parser.add_argument('--no-daemon', action='store_true', default=default(False),
                        help='do the command in this process, not in the robot-sm daemon '
                             '(also: ROBOT_SM_NO_DAEMON=1)')
    if operator:
        parser.add_argument('--operator', default=default(None), metavar='NAME',
                            help='who gives the command (default: ROBOT_SM_OPERATOR, else '
                                 'user@host)')


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
    parser.add_argument('--expect', metavar='N|NAMES',
                        help='wait until N robots, or the robots NAMES (comma-separated, '
                             'relative to --namespace), are found within --timeout; fewer is '
                             'an error, and a robot named but not found is NOT FOUND')
    parser.add_argument('--fleet', type=pathlib.Path, metavar='FILE',
                        help='a fleet file naming the robots expected (see config/fleet.yaml)')


def forget_names(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('names', nargs='*', metavar='NAME',
                        help='robots to forget (relative to --namespace); none: all of them')


def mode_name(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('mode', choices=list(MODES))


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
    parser.add_argument('--web', action='store_true',
                        help='also serve the web operator console (robot-sm web, in a process '
                             'of its own; it prints its address with the token)')
    parser.add_argument('--web-port', type=int, default=8080, metavar='PORT',
                        help='port of --web (default 8080)')
    parser.add_argument('--no-recorder', action='store_true',
                        help='do not run the incident recorder (on by default, in a process of '
                             'its own: robot-sm incidents)')
    # One robot of a simulated fleet: its suite and base controller, robot_sim runs elsewhere.
    parser.add_argument('--fleet-robot', action='store_true', help=argparse.SUPPRESS)


def connect_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--rate', type=finite, metavar='HZ',
                        help='heartbeats per second (default 10)')


def web_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--host', default='127.0.0.1',
                        help='address to listen on (default 127.0.0.1: this machine only; '
                             '0.0.0.0 for the network, with --certfile and --keyfile)')
    parser.add_argument('--port', type=int, default=8080, help='port (default 8080; 0: any)')
    parser.add_argument('--token-file', type=pathlib.Path, metavar='FILE',
                        help='read the operator tokens from FILE, one a line, each optionally '
                             'followed by a label naming its holder (only its owner may read '
                             'it; default: make a random one and print its URL)')
    parser.add_argument('--read-only', action='store_true',
                        help='also make a read-only token (watch, no controls)')
    parser.add_argument('--read-only-token-file', type=pathlib.Path, metavar='FILE',
                        help='read the read-only token from FILE')
    parser.add_argument('--certfile', type=pathlib.Path, metavar='PEM',
                        help='serve HTTPS with this certificate (chain), with --keyfile')
    parser.add_argument('--keyfile', type=pathlib.Path, metavar='PEM',
                        help='private key of --certfile')
    parser.add_argument('--session-idle', type=finite, default=3600.0, metavar='S',
                        help='a login ends after S seconds with no page of it open '
                             '(default 3600)')
    parser.add_argument('--fleet', type=pathlib.Path, metavar='FILE',
                        help='a fleet file naming the robots expected: the robot selector shows '
                             'those not found (see config/fleet.yaml)')
    parser.add_argument('--incidents-dir', type=pathlib.Path, metavar='FOLDER',
                        help="the incident recorder's folder the page lists (default: "
                             '$ROS_HOME/robot_sm/<namespace>/incidents, where the recorder of '
                             'the robot on this computer writes)')


def record_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--output', '-o', type=pathlib.Path, metavar='FILE',
                        help='MCAP file to write (default: robot_sm_<UTC time>.mcap)')
    parser.add_argument('--topic', action='append', default=[], metavar='TOPIC',
                        help='record only these topics (relative to the namespace; repeatable)')
    parser.add_argument('--duration', type=finite, metavar='S', help='stop after S seconds')


def follow_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--mode', '-m', choices=list(FOLLOWING_MODES))
    parser.add_argument('--reverse', action='store_true', help='highest index first')


def explore_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--interrupt', action='store_true', default=None,
                        help='abandon a goal as soon as it is no longer a frontier')
    parser.add_argument('--finish', dest='interrupt', action='store_false',
                        help='always finish the current goal (default)')


def all_daemons(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--all', action='store_true',
                        help='every daemon of this user, whatever their environment')
