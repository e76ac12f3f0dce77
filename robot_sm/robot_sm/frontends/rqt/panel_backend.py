"""
The control panel's link to the suite: calls off the GUI thread, and the latest latched state.

Threading rules (RSM's panel broke them): Qt is touched only on the GUI thread. Service calls run
on a worker thread of :class:`PanelBackend` and their results come back through a queued Qt
signal; the suite's latched topics are read from a snapshot the panel polls with a QTimer, so a
ROS callback never touches a widget.
"""

from concurrent.futures import Future, ThreadPoolExecutor
import functools
import getpass
import socket
import threading
from typing import Any, Callable, Dict, List, Optional

from robot_sm.client import (
    operator,
    Result,
    SuiteClient,
    SuiteUnavailable,
    waypoint_infos,
    WaypointInfo,
)
from robot_sm.contract import (
    CONTROL,
    OPERATION_MODE,
    REVERSE_MODE,
    SELECTED_INPUT,
    STATE,
    WAYPOINTS,
)
from robot_sm.frontends.presence import OperatorPresence
from robot_sm.qos import STATE as LATCHED
from robot_sm_msgs.msg import ControlState, OperationMode, Operator, StateInfo, WaypointArray
from std_msgs.msg import Bool, String

#: The latched topics the panel shows, by key.
TOPICS = {
    'state': (StateInfo, STATE),
    'operation_mode': (OperationMode, OPERATION_MODE),
    'selected_input': (String, SELECTED_INPUT),
    'waypoints': (WaypointArray, WAYPOINTS),
    'reverse_mode': (Bool, REVERSE_MODE),
    'exploration_mode': (Bool, 'robot_sm/exploration_mode'),
    'control': (ControlState, CONTROL),
}


def panel_operator() -> Operator:
    """Return who gives the panel's commands: ``user@host (rqt)``."""
    return operator(f'{getpass.getuser()}@{socket.gethostname()} (rqt)', surface='rqt')


class PanelBackend:
    """Run suite calls off the GUI thread and keep the latest state of the suite's topics."""

    def __init__(self, client: SuiteClient) -> None:
        self.client = client.with_operator(panel_operator())
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix='robot_sm_panel')
        self._lock = threading.Lock()
        self._latest: Dict[str, Any] = dict.fromkeys(TOPICS)
        for key, (msg_type, topic) in TOPICS.items():
            client.node.create_subscription(
                msg_type, topic, functools.partial(self._store, key), LATCHED)
        #: The operator heartbeat; the panel beats it from its GUI thread.
        self.presence = OperatorPresence(client.node, rate=None)

    def _store(self, key: str, msg: Any) -> None:
        with self._lock:
            self._latest[key] = msg

    def snapshot(self) -> Dict[str, Any]:
        """Return the newest message of every topic (None where nothing arrived yet)."""
        with self._lock:
            return dict(self._latest)

    def submit(self, function: Callable[..., Result], *args: Any) -> 'Future[Result]':
        """Run ``function(*args)`` on the worker thread; the future holds its Result."""
        def run() -> Result:
            try:
                return function(*args)
            except SuiteUnavailable as error:
                return Result(False, str(error))
            except Exception as error:  # noqa: B902 - a click must never fail silently
                return Result(False, f'{type(error).__name__}: {error}')
        return self._worker.submit(run)

    def close(self, wait: bool = False) -> None:
        """
        Stop the worker: calls not started yet are dropped.

        A call in progress ends when it is answered, times out or the client is closed;
        ``wait`` waits for that.
        """
        self._worker.shutdown(wait=wait, cancel_futures=True)
        self.presence.close()


def waypoint_rows(array: Optional[WaypointArray]) -> List[WaypointInfo]:
    """Return the waypoints of ``array`` as rows for the table."""
    return [] if array is None else waypoint_infos(array)
