"""
The navigation goal, and RSM's rule for the exploration goal's status.

A goal is chosen by a state (exploration, waypoint following) or sent by an operator (a simple
goal), travels with the transition to the state that drives to it, which stores it in the
service provider and reports back how it ended. The store remembers a waypoint goal's waypoint
by id, so that it still names the right waypoint after others were inserted or removed.
"""

from dataclasses import dataclass
import enum
from typing import Optional

from robot_sm.waypoints.pose import Pose


class NavigationMode(enum.IntEnum):
    """What the goal is for (numbers as in SetNavigationGoal); NONE before any goal was set."""

    NONE = -1
    EXPLORATION = 0
    WAYPOINT_FOLLOWING = 1
    SIMPLE_GOAL = 2


class GoalStatus(enum.IntEnum):
    """How a goal ended (numbers as in GoalStatus)."""

    ACTIVE = 0
    REACHED = 1
    FAILED = 2
    ABORTED = 3


@dataclass(frozen=True)
class NavigationGoal:
    """A goal: its pose in the map frame, what it is for, and a waypoint goal's waypoint."""

    pose: Pose = Pose()
    mode: NavigationMode = NavigationMode.NONE
    #: The waypoint of a WAYPOINT_FOLLOWING goal by index, as it was when the goal was chosen
    #: (what ``set_navigation_goal`` takes); -1 for other goals.
    waypoint_position: int = -1
    #: The same waypoint by id, which follows inserts and removals; None for other goals.
    waypoint_id: Optional[int] = None
    #: The routine to run on arrival (waypoint goals), empty for none.
    routine: str = ''


def exploration_status_accepts(current: GoalStatus, reported: GoalStatus,
                               navigation_status: bool) -> bool:
    """
    Return whether a completion report may overwrite the exploration goal's status.

    RSM's rule: a report from the navigation state itself always counts; any report counts while
    the goal is still ACTIVE; and an ABORTED report replaces a REACHED one (a mapping state
    interrupted after arrival). Anything else (a mapping state reporting after navigation
    already did) is ignored.
    """
    return (navigation_status or current is GoalStatus.ACTIVE
            or (reported is GoalStatus.ABORTED and current is GoalStatus.REACHED))
