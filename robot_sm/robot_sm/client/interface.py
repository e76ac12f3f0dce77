"""
The suite's services and latched topics that :class:`robot_sm.client.SuiteClient` uses.

A client made for one call discovers what it calls as it goes. A client kept for many (the
robot-sm daemon's) makes them all at once (:meth:`robot_sm.client.SuiteClient.prepare`), so that
discovery happens before the first command rather than during it.
"""

from robot_sm.contract import (
    COMMAND,
    CONTROL,
    CYCLE,
    GET_AUDIT,
    MUX_COMMAND,
    OPERATION_MODE,
    REVERSE_MODE,
    SELECTED_INPUT,
    STATE,
    STATE_INFO,
    WAYPOINTS,
)
from robot_sm_msgs import srv
from robot_sm_msgs.msg import ControlState, OperationMode, StateInfo, WaypointArray
from std_msgs.msg import Bool, String
from std_srvs.srv import Trigger

#: Every service a SuiteClient calls: (type, name relative to the namespace).
SERVICES = (
    (srv.Command, COMMAND),
    (srv.Command, MUX_COMMAND),
    (srv.GetRobotPose, 'robot_sm/get_robot_pose'),
    (srv.GetWaypoints, 'robot_sm/get_waypoints'),
    (srv.GetWaypointRoutines, 'robot_sm/get_waypoint_routines'),
    (Trigger, 'robot_sm/state_info'),
    (srv.GetAudit, GET_AUDIT),
)
#: The transient-local topics the status is read from: (type, name relative to the namespace).
STATUS_TOPICS = (
    (String, STATE_INFO),
    (StateInfo, STATE),
    (OperationMode, OPERATION_MODE),
    (String, SELECTED_INPUT),
    (WaypointArray, WAYPOINTS),
    (Bool, REVERSE_MODE),
    (ControlState, CONTROL),
)
#: Every transient-local topic a SuiteClient reads.
LATCHED_TOPICS = STATUS_TOPICS + ((String, CYCLE),)
