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

A long activity can also be started as a :class:`~robot_sm.tasks.Task` to follow, wait for and
cancel, as nav2_simple_commander's BasicNavigator does for Nav2's actions
(:meth:`SuiteClient.follow_waypoints`, :meth:`SuiteClient.explore`, :meth:`SuiteClient.go_to`),
and the client waits for a state or a mode (:meth:`SuiteClient.wait_for_state`,
:meth:`SuiteClient.wait_for_mode`). All of it comes from the suite's latched topics, so it works
from a short-lived process as from a long one:

    with SuiteClient() as suite:
        task = suite.follow_waypoints('single')
        result = task.wait(timeout=300.0)
        print(result.status, result.outcome, task.feedback().visited)
"""

from dataclasses import dataclass, field
import math
import time
from typing import List, NamedTuple, Optional, Tuple

from geometry_msgs.msg import Pose, PoseStamped
from rclpy.duration import Duration
from robot_sm import qos
from robot_sm.fleet import Acknowledgement, FleetClient, RobotStatus
from robot_sm.planar import quaternion_from_yaw, yaw_from_quaternion
from robot_sm.suite_connection import (
    MODE_NAMES,
    MODES,
    OPERATION_MODE,
    Result,
    STATE_INFO,
    STATE_OUTCOME,
    SuiteConnection,
    SuiteUnavailable,
    WAYPOINTS,
)
from robot_sm.tasks import Activity, Task, WaitTimeout
from robot_sm.waypoint_messages import pose_message
from robot_sm.waypoints.errors import RequestError
from robot_sm.waypoints.pose import checked_pose
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

#: Waypoint following mode names.
FOLLOWING_MODES = {'single': WaypointArray.SINGLE, 'roundtrip': WaypointArray.ROUNDTRIP,
                   'patrol': WaypointArray.PATROL}
FOLLOWING_MODE_NAMES = {value: name for name, value in FOLLOWING_MODES.items()}
#: States that do not take a simple goal (the state machine ignores it there).
SIMPLE_GOAL_IGNORED_IN = ('Boot', 'Emergency Stop', 'Teleoperation')
__all__ = ['Acknowledgement', 'FleetClient', 'FOLLOWING_MODES', 'MODES', 'ModeState', 'Result',
           'RobotStatus', 'Status', 'SuiteClient', 'SuiteUnavailable', 'WaypointInfo',
           'waypoint_infos']


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
    waypoints: List[WaypointInfo] = field(default_factory=list)
    following_mode: Optional[str] = None
    following_reverse: Optional[bool] = None
    driving_reverse: Optional[bool] = None
    pose: Optional[Tuple[float, float, float]] = None
    pose_error: Optional[str] = None


class ModeState(NamedTuple):
    """The mux's operation mode as :meth:`SuiteClient.wait_for_mode` found it."""

    mode: str
    emergency_stop: bool


def _planar_pose(x: float, y: float, yaw: float) -> Tuple[Optional[Pose], str]:
    """Return the pose at ``(x, y)`` facing ``yaw`` in the map, or None and why not."""
    if not math.isfinite(yaw):
        return None, f'yaw: must be finite (got {yaw!r})'
    try:
        checked = checked_pose('pose', x, y, 0.0, *quaternion_from_yaw(yaw))
    except RequestError as error:
        return None, str(error)
    return pose_message(checked), ''


def waypoint_infos(array: WaypointArray) -> List[WaypointInfo]:
    """Return the waypoints of ``array`` as :class:`WaypointInfo` rows."""
    infos = []
    for index, waypoint in enumerate(array.waypoints):
        p, q = waypoint.pose.position, waypoint.pose.orientation
        infos.append(WaypointInfo(index, waypoint.id, p.x, p.y,
                                  yaw_from_quaternion(q.x, q.y, q.z, q.w), waypoint.routine,
                                  waypoint.visited, waypoint.unreachable))
    return infos


class SuiteClient(SuiteConnection):
    """A connection to a running suite in the namespace ``namespace``: the operator's calls."""

    # ---- waiting --------------------------------------------------------------------------

    def wait_for_mode(self, mode: Optional[str] = None, emergency_stop: Optional[bool] = None,
                      timeout: Optional[float] = None) -> ModeState:
        """
        Wait until the mux is in ``mode`` and its e-stop as given (None: either); return both.

        :raises ValueError: if ``mode`` is not one of :data:`MODES`.
        :raises WaitTimeout: if the mux is not so within ``timeout`` (default: the client's).
        :raises SuiteUnavailable: if the mux publishes no mode at all.
        """
        if mode is not None and mode not in MODES:
            raise ValueError(f"unknown mode '{mode}': use one of {', '.join(MODES)}")

        def current() -> ModeState:
            msg = self._latched[OPERATION_MODE]
            return ModeState(MODE_NAMES.get(msg.mode, str(msg.mode)), bool(msg.emergency_stop))

        def matching() -> Optional[ModeState]:
            found = current()
            return found if (mode in (None, found.mode) and emergency_stop in (
                None, found.emergency_stop)) else None

        self.latched(OperationMode, OPERATION_MODE)
        limit = self.timeout if timeout is None else timeout
        found = self._await(matching, limit)
        if found is None:
            now = current()
            raise WaitTimeout(f'the mode is {now.mode} (e-stop '
                              f"{'engaged' if now.emergency_stop else 'released'}) after "
                              f'{limit:g} s')
        return found

    # ---- tasks ----------------------------------------------------------------------------

    def follow_waypoints(self, mode: Optional[str] = None, reverse: bool = False) -> Task[Result]:
        """
        Start waypoint following as :meth:`start_waypoint_following` does; return its task.

        A refused start gives a task that has ended, REJECTED, with the suite's answer.
        """
        return self._start_task(Activity.WAYPOINT_FOLLOWING,
                                lambda: self.start_waypoint_following(mode, reverse),
                                self.stop_waypoint_following)

    def explore(self, interrupt: Optional[bool] = None) -> Task[Result]:
        """Start exploring as :meth:`start_exploration` does; return its task."""
        return self._start_task(Activity.EXPLORATION, lambda: self.start_exploration(interrupt),
                                self.stop_exploration)

    def go_to(self, x: float, y: float, yaw: float = 0.0, frame_id: str = 'map') -> Task[Result]:
        """
        Send a simple goal as :meth:`send_goal` does; return its task.

        The goal is REJECTED if it is not a pose, if the state interface ignores it (its outcome
        says why), or in a state that takes no simple goal (:data:`SIMPLE_GOAL_IGNORED_IN`).
        """
        def start() -> Result:
            state = self._latched[STATE_INFO].data
            if state in SIMPLE_GOAL_IGNORED_IN:
                return Result(False, f'{state}: a simple goal is not taken in this state')
            return self.send_goal(x, y, yaw, frame_id)

        return self._start_task(Activity.SIMPLE_GOAL, start, self.cancel_goal)

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
        pose, problem = _planar_pose(x, y, yaw)
        if pose is None:
            return Result(False, problem)
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
        pose, problem = _planar_pose(x, y, yaw)
        if pose is None:
            return Result(False, problem)
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
        pose, problem = _planar_pose(x, y, yaw)
        if pose is None:
            return Result(False, problem)
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
        """Collect the state, mode, e-stop, waypoints and pose in one snapshot."""
        status = Status()
        topics = ((String, STATE_INFO), (OperationMode, OPERATION_MODE),
                  (WaypointArray, WAYPOINTS), (Bool, 'robot_sm/reverse_mode'),
                  (String, STATE_OUTCOME))
        # Subscribe to everything first, so that it is all discovered at the same time.
        for msg_type, topic in topics:
            self._subscribe_latched(msg_type, topic)
        self._client(GetRobotPose, 'robot_sm/get_robot_pose')
        status.state = self.latched(String, STATE_INFO).data
        mode = self.latched(OperationMode, OPERATION_MODE)
        status.mode = MODE_NAMES.get(mode.mode, str(mode.mode))
        status.emergency_stop = bool(mode.emergency_stop)
        array = self.latched(WaypointArray, WAYPOINTS)
        status.waypoints = waypoint_infos(array)
        status.following_mode = FOLLOWING_MODE_NAMES.get(array.mode, str(array.mode))
        status.following_reverse = bool(array.reverse)
        status.driving_reverse = bool(self.latched(Bool, 'robot_sm/reverse_mode').data)
        status.outcome = self._last_outcome()
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
