"""
Waypoint Following: pick the next waypoint and send Navigation to it (RSM's rules).

The next goal is the lowest unvisited, reachable index (the highest when the list is reversed).
When none is left, the following mode decides: SINGLE ends in Idle, ROUNDTRIP resets the flags
and goes round again, PATROL turns around (flips the direction, resets, and marks the endpoint
just reached as visited). Unlike RSM, following stops after ``max_unreachable_rounds`` rounds in
a row in which every waypoint was unreachable, instead of retrying forever.
"""

from typing import Any, Callable, List, Optional

from robot_sm.statemachine.base_state import StateParameter
from robot_sm.statemachine.behaviours import FollowingAnswers, GOAL_REPORT
from robot_sm.statemachine.calls import PendingCall
from robot_sm.statemachine.constants import Interrupt, NavigationMode, Role
from robot_sm.statemachine.goal import NavigationGoal
from robot_sm.waypoints.selection import next_waypoint_index, patrol_endpoint, round_end, RoundEnd

TRIGGER = 'std_srvs/srv/Trigger'
#: Key of the shared memory counting rounds in a row with every waypoint unreachable.
UNREACHABLE_ROUNDS = 'unreachable_rounds'

Step = Callable[[], PendingCall]


class WaypointFollowing(FollowingAnswers):
    """Choose the next waypoint; handle the end of a round by the following mode."""

    NAME = 'Waypoint Following'
    PREFIX = 'W: '
    PARAMETERS = (
        StateParameter('max_unreachable_rounds', 3, 'Rounds in a row in which every waypoint '
                       'was unreachable before following stops.', minimum=1),
    )
    INTERRUPTS = (Interrupt.EMERGENCY_STOP, Interrupt.TELEOPERATION, Interrupt.SIMPLE_GOAL)

    def on_entry(self) -> None:
        """Wait for the previous goal's report to land, then fetch the waypoints."""
        self._call: Optional[PendingCall] = None
        self._steps: List[Step] = []
        assert self.machine is not None
        report = self.machine.shared.get(GOAL_REPORT)
        self._report: Optional[PendingCall] = report if isinstance(report, PendingCall) else None
        self._fetch()

    def _fetch(self) -> None:
        self._steps = [lambda: self.context.call('robot_sm/get_waypoints',
                                                 'robot_sm_msgs/srv/GetWaypoints')]

    def on_active(self) -> None:
        """Advance the calls one at a time; decide when the waypoints are in."""
        if self.interrupt_occurred:
            return
        if self._report is not None and not self._report.done():
            return
        if self._call is not None:
            if not self._call.done():
                return
            call, self._call = self._call, None
            if not call.ok or not call.succeeded:
                self._finish(f'waypoint following stopped: {call.describe()}', error=True)
                return
            if self._steps:
                self._call = self._steps.pop(0)()
            else:
                self._decide(call.response)
            return
        if self._steps:
            self._call = self._steps.pop(0)()

    def _decide(self, response: Any) -> None:
        array = response.waypoint_array
        waypoints = list(array.waypoints)
        if not waypoints:
            self._finish('no waypoints to follow', error=True)
            return
        index = next_waypoint_index(waypoints, bool(array.reverse))
        if index is not None:
            waypoint = waypoints[index]
            self.transition(Role.NAVIGATION, goal=NavigationGoal(
                waypoint.pose, NavigationMode.WAYPOINT_FOLLOWING, index, waypoint.routine))
            return
        self._end_of_round(array, waypoints)

    def _end_of_round(self, array: Any, waypoints: List[Any]) -> None:
        assert self.machine is not None
        shared = self.machine.shared
        if all(waypoint.unreachable for waypoint in waypoints):
            shared[UNREACHABLE_ROUNDS] = shared.get(UNREACHABLE_ROUNDS, 0) + 1
        else:
            shared[UNREACHABLE_ROUNDS] = 0
        limit = int(self.context.parameter('max_unreachable_rounds'))
        if shared[UNREACHABLE_ROUNDS] >= limit:
            self._finish(f'every waypoint was unreachable in {limit} rounds in a row',
                         error=True)
            return
        try:
            end = round_end(int(array.mode))
        except ValueError as error:
            self._finish(str(error), error=True)
            return
        if end is RoundEnd.STOP:
            self._finish('waypoint following finished')
            return
        reset = self._caller('robot_sm/reset_waypoints', TRIGGER)
        if end is RoundEnd.RESTART:
            self._steps = [reset]
        else:
            reverse = bool(array.reverse)
            self._steps = [
                self._caller('robot_sm/set_waypoint_following_mode',
                             'robot_sm_msgs/srv/SetWaypointFollowingMode',
                             {'mode': int(array.mode), 'reverse': not reverse}),
                reset,
                self._caller('robot_sm/waypoint_visited', 'robot_sm_msgs/srv/WaypointVisited',
                             {'position': patrol_endpoint(len(waypoints), reverse)}),
            ]
        self._steps.append(lambda: self.context.call('robot_sm/get_waypoints',
                                                     'robot_sm_msgs/srv/GetWaypoints'))
        self._call = self._steps.pop(0)()

    def _caller(self, service: str, srv_type: str, request: Optional[dict] = None) -> Step:
        return lambda: self.context.call(service, srv_type, request)

    def _finish(self, message: str, error: bool = False) -> None:
        self.report(message)
        if error:
            self.context.logger.error(f'{self.name}: {message}')
        self.transition(Role.IDLE)
