"""The numbers of the state machine: interrupts, goal modes and statuses, roles of states."""

import enum

# The numbers shared with the service provider and the mux: one definition each.
from robot_sm.mux.control_mux import Mode as OperationMode
from robot_sm.waypoints.navigation_goal import GoalStatus, NavigationMode

__all__ = ['ENTRY_POINT_GROUP', 'GoalStatus', 'Interrupt', 'NavigationMode', 'OperationMode',
           'Role', 'ROLE_PARAMETERS', 'ROUTINE_SUFFIX']


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
