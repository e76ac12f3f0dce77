"""
The web console's link to one robot: a :class:`~robot_sm.client.SuiteClient` and what it hears.

A :class:`RobotBridge` follows the suite in one namespace on the client's node (one rclpy
context for the whole console, shared with its fleet view): the latched state topics, control,
the published cycle (drawn by :mod:`~robot_sm.frontends.web.cycle_diagram`), the map, the
planned path, the exploration goals and the e-stop's cause (``robot_sm/emergency_stop_cause``);
it turns what happens into the events of the timeline (:mod:`~robot_sm.frontends.web.event_feed`),
and it asks the service provider for the robot pose ``pose_rate`` times a second on a thread of
its own (once a second while no page shows the robot), looks for an arm under teleop there
(:mod:`~robot_sm.frontends.web.arm_watch`), reads the incidents the recorder kept
(:mod:`~robot_sm.frontends.web.incident_watch`) and the mux's speed limits, and publishes the
driving pages' velocities (:mod:`~robot_sm.frontends.web.drive_link`). Everything it learns goes to
``sink(kind, value)`` as the page is sent it (:mod:`~robot_sm.frontends.web.views`); ``sink``
must be safe to call from any thread. The map is
drawn (:mod:`~robot_sm.frontends.web.map_image`) on a worker thread, at most once a second, so
that a large map never holds up the node's callbacks, which also carry the answers to the
operator's calls. The bridge beats the operator heartbeat when an operator page pings
(:attr:`presence`).
"""

from concurrent.futures import ThreadPoolExecutor
import json
import pathlib
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from geometry_msgs.msg import PoseArray
from nav_msgs.msg import OccupancyGrid, Path
from rclpy.context import Context
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from robot_sm import qos
from robot_sm.client import held_because, SuiteClient, SuiteUnavailable
from robot_sm.client.incidents import incident_folder
from robot_sm.contract import CONTROL, CYCLE, EMERGENCY_STOP_CAUSE, MUX_COMMAND, STATE
from robot_sm.frontends.presence import OperatorPresence
from robot_sm.frontends.presence_monitor import Presence
from robot_sm.frontends.web import views
from robot_sm.frontends.web.arm_watch import ArmWatch
from robot_sm.frontends.web.cycle_diagram import CycleDocumentError, layout
from robot_sm.frontends.web.drive_link import DriveLink
from robot_sm.frontends.web.event_feed import EventFeed
from robot_sm.frontends.web.incident_watch import IncidentWatch
from robot_sm.frontends.web.map_image import map_picture
from robot_sm_msgs.msg import ControlState, OperationMode, StateInfo, WaypointArray
from robot_sm_msgs.srv import Command
from std_msgs.msg import Bool, String

#: Reliable, volatile, newest only: matches latched and plain reliable publishers.
NEWEST = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1,
                    reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE)
#: Seconds between two looks at the pose and the presence while no page shows the robot.
IDLE_PERIOD = 1.0
#: Seconds between two drawings of the map.
MAP_INTERVAL = 1.0
#: Seconds the poller is given to end once the client is closed under it.
CLOSE_TIMEOUT = 1.0
Sink = Callable[[str, Any], None]


class RobotBridge:
    """The suite in ``namespace``, followed for the pages and operated through its client."""

    def __init__(self, context: Context, namespace: str, sink: Sink, pose_rate: float = 10.0,
                 timeout: float = 5.0, incidents: Optional[pathlib.Path] = None) -> None:
        """
        Follow the suite in ``namespace`` from a client in ``context``; report to ``sink``.

        ``incidents``: the recorder's folder (None: where the robot's recorder writes here).
        """
        self.namespace = '/' + namespace.strip('/')
        self.client = SuiteClient(namespace=self.namespace, timeout=timeout, context=context)
        self.presence = OperatorPresence(self.client.node, rate=None)
        self._sink = sink
        self._period = 1.0 / pose_rate
        self._lock = threading.Lock()
        self._latest: Dict[str, Any] = {'state': None, 'mode': None, 'input': None,
                                        'heard': None, 'interrupt': None, 'reverse': None}
        #: The name of the operator holding control of the robot, None when nobody does.
        self.control_holder: Optional[str] = None
        self._map: Optional[OccupancyGrid] = None
        self._map_busy = False
        self._map_drawn = 0.0
        self._map_version = 0
        self._map_png = b''
        self._map_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix='web_map')
        self._closed = threading.Event()
        #: Set while a page shows this robot: the pose is asked for at ``pose_rate`` only then.
        self.watched = threading.Event()
        self.events = EventFeed(self.client.node, self.namespace,
                                lambda found: self._sink('event', found))
        self.arm = ArmWatch(self.client.node, self.namespace, self._sink)
        self.incidents = IncidentWatch(incidents or incident_folder(self.namespace), self._sink)
        self.drive = DriveLink(self.client.node, self.namespace, self._sink)
        self._subscribe()
        # Made now, so that the first stop does not wait for its client to be discovered.
        self.client._client(Command, MUX_COMMAND)
        self._poller = threading.Thread(target=self._poll, name='web_poll', daemon=True)
        self._poller.start()

    def _subscribe(self) -> None:
        node = self.client.node
        topics: List[Tuple[Any, str, Any, Callable[[Any], None]]] = [
            (StateInfo, STATE, qos.STATE, lambda m: self._remember('state', views.state_view(m))),
            (ControlState, CONTROL, qos.STATE, self._on_control),
            (OperationMode, 'robot_sm/operation_mode', qos.STATE,
             lambda m: self._remember('mode', views.mode_view(m))),
            (String, 'robot_sm/selected_input', qos.STATE,
             lambda m: self._remember('input', m.data)),
            (Bool, 'robot_sm/exploration_mode', qos.STATE,
             lambda m: self._remember('interrupt', bool(m.data))),
            (Bool, 'robot_sm/reverse_mode', qos.STATE,
             lambda m: self._remember('reverse', bool(m.data))),
            (WaypointArray, 'robot_sm/waypoints', qos.STATE, self._on_waypoints),
            (Path, 'robot_sm/plan', qos.STATE, lambda m: self._sink('path', views.path_view(m))),
            (PoseArray, 'robot_sm/exploration_goals', NEWEST,
             lambda m: self._sink('goals', views.goals_view(m))),
            (OccupancyGrid, 'map', qos.STATE, self._on_map),
            (String, CYCLE, qos.STATE, self._on_cycle),
            (String, EMERGENCY_STOP_CAUSE, qos.STATE, self._on_cause),
        ]
        for msg_type, topic, profile, callback in topics:
            node.create_subscription(msg_type, topic, callback, profile)

    # ---- what the suite says ----------------------------------------------------------------

    def _remember(self, key: str, value: Any) -> None:
        with self._lock:
            self._latest[key] = value
            latest = dict(self._latest)
        if key == 'state':
            self._sink('state', latest['state'])
            self.events.state(value)
        elif key in ('mode', 'input', 'heard'):
            mode = latest['mode'] or {'mode': None, 'emergency_stop': None}
            if key == 'mode':
                self.events.emergency_stop(value['emergency_stop'])
            held = held_because(mode['mode'], mode['emergency_stop'], latest['heard'])
            self._sink('mode', {**mode, 'input': latest['input'], 'held': held})
        else:
            self._sink('settings', {'interrupt': latest['interrupt'],
                                    'reverse': latest['reverse']})

    def _on_control(self, msg: ControlState) -> None:
        view = views.control_view(msg)
        self.control_holder = view['holder'] if view['held'] else None
        self._sink('control', view)

    def _on_waypoints(self, msg: WaypointArray) -> None:
        view = views.waypoints_view(msg)
        self._sink('waypoints', view)

    def _on_cause(self, msg: String) -> None:
        self.events.reason(msg.data)
        if msg.data:
            self._sink('estop_reason', {'reason': msg.data})

    def _on_cycle(self, msg: String) -> None:
        try:
            self._sink('cycle', layout(json.loads(msg.data)))
        except (ValueError, CycleDocumentError) as error:
            self._sink('cycle', {'error': f'the published cycle cannot be drawn: {error}'})

    def _on_map(self, msg: OccupancyGrid) -> None:
        with self._lock:
            self._map = msg
            if self._map_busy or self._closed.is_set():
                return
            self._map_busy = True
        self._map_worker.submit(self._draw_map)

    def _draw_map(self) -> None:
        """Draw the newest map (at most every MAP_INTERVAL s) and hand it on if it changed."""
        wait = self._map_drawn + MAP_INTERVAL - time.monotonic()
        if wait > 0 and self._closed.wait(wait):
            return
        with self._lock:
            msg, self._map, self._map_busy = self._map, None, False
        if msg is None:
            return
        self._map_drawn = time.monotonic()
        try:
            picture = map_picture(msg.data, msg.info.width, msg.info.height)
        except ValueError as error:
            self._sink('map_error', {'message': str(error)})
            return
        if picture.png == self._map_png:
            return
        self._map_png = picture.png
        self._map_version += 1
        self._sink('map', (views.map_meta(msg, self._map_version, picture.known), picture.png))

    # ---- what is asked -------------------------------------------------------------------------

    def _poll(self) -> None:
        """Ask for the pose, look at the presence, fetch the routines, until closed."""
        try:
            self._poll_until_closed()
        except Exception:  # noqa: B902 - what the client raises once it is closed under us
            if not self._closed.is_set():
                raise

    def _poll_until_closed(self) -> None:
        pose: Any = None
        presence: Any = None
        routines_due = 0.0
        while not self._closed.wait(self._period if self.watched.is_set() else IDLE_PERIOD):
            now = time.monotonic()
            self.events.poll()
            self.arm.poll(now)
            self.incidents.poll(now)
            self.drive.poll(now)
            report = self.presence.report()
            shown = {'presence': report.presence.value, 'text': report.text}
            if shown != presence:
                presence = shown
                self._sink('presence', shown)
                # The robot does not hear its operator (before the first heartbeat: it stays
                # STOPPED and refuses modes; after it the e-stop says why).
                self._remember('heard', False if report.presence is Presence.NOT_HEARD
                               else None)
            if routines_due <= now:
                routines_due = now + self._fetch_routines()
            answer = self._pose()  # rounded to the millimetre: smaller moves are not sent
            if answer != pose:
                pose = answer
                self._sink('pose', answer)

    def _pose(self) -> Dict[str, Any]:
        try:
            result = self.client.robot_pose()
        except SuiteUnavailable as error:
            return views.pose_view(None, str(error))
        if not result.success:
            return views.pose_view(None, result.message)
        return views.pose_view(result.data)

    def _fetch_routines(self) -> float:
        """Send the routines; return the seconds until they are asked again."""
        try:
            result = self.client.routines()
        except SuiteUnavailable:
            return 2.0
        self._sink('routines', {'routines': list(result.data or [])})
        return 30.0

    def close(self) -> None:
        """
        Stop following and beating, at once.

        The poller may be waiting for an answer (up to the client's timeout, for a suite that
        is gone): the client is closed first, which ends its calls still waiting, and the poller
        then ends within a few milliseconds; what it meets of the closed client is not an error.
        """
        self._closed.set()
        self._map_worker.shutdown(wait=False, cancel_futures=True)
        self.presence.close()
        self.client.close()
        self._poller.join(timeout=CLOSE_TIMEOUT)
