"""
Built-in navigation on an occupancy grid.

A costmap with inflation, a shortest-path planner and a pure-pursuit path follower, used by the
Navigation plugin when Nav2 is not in use.
"""

from robot_sm.navigation.config import NavigatorConfig
from robot_sm.navigation.costmap import Costmap
from robot_sm.navigation.navigator import GridNavigator, NavigationStatus, NavigationStep
from robot_sm.navigation.planner import NoPathError, plan_path
from robot_sm.navigation.pure_pursuit import PurePursuit, VelocityCommand

__all__ = ['Costmap', 'GridNavigator', 'NavigationStatus', 'NavigationStep', 'NavigatorConfig',
           'NoPathError', 'plan_path', 'PurePursuit', 'VelocityCommand']
