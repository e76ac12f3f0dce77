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

A long activity can also be started as a :class:`~robot_sm.client.tasks.Task` to follow, wait for
and cancel, as nav2_simple_commander's BasicNavigator does for Nav2's actions
(:meth:`SuiteClient.follow_waypoints`, :meth:`SuiteClient.explore`, :meth:`SuiteClient.go_to`), and
the client waits for a state or a mode (:meth:`SuiteClient.wait_for_state`,
:meth:`SuiteClient.wait_for_mode`). All of it comes from the suite's latched topics, so it works
from a short-lived process as from a long one:

    with SuiteClient() as suite:
        task = suite.follow_waypoints('single')
        result = task.wait(timeout=300.0)
        print(result.status, result.outcome, task.feedback().visited)
"""

import json
import time
from typing import Any, Dict, Optional

from geometry_msgs.msg import PoseStamped
from rclpy.duration import Duration
from robot_sm import qos
from robot_sm.client.connection import (
    MODE_NAMES,
    MODES,
    OPERATION_MODE,
    Result,
    STATE_INFO,
    SuiteUnavailable,
    WAYPOINTS,
)
from robot_sm.client.interface import LATCHED_TOPICS, SERVICES, SIMPLE_GOAL, STATUS_TOPICS
from robot_sm.client.status import (
    FOLLOWING_MODE_NAMES,
    held_because,
    ModeState,
    Status,
    waypoint_infos,
)
from robot_sm.client.tasks import Activity, Task, TaskEnded, WaitTimeout
from robot_sm.client.waypoint_calls import planar_pose, WaypointCalls
from robot_sm_msgs.msg import OperationMode, WaypointArray
from robot_sm_msgs.srv import GetRobotPose, SetOperationMode
from std_msgs.msg import Bool, String
from std_srvs.srv import SetBool, Trigger

#: States that do not take a simple goal (the state machine ignores it there).
SIMPLE_GOAL_IGNORED_IN = ('Boot', 'Emergency Stop', 'Teleoperation')


class SuiteClient(WaypointCalls):
    """A connection to a running suite in the namespace ``namespace``: the operator's calls."""

    def prepare(self) -> None:
        """Subscribe to every topic and make every service client the calls use, at once."""
        for msg_type, topic in LATCHED_TOPICS:
            self._subscribe_latched(msg_type, topic)
        for srv_type, name in SERVICES:
            self._client(srv_type, name)
        self._publisher(*SIMPLE_GOAL, qos.EVENTS)

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
        Send a simple goal as :meth:`send_goal` does (without its wait); return its task.

        The goal is REJECTED if it is not a pose, if the state interface ignores it (its outcome
        says why), or in a state that takes no simple goal (:data:`SIMPLE_GOAL_IGNORED_IN`).
        """
        def start() -> Result:
            state = self._latched[STATE_INFO].data
            if state in SIMPLE_GOAL_IGNORED_IN:
                return Result(False, f'{state}: a simple goal is not taken in this state')
            # The task follows the suite's answer: no wait for acknowledgements.
            return self._publish_goal(x, y, yaw, frame_id)

        return self._start_task(Activity.SIMPLE_GOAL, start, self.cancel_goal)

    def take_goal(self, x: float, y: float, yaw: float = 0.0, frame_id: str = 'map') -> Result:
        """
        Send a simple goal as :meth:`go_to` does; return once the state interface took it or not.

        Success once a state of the simple goal has run (``goal (X, Y, yaw YAW) sent``), failure
        with the reason when the goal was not taken (the state interface's outcome, or the state
        that takes no simple goal).

        :raises SuiteUnavailable: if neither is seen within the timeout.
        """
        self._goal_publisher()  # first, so that a missing state interface is named by it
        task = self.go_to(x, y, yaw, frame_id)
        try:
            task.wait_for_feedback(lambda feedback: feedback.goals > 0, self.timeout)
        except TaskEnded as ended:
            if ended.result.feedback.goals == 0:
                return Result(False, ended.result.message)
        except WaitTimeout:
            raise SuiteUnavailable(
                f'the state interface did not take the goal within {self.timeout:g} s (its '
                f'state stayed {task.feedback().state}): is it running?') from None
        return Result(True, f'goal ({x:g}, {y:g}, yaw {yaw:g}) sent')

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
        result = self._publish_goal(x, y, yaw, frame_id)
        if not result.success:
            return result
        # A process that ends at once would take an unacknowledged goal along. Polled: rclpy's
        # wait_for_all_acked holds the GIL while it waits, which froze every thread of the
        # caller's process (a web console's event loop, a panel's GUI, the robot-sm daemon) until
        # the state interface acknowledged, up to seconds on a loaded machine.
        publisher, deadline = self._goal_publisher(), time.monotonic() + self.timeout
        while not publisher.wait_for_all_acked(Duration()) and time.monotonic() < deadline:
            self._check_open()
            time.sleep(0.005)
        return result

    def _publish_goal(self, x: float, y: float, yaw: float, frame_id: str) -> Result:
        pose, problem = planar_pose(x, y, yaw)
        if pose is None:
            return Result(False, problem)
        goal = PoseStamped(pose=pose)
        goal.header.frame_id = frame_id
        goal.header.stamp = self.node.get_clock().now().to_msg()
        self._goal_publisher().publish(goal)
        return Result(True, f'goal ({x:g}, {y:g}, yaw {yaw:g}) sent')

    def _goal_publisher(self) -> Any:
        """
        Return the publisher of simple goals (made once) once the state interface subscribes.

        :raises SuiteUnavailable: if nobody subscribes within the timeout.
        """
        publisher = self._publisher(*SIMPLE_GOAL, qos.EVENTS)
        deadline = time.monotonic() + self.timeout
        while publisher.get_subscription_count() == 0:
            self._check_open()
            if time.monotonic() >= deadline:
                raise SuiteUnavailable(
                    f'nobody subscribes to {publisher.topic_name} (waited '
                    f'{self.timeout:g} s): is the state interface running?')
            time.sleep(0.01)
        return publisher

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

    def cycle(self) -> Dict[str, Any]:
        """
        Return the operating cycle the state interface runs: roles, outcomes, interrupts.

        ``ros2 topic echo --once robot_sm/cycle`` (JSON, transient local);
        :func:`robot_sm.statemachine.cycle.table` prints it.
        """
        return json.loads(self.latched(String, 'robot_sm/cycle').data)

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
        status.selected_input = self.latched(String, 'robot_sm/selected_input').data
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
