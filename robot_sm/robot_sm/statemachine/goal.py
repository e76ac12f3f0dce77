"""The navigation goal a transition carries to the state that pursues it."""

from dataclasses import dataclass
from typing import Any

from robot_sm.statemachine.constants import NavigationMode


@dataclass(frozen=True)
class NavigationGoal:
    """
    A goal and what it is for; it travels with the transition, never through a blackboard.

    RSM stored the goal in the service provider from the old state's ``onExit``, so a simple goal
    could be overwritten by the exploration or waypoint goal of the state it interrupted. Here the
    requested state is created with its goal, and the navigation state stores it on entry.
    """

    #: A ``geometry_msgs/Pose`` in the map frame.
    pose: Any
    mode: NavigationMode
    #: Index of the waypoint for WAYPOINT_FOLLOWING goals, else -1.
    waypoint_position: int = -1
    #: Routine to run on arrival (waypoint goals), empty for none.
    routine: str = ''
