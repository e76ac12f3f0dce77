"""
The suite's own services as states call them: typed, answered with core values.

:class:`SuitePort` is what states use of the service provider and the mux. The state interface
implements it once over rclpy (``robot_sm.nodes.suite_services``), the engine tests over the
service provider's core; a misspelt field is a type error, not a robot that fails at run time.

Calls to the service provider go out in order, one after the other: a goal report sent when a
state exits has been answered before the next state's request is sent, so the next state reads
the store with that report applied.
"""

from dataclasses import dataclass
from typing import List, Protocol, Tuple

from robot_sm.contract import Answer
from robot_sm.statemachine.calls import PendingCall
from robot_sm.waypoints.navigation_goal import GoalStatus, NavigationGoal
from robot_sm.waypoints.pose import Pose
from robot_sm.waypoints.waypoint_list import WaypointList


@dataclass(frozen=True)
class RoundFinished:
    """What the service provider did at the end of a round of waypoint following."""

    success: bool
    message: str
    #: True if following goes on with :attr:`waypoints` (ROUNDTRIP, PATROL); False (SINGLE) not.
    continues: bool
    waypoints: WaypointList


class SuitePort(Protocol):
    """The service provider's and the mux's services, for the states."""

    def missing_services(self) -> List[str]:
        """Return the names of the suite's services that have no server now (does not wait)."""

    def store_goal(self, goal: NavigationGoal) -> PendingCall[Answer]:
        """Store the goal a navigation state drives to (``robot_sm/set_navigation_goal``)."""

    def report_goal(self, goal: NavigationGoal, status: GoalStatus,
                    navigation_status: bool) -> PendingCall[Answer]:
        """
        Report how ``goal`` ended (``robot_sm/navigation_goal_completed``).

        ``navigation_status`` is true when the navigation state itself reports, false when a
        mapping state or routine does.
        """

    def waypoints(self) -> PendingCall[WaypointList]:
        """Fetch the waypoint list (``robot_sm/get_waypoints``)."""

    def finish_round(self) -> PendingCall[RoundFinished]:
        """Apply the following mode's end-of-round rule (``robot_sm/finish_round``)."""

    def failed_goals(self) -> PendingCall[Tuple[Pose, ...]]:
        """Fetch the failed exploration goals (``robot_sm/get_failed_goals``)."""

    def reverse_mode(self) -> PendingCall[bool]:
        """Fetch whether the robot drives backwards (``robot_sm/get_reverse_mode``)."""

    def set_reverse_mode(self, reverse: bool) -> PendingCall[Answer]:
        """Switch reverse driving (``robot_sm/set_reverse_mode``)."""

    def stop_robot(self, reason: str) -> None:
        """Ask the mux for STOPPED because of ``reason`` (a state failed); does not wait."""
