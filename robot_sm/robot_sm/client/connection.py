"""
The connection under :class:`robot_sm.client.SuiteClient`.

A node of its own, service calls with timeouts, the commands of the gateway given as one
operator, and the suite's latched topics.

The node spins on an executor in a background thread. Every latched topic the client reads is
subscribed once and kept (:meth:`SuiteConnection.latched`).
"""

import copy
from dataclasses import dataclass
import getpass
import os
import socket
import threading
import time
from typing import Any, Callable, Dict, Optional, TypeVar, Union

from rclpy.context import Context
from robot_sm import qos
from robot_sm.client.spinning_node import SpinningNode
from robot_sm.client.tasks import WaitTimeout
from robot_sm.contract import Code, COMMAND, Command as Kind, MODES, STATE_INFO
from robot_sm_msgs.msg import Operator
from robot_sm_msgs.srv import Command
from std_msgs.msg import String

#: Operation mode names accepted by :meth:`robot_sm.client.SuiteClient.set_mode`.
MODE_NAMES = {int(mode): name for name, mode in MODES.items()}
#: The environment variable that names the operator of every surface on this computer.
OPERATOR_VARIABLE = 'ROBOT_SM_OPERATOR'


def operator_name() -> str:
    """Return the operator's name: ``ROBOT_SM_OPERATOR``, else ``user@host``."""
    return os.environ.get(OPERATOR_VARIABLE) or f'{getpass.getuser()}@{socket.gethostname()}'


def operator(name: str = '', surface: str = 'python', address: str = '') -> Operator:
    """Return who gives commands: ``name`` (default :func:`operator_name`) on ``surface``."""
    return Operator(name=name or operator_name(), surface=surface,
                    address=address or socket.gethostname())


ConnectionT = TypeVar('ConnectionT', bound='SuiteConnection')


#: Seconds after which a request not answered while its service has two servers is sent again.
RESEND_AFTER = 1.0


def lost_to_a_restart(node: Any, service: str, sent: float) -> bool:
    """
    Return whether a request sent at ``sent`` (monotonic), still unanswered, is to be sent again.

    A server that died without a word stays in the graph, and matched, until its DDS lease ends
    (20 s with Fast DDS); a request sent before its restarted successor was matched reached only
    the dead one and is lost. While the graph shows two servers of ``service`` (a full name), a
    request not answered within :data:`RESEND_AFTER` is sent again: a live server answers in
    milliseconds, so it is done twice only by one slower than that.
    """
    return time.monotonic() - sent >= RESEND_AFTER and node.count_services(service) > 1


class SuiteUnavailable(RuntimeError):
    """A service or topic of the suite did not answer in time; the message names it."""


@dataclass
class Result:
    """The suite's answer to one request."""

    success: bool
    message: str
    data: Any = None
    #: The command gateway's answer code (None for calls that are not commands).
    code: Optional[Code] = None
    #: The command acquired control for the client's operator (nobody held it).
    control_acquired: bool = False


class SuiteConnection:
    """A node in the suite's namespace that calls its services and follows its latched topics."""

    def __init__(self, namespace: str = '', timeout: float = 5.0,
                 context: Optional[Context] = None, by: Optional[Operator] = None) -> None:
        """
        Connect in ``context`` (else one of its own); every wait defaults to ``timeout``.

        ``by`` is who gives the commands (default: :func:`operator`, the ``python`` surface).
        """
        self.timeout = timeout
        self.by = by if by is not None else operator()
        self._spinning = SpinningNode('robot_sm_client', namespace, context)
        self.context = self._spinning.context
        self.node = self._spinning.node
        self._clients: Dict[str, Any] = {}
        self._publishers: Dict[str, Any] = {}
        self._latched: Dict[str, Any] = {}
        self._subscriptions: Dict[str, Any] = {}
        #: The action clients of the activities, made on first use.
        self._actions: Dict[str, Any] = {}
        #: Guards the latched messages; notified on every message.
        self._changed = threading.Condition()
        self._closed = threading.Event()

    def close(self) -> None:
        """Disconnect from the suite; calls still waiting raise SuiteUnavailable at once."""
        self._closed.set()
        with self._changed:
            self._changed.notify_all()
        self._spinning.close()

    def with_timeout(self: ConnectionT, timeout: float) -> ConnectionT:
        """
        Return this connection with waits of ``timeout``, sharing everything else.

        For one connection kept for many callers (the robot-sm daemon): closing what it returns
        closes the connection.
        """
        view = copy.copy(self)
        view.timeout = timeout
        return view

    def with_operator(self: ConnectionT, by: Operator) -> ConnectionT:
        """Return this connection giving its commands as ``by``, sharing everything else."""
        view = copy.copy(self)
        view.by = by
        return view

    def __enter__(self: ConnectionT) -> ConnectionT:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ---- plumbing -----------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed.is_set():
            raise SuiteUnavailable('the connection to the suite was closed')

    def _full_name(self, name: str) -> str:
        return self.node.resolve_service_name(name)

    def _client(self, srv_type: Any, name: str) -> Any:
        client = self._clients.get(name)
        if client is None:
            # SERVICES keeps every answer: a script's burst of calls loses none.
            client = self._clients[name] = self.node.create_client(srv_type, name,
                                                                   qos_profile=qos.SERVICES)
        return client

    def _publisher(self, msg_type: Any, topic: str, profile: Any) -> Any:
        """Return the publisher on ``topic``, made on first use and kept."""
        with self._changed:
            publisher = self._publishers.get(topic)
            if publisher is None:
                publisher = self._publishers[topic] = self.node.create_publisher(
                    msg_type, topic, profile)
        return publisher

    def call(self, srv_type: Any, name: str, request: Any = None) -> Any:
        """
        Call service ``name`` (relative to the namespace) and return its response.

        :raises SuiteUnavailable: if it is not available or does not answer within the timeout.
        """
        self._check_open()
        client = self._client(srv_type, name)
        deadline = time.monotonic() + self.timeout
        # Client.wait_for_service checks every 0.25 s; an operator notices that on every call.
        while not client.service_is_ready():
            self._check_open()
            if time.monotonic() >= deadline:
                raise SuiteUnavailable(f'service {self._full_name(name)} is not available '
                                       f'(waited {self.timeout:g} s): is the suite running?')
            time.sleep(0.005)
        request = request if request is not None else srv_type.Request()
        done = threading.Event()
        future, sent = client.call_async(request), time.monotonic()
        future.add_done_callback(lambda _: done.set())
        while not done.wait(0.02):
            self._check_open()
            if time.monotonic() >= deadline:
                client.remove_pending_request(future)
                raise SuiteUnavailable(f'service {self._full_name(name)} did not answer within '
                                       f'{self.timeout:g} s')
            if lost_to_a_restart(self.node, self._full_name(name), sent):
                client.remove_pending_request(future)
                future, sent = client.call_async(request), time.monotonic()
                future.add_done_callback(lambda _: done.set())
        return future.result()

    def _trigger(self, srv_type: Any, name: str, request: Any = None) -> Result:
        response = self.call(srv_type, name, request)
        return Result(bool(response.success), str(response.message))

    def command(self, kind: Kind, service: str = COMMAND, **fields: Any) -> Result:
        """
        Give the command ``kind`` (with the ``Command`` request's ``fields``) as :attr:`by`.

        ``ros2 service call robot_sm/command robot_sm_msgs/srv/Command "{by: {name: alice},
        command: 1, mode: 1}"``

        :raises SuiteUnavailable: if the gateway does not answer within the timeout.
        """
        request = Command.Request(command=int(kind), by=self.by, **fields)
        response = self.call(Command, service, request)
        code = Code(response.code) if response.code in Code._value2member_map_ else None
        return Result(bool(response.success), str(response.message),
                      int(response.waypoint_id) if kind is Kind.ADD_WAYPOINT else None, code,
                      bool(response.control_acquired))

    def _subscribe_latched(self, msg_type: Any, topic: str) -> None:
        with self._changed:
            if topic in self._latched:
                return
            self._latched[topic] = None

        def store(msg: Any) -> None:
            with self._changed:
                self._latched[topic] = msg
                self._changed.notify_all()

        # Every change, not only the newest: a wait for a state sees each one.
        self._subscriptions[topic] = self.node.create_subscription(msg_type, topic, store,
                                                                   qos.STATE_CHANGES)

    def _current(self, topic: str) -> Any:
        """
        Return the newest message on a latched topic while a publisher of it is there, else None.

        A connection kept for long (the robot-sm daemon's) still holds the message of a suite
        that has gone; it counts no more once DDS says its publisher has left.
        """
        subscription = self._subscriptions.get(topic)
        if subscription is None or subscription.get_publisher_count() == 0:
            return None
        return self._latched[topic]

    def _await(self, value: Callable[[], Any], timeout: float) -> Any:
        """Return ``value()`` once it is not None, or None after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = value()
                remaining = deadline - time.monotonic()
                if found is not None or remaining <= 0:
                    return found
                self._check_open()
                self._changed.wait(min(remaining, 0.1))

    def latched(self, msg_type: Any, topic: str, wait: bool = True) -> Any:
        """
        Return the newest message on one of the suite's transient_local (latched) topics.

        :raises SuiteUnavailable: if ``wait`` and nothing arrives within the timeout.
        """
        self._check_open()
        self._subscribe_latched(msg_type, topic)
        msg = self._await(lambda: self._current(topic), self.timeout if wait else 0.0)
        if msg is None and wait:
            raise SuiteUnavailable(f'nothing on {self.node.resolve_topic_name(topic)} within '
                                   f'{self.timeout:g} s: is the suite running?')
        return msg

    # ---- waiting --------------------------------------------------------------------------

    def wait_for_state(self, state: Union[str, Callable[[str], bool]],
                       timeout: Optional[float] = None) -> str:
        """
        Wait until the current state is ``state`` (or satisfies it); return its name.

        ``timeout`` defaults to the client's.

        :raises WaitTimeout: if it is not within ``timeout`` seconds.
        :raises SuiteUnavailable: if no state is published at all.
        """
        check = state if callable(state) else (lambda name: name == state)
        self.latched(String, STATE_INFO)
        limit = self.timeout if timeout is None else timeout
        name = self._await(lambda: self._latched[STATE_INFO].data
                           if check(self._latched[STATE_INFO].data) else None, limit)
        if name is None:
            wanted = repr(state) if isinstance(state, str) else 'the awaited one'
            name = self._latched[STATE_INFO].data
            raise WaitTimeout(f'the state is {name!r}, not {wanted}, after {limit:g} s')
        return str(name)
