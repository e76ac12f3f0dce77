"""
The suite's services and latched topics that :class:`robot_sm.client.SuiteClient` uses.

A client made for one call discovers what it calls as it goes. A client kept for many (the
robot-sm daemon's) makes them all at once (:meth:`robot_sm.client.SuiteClient.prepare`), so that
discovery happens before the first command rather than during it.
"""

from geometry_msgs.msg import PoseStamped
from robot_sm.client.connection import OPERATION_MODE, STATE_INFO, STATE_OUTCOME, WAYPOINTS
from robot_sm_msgs import srv
from robot_sm_msgs.msg import OperationMode, WaypointArray
from std_msgs.msg import Bool, String
from std_srvs.srv import SetBool, Trigger

#: Every service a SuiteClient calls: (type, name relative to the namespace).
SERVICES = (
    (SetBool, 'robot_sm/emergency_stop'),
    (srv.SetOperationMode, 'robot_sm/set_operation_mode'),
    (srv.GetRobotPose, 'robot_sm/get_robot_pose'),
    (srv.GetWaypoints, 'robot_sm/get_waypoints'),
    (srv.AddWaypoint, 'robot_sm/add_waypoint'),
    (srv.MoveWaypoint, 'robot_sm/move_waypoint'),
    (srv.RemoveWaypoint, 'robot_sm/remove_waypoint'),
    (srv.SetWaypointRoutine, 'robot_sm/set_waypoint_routine'),
    (srv.GetWaypointRoutines, 'robot_sm/get_waypoint_routines'),
    (Trigger, 'robot_sm/reset_waypoints'),
    (srv.SetWaypointFollowingMode, 'robot_sm/set_waypoint_following_mode'),
    (SetBool, 'robot_sm/start_stop_waypoint_following'),
    (Trigger, 'robot_sm/get_exploration_mode'),
    (SetBool, 'robot_sm/set_exploration_mode'),
    (SetBool, 'robot_sm/start_stop_exploration'),
    (Trigger, 'robot_sm/stop_2d_nav_goal'),
    (SetBool, 'robot_sm/set_reverse_mode'),
    (Trigger, 'robot_sm/state_info'),
)
#: The transient-local topics the status is read from: (type, name relative to the namespace).
STATUS_TOPICS = (
    (String, STATE_INFO),
    (OperationMode, OPERATION_MODE),
    (String, 'robot_sm/selected_input'),
    (WaypointArray, WAYPOINTS),
    (Bool, 'robot_sm/reverse_mode'),
    (String, STATE_OUTCOME),
)
#: Every transient-local topic a SuiteClient reads.
LATCHED_TOPICS = STATUS_TOPICS + ((String, 'robot_sm/cycle'),)
#: The topic a SuiteClient publishes simple goals on.
SIMPLE_GOAL = (PoseStamped, 'robot_sm/simple_goal')
