"""The data store's settings and the specification of each of the parameters that set them."""

from dataclasses import dataclass
from typing import List, Optional, Sequence

from robot_sm.parameters import defaults, Param, Settings


def _routine_names(names: List[str]) -> Optional[str]:
    if not all(names):
        return 'must not hold empty names'
    if len(set(names)) != len(names):
        return 'must not name a routine twice'
    return None


STORE_PARAMETERS = (
    Param('waypoint_routines', (), 'Routines a waypoint may name (each run by the plugin '
          'state <Name>Routine); what get_waypoint_routines returns.', kind='str_list',
          check=_routine_names),
    Param('failed_goal_tolerance', 0.05,
          'Failed goals closer than this (m, Euclidean) are recorded once.', minimum=0.0),
    Param('exploration_goal_tolerance', 0.05, 'An exploration goal stays valid while an '
          'exploration goal lies within this distance (m, Euclidean).', minimum=0.0),
)
_default = defaults(STORE_PARAMETERS)


@dataclass(frozen=True)
class StoreSettings(Settings):
    """The routines waypoints may name, and the radii within which two goals count as one."""

    SPECS = STORE_PARAMETERS

    waypoint_routines: Sequence[str] = _default('waypoint_routines')
    failed_goal_tolerance: float = _default('failed_goal_tolerance')
    exploration_goal_tolerance: float = _default('exploration_goal_tolerance')
