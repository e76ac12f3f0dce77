"""
The activities as ROS 2 actions, the way Nav2 exposes its tasks.

``robot_sm/follow_waypoints`` (FollowWaypoints), ``robot_sm/explore`` (Explore) and
``robot_sm/go_to`` (GoTo) start their activity through the command gateway (the same checks,
policy and answers as ``robot_sm/command``), follow the run it began until it ends, and answer
with the run's outcome code (``StateInfo.OUTCOME_*``) and the suite's words. A start the suite
refuses ends the goal at once with OUTCOME_REFUSED and the reason (the goal is accepted first,
so that ``ros2 action send_goal`` shows why). Cancel is the operator's stop: the goal's operator
stops the run through the gateway, and the goal ends CANCELED when the run does. Feedback comes
at most every :data:`FEEDBACK_PERIOD` seconds: the state, the waypoint or goal being driven to,
the distance left, the counts of :class:`robot_sm.statemachine.progress.RunProgress`.
"""

from dataclasses import dataclass, field
import math
import time
from typing import Any, Callable, Dict, Optional, Tuple

from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.task import Future
from robot_sm.contract import (
    Command as Kind,
    EXPLORE_ACTION,
    FOLLOW_WAYPOINTS_ACTION,
    GO_TO_ACTION,
    Outcome,
    WAYPOINTS,
)
from robot_sm.nodes.command_gateway import CommandGateway
from robot_sm.qos import STATE
from robot_sm.statemachine.activity import Ended
from robot_sm.statemachine.machine import StateMachine
from robot_sm.statemachine.progress import RunProgress
from robot_sm.statemachine.report import StateReport
from robot_sm_msgs.action import Explore, FollowWaypoints, GoTo
from robot_sm_msgs.msg import WaypointArray
from robot_sm_msgs.srv import Command

#: Seconds between two feedback messages of a goal.
FEEDBACK_PERIOD = 0.2


@dataclass
class Watch:
    """A goal whose run is being followed."""

    handle: Any
    action: Any
    run_id: int
    progress: RunProgress
    ended: Future = field(default_factory=Future)
    fed_at: float = -math.inf


def _start_command(kind: Kind, goal: Any) -> Command.Request:
    """Return the gateway command that starts ``goal``'s activity."""
    msg = Command.Request(command=int(kind), by=goal.by)
    if not msg.by.surface:
        msg.by.surface = 'action'
    if kind is Kind.START_WAYPOINT_FOLLOWING:
        msg.following_mode, msg.reverse = goal.following_mode, goal.reverse
    elif kind is Kind.START_EXPLORATION:
        msg.goal_obsolete = goal.goal_obsolete
    else:
        msg.pose = goal.pose
    return msg


#: Per action: its type, name, the command that starts it and the one that stops it.
ACTIONS = (
    (FollowWaypoints, FOLLOW_WAYPOINTS_ACTION, Kind.START_WAYPOINT_FOLLOWING,
     Kind.STOP_WAYPOINT_FOLLOWING),
    (Explore, EXPLORE_ACTION, Kind.START_EXPLORATION, Kind.STOP_EXPLORATION),
    (GoTo, GO_TO_ACTION, Kind.GO_TO, Kind.CANCEL_GOAL),
)


class ActivityActions:
    """The three action servers of the state interface."""

    def __init__(self, node: Node, machine: StateMachine, gateway: CommandGateway) -> None:
        self._node = node
        self._machine = machine
        self._gateway = gateway
        self._watches: Dict[int, Watch] = {}
        #: How the most recent runs ended, by id (a run may end before its goal watches it).
        self._ended: Dict[int, Ended] = {}
        self._waypoints: Optional[WaypointArray] = None
        self._report: Optional[StateReport] = None
        group = ReentrantCallbackGroup()
        node.create_subscription(WaypointArray, WAYPOINTS, self._on_waypoints, STATE,
                                 callback_group=group)
        self._servers = [
            ActionServer(node, action, name, execute_callback=self._executor(action, start),
                         goal_callback=lambda goal: GoalResponse.ACCEPT,
                         cancel_callback=self._canceller(stop), callback_group=group)
            for action, name, start, stop in ACTIONS]

    # -- what the machine and the service provider tell ---------------------------------------

    def on_activity_end(self, ended: Ended) -> None:
        """Take the end of a run (the machine's ``activity_ended``)."""
        run_id = ended.run.activity_id
        self._ended[run_id] = ended
        for old in [key for key in self._ended if key < run_id - 100]:
            del self._ended[old]
        for watch in self._watches.values():
            if watch.run_id == run_id and not watch.ended.done():
                watch.ended.set_result(ended)

    def on_report(self, report: StateReport) -> None:
        """Take a report of the machine: a state entered counts for the runs' progress."""
        previous, self._report = self._report, report
        if previous is not None and (previous.name, previous.role) == (report.name, report.role):
            return
        for watch in self._watches.values():
            if report.run is not None and report.run.activity_id == watch.run_id:
                watch.progress.on_state(report.role)

    def _on_waypoints(self, msg: WaypointArray) -> None:
        self._waypoints = msg
        for watch in self._watches.values():
            watch.progress.on_waypoints(msg.waypoints, bool(msg.reverse))

    def on_tick(self) -> None:
        """Send the goals' feedback that is due."""
        now = time.monotonic()
        for watch in list(self._watches.values()):
            if now - watch.fed_at >= FEEDBACK_PERIOD and not watch.ended.done():
                watch.fed_at = now
                watch.handle.publish_feedback(self._feedback(watch))

    # -- goals ------------------------------------------------------------------------------

    def _executor(self, action: Any, start: Kind) -> Callable[[Any], Any]:
        async def execute(handle: Any) -> Any:
            return await self._execute(handle, action, start)
        return execute

    def _canceller(self, stop: Kind) -> Callable[[Any], CancelResponse]:
        def cancel(handle: Any) -> CancelResponse:
            msg = Command.Request(command=int(stop), by=handle.request.by)
            if not msg.by.surface:
                msg.by.surface = 'action'
            executor = self._node.executor
            if executor is not None:
                executor.create_task(self._gateway.execute, msg)
            return CancelResponse.ACCEPT
        return cancel

    async def _execute(self, handle: Any, action: Any, start: Kind) -> Any:
        result = action.Result()
        done = await self._gateway.execute(_start_command(start, handle.request))
        if not done.success:
            handle.abort()
            result.outcome, result.message = int(Outcome.REFUSED), done.message
            return result
        progress = RunProgress()
        if self._waypoints is not None:
            progress.on_waypoints(self._waypoints.waypoints, bool(self._waypoints.reverse))
            progress.rounds = 0
        watch = Watch(handle, action, done.activity_id, progress)
        key = id(handle)
        self._watches[key] = watch
        if done.activity_id in self._ended:
            watch.ended.set_result(self._ended[done.activity_id])
        try:
            ended: Ended = await watch.ended
        finally:
            del self._watches[key]
        result.outcome, result.message, result.state = int(ended.outcome), ended.text, \
            ended.state
        if hasattr(result, 'visited'):
            result.visited, result.unreachable = progress.visited_count, \
                progress.unreachable_count
            result.total, result.rounds = len(progress.ids), progress.rounds
        if hasattr(result, 'goals'):
            result.goals = progress.goals
        if ended.outcome is Outcome.SUCCEEDED:
            handle.succeed()
        elif handle.is_cancel_requested and ended.outcome is Outcome.CANCELED:
            handle.canceled()
        else:
            handle.abort()
        return result

    def _feedback(self, watch: Watch) -> Any:
        feedback = watch.action.Feedback()
        state = self._machine.state
        feedback.state = state.name if state is not None else ''
        distance = state.distance_remaining if state is not None else None
        feedback.distance_remaining = math.nan if distance is None else float(distance)
        progress = watch.progress
        if hasattr(feedback, 'goals'):
            feedback.goals = progress.goals
        if watch.action is FollowWaypoints:
            index, waypoint_id = self._driving_to(state)
            if waypoint_id is None:
                index, waypoint_id = progress.next_index, progress.next_id
            feedback.waypoint_index = -1 if index is None else index
            feedback.waypoint_id = waypoint_id or 0
            feedback.visited, feedback.unreachable = progress.visited_count, \
                progress.unreachable_count
            feedback.total, feedback.rounds = len(progress.ids), progress.rounds
            feedback.progress = progress.fraction
        return feedback

    def _driving_to(self, state: Any) -> Tuple[Optional[int], Optional[int]]:
        """Return the index and id of the waypoint the state drives to or runs at, if any."""
        goal = state.goal if state is not None else None
        if goal is None or goal.waypoint_id is None:
            return None, None
        waypoints = self._waypoints.waypoints if self._waypoints is not None else []
        index = next((i for i, w in enumerate(waypoints) if w.id == goal.waypoint_id),
                     goal.waypoint_position)
        return index, goal.waypoint_id

    def destroy(self) -> None:
        """Destroy the action servers."""
        for server in self._servers:
            server.destroy()
