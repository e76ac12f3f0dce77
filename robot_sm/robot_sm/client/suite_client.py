"""
A Python API for operating a running robot_sm suite: the calls behind the CLI and the panel.

Every operator action is one method of :class:`SuiteClient` that returns a :class:`Result`
(``success``, ``message``, optional ``data``, and the gateway's ``code``) the way the suite
answered it, or raises :class:`SuiteUnavailable` when the service or topic it needs does not
answer within the timeout. Commands go to the suite's command gateway (``robot_sm/command``) as
one operator (``by``: ``ROBOT_SM_OPERATOR`` or ``user@host``), which checks and carries each out
in one call; a STOP goes straight to the mux. Each method names the RSM-compatible service that
does the same for raw ROS callers.

    with SuiteClient(timeout=3.0) as suite:
        suite.add_waypoint(1.0, 2.0, yaw=0.5, routine='Wait')
        result = suite.start_waypoint_following(mode='roundtrip')
        print(result.success, result.message)

A long activity can also be started as a :class:`~robot_sm.client.tasks.Task` to follow, wait for
and cancel: a goal of the suite's action, as nav2_simple_commander's BasicNavigator does for
Nav2's (:meth:`SuiteClient.follow_waypoints`, :meth:`SuiteClient.explore`,
:meth:`SuiteClient.go_to`), and the client waits for a state or a mode
(:meth:`SuiteClient.wait_for_state`, :meth:`SuiteClient.wait_for_mode`):

    with SuiteClient() as suite:
        task = suite.follow_waypoints('single')
        result = task.wait(timeout=300.0)
        print(result.status, result.outcome, task.feedback().visited)
"""

import json
from typing import Any, Dict, Optional

from geometry_msgs.msg import PoseStamped
from rclpy.action import ActionClient
from robot_sm.client.connection import MODE_NAMES, Result, SuiteUnavailable
from robot_sm.client.control_calls import ControlCalls
from robot_sm.client.interface import LATCHED_TOPICS, SERVICES, STATUS_TOPICS
from robot_sm.client.status import (
    FOLLOWING_MODE_NAMES,
    held_because,
    ModeState,
    Status,
    waypoint_infos,
)
from robot_sm.client.tasks import Task, WaitTimeout
from robot_sm.client.waypoint_calls import planar_pose, WaypointCalls
from robot_sm.contract import (
    Command as Kind,
    CYCLE,
    EXPLORE_ACTION,
    FOLLOW_WAYPOINTS_ACTION,
    FOLLOWING_MODES,
    GO_TO_ACTION,
    GoalObsolete,
    KEEP,
    MODES,
    MUX_COMMAND,
    OPERATION_MODE,
    Outcome,
    REVERSE_MODE,
    SELECTED_INPUT,
    STATE,
    STATE_INFO,
    WAYPOINTS,
)
from robot_sm_msgs.action import Explore, FollowWaypoints, GoTo
from robot_sm_msgs.msg import OperationMode, StateInfo, WaypointArray
from robot_sm_msgs.srv import GetRobotPose
from std_msgs.msg import Bool, String
from std_srvs.srv import Trigger

#: The activities' actions: (action type, name relative to the namespace).
ACTIONS = {'waypoint following': (FollowWaypoints, FOLLOW_WAYPOINTS_ACTION),
           'exploration': (Explore, EXPLORE_ACTION), 'simple goal': (GoTo, GO_TO_ACTION)}


class SuiteClient(WaypointCalls, ControlCalls):
    """A connection to a running suite in the namespace ``namespace``: the operator's calls."""

    def prepare(self) -> None:
        """Subscribe to every topic and make every service and action client at once."""
        for msg_type, topic in LATCHED_TOPICS:
            self._subscribe_latched(msg_type, topic)
        for srv_type, name in SERVICES:
            self._client(srv_type, name)
        for name in ACTIONS:
            self._action_client(name)

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

    # -- activities as tasks (the suite's actions) ------------------------------------------

    def follow_waypoints(self, mode: Optional[str] = None, reverse: bool = False) -> Task:
        """
        Start waypoint following (in ``mode`` and direction, if given); return its task.

        A goal of ``robot_sm/follow_waypoints``; a refused start gives a task that has ended,
        REJECTED, with the suite's answer.
        """
        if mode is not None and mode not in FOLLOWING_MODES:
            raise ValueError(f"unknown following mode '{mode}': use one of "
                             f"{', '.join(FOLLOWING_MODES)}")
        goal = FollowWaypoints.Goal(by=self.by, reverse=reverse, following_mode=(
            KEEP if mode is None else int(FOLLOWING_MODES[mode])))
        return self._send('waypoint following', goal)

    def explore(self, interrupt: Optional[bool] = None) -> Task:
        """Start exploring (``robot_sm/explore``); ``interrupt``: see :meth:`start_exploration`."""
        return self._send('exploration', Explore.Goal(by=self.by, goal_obsolete=_obsolete(
            interrupt)))

    def go_to(self, x: float, y: float, yaw: float = 0.0, frame_id: str = 'map') -> Task:
        """
        Drive to a pose (``robot_sm/go_to``); return its task.

        REJECTED at once when the pose is not one (the suite's refusals come the same way).
        """
        pose, problem = planar_pose(x, y, yaw)
        goal = GoTo.Goal(by=self.by)
        if pose is None:
            task = Task('simple goal', lambda: Result(False, 'the goal was never sent'))
            task.on_result(int(Outcome.REFUSED), problem)
            return task
        goal.pose.pose, goal.pose.header.frame_id = pose, frame_id
        return self._send('simple goal', goal)

    def _action_client(self, activity: str) -> Any:
        with self._changed:
            client = self._actions.get(activity)
            if client is None:
                action, name = ACTIONS[activity]
                client = self._actions[activity] = ActionClient(self.node, action, name)
        return client

    def _send(self, activity: str, goal: Any) -> Task:
        """Send ``goal`` to the activity's action; return the task that follows it."""
        self._check_open()
        client = self._action_client(activity)
        self._await(lambda: client.server_is_ready() or None, self.timeout)
        if not client.server_is_ready():
            raise SuiteUnavailable(f'action {self.node.resolve_topic_name(ACTIONS[activity][1])} '
                                   f'is not available (waited {self.timeout:g} s): is the '
                                   'suite running?')
        handles: Dict[str, Any] = {}

        def cancel() -> Result:
            handle = handles.get('goal')
            if handle is None:
                return Result(False, 'the goal was not accepted')
            self._spinning.run(handle.cancel_goal_async)
            return Result(True, f'{activity}: cancel requested')

        task = Task(activity, cancel)

        def accepted(future: Any) -> None:
            handle = future.result()
            if handle is None or not handle.accepted:
                task.on_result(int(Outcome.REFUSED), 'the action server rejected the goal')
                return
            handles['goal'] = handle
            handle.get_result_async().add_done_callback(
                lambda done: task.on_result(int(done.result().result.outcome),
                                            str(done.result().result.message),
                                            done.result().result))

        # Sent from the spinning thread, as rclpy's ActionClient drops an answer that comes
        # before it kept the request (see run_on_executor); the answer's callbacks run there too.
        self._spinning.run(lambda: client.send_goal_async(
            goal, feedback_callback=lambda m: task.on_feedback(m.feedback)).add_done_callback(
                accepted))
        return task

    # -- commands -----------------------------------------------------------------------------

    def set_emergency_stop(self, engaged: bool) -> Result:
        """
        Engage (true) or release (false) the latched software e-stop.

        A STOP goes straight to the mux (``robot_sm/_mux/command``, naming the operator), so
        that it works whatever else of the suite answers; a release is a command of the
        gateway. ``ros2 service call robot_sm/emergency_stop std_srvs/srv/SetBool
        "{data: true}"``
        """
        if engaged:
            return self.command(Kind.ENGAGE_EMERGENCY_STOP, service=MUX_COMMAND)
        return self.command(Kind.RELEASE_EMERGENCY_STOP)

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
        return self.command(Kind.SELECT_MODE, mode=int(MODES[mode]))

    def start_waypoint_following(self, mode: Optional[str] = None,
                                 reverse: bool = False) -> Result:
        """
        Start waypoint following, in ``mode`` and direction if given, in one command.

        ``ros2 service call robot_sm/start_stop_waypoint_following std_srvs/srv/SetBool
        "{data: true}"`` (without a mode)
        """
        if mode is not None and mode not in FOLLOWING_MODES:
            return Result(False, f"unknown following mode '{mode}': use one of "
                                 f"{', '.join(FOLLOWING_MODES)}")
        return self.command(Kind.START_WAYPOINT_FOLLOWING, reverse=reverse, following_mode=(
            KEEP if mode is None else int(FOLLOWING_MODES[mode])))

    def stop_waypoint_following(self) -> Result:
        """
        Stop waypoint following.

        ``ros2 service call robot_sm/start_stop_waypoint_following std_srvs/srv/SetBool
        "{data: false}"``
        """
        return self.command(Kind.STOP_WAYPOINT_FOLLOWING)

    def start_exploration(self, interrupt: Optional[bool] = None) -> Result:
        """
        Start exploring; ``interrupt`` selects the goal-obsolete behaviour in the same command.

        ``ros2 service call robot_sm/start_stop_exploration std_srvs/srv/SetBool "{data: true}"``
        """
        return self.command(Kind.START_EXPLORATION, goal_obsolete=_obsolete(interrupt))

    def stop_exploration(self) -> Result:
        """
        Stop exploring.

        ``ros2 service call robot_sm/start_stop_exploration std_srvs/srv/SetBool "{data: false}"``
        """
        return self.command(Kind.STOP_EXPLORATION)

    def send_goal(self, x: float, y: float, yaw: float = 0.0, frame_id: str = 'map') -> Result:
        """
        Drive to a simple goal (as RViz's "2D Goal Pose" does); answer once it was taken or not.

        ``ros2 topic pub --once robot_sm/simple_goal geometry_msgs/msg/PoseStamped
        "{header: {frame_id: map}, pose: {position: {x: 1.0, y: 2.0}}}"``
        """
        pose, problem = planar_pose(x, y, yaw)
        if pose is None:
            return Result(False, problem)
        goal = PoseStamped(pose=pose)
        goal.header.frame_id = frame_id
        return self.command(Kind.GO_TO, pose=goal)

    def cancel_goal(self) -> Result:
        """
        Stop driving to a simple goal.

        ``ros2 service call robot_sm/stop_2d_nav_goal std_srvs/srv/Trigger``
        """
        return self.command(Kind.CANCEL_GOAL)

    def pause(self) -> Result:
        """
        Pause the running activity: the robot holds still, the activity keeps its place.

        ``ros2 service call robot_sm/pause std_srvs/srv/Trigger``
        """
        return self.command(Kind.PAUSE)

    def resume(self) -> Result:
        """
        Continue the paused activity where it was (AUTONOMOUS is selected for it).

        ``ros2 service call robot_sm/continue std_srvs/srv/Trigger``
        """
        return self.command(Kind.CONTINUE)

    def set_reverse(self, reverse: bool) -> Result:
        """
        Drive backwards (true) or forwards (false).

        ``ros2 service call robot_sm/set_reverse_mode std_srvs/srv/SetBool "{data: true}"``
        """
        return self.command(Kind.SET_REVERSE, reverse=reverse)

    def state(self) -> Result:
        """
        Return the current state's name.

        ``ros2 service call robot_sm/state_info std_srvs/srv/Trigger``
        """
        return self._trigger(Trigger, 'robot_sm/state_info')

    def cycle(self) -> Dict[str, Any]:
        """
        Return the operating cycle the state interface runs: roles, outcomes, interrupts.

        ``ros2 topic echo --once robot_sm/cycle`` (JSON, transient local);
        :func:`robot_sm.statemachine.cycle.table` prints it.
        """
        return json.loads(self.latched(String, CYCLE).data)

    def status(self) -> Status:
        """Collect state, mode, e-stop, the input that drives, waypoints and pose at once."""
        status = Status()
        # Subscribe to everything first, so that it is all discovered at the same time.
        for msg_type, topic in STATUS_TOPICS:
            self._subscribe_latched(msg_type, topic)
        self._client(GetRobotPose, 'robot_sm/get_robot_pose')
        status.state = self.latched(String, STATE_INFO).data
        mode = self.latched(OperationMode, OPERATION_MODE)
        status.mode = MODE_NAMES.get(mode.mode, str(mode.mode))
        status.emergency_stop = bool(mode.emergency_stop)
        status.held = held_because(status.mode, status.emergency_stop)
        status.selected_input = self.latched(String, SELECTED_INPUT).data
        array = self.latched(WaypointArray, WAYPOINTS)
        status.waypoints = waypoint_infos(array)
        status.following_mode = FOLLOWING_MODE_NAMES.get(array.mode, str(array.mode))
        status.following_reverse = bool(array.reverse)
        status.driving_reverse = bool(self.latched(Bool, REVERSE_MODE).data)
        status.read_state(self.latched(StateInfo, STATE))
        status.control = self.control()
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


def _obsolete(interrupt: Optional[bool]) -> int:
    """Return the goal-obsolete behaviour of an exploration start (None: keep the setting)."""
    if interrupt is None:
        return KEEP
    return int(GoalObsolete.INTERRUPT if interrupt else GoalObsolete.FINISH)
