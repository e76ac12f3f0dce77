"""
Bursts of service requests: every request is carried out in order and answered.

A fleet dashboard or a script sends many requests at once. With rmw's default service profile
(the newest 10 kept) a burst lost most of them without an answer: the requests overwrote each
other in the server's queue before the executor took them. Here 200 requests go out at once, from
one client and from several, to a service of each node that has services.
"""

import pathlib
import threading
import time
from typing import Any, Callable, List, Tuple

from geometry_msgs.msg import Point, Pose, Quaternion
import pytest
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from robot_sm.client import SuiteClient
from robot_sm.nodes.robot_control_mux import RobotControlMux
from robot_sm.nodes.service_provider import ServiceProvider
from robot_sm.nodes.state_interface import StateInterface
from robot_sm.testing import RosHarness
from robot_sm_msgs.msg import OperationMode
from robot_sm_msgs.srv import AddWaypoint, SetOperationMode
from std_srvs.srv import Trigger
import yaml

BURST = 200
WAIT = 60.0
#: The callers keep every answer too (a client with the default profile drops them).
CALLER = QoSProfile(history=HistoryPolicy.KEEP_ALL, reliability=ReliabilityPolicy.RELIABLE)


def add_waypoint(index: int) -> AddWaypoint.Request:
    request = AddWaypoint.Request(position=-1)
    request.waypoint.pose = Pose(position=Point(x=float(index)), orientation=Quaternion(w=1.0))
    return request


def set_mode(index: int) -> SetOperationMode.Request:
    request = SetOperationMode.Request()
    request.operation_mode.mode = (OperationMode.STOPPED, OperationMode.TELEOPERATION)[index % 2]
    return request


def burst(ros: RosHarness, srv_type: Any, name: str, make: Callable[[int], Any],
          clients: int) -> List[List[Any]]:
    """Send ``BURST`` requests at once from ``clients`` clients; return answers per client."""
    callers = [ros.probe.create_client(srv_type, name, qos_profile=CALLER)
               for _ in range(clients)]
    for caller in callers:
        assert caller.wait_for_service(timeout_sec=WAIT)
    share = BURST // clients
    futures = [[caller.call_async(make(c * share + i)) for i in range(share)]
               for c, caller in enumerate(callers)]
    answered: List[List[Tuple[int, Any]]] = [[] for _ in callers]
    lock = threading.Lock()
    for c, client_futures in enumerate(futures):
        for i, future in enumerate(client_futures):
            def done(finished: Any, c: int = c, i: int = i) -> None:
                with lock:
                    answered[c].append((i, finished.result()))
            future.add_done_callback(done)
    deadline = time.monotonic() + WAIT
    while sum(map(len, answered)) < BURST and time.monotonic() < deadline:
        time.sleep(0.01)
    with lock:
        counts = [len(a) for a in answered]
        assert counts == [share] * clients, f'answered {counts} of {share} per client'
        # Answers in the order asked (the done callbacks run on the probe's executor threads,
        # in any order; the order the server carried them out shows in the answers themselves).
        return [[answer for _, answer in sorted(a, key=lambda item: item[0])] for a in answered]


@pytest.mark.parametrize('clients', [1, 4])
def test_a_burst_of_add_waypoint_is_answered_and_stored(
        ros: RosHarness, tmp_path: pathlib.Path, clients: int) -> None:
    path = tmp_path / 'waypoints.yaml'
    ros.start_node(ServiceProvider, {'waypoints_file': str(path), 'pose_source': 'topic'})
    answers = burst(ros, AddWaypoint, 'robot_sm/add_waypoint', add_waypoint, clients)
    assert all(answer.success for a in answers for answer in a)
    for client_answers in answers:  # carried out in the order each client asked
        ids = [answer.id for answer in client_answers]
        assert ids == sorted(ids)
    stored = yaml.safe_load(path.read_text())['waypoints']
    assert sorted(w['position'][0] for w in stored) == [float(i) for i in range(BURST)]


@pytest.mark.parametrize('clients', [1, 4])
def test_a_burst_of_mode_requests_to_the_mux_is_answered_in_order(
        ros: RosHarness, clients: int) -> None:
    ros.start_node(RobotControlMux)
    answers = burst(ros, SetOperationMode, 'robot_sm/set_operation_mode', set_mode, clients)
    assert all(answer.success for a in answers for answer in a)
    if clients == 1:  # alternating modes: every request found the previous one's mode
        assert all('(was' in answer.message for answer in answers[0][1:])


@pytest.mark.parametrize('clients', [1, 4])
def test_a_burst_of_state_info_requests_to_the_state_interface_is_answered(
        ros: RosHarness, clients: int) -> None:
    ros.start_node(StateInterface)
    answers = burst(ros, Trigger, 'robot_sm/state_info', lambda _: Trigger.Request(), clients)
    assert all(answer.message == 'Boot' for a in answers for answer in a)


def test_suite_client_calls_from_many_threads_lose_no_answer(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    ros.start_node(ServiceProvider, {'waypoints_file': '', 'pose_source': 'topic'})
    ros.start_node(StateInterface)  # the command gateway, which the edits go through
    results: List[Any] = []
    errors: List[BaseException] = []
    with SuiteClient(namespace=ros.namespace, timeout=WAIT, context=ros.context) as suite:
        def dashboard(worker: int) -> None:
            try:
                for i in range(8):
                    results.append(suite.add_waypoint(float(worker), float(i)))
            except BaseException as error:  # noqa: B902 - reported below
                errors.append(error)
        threads = [threading.Thread(target=dashboard, args=(w,)) for w in range(32)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(WAIT)
        assert not errors, errors
        assert len(results) == 256 and all(result.success for result in results)
        assert len(suite.waypoints().data['waypoints']) == 256
