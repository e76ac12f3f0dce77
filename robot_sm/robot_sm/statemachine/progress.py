"""
How far a run of an activity has come: waypoints, rounds and goals, for its action's feedback.

:class:`RunProgress` is told the waypoint lists the service provider publishes and the states
the machine enters during one run, and counts what an operator asks about: waypoints (by id)
visited and unreachable since the start (those already visited when it started included),
rounds completed (lists seen with every waypoint visited or unreachable), goals driven to
(entries into the activity's navigation role) and the share of the round done. Pure: no rclpy.
"""

from dataclasses import dataclass, field
from typing import FrozenSet, Optional, Protocol, Sequence, Set

from robot_sm.waypoints.selection import next_waypoint_index, WaypointStatus

#: The roles whose entries count as goals driven to.
NAVIGATION_ROLES = frozenset({'waypoint_navigation', 'exploration_navigation',
                              'simple_goal_navigation'})


class WaypointLike(WaypointStatus, Protocol):
    """What is read of a waypoint: its id and flags (a ``robot_sm_msgs/Waypoint`` has them)."""

    @property
    def id(self) -> int:  # noqa: A003 - the message's field name
        """Return the waypoint's stable id."""
        ...  # pragma: no cover


@dataclass
class RunProgress:
    """The progress of one run (see the module's description)."""

    visited: Set[int] = field(default_factory=set)
    unreachable: Set[int] = field(default_factory=set)
    ids: FrozenSet[int] = frozenset()
    rounds: int = 0
    goals: int = 0
    #: The index and id of the waypoint that comes next in the list's order; None at the end.
    next_index: Optional[int] = None
    next_id: Optional[int] = None
    #: The share of the list done now (visited or unreachable), 0..1.
    fraction: float = 0.0
    _complete: bool = True
    _role: str = ''

    def on_waypoints(self, waypoints: Sequence[WaypointLike], reverse: bool) -> None:
        """Take a waypoint list, in arrival order."""
        self.ids = frozenset(int(w.id) for w in waypoints)
        self.visited.update(int(w.id) for w in waypoints if w.visited)
        self.unreachable.update(int(w.id) for w in waypoints if w.unreachable)
        done = sum(1 for w in waypoints if w.visited or w.unreachable)
        self.fraction = done / len(waypoints) if waypoints else 0.0
        complete = bool(waypoints) and done == len(waypoints)
        if complete and not self._complete:
            self.rounds += 1
        self._complete = complete
        index = next_waypoint_index(waypoints, reverse)
        self.next_index = index
        self.next_id = int(waypoints[index].id) if index is not None else None

    def on_state(self, role: str) -> None:
        """Take the role of a state entered, in arrival order."""
        if role in NAVIGATION_ROLES and role != self._role:
            self.goals += 1
        self._role = role

    @property
    def visited_count(self) -> int:
        """Return the waypoints of the list seen visited since the start."""
        return len(self.visited & self.ids)

    @property
    def unreachable_count(self) -> int:
        """Return the waypoints of the list seen unreachable since the start."""
        return len(self.unreachable & self.ids)
