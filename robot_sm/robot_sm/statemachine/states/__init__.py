"""The built-in states: Boot, Idle, Teleoperation, Emergency Stop, Waypoint Following, Paused."""

from robot_sm.statemachine.states.boot import Boot
from robot_sm.statemachine.states.emergency_stop import EmergencyStop
from robot_sm.statemachine.states.idle import Idle
from robot_sm.statemachine.states.paused import Paused
from robot_sm.statemachine.states.teleoperation import Teleoperation
from robot_sm.statemachine.states.waypoint_following import WaypointFollowing

__all__ = ['Boot', 'EmergencyStop', 'Idle', 'Paused', 'Teleoperation', 'WaypointFollowing']
