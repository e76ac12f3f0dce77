"""
A Python API for operating a running robot_sm suite: the calls behind the CLI and the panel.

Every operator action is one method of :class:`SuiteClient` that returns a :class:`Result`
(``success``, ``message``, optional ``data``) the way the suite answered it, or raises
:class:`SuiteUnavailable` when the service or topic it needs does not answer within the timeout.
Each method documents the equivalent ``ros2 service call``.

    with SuiteClient(timeout=3.0) as suite:
        suite.add_waypoint(1.0, 2.0, yaw=0.5, routine='Wait')
        result = suite.start_waypoint_following(mode='roundtrip')
        print(result.success, result.message)
"""

from dataclasses import dataclass, field
import math
import threading
import time
from typing import Any, Dict, List, Optional, Tuple

from geometry_msgs.msg import Pose, PoseStamped
import rclpy
from rclpy.context import Context
from rclpy.duration import Duration
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from robot_sm import qos
from robot_sm.planar import quaternion_from_yaw, yaw_from_quaternion
from robot_sm_msgs.msg import OperationMode, Waypoint, WaypointArray
from robot_sm_msgs.srv import (
    AddWaypoint,
    GetRobotPose,
    GetWaypointRoutines,
    GetWaypoints,
    MoveWaypoint,
    RemoveWaypoint,
    SetOperationMode,
    SetWaypointFollowingMode,
    SetWaypointRoutine,
)
from std_msgs.msg import Bool, String
from std_srvs.srv import SetBool, Trigger

#: Operation mode names accepted by :meth:`SuiteClient.set_mode`.
MODES = {'stopped': OperationMode.STOPPED, 'autonomy': OperationMode.AUTONOMOUS,
         'teleop': OperationMode.TELEOPERATION}
MODE_NAMES = {value: name for name, value in MODES.items()}
#: Waypoint following mode names.
FOLLOWING_MODES = {'single': WaypointArray.SINGLE, 'roundtrip': WaypointArray.ROUNDTRIP,
                   'patrol': WaypointArray.PATROL}
FOLLOWING_MODE_NAMES = {value: name for name, value in FOLLOWING_MODES.items()}


class SuiteUnavailable(RuntimeError):
    """A service or topic of the suite did not answer in time; the message names it."""


@dataclass
class Result:
    """The suite's answer to one request."""

    success: bool
    message: str
    data: Any = None


@dataclass
class WaypointInfo:
    """One waypoint as an operator sees it."""

    index: int
    waypoint_id: int
    x: float
    y: float
    yaw: float
    routine: str
    visited: bool
    unreachable: bool

    @property
    def status(self) -> str:
        """Return pending, visited or unreachable."""
        return 'unreachable' if self.unreachable else 'visited' if self.visited else 'pending'


@dataclass
class Status:
    """What the suite is doing, from its latched topics and the robot pose service."""

    state: Optional[str] = None
    #: How the last activity ended ("E: Calculate Goal: exploration finished"), if known.
    outcome: Optional[str] = None
    mode: Optional[str] = None
    emergency_stop: Optional[bool] = None
    #: The mux's input that drives the base (``none`` when nothing does).
    selected_input: Optional[str] = None
    waypoints: List[WaypointInfo] = field(default_factory=list)
    following_mode: Optional[str] = None
    following_reverse: Optional[bool] = None
    driving_reverse: Optional[bool] = None
    pose: Optional[Tuple[float, float, float]] = None
    pose_error: Optional[str] = None


def _pose(x: float, y: float, yaw: float) -> Pose:
    for name, value in (('x', x), ('y', y), ('yaw', yaw)):
        if not math.isfinite(value):
            raise ValueError(f'{name} must be a finite number, got {value}')
    pose = Pose()
    pose.position.x, pose.position.y = float(x), float(y)
    qx, qy, qz, qw = quaternion_from_yaw(yaw)
    pose.orientation.x, pose.orientation.y = qx, qy
    pose.orientation.z, pose.orientation.w = qz, qw
    return pose


def waypoint_infos(array: WaypointArray) -> List[WaypointInfo]:
    """Return the waypoints of ``array`` as :class:`WaypointInfo` rows."""
    infos = []
    for index, waypoint in enumerate(array.waypoints):
        p, q = waypoint.pose.position, waypoint.pose.orientation
        infos.append(WaypointInfo(index, waypoint.id, p.x, p.y,
                                  yaw_from_quaternion(q.x, q.y, q.z, q.w), waypoint.routine,
                                  waypoint.visited, waypoint.unreachable))
    return infos


class SuiteClient:
    """A connection to a running suite in the namespace ``namespace``."""

    def __init__(self, namespace: str = '', timeout: float = 5.0,
                 context: Optional[Context] = None) -> None:
        self.timeout = timeout
        self._own_context = context is None
        self.context = Context() if context is None else context
        if self._own_context:
            rclpy.init(context=self.context)
        self.node = Node('robot_sm_client', namespace=namespace or '/', context=self.context,
                         start_parameter_services=False)
        self._executor = SingleThreadedExecutor(context=self.context)
        self._executor.add_node(self.node)
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()
        self._clients: Dict[str, Any] = {}
        self._latched: Dict[str, Any] = {}
        self._latched_lock = threading.Lock()
        self._closed = threading.Event()

    def _spin(self) -> None:
        try:
            self._executor.spin()
        except Exception:  # noqa: B902 - shutdown races end the spin
            pass

    def close(self) -> None:
        """Disconnect from the suite; calls still waiting raise SuiteUnavailable at once."""
        self._closed.set()
        self._executor.shutdown(timeout_sec=1.0)
        self._thread.join(timeout=2.0)
        self.node.destroy_node()
        if self._own_context:
            rclpy.try_shutdown(context=self.context)

    def __enter__(self) -> 'SuiteClient':
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
        future = client.call_async(request if request is not None else srv_type.Request())
        done = threading.Event()
        future.add_done_callback(lambda _: done.set())
        while not done.wait(0.02):
            self._check_open()
            if time.monotonic() >= deadline:
                client.remove_pending_request(future)
                raise SuiteUnavailable(f'service {self._full_name(name)} did not answer within '
                                       f'{self.timeout:g} s')
        return future.result()

    def _trigger(self, srv_type: Any, name: str, request: Any = None) -> Result:
        response = self.call(srv_type, name, request)
        return Result(bool(response.success), str(response.message))

    def _subscribe_latched(self, msg_type: Any, topic: str) -> None:
        if topic in self._latched:
            return
        with self._latched_lock:
            self._latched[topic] = None

        def store(msg: Any) -> None:
            with self._latched_lock:
                self._latched[topic] = msg

        self.node.create_subscription(msg_type, topic, store, qos.STATE)

    def latched(self, msg_type: Any, topic: str, wait: bool = True) -> Any:
        """
        Return the newest message on one of the suite's transient_local (latched) topics.

        :raises SuiteUnavailable: if ``wait`` and nothing arrives within the timeout.
        """
        self._check_open()
        self._subscribe_latched(msg_type, topic)
        deadline = time.monotonic() + (self.timeout if wait else 0.0)
        while True:
            with self._latched_lock:
                msg = self._latched[topic]
            if msg is not None or time.monotonic() >= deadline:
                break
            self._check_open()
            time.sleep(0.01)
        if msg is None and wait:
            raise SuiteUnavailable(f'nothing on {self.node.resolve_topic_name(topic)} within '
                                   f'{self.timeout:g} s: is the suite running?')
        return msg

    # ---- mux ----------------------------------------------------------------------------------

    def set_emergency_stop(self, engaged: bool) -> Result:
        """
        Engage (true) or release (false) the latched software e-stop.

        ``ros2 service call robot_sm/emergency_stop std_srvs/srv/SetBool "{data: true}"``
        """
        return self._trigger(SetBool, 'robot_sm/emergency_stop', SetBool.Request(data=engaged))

    def set_mode(self, mode: str) -> Result:
        """
        Select the operation mode: ``stopped``, ``autonomy`` or ``teleop``.

        While the e-stop is engaged the mux refuses (a mode request never releases it: use
        :meth:`set_emergency_stop` with false first). ``ros2 service call
        robot_sm/set_operation_mode robot_sm_msgs/srv/SetOperationMode
        "{operation_mode: {mode: 1, emergency_stop: false}}"``
        """
        if mode not in MODES:
            return Result(False, f"unknown mode '{mode}': use one of {', '.join(MODES)}")
        request = SetOperationMode.Request()
        request.operation_mode = OperationMode(mode=MODES[mode], emergency_stop=False)
        return self._trigger(SetOperationMode, 'robot_sm/set_operation_mode', request)

    # ---- waypoints ----------------------------------------------------------------------------

    def waypoints(self) -> Result:
        """
        Return the waypoint list (``data``: list of :class:`WaypointInfo`) and its mode.

        ``ros2 service call robot_sm/get_waypoints robot_sm_msgs/srv/GetWaypoints``
        """
        array = self.call(GetWaypoints, 'robot_sm/get_waypoints').waypoint_array
        mode = FOLLOWING_MODE_NAMES.get(array.mode, str(array.mode))
        direction = 'reverse' if array.reverse else 'forward'
        return Result(True, f'{len(array.waypoints)} waypoints, {mode}, {direction}',
                      {'waypoints': waypoint_infos(array), 'mode': mode,
                       'reverse': bool(array.reverse)})

    def add_waypoint(self, x: float, y: float, yaw: float = 0.0, routine: str = '',
                     position: int = -1) -> Result:
        """
        Add a waypoint (before ``position``; -1 appends). ``data`` is the new waypoint's id.

        ``ros2 service call robot_sm/add_waypoint robot_sm_msgs/srv/AddWaypoint
        "{waypoint: {pose: {position: {x: 1.0, y: 2.0}}, routine: ''}, position: -1}"``
        """
        try:
            pose = _pose(x, y, yaw)
        except ValueError as error:
            return Result(False, str(error))
        request = AddWaypoint.Request(position=position)
        request.waypoint = Waypoint(pose=pose, routine=routine)
        response = self.call(AddWaypoint, 'robot_sm/add_waypoint', request)
        return Result(bool(response.success), str(response.message), int(response.id))

    def robot_pose(self) -> Result:
        """
        Return the robot's pose in the map frame (``data``: (x, y, yaw)).

        ``ros2 service call robot_sm/get_robot_pose robot_sm_msgs/srv/GetRobotPose``
        """
        response = self.call(GetRobotPose, 'robot_sm/get_robot_pose')
        if not response.success:
            return Result(False, str(response.message))
        p, q = response.pose.position, response.pose.orientation
        return Result(True, str(response.message),
                      (p.x, p.y, yaw_from_quaternion(q.x, q.y, q.z, q.w)))

    def add_waypoint_here(self, routine: str = '', position: int = -1) -> Result:
        """Add a waypoint at the robot's current pose."""
        pose = self.robot_pose()
        if not pose.success:
            return pose
        x, y, yaw = pose.data
        return self.add_waypoint(x, y, yaw, routine, position)

    def move_waypoint(self, position: int, x: float, y: float, yaw: float = 0.0) -> Result:
        """
        Move waypoint ``position`` to a new pose.

        ``ros2 service call robot_sm/move_waypoint robot_sm_msgs/srv/MoveWaypoint
        "{position: 0, pose: {position: {x: 1.0, y: 2.0}}}"``
        """
        try:
            pose = _pose(x, y, yaw)
        except ValueError as error:
            return Result(False, str(error))
        return self._trigger(MoveWaypoint, 'robot_sm/move_waypoint',
                             MoveWaypoint.Request(position=position, pose=pose))

    def remove_waypoint(self, position: int) -> Result:
        """
        Remove waypoint ``position``.

        ``ros2 service call robot_sm/remove_waypoint robot_sm_msgs/srv/RemoveWaypoint
        "{position: 0}"``
        """
        return self._trigger(RemoveWaypoint, 'robot_sm/remove_waypoint',
                             RemoveWaypoint.Request(position=position))

    def set_routine(self, position: int, routine: str) -> Result:
        """
        Set the routine of waypoint ``position`` ('' for none).

        ``ros2 service call robot_sm/set_waypoint_routine robot_sm_msgs/srv/SetWaypointRoutine
        "{position: 0, routine: Wait}"``
        """
        return self._trigger(SetWaypointRoutine, 'robot_sm/set_waypoint_routine',
                             SetWaypointRoutine.Request(position=position, routine=routine))

    def routines(self) -> Result:
        """
        List the routines waypoints can name (``data``: list of names).

        ``ros2 service call robot_sm/get_waypoint_routines robot_sm_msgs/srv/GetWaypointRoutines``
        """
        names = list(self.call(GetWaypointRoutines,
                               'robot_sm/get_waypoint_routines').waypoint_routines)
        return Result(True, ', '.join(names) if names else 'no routines', names)

    def reset_waypoints(self) -> Result:
        """
        Mark every waypoint pending again.

        ``ros2 service call robot_sm/reset_waypoints std_srvs/srv/Trigger``
        """
        return self._trigger(Trigger, 'robot_sm/reset_waypoints')

    def set_following_mode(self, mode: str, reverse: bool = False) -> Result:
        """
        Set the waypoint following mode (``single``, ``roundtrip``, ``patrol``) and direction.

        ``ros2 service call robot_sm/set_waypoint_following_mode
        robot_sm_msgs/srv/SetWaypointFollowingMode "{mode: 1, reverse: false}"``
        """
        if mode not in FOLLOWING_MODES:
            return Result(False, f"unknown following mode '{mode}': use one of "
                                 f"{', '.join(FOLLOWING_MODES)}")
        return self._trigger(
            SetWaypointFollowingMode, 'robot_sm/set_waypoint_following_mode',
            SetWaypointFollowingMode.Request(mode=FOLLOWING_MODES[mode], reverse=reverse))

    # ---- state interface ----------------------------------------------------------------------

    def start_waypoint_following(self, mode: Optional[str] = None,
                                 reverse: bool = False) -> Result:
        """
        Start waypoint following, in ``mode`` if given (set before the start, undone on refusal).

        ``ros2 service call robot_sm/start_stop_waypoint_following std_srvs/srv/SetBool
        "{data: true}"``
        """
        previous = None
        if mode is not None:
            previous = self.waypoints().data
            result = self.set_following_mode(mode, reverse)
            if not result.success:
                return result
        result = self._trigger(SetBool, 'robot_sm/start_stop_waypoint_following',
                               SetBool.Request(data=True))
        if not result.success and previous is not None:
            self.set_following_mode(previous['mode'], previous['reverse'])
        return result

    def stop_waypoint_following(self) -> Result:
        """
        Stop waypoint following.

        ``ros2 service call robot_sm/start_stop_waypoint_following std_srvs/srv/SetBool
        "{data: false}"``
        """
        return self._trigger(SetBool, 'robot_sm/start_stop_waypoint_following',
                             SetBool.Request(data=False))

    def start_exploration(self, interrupt: Optional[bool] = None) -> Result:
        """
        Start exploring; ``interrupt`` selects the goal-obsolete behaviour (set before the start).

        ``ros2 service call robot_sm/start_stop_exploration std_srvs/srv/SetBool "{data: true}"``
        """
        previous = None
        if interrupt is not None:
            previous = self.call(Trigger, 'robot_sm/get_exploration_mode').success
            result = self._trigger(SetBool, 'robot_sm/set_exploration_mode',
                                   SetBool.Request(data=interrupt))
            if not result.success:
                return result
        result = self._trigger(SetBool, 'robot_sm/start_stop_exploration',
                               SetBool.Request(data=True))
        if not result.success and previous is not None and previous != interrupt:
            self._trigger(SetBool, 'robot_sm/set_exploration_mode',
                          SetBool.Request(data=previous))
        return result

    def stop_exploration(self) -> Result:
        """
        Stop exploring.

        ``ros2 service call robot_sm/start_stop_exploration std_srvs/srv/SetBool "{data: false}"``
        """
        return self._trigger(SetBool, 'robot_sm/start_stop_exploration',
                             SetBool.Request(data=False))

    def send_goal(self, x: float, y: float, yaw: float = 0.0, frame_id: str = 'map') -> Result:
        """
        Send a simple navigation goal (as RViz's "2D Goal Pose" does).

        ``ros2 topic pub --once robot_sm/simple_goal geometry_msgs/msg/PoseStamped
        "{header: {frame_id: map}, pose: {position: {x: 1.0, y: 2.0}}}"``
        """
        try:
            pose = _pose(x, y, yaw)
        except ValueError as error:
            return Result(False, str(error))
        publisher = self.node.create_publisher(PoseStamped, 'robot_sm/simple_goal', qos.EVENTS)
        try:
            deadline = time.monotonic() + self.timeout
            while publisher.get_subscription_count() == 0:
                self._check_open()
                if time.monotonic() >= deadline:
                    raise SuiteUnavailable(
                        f'nobody subscribes to {publisher.topic_name} (waited '
                        f'{self.timeout:g} s): is the state interface running?')
                time.sleep(0.01)
            goal = PoseStamped(pose=pose)
            goal.header.frame_id = frame_id
            goal.header.stamp = self.node.get_clock().now().to_msg()
            publisher.publish(goal)
            publisher.wait_for_all_acked(Duration(seconds=self.timeout))
        finally:
            self.node.destroy_publisher(publisher)
        return Result(True, f'goal ({x:g}, {y:g}, yaw {yaw:g}) sent')

    def cancel_goal(self) -> Result:
        """
        Stop driving to a simple goal.

        ``ros2 service call robot_sm/stop_2d_nav_goal std_srvs/srv/Trigger``
        """
        return self._trigger(Trigger, 'robot_sm/stop_2d_nav_goal')

    def set_reverse(self, reverse: bool) -> Result:
        """
        Drive backwards (true) or forwards (false).

        ``ros2 service call robot_sm/set_reverse_mode std_srvs/srv/SetBool "{data: true}"``
        """
        return self._trigger(SetBool, 'robot_sm/set_reverse_mode', SetBool.Request(data=reverse))

    def state(self) -> Result:
        """
        Return the current state's name.

        ``ros2 service call robot_sm/state_info std_srvs/srv/Trigger``
        """
        return self._trigger(Trigger, 'robot_sm/state_info')

    def status(self) -> Status:
        """Collect state, mode, e-stop, the input that drives, waypoints and pose at once."""
        status = Status()
        topics = ((String, 'robot_sm/state_info'), (OperationMode, 'robot_sm/operation_mode'),
                  (String, 'robot_sm/selected_input'), (WaypointArray, 'robot_sm/waypoints'),
                  (Bool, 'robot_sm/reverse_mode'), (String, 'robot_sm/state_outcome'))
        # Subscribe to everything first, so that it is all discovered at the same time.
        for msg_type, topic in topics:
            self._subscribe_latched(msg_type, topic)
        self._client(GetRobotPose, 'robot_sm/get_robot_pose')
        state = self.latched(String, 'robot_sm/state_info')
        status.state = state.data
        mode = self.latched(OperationMode, 'robot_sm/operation_mode')
        status.mode = MODE_NAMES.get(mode.mode, str(mode.mode))
        status.emergency_stop = bool(mode.emergency_stop)
        status.selected_input = self.latched(String, 'robot_sm/selected_input').data
        array = self.latched(WaypointArray, 'robot_sm/waypoints')
        status.waypoints = waypoint_infos(array)
        status.following_mode = FOLLOWING_MODE_NAMES.get(array.mode, str(array.mode))
        status.following_reverse = bool(array.reverse)
        status.driving_reverse = bool(self.latched(Bool, 'robot_sm/reverse_mode').data)
        # Published once per ended activity (Boot's end included): a short wait, no error.
        deadline = time.monotonic() + 0.3
        outcome = self.latched(String, 'robot_sm/state_outcome', wait=False)
        while outcome is None and time.monotonic() < deadline:
            time.sleep(0.01)
            outcome = self.latched(String, 'robot_sm/state_outcome', wait=False)
        status.outcome = outcome.data if outcome is not None else None
        try:
            pose = self.robot_pose()
        except SuiteUnavailable as error:
            status.pose_error = str(error)
        else:
            if pose.success:
                status.pose = pose.data
            else:
                status.pose_error = pose.message
        return status
