"""
Waypoint Following: pick the next waypoint and send Navigation to it (RSM's rules).

The next goal is the lowest unvisited, reachable index (the highest when the list is reversed,
:func:`robot_sm.waypoints.selection.next_waypoint_index`). When none is left, the service
provider applies the following mode's end-of-round rule in one call (``robot_sm/finish_round``):
SINGLE ends in Idle, ROUNDTRIP resets the flags and goes round again, PATROL turns around. Unlike
RSM, following stops after ``max_unreachable_rounds`` rounds in a row in which every waypoint was
unreachable, instead of retrying forever; the count travels with the transitions of the round.
"""

from typing import Optional

from robot_sm.parameters import Param
from robot_sm.statemachine.base_state import BaseState
from robot_sm.statemachine.calls import PendingCall
from robot_sm.statemachine.cycle import Handover
from robot_sm.statemachine.suite_port import RoundFinished
from robot_sm.waypoints.navigation_goal import NavigationGoal, NavigationMode
from robot_sm.waypoints.waypoint_list import WaypointList


class WaypointFollowing(BaseState):
    """Choose the next waypoint; at the end of a round, finish it by the following mode."""

    NAME = 'Waypoint Following'
    OUTCOMES = ('next_waypoint', 'finished', 'failed', 'stopped')
    PARAMETERS = (Param('max_unreachable_rounds', 3, 'Rounds in a row in which every waypoint '
                        'was unreachable before following stops.', minimum=1),)

    def on_entry(self) -> None:
        """Fetch the waypoints (after the last goal's report: the suite's calls are in order)."""
        self._rounds = self.handover.unreachable_rounds
        self._waypoints: Optional[PendingCall[WaypointList]] = self.suite.waypoints()
        self._round: Optional[PendingCall[RoundFinished]] = None

    def on_active(self) -> None:
        """Choose once the waypoints are in."""
        if self.running:
            waypoints = self._answered()
            if waypoints is not None:
                self._choose(waypoints)

    def _answered(self) -> Optional[WaypointList]:
        """Return the list to choose from once a call brought it; None while waiting or done."""
        call = self._waypoints or self._round
        if call is None or not call.done():
            return None
        self._waypoints = self._round = None
        if not call.succeeded:
            self._fail(f'waypoint following stopped: {call.describe()}')
            return None
        answer = call.response
        if isinstance(answer, RoundFinished):
            if not answer.continues:
                self.finish('finished', 'waypoint following finished')
                return None
            return answer.waypoints
        return answer

    def _choose(self, waypoints: WaypointList) -> None:
        if not waypoints.waypoints:
            self._fail('no waypoints to follow')
            return
        index = waypoints.next_index()
        if index is not None:
            waypoint = waypoints.waypoints[index]
            goal = NavigationGoal(waypoint.pose, NavigationMode.WAYPOINT_FOLLOWING, index,
                                  waypoint.id, waypoint.routine)
            self.finish('next_waypoint', handover=Handover(goal, self._rounds))
            return
        every_one_unreachable = all(w.unreachable for w in waypoints.waypoints)
        self._rounds = self._rounds + 1 if every_one_unreachable else 0
        limit = int(self.context.parameter('max_unreachable_rounds'))
        if self._rounds >= limit:
            self._fail(f'every waypoint was unreachable in {limit} rounds in a row')
            return
        self._round = self.suite.finish_round()

    def _fail(self, message: str) -> None:
        self.context.logger.error(f'{self.name}: {message}')
        self.finish('failed', message)
