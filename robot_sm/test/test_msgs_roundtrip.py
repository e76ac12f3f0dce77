"""The generated robot_sm_msgs types work between processes over DDS."""

import math
import pathlib
import sys

from robot_sm.qos import STATE
from robot_sm.testing import ros_args, RosHarness
from robot_sm_msgs.msg import OperationMode, Waypoint, WaypointArray
from robot_sm_msgs.srv import AddWaypoint

FIXTURE = pathlib.Path(__file__).parent / 'fixtures' / 'waypoint_echo_server.py'


def test_waypoint_service_round_trip_between_processes(ros: RosHarness) -> None:
    server = ros.start_process(
        [sys.executable, str(FIXTURE), *ros_args(namespace=ros.namespace)])
    waypoints = ros.record(WaypointArray, 'robot_sm/waypoints', STATE)

    request = AddWaypoint.Request(position=-1)
    request.waypoint = Waypoint(routine='Wait', id=41)
    request.waypoint.pose.position.x = 1.5
    request.waypoint.pose.position.y = -2.0
    request.waypoint.pose.orientation.z = math.sin(0.25)
    request.waypoint.pose.orientation.w = math.cos(0.25)
    response = ros.call(AddWaypoint, 'robot_sm/add_waypoint', request, timeout=20.0)

    assert response.success, server.output
    assert response.message == 'Wait at (1.5, -2) before -1'
    assert response.id == 42
    array = waypoints.wait_for(lambda msg: len(msg.waypoints) == 1)
    assert array.mode == WaypointArray.PATROL and array.reverse
    assert array.header.frame_id == 'map'
    received = array.waypoints[0]
    assert received.id == 41 and received.routine == 'Wait'
    assert received.pose.orientation.z == request.waypoint.pose.orientation.z


def test_constants_match_the_contract() -> None:
    assert (OperationMode.STOPPED, OperationMode.AUTONOMOUS, OperationMode.TELEOPERATION) == \
        (0, 1, 2)
    assert (WaypointArray.SINGLE, WaypointArray.ROUNDTRIP, WaypointArray.PATROL) == (0, 1, 2)
