"""The numbers of the state machine: interrupts, goal modes and statuses, roles of states."""

import enum


class Interrupt(enum.IntEnum):
    """What interrupts a state (numbers as in RSM)."""

    #: The condition of the last e-stop or teleoperation interrupt has ended.
    INTERRUPT_END = 0
    #: The emergency stop was engaged.
    EMERGENCY_STOP = 1
    #: An operator took over with teleoperation.
    TELEOPERATION = 2
    #: An operator sent a simple goal (RViz "2D Goal Pose").
    SIMPLE_GOAL = 3
    #: An operator stopped the simple goal.
    SIMPLE_GOAL_STOP = 4


class NavigationMode(enum.IntEnum):
    """What a navigation goal is for (robot_sm_msgs/SetNavigationGoal)."""

    EXPLORATION = 0
    WAYPOINT_FOLLOWING = 1
    SIMPLE_GOAL = 2


class GoalStatus(enum.IntEnum):
    """How a goal ended (robot_sm_msgs/GoalStatus)."""

    ACTIVE = 0
    REACHED = 1
    FAILED = 2
    ABORTED = 3


class OperationMode(enum.IntEnum):
    """Who may move the base (robot_sm_msgs/OperationMode)."""

    STOPPED = 0
    AUTONOMOUS = 1
    TELEOPERATION = 2


class FollowingMode(enum.IntEnum):
    """Waypoint following modes (robot_sm_msgs/WaypointArray)."""

    SINGLE = 0
    ROUNDTRIP = 1
    PATROL = 2


class Role(enum.Enum):
    """
    The part a state plays in the operating cycle.

    Every role is filled by a plugin from the entry-point group ``robot_sm.states``, named by a
    parameter of the state interface (see :data:`ROLE_PARAMETERS`); routines are named by the
    waypoint (``<routine>Routine``).
    """

    BOOT = 'boot'
    IDLE = 'idle'
    TELEOPERATION = 'teleoperation'
    EMERGENCY_STOP = 'emergency stop'
    WAYPOINT_FOLLOWING = 'waypoint following'
    CALCULATE_GOAL = 'calculate goal'
    NAVIGATION = 'navigation'
    MAPPING = 'mapping'
    ROUTINE = 'routine'


#: The parameter that names the plugin of each role, and its default.
ROLE_PARAMETERS = {
    Role.BOOT: ('boot_state', 'Boot'),
    Role.IDLE: ('idle_state', 'Idle'),
    Role.TELEOPERATION: ('teleoperation_state', 'Teleoperation'),
    Role.EMERGENCY_STOP: ('emergency_stop_state', 'EmergencyStop'),
    Role.WAYPOINT_FOLLOWING: ('waypoint_following_state', 'WaypointFollowing'),
    Role.CALCULATE_GOAL: ('calculate_goal_plugin', 'CalculateGoal'),
    Role.NAVIGATION: ('navigation_plugin', 'Navigation'),
    Role.MAPPING: ('mapping_plugin', 'MappingDummy'),
}

#: Suffix of the plugin that runs a waypoint routine: routine ``Wait`` is plugin ``WaitRoutine``.
ROUTINE_SUFFIX = 'Routine'

#: The entry-point group of plugin states.
ENTRY_POINT_GROUP = 'robot_sm.states'
