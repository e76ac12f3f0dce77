"""
The Python API for operating running robot_sm suites: the calls behind every operator front-end.

Every operator action is one method of :class:`SuiteClient` that returns a :class:`Result`
(``success``, ``message``, optional ``data``) the way the suite answered it, or raises
:class:`SuiteUnavailable` when the service or topic it needs does not answer within the timeout.
:class:`FleetClient` follows every suite on the domain, and a long activity (waypoint
following, exploration, a simple goal) can be started as a :class:`Task` to follow, wait for and
cancel (:mod:`~robot_sm.client.tasks`).

    from robot_sm.client import SuiteClient

    with SuiteClient(timeout=3.0) as suite:
        suite.add_waypoint(1.0, 2.0, yaw=0.5, routine='Wait')
        task = suite.follow_waypoints('roundtrip')
        print(task.wait(timeout=300.0).status)
"""

from robot_sm.client.connection import MODE_NAMES, operator, operator_name, Result
from robot_sm.client.connection import SuiteUnavailable
from robot_sm.client.control_calls import AuditRecord, ControlInfo
from robot_sm.client.fleet import Acknowledgement, FleetClient, RobotStatus
from robot_sm.client.status import (
    FOLLOWING_MODE_NAMES,
    held_because,
    ModeState,
    Status,
    waypoint_infos,
    WaypointInfo,
)
from robot_sm.client.suite_client import SuiteClient
from robot_sm.client.tasks import Task, TaskFeedback, TaskResult, TaskStatus, WaitTimeout

__all__ = ['Acknowledgement', 'AuditRecord', 'ControlInfo', 'FleetClient',
           'FOLLOWING_MODE_NAMES', 'held_because',
           'MODE_NAMES', 'ModeState', 'operator', 'operator_name', 'Result', 'RobotStatus',
           'Status', 'SuiteClient', 'SuiteUnavailable', 'Task', 'TaskFeedback', 'TaskResult',
           'TaskStatus', 'WaitTimeout', 'waypoint_infos', 'WaypointInfo']
