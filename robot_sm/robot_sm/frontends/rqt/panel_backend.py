"""
The control panel's link to the suite: calls off the GUI thread, and the latest latched state.

Threading rules (RSM's panel broke them): Qt is touched only on the GUI thread. Service calls run
on a worker thread of :class:`PanelBackend` and their results come back through a queued Qt
signal; the suite's latched topics are read from a snapshot the panel polls with a QTimer, so a
ROS callback never touches a widget.
"""

from concurrent.futures import Future, ThreadPoolExecutor
import functools
import threading
from typing import Any, Callable, Dict, List, Optional

from robot_sm.client import Result, SuiteClient, SuiteUnavailable, waypoint_infos, WaypointInfo
from robot_sm.frontends.presence import OperatorPresence
from robot_sm.qos import STATE
from robot_sm_msgs.msg import OperationMode, WaypointArray
from std_msgs.msg import Bool, String

#: The latched topics the panel shows, by key.
TOPICS = {
    'state': (String, 'robot_sm/state_info'),
    'operation_mode': (OperationMode, 'robot_sm/operation_mode'),
    'selected_input': (String, 'robot_sm/selected_input'),
    'waypoints': (WaypointArray, 'robot_sm/waypoints'),
    'reverse_mode': (Bool, 'robot_sm/reverse_mode'),
    'exploration_mode': (Bool, 'robot_sm/exploration_mode'),
}


class PanelBackend:
    """Run suite calls off the GUI thread and keep the latest state of the suite's topics."""

    def __init__(self, client: SuiteClient) -> None:
        self.client = client
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix='robot_sm_panel')
        self._lock = threading.Lock()
        self._latest: Dict[str, Any] = dict.fromkeys(TOPICS)
        for key, (msg_type, topic) in TOPICS.items():
            client.node.create_subscription(
                msg_type, topic, functools.partial(self._store, key), STATE)
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
