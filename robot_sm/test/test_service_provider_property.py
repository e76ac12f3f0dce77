"""
Random sequences of service calls over DDS never break the service_provider node.

Every call must be answered; a refused call must leave the list as it was; and after every call
the ids are unique, the navigation goal's waypoint index is valid, and the waypoints file holds
exactly the list the node reports. (The rules themselves are checked against a model, with many
more examples, in test_waypoints_property.py.)
"""

import math
import pathlib
import threading
from typing import Any, Dict, List, Tuple

from geometry_msgs.msg import Point, Pose, Quaternion
from hypothesis import given, HealthCheck, settings, strategies as st
from robot_sm.nodes.service_provider import ServiceProvider
from robot_sm.testing import RosHarness
from robot_sm.waypoints import WaypointFile
from robot_sm_msgs.msg import GoalStatus, Waypoint, WaypointArray
from robot_sm_msgs.srv import (
    AddFailedGoal,
    AddWaypoint,
    GetNavigationGoal,
    GetWaypoints,
    GoalCompleted,
    MoveWaypoint,
    RemoveWaypoint,
    SetNavigationGoal,
    SetWaypointFollowingMode,
    SetWaypointRoutine,
    WaypointUnreachable,
    WaypointVisited,
)
from std_srvs.srv import Trigger

SERVICES = {
    'add_waypoint': AddWaypoint, 'get_waypoints': GetWaypoints, 'move_waypoint': MoveWaypoint,
    'remove_waypoint': RemoveWaypoint, 'waypoint_visited': WaypointVisited,
    'waypoint_unreachable': WaypointUnreachable, 'reset_waypoints': Trigger,
    'set_waypoint_following_mode': SetWaypointFollowingMode,
    'set_waypoint_routine': SetWaypointRoutine, 'set_navigation_goal': SetNavigationGoal,
    'get_navigation_goal': GetNavigationGoal, 'navigation_goal_completed': GoalCompleted,
    'add_failed_goal': AddFailedGoal,
}

# Mostly valid values, so that lists grow, with invalid ones mixed in.
positions = st.integers(min_value=-2, max_value=5)
numbers = st.one_of(st.floats(min_value=-10.0, max_value=10.0), st.integers(-3, 3).map(float),
                    st.sampled_from([0.5, 1.0, 2.0, math.nan, math.inf]))
quaternions = st.sampled_from([(0.0, 0.0, 0.0, 1.0)] * 3 + [
    (0.0, 0.0, 1.0, 1.0), (0.0, 0.0, 0.0, 0.0), (math.nan, 0.0, 0.0, 1.0)])
routines = st.sampled_from(['', '', 'Wait', 'Dance'])


def pose(x: float, quaternion: Tuple[float, float, float, float]) -> Pose:
    qx, qy, qz, qw = quaternion
    return Pose(position=Point(x=x), orientation=Quaternion(x=qx, y=qy, z=qz, w=qw))


def add_request(x: float, q: Any, position: int, routine: str) -> Any:
    return AddWaypoint.Request(waypoint=Waypoint(pose=pose(x, q), routine=routine),
                               position=position)


def completed_request(status: int, navigation: bool) -> Any:
    return GoalCompleted.Request(status=GoalStatus(goal_status=status),
                                 navigation_status=navigation)


adds = st.builds(lambda *a: ('add_waypoint', add_request(*a)), numbers, quaternions, positions,
                 routines)
calls = st.one_of(
    adds, adds, adds,
    st.builds(lambda p, x, q: ('move_waypoint', MoveWaypoint.Request(position=p, pose=pose(x, q))),
              positions, numbers, quaternions),
    st.builds(lambda p: ('remove_waypoint', RemoveWaypoint.Request(position=p)), positions),
    st.builds(lambda p: ('waypoint_visited', WaypointVisited.Request(position=p)), positions),
    st.builds(lambda p: ('waypoint_unreachable', WaypointUnreachable.Request(position=p)),
              positions),
    st.just(('reset_waypoints', Trigger.Request())),
    st.builds(lambda m, r: ('set_waypoint_following_mode',
                            SetWaypointFollowingMode.Request(mode=m, reverse=r)),
              st.integers(min_value=0, max_value=3), st.booleans()),
    st.builds(lambda p, r: ('set_waypoint_routine', SetWaypointRoutine.Request(
        position=p, routine=r)), positions, routines),
    st.builds(lambda m, p, q: ('set_navigation_goal', SetNavigationGoal.Request(
        goal=pose(1.0, q), navigation_mode=m, waypoint_position=p)),
        st.integers(min_value=-2, max_value=3), positions, quaternions),
    st.builds(lambda s, n: ('navigation_goal_completed', completed_request(s, n)),
              st.integers(min_value=0, max_value=5), st.booleans()),
    st.builds(lambda x, q: ('add_failed_goal', AddFailedGoal.Request(goal=pose(x, q))),
              numbers, quaternions),
)


class Caller:
    """Long-lived clients on the probe node (one per service), so calls cost no discovery."""

    def __init__(self, ros: RosHarness) -> None:
        self.clients: Dict[str, Any] = {}
        for name, srv in SERVICES.items():
            client = ros.probe.create_client(srv, f'robot_sm/{name}')
            assert client.wait_for_service(timeout_sec=10.0), name
            self.clients[name] = client

    def __call__(self, name: str, request: Any = None) -> Any:
        client = self.clients[name]
        future = client.call_async(request if request is not None else client.srv_type.Request())
        done = threading.Event()
        future.add_done_callback(lambda _: done.set())
        assert done.wait(10.0), f'{name} did not answer: the node is stuck or gone'
        return future.result()


def content(array: WaypointArray) -> List[tuple]:
    return [(w.id, w.pose.position.x, w.pose.orientation.z, w.pose.orientation.w, w.visited,
             w.unreachable, w.routine) for w in array.waypoints] + [(array.mode, array.reverse)]


def file_content(file: WaypointFile) -> List[tuple]:
    waypoints = file.load(0.0).waypoints
    return [(w.id, w.pose.x, w.pose.qz, w.pose.qw, w.visited, w.unreachable, w.routine)
            for w in waypoints.waypoints] + [(int(waypoints.mode), waypoints.reverse)]


def test_random_service_calls_keep_the_invariants(ros: RosHarness,
                                                  tmp_path: pathlib.Path) -> None:
    file = WaypointFile(tmp_path / 'waypoints.yaml')
    ros.start_node(ServiceProvider, parameters={'waypoints_file': str(file.path),
                                                'waypoint_routines': ['Wait']})
    call = Caller(ros)

    @settings(max_examples=50, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])
    @given(st.integers(min_value=0, max_value=4), st.lists(calls, min_size=4, max_size=20))
    def check(initial: int, sequence: List[Tuple[str, Any]]) -> None:
        # Start every example from ``initial`` fresh waypoints in SINGLE mode.
        while call('get_waypoints').waypoint_array.waypoints:
            assert call('remove_waypoint', RemoveWaypoint.Request(position=0)).success
        call('set_waypoint_following_mode', SetWaypointFollowingMode.Request(mode=0))
        for index in range(initial):
            request = add_request(float(index), (0.0, 0.0, 0.0, 1.0), -1, '')
            assert call('add_waypoint', request).success
        before = content(call('get_waypoints').waypoint_array)
        for name, request in sequence:
            response = call(name, request)
            array = call('get_waypoints').waypoint_array
            after = content(array)
            if not response.success:
                assert after == before, f'{name} failed ({response.message}) but changed things'
            ids = [w.id for w in array.waypoints]
            assert len(set(ids)) == len(ids)
            goal = call('get_navigation_goal')
            assert -1 <= goal.waypoint_position < len(ids)
            assert file_content(file) == after
            before = after

    check()
