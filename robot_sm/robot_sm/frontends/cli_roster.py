"""
The robots a fleet command of ``robot-sm`` expects, and those it saw.

From ``--expect`` (a count, or names), ``--fleet FILE`` and the robots earlier fleet commands saw
in this ROS environment (:mod:`robot_sm.client.roster`); what a command finds is remembered for
the next. It imports what it uses when it is used: robot-sm's parser stays free of rclpy.
"""

import argparse
from typing import Any, List, Optional


class Roster:
    """The robots a fleet command expects (:mod:`robot_sm.client.roster`), and those it saw."""

    def __init__(self, within: str, count: Optional[int], expected: List[str],
                 seen: Any, problem: str = '') -> None:
        self.within = within
        self.count = count
        self.expected = expected
        self.problem = problem
        self._seen = seen

    @classmethod
    def of(cls, args: argparse.Namespace) -> 'Roster':
        """Return the roster of ``--expect``, ``--fleet`` and the robots seen before."""
        from robot_sm.client.roster import (
            load_fleet_file, parse_expect, RosterError, SeenRobots, under)
        from robot_sm.frontends.daemon.protocol import DaemonUnusable, socket_directory
        within = '/' + (args.namespace or '/').strip('/')
        try:
            seen = SeenRobots(socket_directory())
        except DaemonUnusable:
            seen = None
        try:
            count, names = parse_expect(getattr(args, 'expect', None), within)
            fleet_file = getattr(args, 'fleet', None)
            if fleet_file is not None:
                names += load_fleet_file(fleet_file, within)
        except RosterError as error:
            return cls(within, None, [], seen, str(error))
        if seen is not None:
            names += under(seen.load(), within)
        return cls(within, count, sorted(set(names)), seen)

    def saw(self, namespaces: Any) -> None:
        """Remember robots found: later commands expect them."""
        if self._seen is not None:
            self._seen.add(list(namespaces))

    def forget(self, names: List[str]) -> List[str]:
        """Forget the robots seen ``names`` (all under the namespace if none)."""
        from robot_sm.client.roster import full_name
        if self._seen is None:
            return []
        return list(self._seen.forget(self.within, [full_name(n, self.within) for n in names]))
