"""
The clients a daemon keeps: one SuiteClient per namespace, one FleetClient per fleet.

All of them are nodes of one rclpy context, so one DDS participant, which has discovered the
robots long before a command comes. A :class:`~robot_sm.client.SuiteClient` is made with every
service client and latched subscription it uses (:meth:`~robot_sm.client.SuiteClient.prepare`);
a :class:`~robot_sm.client.fleet.FleetClient` is asked for the robots in the graph every
:data:`FOLLOW_PERIOD`, so that it follows a robot that joins (its clients matched) before a
command needs it, and forgets one that has left. A command gets a view of the kept client with
its own ``--timeout`` (:meth:`~robot_sm.client.SuiteClient.with_timeout`); closing it closes
nothing. :class:`HeldClients` takes the place of
:class:`robot_sm.frontends.cli_verbs.FreshClients`. Every robot a followed fleet shows is kept as
seen (:class:`~robot_sm.client.roster.SeenRobots`, in the daemon's folder): later commands expect
it, after a restart of the daemon too.
"""

import contextlib
import threading
from typing import Any, Dict, Iterator, List, Optional

import rclpy
from rclpy.context import Context
from rclpy.signals import SignalHandlerOptions
from robot_sm.client import FleetClient, SuiteClient
from robot_sm.client.roster import SeenRobots
from robot_sm.frontends.daemon.protocol import DaemonUnusable, socket_directory

#: Seconds between two looks at the graph for robots that joined or left a followed fleet.
FOLLOW_PERIOD = 0.25


def _namespace(name: str) -> str:
    return '/' + name.strip('/')


class HeldClients:
    """The suite and fleet clients a daemon keeps, all in one participant."""

    def __init__(self) -> None:
        """Start the daemon's rclpy context (the signals stay the daemon's)."""
        self.context = Context()
        rclpy.init(context=self.context, signal_handler_options=SignalHandlerOptions.NO)
        self._suites: Dict[str, SuiteClient] = {}
        self._fleets: Dict[str, FleetClient] = {}
        #: Commands using each fleet now: its robots are left alone meanwhile.
        self._fleet_users: Dict[str, int] = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        #: The robots seen, kept in the daemon's folder (robot_sm.client.roster).
        self._seen: Optional[SeenRobots] = None
        try:
            self._seen = SeenRobots(socket_directory())
        except DaemonUnusable:
            pass
        self._follower = threading.Thread(target=self._follow_fleets, daemon=True)
        self._follower.start()

    def suite(self, namespace: str, timeout: float, by: Any = None) -> Any:
        """Return the kept client of the suite in ``namespace`` for a command of ``by``."""
        key = _namespace(namespace)
        with self._lock:
            client = self._suites.get(key)
            if client is None:
                client = self._suites[key] = SuiteClient(key, timeout, self.context)
                client.prepare()
        view = client.with_timeout(timeout)
        return contextlib.nullcontext(view.with_operator(by) if by is not None else view)

    @contextlib.contextmanager
    def fleet(self, within: str, timeout: float) -> Iterator[FleetClient]:
        """Give the kept client of the suites under ``within`` for the time of a command."""
        key = _namespace(within)
        with self._lock:
            client = self._fleets.get(key)
            if client is None:
                client = self._fleets[key] = FleetClient(key, timeout, self.context)
            self._fleet_users[key] = self._fleet_users.get(key, 0) + 1
        try:
            yield client
        finally:
            with self._lock:
                self._fleet_users[key] -= 1

    def prepare(self, what: str) -> None:
        """Make the client ``suite:NAMESPACE`` or ``fleet:NAMESPACE`` now, before a command."""
        kind, _, namespace = what.partition(':')
        if kind == 'suite':
            self.suite(namespace, 5.0)
        elif kind == 'fleet':
            with self.fleet(namespace, 5.0) as fleet:
                fleet.robots()

    def served(self) -> Dict[str, List[str]]:
        """Return the namespaces of the suites and fleets kept."""
        with self._lock:
            return {'suites': sorted(self._suites), 'fleets': sorted(self._fleets)}

    def _follow_fleets(self) -> None:
        while not self._closed.wait(FOLLOW_PERIOD):
            found: List[str] = []
            with self._lock:  # a command takes a fleet only between two looks
                for key, client in self._fleets.items():
                    if self._fleet_users[key] or self._closed.is_set():
                        continue
                    try:
                        found += client.robots()
                    except Exception:  # noqa: B902 - the context is shutting down
                        pass
            if found and self._seen is not None:
                self._seen.add(found)  # expected by later commands, after a restart too

    def close(self) -> None:
        """Close every client and the context."""
        self._closed.set()
        self._follower.join(timeout=2.0)
        with self._lock:
            clients: List[Any] = [*self._suites.values(), *self._fleets.values()]
            self._suites.clear()
            self._fleets.clear()
        for client in clients:
            client.close()
        rclpy.try_shutdown(context=self.context)
