"""
Waypoint store, selection rules and persistence of the service provider (no ROS imports).

- :mod:`.pose`: validated poses (:func:`~.pose.checked_pose`) and goal distances.
- :mod:`.waypoint_list`: the immutable waypoint list with stable ids and the index rules.
- :mod:`.selection`: which waypoint is next and what a following mode does at a round's end
  (the rules; the waypoint-following state picks the next, ``finish_round`` ends a round).
- :mod:`.navigation_goal`: the navigation goal and RSM's exploration status rule.
- :mod:`.data_store`: everything the service provider holds, with the completion rules, the
  failed-goal blacklist and the goal-obsolete check; :mod:`.settings` its settings.
- :mod:`.persistence`: the YAML waypoints file, written atomically.
"""

from robot_sm.storage import PersistenceError
from robot_sm.waypoints.data_store import DataStore
from robot_sm.waypoints.errors import RequestError, SaveError, StoreError
from robot_sm.waypoints.navigation_goal import GoalStatus, NavigationGoal, NavigationMode
from robot_sm.waypoints.persistence import LoadResult, WaypointFile
from robot_sm.waypoints.pose import checked_pose, Pose
from robot_sm.waypoints.selection import (
    next_waypoint_index,
    patrol_endpoint,
    round_end,
    RoundEnd,
)
from robot_sm.waypoints.settings import STORE_PARAMETERS, StoreSettings
from robot_sm.waypoints.waypoint_list import FollowingMode, Waypoint, WaypointList

__all__ = [
    'checked_pose', 'DataStore', 'FollowingMode', 'GoalStatus', 'LoadResult', 'NavigationGoal',
    'NavigationMode', 'next_waypoint_index', 'patrol_endpoint', 'PersistenceError', 'Pose',
    'RequestError', 'round_end', 'RoundEnd', 'SaveError', 'STORE_PARAMETERS', 'StoreError',
    'StoreSettings', 'Waypoint', 'WaypointFile', 'WaypointList',
]
