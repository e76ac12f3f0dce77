"""Names shared with the rest of the suite: the plugins' entry-point group, routine plugins."""

# The mux's numbers: one definition.
from robot_sm.contract import Mode as OperationMode

__all__ = ['ENTRY_POINT_GROUP', 'OperationMode', 'ROUTINE_SUFFIX']

#: Suffix of the plugin that runs a waypoint routine: routine ``Wait`` is plugin ``WaitRoutine``.
ROUTINE_SUFFIX = 'Routine'

#: The entry-point group of plugin states.
ENTRY_POINT_GROUP = 'robot_sm.states'
