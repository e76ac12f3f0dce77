"""
``robot-sm control`` and ``robot-sm audit``: who is in control of the robot, and who did what.

``control`` shows who holds control (``--json``: the whole state), ``control take`` takes it
(acquires it when free, takes it over from its holder, who is told), ``control give-up`` gives
it up. ``audit`` prints the robot's audit log: every operator command, control change and STOP
with who gave it, from where, and the suite's answer.
"""

import argparse
import datetime
import re
import sys
import time
from typing import Any, Callable

from robot_sm.frontends.cli_output import format_audit, format_control
from robot_sm.frontends.cli_verbs import EXIT_OK, EXIT_REFUSED, suite_of

Emit = Callable[[Any, str], None]


def control_status(args: argparse.Namespace, emit: Emit) -> int:
    """Show who holds control of the robot."""
    with suite_of(args) as suite:
        info = suite.control()
    emit(info, format_control(info))
    return EXIT_OK


def control_take(suite: Any, args: argparse.Namespace) -> Any:
    """Take control: acquire it when free, take it over from its holder (who is told)."""
    return suite.take_control()


def control_give_up(suite: Any, args: argparse.Namespace) -> Any:
    """Give control up (its holder only)."""
    return suite.release_control()


def parse_since(text: str) -> float:
    """
    Return the wall-clock seconds ``--since`` names: ``10m`` ago (s, m, h, d) or an ISO time.

    :raises argparse.ArgumentTypeError: if it is neither.
    """
    match = re.fullmatch(r'(\d+(?:\.\d+)?)([smhd]?)', text.strip())
    if match:
        unit = {'': 1, 's': 1, 'm': 60, 'h': 3600, 'd': 86400}[match.group(2)]
        return time.time() - float(match.group(1)) * unit
    try:
        return datetime.datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise argparse.ArgumentTypeError(
            f'{text!r} is not a time: give a duration ago (90s, 10m, 2h, 1d) or an ISO time '
            '(2026-11-28T10:00)') from None


def audit_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('--since', type=parse_since, default=0.0, metavar='T',
                        help='entries from T on: a duration ago (10m, 2h) or an ISO time')
    parser.add_argument('--operator', dest='only', default='', metavar='NAME',
                        help="only this operator's entries")
    parser.add_argument('--limit', type=int, default=0, metavar='N',
                        help='the newest N entries only')


def audit(args: argparse.Namespace, emit: Emit) -> int:
    """Show the robot's audit log: who did what, and the suite's answer."""
    with suite_of(args) as suite:
        result = suite.audit(args.since, args.only, args.limit)
    if not result.success:
        print(f'robot-sm: {result.message}', file=sys.stderr)
        return EXIT_REFUSED
    emit(result.data, format_audit(result.data))
    return EXIT_OK
