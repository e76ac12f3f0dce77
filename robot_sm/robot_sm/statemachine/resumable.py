"""
A paused activity and its place, and the file it is kept in across a restart.

Our activities are data: the waypoint list with its visited flags (kept by the service
provider), the goal, the exploration's failed goals. What the state machine itself must keep to
continue one is small: the activity, the role to continue at
(:data:`~robot_sm.statemachine.cycle.RESUME_ROLE`), what the transition carries (the goal, the
rounds in a row with every waypoint unreachable) and what a plugin state said it needs
(:meth:`~robot_sm.statemachine.base_state.BaseState.on_pause`: a routine's remaining time).
That is a :class:`Resumable`.

The state interface keeps the running activity's :class:`Resumable` in ``paused_activity.yaml``
(written by a background thread as the activity goes on, atomically; a corrupt file is set
aside), so that after a crash or a restart of the suite the robot comes up **paused** with it,
never running by itself, and continue resumes it. The format::

    format: robot_sm/paused_activity
    version: 1
    paused: true          # false: it was running when the suite stopped
    activity: waypoint_following
    name: waypoint following
    role: waypoint_following
    state: 'W: Navigation'
    since: '2026-11-28T10:17:05.120Z'
    unreachable_rounds: 0
    goal: null            # or the goal's pose, mode, waypoint and routine
    place: {}             # a plugin's own (a routine's remaining time)
"""

from dataclasses import dataclass, field
import math
from typing import Any, Dict, Mapping, Optional

from robot_sm.contract import Activity
from robot_sm.statemachine.cycle import Handover, Role
from robot_sm.storage import KeptFile
from robot_sm.waypoints.navigation_goal import NavigationGoal, NavigationMode
from robot_sm.waypoints.pose import Pose
import yaml

FORMAT = 'robot_sm/paused_activity'
VERSION = 1


class ResumableFormatError(ValueError):
    """The file's content is not a paused activity; the message says what is wrong."""


@dataclass(frozen=True)
class Resumable:
    """An activity and its place: enough to continue it."""

    activity: Activity
    #: The activity's name (a plugin's own, or the activity's label).
    name: str
    #: The role to continue at.
    role: Role
    #: The name of the state it was in ('W: Navigation').
    state: str
    goal: Optional[NavigationGoal] = None
    unreachable_rounds: int = 0
    place: Dict[str, Any] = field(default_factory=dict)
    #: True once an operator paused it; False while it runs (it comes back paused after all).
    paused: bool = False
    #: Wall-clock seconds of the pause (or of the last save while running).
    since: float = 0.0

    @property
    def handover(self) -> Handover:
        """Return what the transition to :attr:`role` carries."""
        return Handover(self.goal, self.unreachable_rounds)

    def describe(self) -> str:
        """Say what continue resumes, in words ('following round', 'simple goal to (2, 1)')."""
        if self.activity is Activity.WAYPOINT_FOLLOWING:
            return 'following round'
        if self.activity is Activity.SIMPLE_GOAL and self.goal is not None:
            return f'simple goal to ({self.goal.pose.x:g}, {self.goal.pose.y:g})'
        return self.name


def _goal_document(goal: NavigationGoal) -> Dict[str, Any]:
    p = goal.pose
    return {'pose': [p.x, p.y, p.z, p.qx, p.qy, p.qz, p.qw], 'mode': goal.mode.name.lower(),
            'waypoint_position': goal.waypoint_position, 'waypoint_id': goal.waypoint_id,
            'routine': goal.routine}


def _goal_of(document: Any) -> Optional[NavigationGoal]:
    if document is None:
        return None
    if not isinstance(document, dict):
        raise ResumableFormatError('goal must be a mapping or null')
    pose = document.get('pose')
    if not (isinstance(pose, list) and len(pose) == 7 and all(
            isinstance(v, (int, float)) and math.isfinite(v) for v in pose)):
        raise ResumableFormatError('goal.pose must be 7 finite numbers')
    try:
        mode = NavigationMode[str(document.get('mode', '')).upper()]
    except KeyError:
        raise ResumableFormatError(f"goal.mode {document.get('mode')!r} is not one") from None
    waypoint_id = document.get('waypoint_id')
    return NavigationGoal(Pose(*map(float, pose)), mode,
                          int(document.get('waypoint_position', -1)),
                          None if waypoint_id is None else int(waypoint_id),
                          str(document.get('routine', '')))


def to_document(resumable: Resumable, utc: str) -> Dict[str, Any]:
    """Return the YAML document of ``resumable`` (``utc``: its time as text)."""
    return {'format': FORMAT, 'version': VERSION, 'paused': resumable.paused,
            'activity': resumable.activity.name.lower(), 'name': resumable.name,
            'role': resumable.role.name.lower(), 'state': resumable.state, 'since': utc,
            'unreachable_rounds': resumable.unreachable_rounds,
            'goal': _goal_document(resumable.goal) if resumable.goal is not None else None,
            'place': dict(resumable.place)}


def from_document(document: Any) -> Optional[Resumable]:
    """
    Return the activity a document keeps (None: none was running).

    :raises ResumableFormatError: naming the first thing that is wrong.
    """
    if document is None:
        return None
    if not isinstance(document, dict):
        raise ResumableFormatError(f'it must hold a mapping (got {type(document).__name__})')
    if document.get('format') != FORMAT or document.get('version') != VERSION:
        raise ResumableFormatError(f'format must be {FORMAT} version {VERSION}')
    if document.get('activity') in (None, 'none'):
        return None
    try:
        activity = Activity[str(document['activity']).upper()]
        role = Role[str(document['role']).upper()]
    except KeyError as error:
        raise ResumableFormatError(f'unknown activity or role {error}') from None
    place = document.get('place') or {}
    if not isinstance(place, dict):
        raise ResumableFormatError('place must be a mapping')
    return Resumable(activity, str(document.get('name', activity.label)), role,
                     str(document.get('state', '')), _goal_of(document.get('goal')),
                     int(document.get('unreachable_rounds', 0)), place, True)


class ResumableFile(KeptFile):
    """The file a running or paused activity is kept in."""

    def load(self, now: float) -> 'ResumableLoad':
        """
        Return the activity to come up paused with (none without a file, or an empty one).

        A file that cannot be read or is not a paused activity is moved aside and nothing is
        resumed: the robot comes up idle, saying why.
        """
        reading = self.read(now, lambda text: from_document(yaml.safe_load(text)),
                            'a paused activity', ResumableFormatError)
        if reading.problem:
            return ResumableLoad(None, f'{self.path} {reading.problem}; moved it to '
                                       f'{reading.moved_to}: nothing to continue')
        return ResumableLoad(reading.content)

    def save(self, record: Mapping[str, Any]) -> None:
        """
        Write a document (or an empty one when nothing runs) atomically.

        :raises OSError: if the file cannot be written; the old file is then unchanged.
        """
        self.write(yaml.safe_dump(dict(record), sort_keys=False))


@dataclass(frozen=True)
class ResumableLoad:
    """What the state interface starts with: the activity to continue, or why there is none."""

    resumable: Optional[Resumable] = None
    problem: str = ''
