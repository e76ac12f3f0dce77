"""
Which waypoint comes next, and what happens when a round is over (RSM's rules).

The waypoint-following state runs :func:`next_waypoint_index` on the list it gets from
``robot_sm/get_waypoints``; the service provider applies the end of a round
(``robot_sm/finish_round``). The functions accept any sequence of objects with ``visited`` and
``unreachable`` attributes.

1. :func:`next_waypoint_index`: the goal is the lowest index that is neither visited nor
   unreachable, or the highest one when ``reverse`` is true. None when no such waypoint is left.
2. When none is left, :func:`round_end` tells what the following mode does:

   - ``SINGLE`` → :attr:`RoundEnd.STOP`: following ends.
   - ``ROUNDTRIP`` → :attr:`RoundEnd.RESTART`: clear every waypoint's visited and unreachable
     flags and start again from the first (the last if ``reverse``).
   - ``PATROL`` → :attr:`RoundEnd.TURN_AROUND`: flip the direction, clear the flags, then mark
     the endpoint just reached, :func:`patrol_endpoint` of the direction *before* the flip, as
     visited, so that it (and its routine) is not visited twice in a row. The robot goes
     0…N-1, N-2…0, 1…N-1 and so on. The endpoint is marked visited even if it was unreachable.

:meth:`robot_sm.waypoints.waypoint_list.WaypointList.finish_round` applies step 2 as one change.
"""

import enum
from typing import Optional, Protocol, Sequence


class WaypointStatus(Protocol):
    """Anything with a waypoint's two progress flags."""

    @property
    def visited(self) -> bool:
        """Return True once the waypoint was reached in the current round."""
        ...  # pragma: no cover

    @property
    def unreachable(self) -> bool:
        """Return True once navigation to it failed in the current round."""
        ...  # pragma: no cover


class RoundEnd(enum.Enum):
    """What waypoint following does when no unvisited, reachable waypoint is left."""

    STOP = 'stop'
    RESTART = 'restart'
    TURN_AROUND = 'turn around'


def next_waypoint_index(waypoints: Sequence[WaypointStatus], reverse: bool) -> Optional[int]:
    """Return the lowest (highest if ``reverse``) unvisited, reachable index, or None."""
    indices = range(len(waypoints) - 1, -1, -1) if reverse else range(len(waypoints))
    for index in indices:
        waypoint = waypoints[index]
        if not waypoint.visited and not waypoint.unreachable:
            return index
    return None


def round_end(mode: int) -> RoundEnd:
    """
    Return what following mode ``mode`` (0 SINGLE, 1 ROUNDTRIP, 2 PATROL) does at a round's end.

    :raises ValueError: for any other mode.
    """
    ends = {0: RoundEnd.STOP, 1: RoundEnd.RESTART, 2: RoundEnd.TURN_AROUND}
    if mode not in ends:
        raise ValueError(f'unknown waypoint following mode {mode!r}')
    return ends[mode]


def patrol_endpoint(count: int, reverse: bool) -> int:
    """
    Return the index of the endpoint a patrol round over ``count`` waypoints has just reached.

    ``reverse`` is the direction of the round that ended: forward rounds end at the last index,
    reverse rounds at index 0.
    """
    return 0 if reverse else count - 1
