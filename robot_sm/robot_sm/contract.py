"""
The contract between the suite and its tools: the names and numbers every surface uses.

Operation modes, following modes, activities, outcome codes, the gateway's commands and answer
codes, and the suite's topic, service and action names are defined here once, with the numbers of
``robot_sm_msgs`` (``test/test_contract.py`` holds them equal to the message constants) and the
words operators type (``robot-sm mode autonomy``, ``follow start --mode patrol``). Cores, nodes,
the client and every front-end take them from here; nothing here imports ROS.
"""

import enum
from typing import Dict, NamedTuple


class Answer(NamedTuple):
    """The answer to a request: whether it was carried out, and what was done or why not."""

    success: bool
    message: str


class Mode(enum.IntEnum):
    """Operation modes of the mux (``OperationMode.*``)."""

    STOPPED = 0
    AUTONOMOUS = 1
    TELEOPERATION = 2


#: The mode names operators type and see, by mode.
MODE_NAMES: Dict[Mode, str] = {Mode.STOPPED: 'stopped', Mode.AUTONOMOUS: 'autonomy',
                               Mode.TELEOPERATION: 'teleop'}
#: The modes by the names operators type.
MODES: Dict[str, Mode] = {name: mode for mode, name in MODE_NAMES.items()}


class FollowingMode(enum.IntEnum):
    """How the waypoint list is followed (``WaypointArray.SINGLE`` ...)."""

    SINGLE = 0
    ROUNDTRIP = 1
    PATROL = 2


#: The following modes by the names operators type (``single``, ``roundtrip``, ``patrol``).
FOLLOWING_MODES: Dict[str, FollowingMode] = {mode.name.lower(): mode for mode in FollowingMode}
#: ``Command.KEEP``: keep the list's own following mode (or exploration setting).
KEEP = 255


class Activity(enum.IntEnum):
    """What the robot is doing for an operator (``StateInfo.ACTIVITY_*``)."""

    NONE = 0
    WAYPOINT_FOLLOWING = 1
    EXPLORATION = 2
    SIMPLE_GOAL = 3
    TELEOPERATION = 4
    #: A plugin package's own activity, named by its state's ``ACTIVITY``.
    PLUGIN = 5

    @property
    def label(self) -> str:
        """Return the activity's name in words ('waypoint following'); '' for NONE."""
        return '' if self is Activity.NONE else self.name.lower().replace('_', ' ')


class Outcome(enum.IntEnum):
    """How a run of an activity ended (``StateInfo.OUTCOME_*``)."""

    NONE = 0
    SUCCEEDED = 1
    #: An operator stopped it: a stop request, a cancel.
    CANCELED = 2
    FAILED = 3
    #: The suite refused to start it.
    REFUSED = 4
    #: Teleoperation or another activity (a simple goal) took over.
    INTERRUPTED = 5
    STOPPED_BY_EMERGENCY_STOP = 6

    @property
    def label(self) -> str:
        """Return the outcome in words ('stopped by emergency stop')."""
        return self.name.lower().replace('_', ' ')


class Command(enum.IntEnum):
    """The command gateway's commands (``Command.srv``'s constants)."""

    SELECT_MODE = 1
    ENGAGE_EMERGENCY_STOP = 2
    RELEASE_EMERGENCY_STOP = 3
    START_WAYPOINT_FOLLOWING = 4
    STOP_WAYPOINT_FOLLOWING = 5
    START_EXPLORATION = 6
    STOP_EXPLORATION = 7
    GO_TO = 8
    CANCEL_GOAL = 9
    ADD_WAYPOINT = 10
    MOVE_WAYPOINT = 11
    REMOVE_WAYPOINT = 12
    SET_WAYPOINT_ROUTINE = 13
    REORDER_WAYPOINT = 14
    RESET_WAYPOINTS = 15
    SET_REVERSE = 16
    PAUSE = 17
    CONTINUE = 18
    ACQUIRE_CONTROL = 19
    TAKE_CONTROL = 20
    RELEASE_CONTROL = 21
    KEEP_CONTROL = 22

    @property
    def label(self) -> str:
        """Return the command's name as the audit log writes it ('select_mode')."""
        return self.name.lower()


class Code(enum.IntEnum):
    """How the gateway answered (``Command.Response.DONE`` ...)."""

    DONE = 0
    #: The suite refused (the e-stop, the state, the mux); nothing changed.
    REFUSED = 1
    #: An argument cannot be used; nothing changed.
    INVALID = 2
    #: Another operator holds control.
    NOT_IN_CONTROL = 3
    #: A part of the suite did not answer; it may or may not have been done.
    UNAVAILABLE = 4


class GoalObsolete(enum.IntEnum):
    """What exploration does when its goal is no longer a frontier (``GOAL_OBSOLETE_*``)."""

    FINISH = 0
    INTERRUPT = 1


#: The suite's nodes: a namespace that runs one of them is a robot (a suite) to the tools.
SUITE_NODES = ('robot_control_mux', 'service_provider', 'state_interface')

#: The colours (red, green, blue, alpha) of a waypoint by its status, in RViz, the panel and the
#: demo's pictures.
WAYPOINT_COLOURS = {'pending': (0.1, 0.35, 1.0, 1.0), 'visited': (0.1, 0.8, 0.2, 1.0),
                    'unreachable': (0.9, 0.1, 0.1, 1.0)}


def waypoint_status(visited: bool, unreachable: bool) -> str:
    """Return a waypoint's status: ``unreachable``, ``visited`` or ``pending``."""
    return 'unreachable' if unreachable else 'visited' if visited else 'pending'


#: The suite's topics, relative to its namespace.
STATE_INFO = 'robot_sm/state_info'
STATE = 'robot_sm/state'
STATE_OUTCOME = 'robot_sm/state_outcome'
CYCLE = 'robot_sm/cycle'
OPERATION_MODE = 'robot_sm/operation_mode'
SELECTED_INPUT = 'robot_sm/selected_input'
OPERATOR_PRESENT = 'robot_sm/operator_present'
#: Why the mux's e-stop is engaged (its reason), '' while released (std_msgs/String, latched).
EMERGENCY_STOP_CAUSE = 'robot_sm/emergency_stop_cause'
OPERATOR_HEARTBEAT = 'robot_sm/operator_heartbeat'
SUPERVISOR_HEARTBEAT = 'robot_sm/supervisor_heartbeat'
WAYPOINTS = 'robot_sm/waypoints'
REVERSE_MODE = 'robot_sm/reverse_mode'
SIMPLE_GOAL = 'robot_sm/simple_goal'
CONTROL = 'robot_sm/control'
AUDIT = 'robot_sm/audit'
#: The mux's records of STOPs and releases, which the gateway writes to the audit log (hidden).
MUX_AUDIT = 'robot_sm/_mux/audit'
#: The audit log as the gateway reads it back (robot_sm_msgs/srv/GetAudit).
GET_AUDIT = 'robot_sm/get_audit'
OPERATOR_CMD_VEL = 'robot_sm/operator_cmd_vel'

#: The command gateway (robot_sm_msgs/srv/Command), served by state_interface.
COMMAND = 'robot_sm/command'
#: The mux's own command service (robot_sm_msgs/srv/Command; a hidden name): a STOP from any
#: surface, naming its operator, goes straight here; the modes and releases come from the
#: gateway, which checked them.
MUX_COMMAND = 'robot_sm/_mux/command'
#: The service provider's command service (hidden): the waypoint edits and settings the gateway
#: checked and forwards.
STORE_COMMAND = 'robot_sm/_service_provider/command'

#: The activities as actions (robot_sm_msgs/action/...), served by state_interface.
FOLLOW_WAYPOINTS_ACTION = 'robot_sm/follow_waypoints'
EXPLORE_ACTION = 'robot_sm/explore'
GO_TO_ACTION = 'robot_sm/go_to'
