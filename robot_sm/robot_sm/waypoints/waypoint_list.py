"""
The waypoint list: waypoints with stable ids, the following mode and direction.

A :class:`WaypointList` is an immutable value: every edit returns a new list and leaves the old
one as it was, so a change that cannot be saved is simply dropped. Waypoints are addressed by
index in requests (as in RSM), but each carries an ``id`` assigned once by the list: indices
shift on insert and remove, ids never change and are never reused (``next_id`` only grows, and
is saved with the list).

Index rules (``position`` in the requests):

- insert: ``0 <= position < len`` inserts *before* that index; ``-1`` or any index at or past
  the end appends; anything below ``-1`` is refused.
- move, remove, visited, unreachable, routine: ``0 <= position < len``, else refused.
"""

from dataclasses import dataclass, replace
import enum
from typing import Any, Optional, Tuple

from robot_sm.waypoints.errors import RequestError
from robot_sm.waypoints.pose import Pose
from robot_sm.waypoints.selection import (
    next_waypoint_index,
    patrol_endpoint,
    round_end,
    RoundEnd,
)

#: Ids are uint32 on the wire.
MAX_ID = 2 ** 32 - 1


class FollowingMode(enum.IntEnum):
    """How the list is followed (numbers as in WaypointArray)."""

    SINGLE = 0
    ROUNDTRIP = 1
    PATROL = 2


@dataclass(frozen=True)
class Waypoint:
    """One waypoint: a stable id, a pose in the map frame, progress flags and a routine."""

    id: int  # noqa: A003 - the field of robot_sm_msgs/Waypoint
    pose: Pose
    visited: bool = False
    unreachable: bool = False
    routine: str = ''


@dataclass(frozen=True)
class WaypointList:
    """The waypoints in visiting order, with the following mode and direction."""

    waypoints: Tuple[Waypoint, ...] = ()
    mode: FollowingMode = FollowingMode.SINGLE
    reverse: bool = False
    next_id: int = 1

    def __len__(self) -> int:
        """Return the number of waypoints."""
        return len(self.waypoints)

    def index_of(self, waypoint_id: int) -> Optional[int]:
        """Return the current index of the waypoint with ``waypoint_id``, or None if it is gone."""
        for index, waypoint in enumerate(self.waypoints):
            if waypoint.id == waypoint_id:
                return index
        return None

    def check_index(self, position: int, field: str = 'position') -> int:
        """
        Return ``position`` if it is the index of a waypoint.

        :raises RequestError: naming ``field`` otherwise.
        """
        if not 0 <= position < len(self.waypoints):
            if not self.waypoints:
                raise RequestError(field, f'{position} is out of range: the list is empty')
            raise RequestError(
                field, f'{position} is out of range: valid indices are 0..{len(self) - 1}')
        return position

    def inserted(self, pose: Pose, routine: str, position: int) -> Tuple['WaypointList', int]:
        """
        Return the list with a new waypoint and the index it got.

        The waypoint goes before ``position`` if that is an index of the list, else at the end
        (``-1`` or any index past the end). Its id is ``next_id``.

        :raises RequestError: for a position below -1 or when every id is used.
        """
        if position < -1:
            raise RequestError(
                'position', f'{position} is not an index: use 0..{len(self)} or -1 for the end')
        if self.next_id > MAX_ID:
            raise RequestError('waypoint', 'every waypoint id has been used')
        index = position if 0 <= position < len(self.waypoints) else len(self.waypoints)
        waypoint = Waypoint(id=self.next_id, pose=pose, routine=routine)
        waypoints = self.waypoints[:index] + (waypoint,) + self.waypoints[index:]
        return replace(self, waypoints=waypoints, next_id=self.next_id + 1), index

    def _with_waypoint(self, position: int, **changes: Any) -> 'WaypointList':
        index = self.check_index(position)
        waypoint = replace(self.waypoints[index], **changes)
        waypoints = self.waypoints[:index] + (waypoint,) + self.waypoints[index + 1:]
        return replace(self, waypoints=waypoints)

    def moved(self, position: int, pose: Pose) -> 'WaypointList':
        """Return the list with the pose of waypoint ``position`` replaced."""
        return self._with_waypoint(position, pose=pose)

    def removed(self, position: int) -> 'WaypointList':
        """Return the list without waypoint ``position``; later waypoints move one index down."""
        index = self.check_index(position)
        return replace(self, waypoints=self.waypoints[:index] + self.waypoints[index + 1:])

    def with_visited(self, position: int) -> 'WaypointList':
        """Return the list with waypoint ``position`` marked visited."""
        return self._with_waypoint(position, visited=True)

    def with_unreachable(self, position: int) -> 'WaypointList':
        """Return the list with waypoint ``position`` marked unreachable."""
        return self._with_waypoint(position, unreachable=True)

    def with_routine(self, position: int, routine: str) -> 'WaypointList':
        """Return the list with the routine of waypoint ``position`` replaced."""
        return self._with_waypoint(position, routine=routine)

    def with_mode(self, mode: int, reverse: bool) -> 'WaypointList':
        """
        Return the list with following mode ``mode`` and direction ``reverse``.

        :raises RequestError: if ``mode`` is not SINGLE (0), ROUNDTRIP (1) or PATROL (2).
        """
        if mode not in tuple(FollowingMode):
            raise RequestError(
                'mode', f'{mode} is not a following mode: use 0 SINGLE, 1 ROUNDTRIP or 2 PATROL')
        return replace(self, mode=FollowingMode(mode), reverse=bool(reverse))

    def reordered(self, position: int, to: int) -> 'WaypointList':
        """
        Return the list with waypoint ``position`` taken out and put in at index ``to``.

        The waypoint keeps its id, its routine and its visited and unreachable flags.

        :raises RequestError: if either index is out of range.
        """
        waypoints = list(self.waypoints)
        waypoint = waypoints.pop(self.check_index(position))
        waypoints.insert(self.check_index(to, 'to'), waypoint)
        return replace(self, waypoints=tuple(waypoints))

    def starting_at(self, position: int) -> 'WaypointList':
        """Return the list with the waypoints before ``position`` in its direction visited."""
        index = self.check_index(position)
        skipped = range(index + 1, len(self.waypoints)) if self.reverse else range(index)
        waypoints = tuple(replace(w, visited=i in skipped, unreachable=False)
                          for i, w in enumerate(self.waypoints))
        return replace(self, waypoints=waypoints)

    def reset(self) -> 'WaypointList':
        """Return the list with every waypoint unvisited and reachable again."""
        waypoints = tuple(replace(w, visited=False, unreachable=False) for w in self.waypoints)
        return replace(self, waypoints=waypoints)

    def next_index(self) -> Optional[int]:
        """Return the index of the next waypoint to drive to (see :mod:`.selection`), or None."""
        return next_waypoint_index(self.waypoints, self.reverse)

    def turned_around(self) -> 'WaypointList':
        """
        Return the list after a patrol round: direction flipped, flags reset, endpoint visited.

        The endpoint is the waypoint the ended round finished at (the last index after a forward
        round, index 0 after a reverse one).
        """
        flipped = replace(self.reset(), reverse=not self.reverse)
        if not self.waypoints:
            return flipped
        return flipped.with_visited(patrol_endpoint(len(self), self.reverse))

    def finish_round(self) -> Optional['WaypointList']:
        """
        Return the list for the next round by the following mode, or None if following ends.

        SINGLE ends (None); ROUNDTRIP resets every waypoint; PATROL turns around
        (:meth:`turned_around`).
        """
        end = round_end(self.mode)
        if end is RoundEnd.STOP:
            return None
        if end is RoundEnd.RESTART:
            return self.reset()
        return self.turned_around()
