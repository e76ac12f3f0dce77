"""
The suite's own services for the state machine: :class:`SuiteServices`, its ``SuitePort``.

Each method builds the request from core values and turns the answer back into core values, so
messages are built in this one place. Calls to the service provider go out in order, one at a
time: the next is sent when the previous is answered, fails or passes its deadline. A state that
reports a goal on exit and the next state that reads the store on entry need nothing more to
see the report applied. The mux is asked for STOPPED at once, outside that order.
"""

from collections import deque
import threading
from typing import Any, Callable, Deque, List, Optional, Tuple

from rclpy.client import Client
from rclpy.node import Node
from robot_sm.contract import Answer, Command as Kind, Mode, MUX_COMMAND, STORE_COMMAND
from robot_sm.nodes.plugin_context import failure
from robot_sm.qos import SERVICES
from robot_sm.statemachine.calls import PendingCall, T
from robot_sm.statemachine.suite_port import RoundFinished
from robot_sm.waypoint_messages import pose_message, pose_of, waypoint_list
from robot_sm.waypoints.navigation_goal import GoalStatus, NavigationGoal
from robot_sm.waypoints.pose import Pose
from robot_sm.waypoints.waypoint_list import WaypointList
from robot_sm_msgs.msg import Operator
from robot_sm_msgs.srv import (
    Command,
    FinishRound,
    GetFailedGoals,
    GetWaypoints,
    GoalCompleted,
    SetNavigationGoal,
)
from std_srvs.srv import Trigger

#: Who the suite's own changes name: the state machine.
SUITE = Operator(name='', surface='state_interface')
#: A call waiting for its turn: the pending call, the client, the request, the answer's reader.
Queued = Tuple[PendingCall[Any], Client, Any, Callable[[Any], Any]]


def _answer(response: Any) -> Answer:
    return Answer(bool(response.success), str(response.message))


class SuiteServices:
    """The service provider's and the mux's services, typed, the service provider's in order."""

    def __init__(self, node: Node, clock: Callable[[], float], timeout: float) -> None:
        self._node = node
        self._clock = clock
        self._timeout = timeout
        self._lock = threading.RLock()
        self._queue: Deque[Queued] = deque()
        self._in_flight: Optional[Tuple[PendingCall[Any], Client, Any]] = None

        def client(srv_type: Any, name: str) -> Client:
            return node.create_client(srv_type, f'robot_sm/{name}', qos_profile=SERVICES)
        self._set_goal = client(SetNavigationGoal, 'set_navigation_goal')
        self._goal_completed = client(GoalCompleted, 'navigation_goal_completed')
        self._get_waypoints = client(GetWaypoints, 'get_waypoints')
        self._finish_round = client(FinishRound, 'finish_round')
        self._get_failed_goals = client(GetFailedGoals, 'get_failed_goals')
        self._get_reverse_mode = client(Trigger, 'get_reverse_mode')
        # The suite's own changes go to the nodes' command services, not to the services of
        # raw ROS callers (which refuse while an operator holds control).
        self._store = node.create_client(Command, STORE_COMMAND, qos_profile=SERVICES)
        self._mux = node.create_client(Command, MUX_COMMAND, qos_profile=SERVICES)

    def missing_services(self) -> List[str]:
        """Return the service provider's and the mux's services that have no server now."""
        return [client.srv_name for client in (self._get_waypoints, self._mux)
                if not client.service_is_ready()]

    def store_goal(self, goal: NavigationGoal) -> PendingCall[Answer]:
        """Store ``goal`` in the service provider."""
        request = SetNavigationGoal.Request(
            goal=pose_message(goal.pose), navigation_mode=int(goal.mode),
            waypoint_position=goal.waypoint_position, routine=goal.routine)
        return self._in_order(self._set_goal, request, _answer)

    def report_goal(self, goal: NavigationGoal, status: GoalStatus,
                    navigation_status: bool) -> PendingCall[Answer]:
        """Report how ``goal`` ended."""
        request = GoalCompleted.Request(navigation_status=navigation_status)
        request.status.goal = pose_message(goal.pose)
        request.status.goal_status = int(status)
        return self._in_order(self._goal_completed, request, _answer)

    def waypoints(self) -> PendingCall[WaypointList]:
        """Fetch the waypoint list."""
        return self._in_order(self._get_waypoints, GetWaypoints.Request(),
                              lambda response: waypoint_list(response.waypoint_array))

    def finish_round(self) -> PendingCall[RoundFinished]:
        """Finish a round of waypoint following by the following mode."""
        return self._in_order(self._finish_round, FinishRound.Request(), lambda r: RoundFinished(
            r.success, r.message, r.continues, waypoint_list(r.waypoint_array)))

    def failed_goals(self) -> PendingCall[Tuple[Pose, ...]]:
        """Fetch the failed exploration goals."""
        return self._in_order(self._get_failed_goals, GetFailedGoals.Request(), lambda r: tuple(
            pose_of(pose) for pose in r.failed_goals.poses))

    def reverse_mode(self) -> PendingCall[bool]:
        """Fetch whether the robot drives backwards."""
        return self._in_order(self._get_reverse_mode, Trigger.Request(),
                              lambda response: bool(response.success))

    def set_reverse_mode(self, reverse: bool) -> PendingCall[Answer]:
        """Switch reverse driving (a routine's change: the suite's own)."""
        request = Command.Request(command=int(Kind.SET_REVERSE), reverse=reverse, by=SUITE)
        return self._in_order(self._store, request, _answer)

    def stop_robot(self, reason: str) -> None:
        """Ask the mux for STOPPED (a state failed); under an e-stop it refuses, harmlessly."""
        if not self._mux.service_is_ready():
            self._node.get_logger().error(f'cannot stop the robot through the mux ({reason}): '
                                          f'{self._mux.srv_name} is not available')
            return
        self._mux.call_async(Command.Request(command=int(Kind.SELECT_MODE),
                                             mode=int(Mode.STOPPED), by=SUITE))

    # -- the service provider's calls, in order ----------------------------------------------

    def _in_order(self, client: Client, request: Any,
                  read: Callable[[Any], T]) -> PendingCall[T]:
        pending: PendingCall[T] = PendingCall(client.srv_name, self._clock, self._timeout)
        with self._lock:
            self._queue.append((pending, client, request, read))
            self.pump()
        return pending

    def pump(self) -> None:
        """Send the next call once the one in flight is done (answered, failed or too late)."""
        with self._lock:
            if self._in_flight is not None:
                pending, client, future = self._in_flight
                if not pending.done():
                    return
                client.remove_pending_request(future)
                self._in_flight = None
            while self._queue:
                pending, client, request, read = self._queue.popleft()
                if pending.done():
                    continue  # its deadline passed while it waited
                if not client.service_is_ready():
                    pending.fail_with('service not available')
                    continue
                future = client.call_async(request)
                self._in_flight = (pending, client, future)
                future.add_done_callback(self._answered(pending, read))
                return

    def _answered(self, pending: PendingCall[Any],
                  read: Callable[[Any], Any]) -> Callable[[Any], None]:
        def done(future: Any) -> None:
            error = failure(future)
            if error is not None:
                pending.fail_with(error)
            else:
                try:
                    pending.complete(read(future.result()))
                except Exception as problem:  # noqa: B902 - a malformed answer fails the call
                    pending.fail_with(f'unreadable answer: {type(problem).__name__}: {problem}')
            self.pump()
        return done
