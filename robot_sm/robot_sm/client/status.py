"""What the suite shows an operator: its status, its waypoints, the mux's mode, as plain values."""

from dataclasses import dataclass, field
from typing import Any, List, NamedTuple, Optional, Tuple

from robot_sm.contract import Activity, FOLLOWING_MODES, Mode, MODE_NAMES, Outcome
from robot_sm.planar import yaw_from_quaternion
from robot_sm_msgs.msg import StateInfo, WaypointArray
from std_msgs.msg import Bool

#: Waypoint following mode names, by number.
FOLLOWING_MODE_NAMES = {int(value): name for name, value in FOLLOWING_MODES.items()}

#: Whether the mux hears the operator heartbeat it watches (transient_local; false before the
#: first beat and once it falls silent). Only a mux with a heartbeat topic publishes it.
OPERATOR_PRESENT = 'robot_sm/operator_present'


@dataclass
class WaypointInfo:
    """One waypoint as an operator sees it."""

    index: int
    waypoint_id: int
    x: float
    y: float
    yaw: float
    routine: str
    visited: bool
    unreachable: bool

    @property
    def status(self) -> str:
        """Return pending, visited or unreachable."""
        return 'unreachable' if self.unreachable else 'visited' if self.visited else 'pending'


@dataclass
class Status:
    """What the suite is doing, from its latched topics and the robot pose service."""

    state: Optional[str] = None
    #: What the robot is doing ('waypoint following'; '' for nothing), from ``robot_sm/state``.
    activity: Optional[str] = None
    #: How the last activity ended ("exploration succeeded: exploration finished"), if known.
    outcome: Optional[str] = None
    #: What continue resumes ('following round, waypoint 3 of 5'); None: nothing is paused.
    paused: Optional[str] = None
    mode: Optional[str] = None
    emergency_stop: Optional[bool] = None
    #: The mux's input that drives the base (``none`` when nothing does).
    selected_input: Optional[str] = None
    waypoints: List[WaypointInfo] = field(default_factory=list)
    following_mode: Optional[str] = None
    following_reverse: Optional[bool] = None
    driving_reverse: Optional[bool] = None
    pose: Optional[Tuple[float, float, float]] = None
    pose_error: Optional[str] = None
    #: Why autonomy does not move the robot now, and what to do ('' when nothing holds it):
    #: :func:`held_because` of the mode and e-stop.
    held: str = ''
    #: Who holds control (a :class:`robot_sm.client.control_calls.ControlInfo`), if known.
    control: Any = None

    def read_state(self, info: StateInfo) -> None:
        """Take the activity, how the last one ended and a paused one from the typed state."""
        self.activity = activity_name(info.activity, info.activity_name)
        self.outcome = last_outcome(info)
        self.paused = str(info.resumable) if info.paused else None


def activity_name(activity: int, name: str = '') -> str:
    """Return an activity's name in words ('' for none)."""
    if activity == Activity.PLUGIN:
        return name
    return Activity(activity).label if activity in Activity._value2member_map_ else name


def last_outcome(info: StateInfo) -> Optional[str]:
    """Return how the last activity ended, in words ('exploration succeeded: ...'); None: none."""
    if info.last_outcome == Outcome.NONE:
        return None
    outcome = Outcome(info.last_outcome).label if info.last_outcome in \
        Outcome._value2member_map_ else str(info.last_outcome)
    what = activity_name(info.last_activity)
    text = f': {info.last_outcome_text}' if info.last_outcome_text else ''
    return f'{what} {outcome}{text}'.strip()


def held_because(mode: Optional[str], emergency_stop: Optional[bool],
                 operator_heard: Optional[bool] = None) -> str:
    """
    Say why the robot does not move on its own in ``mode``, and what to do; '' if it can.

    ``mode`` is a name of :data:`robot_sm.client.MODES` (None: not known yet).
    ``operator_heard`` is whether the mux hears the operator heartbeat it watches
    (``robot_sm/operator_present``); None where it watches none, or it is not known.
    """
    if emergency_stop:
        return ('the e-stop is engaged: release it (robot-sm estop off, or '
                'robot_sm/emergency_stop false), then select a mode or start an activity')
    if operator_heard is False:
        return ('the operator is not heard yet: the robot stays STOPPED and refuses modes and '
                'starts until its operator heartbeat arrives (robot-sm connect, the rqt panel '
                'or an operator page of the web console)')
    if mode == MODE_NAMES[Mode.STOPPED]:
        return ('the mux is STOPPED (as after every start of the suite): start an activity, '
                'which selects autonomy, or select a mode (robot-sm mode autonomy)')
    if mode == MODE_NAMES[Mode.TELEOPERATION]:
        return 'teleoperation: only the operator drives (robot-sm mode autonomy hands back)'
    return ''


def operator_heard(suite: Any) -> Optional[bool]:
    """
    Return whether the mux of ``suite`` (a SuiteClient) hears its operator heartbeat.

    None where it watches none (nothing publishes :data:`OPERATOR_PRESENT`) or says nothing
    within the client's timeout. Subscribe early (``suite.latched(Bool, OPERATOR_PRESENT,
    wait=False)``) and the answer is there when it is asked.
    """
    from robot_sm.client.connection import SuiteUnavailable
    node = suite.node
    if node.count_publishers(node.resolve_topic_name(OPERATOR_PRESENT)) == 0:
        return None
    try:
        return bool(suite.latched(Bool, OPERATOR_PRESENT).data)
    except SuiteUnavailable:  # the mux went away meanwhile
        return None


class ModeState(NamedTuple):
    """The mux's operation mode as :meth:`SuiteClient.wait_for_mode` found it."""

    mode: str
    emergency_stop: bool


def waypoint_infos(array: WaypointArray) -> List[WaypointInfo]:
    """Return the waypoints of ``array`` as :class:`WaypointInfo` rows."""
    infos = []
    for index, waypoint in enumerate(array.waypoints):
        p, q = waypoint.pose.position, waypoint.pose.orientation
        infos.append(WaypointInfo(index, waypoint.id, p.x, p.y,
                                  yaw_from_quaternion(q.x, q.y, q.z, q.w), waypoint.routine,
                                  waypoint.visited, waypoint.unreachable))
    return infos
