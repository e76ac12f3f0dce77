"""
The connection under :class:`robot_sm.client.SuiteClient`.

A node of its own, service calls with timeouts, the suite's latched topics, and the tasks that
follow them.

The node spins on an executor in a background thread. Every latched topic the client reads is
subscribed once and kept (:meth:`SuiteConnection.latched`); each message also goes to the tasks
still running (:class:`robot_sm.client.tasks.Task`), in the order it arrived.
"""

import copy
from dataclasses import dataclass
import threading
import time
from typing import Any, Callable, Dict, List, Optional, TypeVar, Union

from rclpy.context import Context
from robot_sm import qos
from robot_sm.client.spinning_node import SpinningNode
from robot_sm.client.tasks import Activity, ActivityTracker, Task, WaitTimeout
from robot_sm_msgs.msg import OperationMode, WaypointArray
from std_msgs.msg import String

STATE_INFO = 'robot_sm/state_info'
STATE_OUTCOME = 'robot_sm/state_outcome'
OPERATION_MODE = 'robot_sm/operation_mode'
WAYPOINTS = 'robot_sm/waypoints'
#: Operation mode names accepted by :meth:`robot_sm.client.SuiteClient.set_mode`.
MODES = {'stopped': OperationMode.STOPPED, 'autonomy': OperationMode.AUTONOMOUS,
         'teleop': OperationMode.TELEOPERATION}
MODE_NAMES = {value: name for name, value in MODES.items()}

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


def _feed(task: Task[Result], topic: str, msg: Any) -> None:
    """Give ``task`` a message of one of the topics it follows."""
    if topic == STATE_INFO:
        task.update(lambda tracker, now: tracker.on_state(msg.data, now))
    elif topic == STATE_OUTCOME:
        task.update(lambda tracker, now: tracker.on_outcome(msg.data, now))
    elif topic == WAYPOINTS:
        task.update(lambda tracker, now: tracker.on_waypoints(msg.waypoints, bool(msg.reverse)))


class SuiteConnection:
    """A node in the suite's namespace that calls its services and follows its latched topics."""

    def __init__(self, namespace: str = '', timeout: float = 5.0,
                 context: Optional[Context] = None) -> None:
        """Connect in ``context`` (else one of its own); every wait defaults to ``timeout``."""
        self.timeout = timeout
        self._spinning = SpinningNode('robot_sm_client', namespace, context)
        self.context = self._spinning.context
        self.node = self._spinning.node
        self._clients: Dict[str, Any] = {}
        self._publishers: Dict[str, Any] = {}
        self._latched: Dict[str, Any] = {}
        self._subscriptions: Dict[str, Any] = {}
        #: Guards the latched messages and the tasks; notified on every message.
        self._changed = threading.Condition()
        self._tasks: List[Task[Result]] = []
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

    def _subscribe_latched(self, msg_type: Any, topic: str) -> None:
        with self._changed:
            if topic in self._latched:
                return
            self._latched[topic] = None

        def store(msg: Any) -> None:
            with self._changed:
                self._latched[topic] = msg
                for task in self._tasks:
                    _feed(task, topic, msg)
                self._tasks[:] = [task for task in self._tasks if not task.is_done()]
                self._changed.notify_all()

        # Every change, not only the newest: a task counts the states it sees.
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

    def _last_outcome(self) -> Optional[str]:
        """Return the last outcome; published once per ended activity: a short wait, no error."""
        self._subscribe_latched(String, STATE_OUTCOME)
        msg = self._await(lambda: self._current(STATE_OUTCOME), 0.3)
        return msg.data if msg is not None else None

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

    # ---- tasks ----------------------------------------------------------------------------

    def _start_task(self, activity: Activity, start: Callable[[], Result],
                    stop: Callable[[], Result]) -> Task[Result]:
        """Follow the suite's messages from now on, then start the activity; return its task."""
        for msg_type, topic in ((String, STATE_INFO), (WaypointArray, WAYPOINTS)):
            self.latched(msg_type, topic)
        self._last_outcome()  # in, so that it is not taken for one of this activity
        with self._changed:
            array = self._latched[WAYPOINTS]
            task: Task[Result] = Task(ActivityTracker(
                activity, time.monotonic(), self._latched[STATE_INFO].data,
                list(array.waypoints), bool(array.reverse)), stop)
            self._tasks.append(task)
        try:
            answer = start()
        except BaseException:
            with self._changed:
                self._tasks.remove(task)
            raise
        if not answer.success:
            task.update(lambda tracker, now: tracker.refused(answer.message))
        return task
