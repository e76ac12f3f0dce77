"""
An operator's command as the gateway takes it: who gives it, what, and its checked arguments.

:func:`checked` refuses what cannot be carried out before anything changes: an unknown command
or mode, a pose or number that is not finite, text that is too long or not printable. The
arguments a command reads are listed in :data:`READS`, which :func:`arguments` uses to write
only those into the audit log. Pure: no rclpy.
"""

from dataclasses import dataclass, field, replace
import math
from typing import Any, Dict, Optional, Tuple

from robot_sm.contract import (
    Command,
    FollowingMode,
    GoalObsolete,
    KEEP,
    Mode,
    MODE_NAMES,
)
from robot_sm.quoting import quoted
from robot_sm.waypoints.errors import RequestError
from robot_sm.waypoints.pose import checked_pose, Pose


@dataclass(frozen=True)
class OperatorId:
    """Who gives a command (``robot_sm_msgs/Operator``); an empty name is a raw ROS caller."""

    name: str = ''
    surface: str = ''
    address: str = ''

    @property
    def raw(self) -> bool:
        """Return whether the caller gave no identity (a raw ROS request)."""
        return not self.name

    def __str__(self) -> str:
        if self.raw:
            return f'a raw ROS caller{f" ({self.surface})" if self.surface else ""}'
        return self.name


#: A pose as a request carries it: x, y, z, qx, qy, qz, qw.
PoseValues = Tuple[float, float, float, float, float, float, float]


@dataclass(frozen=True)
class Request:
    """One command with every argument ``Command.srv`` has; each command reads its own."""

    command: int
    by: OperatorId = OperatorId()
    mode: int = 0
    following_mode: int = KEEP
    reverse: bool = False
    goal_obsolete: int = KEEP
    pose: PoseValues = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
    frame: str = ''
    waypoint_id: int = 0
    index: int = -1
    position: int = -1
    routine: str = ''
    stale_after: float = 0.0
    #: Set by :func:`checked`: the command, and the pose it carries as a checked core pose.
    kind: Command = field(default=Command.SELECT_MODE, compare=False)
    checked_pose: Optional[Pose] = field(default=None, compare=False)


#: The arguments each command reads (for its checks and the audit log).
READS: Dict[Command, Tuple[str, ...]] = {
    Command.SELECT_MODE: ('mode',),
    Command.START_WAYPOINT_FOLLOWING: ('following_mode', 'reverse'),
    Command.START_EXPLORATION: ('goal_obsolete',),
    Command.GO_TO: ('pose', 'frame'),
    Command.ADD_WAYPOINT: ('pose', 'routine', 'position'),
    Command.MOVE_WAYPOINT: ('waypoint_id', 'index', 'pose'),
    Command.REMOVE_WAYPOINT: ('waypoint_id', 'index'),
    Command.SET_WAYPOINT_ROUTINE: ('waypoint_id', 'index', 'routine'),
    Command.REORDER_WAYPOINT: ('waypoint_id', 'index', 'position'),
    Command.SET_REVERSE: ('reverse',),
    Command.ACQUIRE_CONTROL: ('stale_after',),
    Command.TAKE_CONTROL: ('stale_after',),
    Command.KEEP_CONTROL: ('stale_after',),
}

#: The longest routine name or operator name taken.
MAX_TEXT = 256
#: The longest keep-alive period a holder may ask for (s).
MAX_STALE_AFTER = 3600.0


def checked(request: Request) -> Request:
    """
    Check ``request``; return it with ``kind`` and ``checked_pose`` set.

    :raises RequestError: naming the field that cannot be used; nothing is done then.
    """
    try:
        kind = Command(request.command)
    except ValueError:
        names = ', '.join(f'{c.value} {c.name}' for c in Command)
        raise RequestError('command', f'unknown command {request.command} (use one of: '
                                      f'{names})') from None
    reads = READS.get(kind, ())
    for name, value in (('by.name', request.by.name), ('by.surface', request.by.surface),
                        ('by.address', request.by.address), ('routine', request.routine),
                        ('pose.header.frame_id', request.frame)):
        if len(value) > MAX_TEXT or not value.isprintable():
            raise RequestError(name, f'must be printable text of at most {MAX_TEXT} '
                                     f'characters (got {quoted(value)})')
    if 'mode' in reads and request.mode not in Mode._value2member_map_:
        names = ', '.join(f'{m.value} {m.name}' for m in Mode)
        raise RequestError('mode', f'unknown mode {request.mode} (use one of: {names})')
    if 'following_mode' in reads and request.following_mode != KEEP \
            and request.following_mode not in FollowingMode._value2member_map_:
        raise RequestError('following_mode', f'{request.following_mode} is not a following '
                                             f'mode: use 0 SINGLE, 1 ROUNDTRIP, 2 PATROL or '
                                             f'{KEEP} KEEP')
    if 'goal_obsolete' in reads and request.goal_obsolete != KEEP \
            and request.goal_obsolete not in GoalObsolete._value2member_map_:
        raise RequestError('goal_obsolete', f'{request.goal_obsolete} is not a goal-obsolete '
                                            f'behaviour: use 0 FINISH, 1 INTERRUPT or {KEEP} KEEP')
    if 'stale_after' in reads and not (
            math.isfinite(request.stale_after) and 0.0 <= request.stale_after <= MAX_STALE_AFTER):
        raise RequestError('stale_after', "must be 0 (the suite's idle time) to "
                                          f'{MAX_STALE_AFTER:g} s (got {request.stale_after!r})')
    pose = checked_pose('pose', *request.pose) if 'pose' in reads else None
    return replace(request, kind=kind, checked_pose=pose)


def _named(value: int, names: Dict[int, str]) -> Any:
    """Return the name of ``value`` (``KEEP``: 'keep'), or the value when it has none."""
    return 'keep' if value == KEEP else names.get(value, value)


def arguments(request: Request) -> Dict[str, Any]:
    """Return the arguments ``request``'s command reads, as the audit log writes them."""
    names = READS.get(Command(request.command), ()) \
        if request.command in Command._value2member_map_ else ()
    values: Dict[str, Any] = {name: getattr(request, name) for name in names}
    if 'mode' in values:
        values['mode'] = MODE_NAMES.get(request.mode, request.mode)  # type: ignore[call-overload]
    if 'following_mode' in values:
        values['following_mode'] = _named(request.following_mode,
                                          {m.value: m.name.lower() for m in FollowingMode})
    if 'goal_obsolete' in values:
        values['goal_obsolete'] = _named(request.goal_obsolete,
                                         {g.value: g.name.lower() for g in GoalObsolete})
    if 'pose' in values:
        values['pose'] = [round(v, 6) for v in request.pose]
    if 'index' in values:  # a waypoint is named by one of the two
        del values['index' if request.waypoint_id else 'waypoint_id']
    return values


__all__ = ['arguments', 'checked', 'OperatorId', 'Request', 'RequestError']
