"""
The navigation goal the store holds, and RSM's rule for the exploration goal's status.

The goal is set by the state that chose it (exploration, waypoint following or an operator's
simple goal) and reported back by the state that pursued it. A waypoint goal remembers its
waypoint by id, so that it still names the right waypoint after others were inserted or removed.
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
    """The stored goal: pose, mode, the id of its waypoint (waypoint goals) and routine."""

    pose: Pose = Pose()
    mode: NavigationMode = NavigationMode.NONE
    waypoint_id: Optional[int] = None
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
