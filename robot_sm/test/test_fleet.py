"""
The fleet: three suites in three namespaces, seen and stopped from one client and from robot-sm.

The suites run in this process; the fleet client has a context, and so a DDS participant, of
its own (``robot-sm`` a process of its own), so the robots are found by DDS discovery as an
operator's station finds them.
"""

import json
import signal
import threading
from typing import Iterator, List

from operator_suite import cli_command, describe, run_cli, StartSuite, WAIT
import pytest
from rclpy.node import Node
from rclpy.parameter import Parameter
from robot_sm import qos
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.client import FleetClient
from robot_sm.client.fleet import robot_namespaces, RobotSearch
from robot_sm.nodes.robot_sim import RobotSim
from robot_sm.testing import RosHarness, wait_until
from std_srvs.srv import SetBool

ROBOTS = ('robot1', 'robot2', 'robot3')


@pytest.fixture
def fleet(ros: RosHarness, start_scripted: StartSuite) -> List[RunningSuite]:
    """Three suites without a robot, in ``<test namespace>/robot1`` .. ``robot3``."""
    return [start_scripted(namespace=f'{ros.namespace}/{name}') for name in ROBOTS]


@pytest.fixture
def client(ros: RosHarness) -> Iterator[FleetClient]:
    with FleetClient(within=ros.namespace, timeout=WAIT) as fleet_client:
        yield fleet_client


class HungMux(Node):
    """A mux that takes e-stop requests and never answers them (a robot that froze)."""

    def __init__(self, namespace: str, context: object) -> None:
        super().__init__('robot_control_mux', namespace=namespace, context=context)
        self.release = threading.Event()
        self.asked = threading.Event()
        self.create_service(SetBool, 'robot_sm/emergency_stop', self._hang,
                            qos_profile=qos.SERVICES)

    def _hang(self, request: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
        self.asked.set()
        self.release.wait(60.0)
        return response


def test_a_robot_is_a_namespace_running_a_node_of_the_suite_under_the_fleets_namespace() -> None:
    nodes = [('robot_control_mux', '/site/robot1'), ('state_interface', '/site/robot1'),
             ('service_provider', '/site/robot2'), ('robot_sm_client', '/site/robot3'),
             ('state_interface', '/site2/robot1'), ('robot_control_mux', '/'),
             ('teleop_retargeting', '/site/robot4')]
    assert robot_namespaces(nodes, '/site') == ['/site/robot1', '/site/robot2']
    assert robot_namespaces(nodes, '/site/') == ['/site/robot1', '/site/robot2']
    assert robot_namespaces(nodes) == ['/', '/site/robot1', '/site/robot2', '/site2/robot1']


def test_the_search_ends_with_the_robots_expected_or_when_none_new_came_in_time() -> None:
    expecting = RobotSearch(count=2, settle=3.0, now=0.0)
    assert not expecting.done(['/a'], 0.1)
    assert expecting.done(['/a', '/b'], 0.2)
    settling = RobotSearch(count=None, settle=3.0, now=0.0)
    assert not settling.done([], 5.0)  # nothing found yet: keep looking
    assert not settling.done(['/a'], 5.1)
    assert not settling.done(['/a', '/b'], 8.0)  # a new one: the settle time starts again
    assert not settling.done(['/a', '/b'], 10.9)
    assert settling.done(['/a', '/b'], 11.0)
    assert RobotSearch(count=None, settle=0.0, now=0.0).done([], 0.0)  # those known now only


def test_the_fleet_shows_every_robot_stops_them_all_and_forgets_one_that_left(
        ros: RosHarness, fleet: List[RunningSuite], client: FleetClient) -> None:
    namespaces = [suite.namespace for suite in fleet]
    ros.add_node(RobotSim(context=ros.context, namespace=namespaces[0],
                          parameter_overrides=[Parameter('world', value='office')]))
    assert client.wait_for_robots(count=3) == namespaces
    assert fleet[1].client.add_waypoint(1.0, 2.0).success
    assert fleet[1].client.add_waypoint(2.0, 2.0).success
    assert wait_until(lambda: fleet[0].client.robot_pose().success, WAIT)

    def shown() -> list:
        return [(r.namespace, r.state, r.mode, r.emergency_stop, r.waypoints)
                for r in client.status()]

    assert wait_until(lambda: shown() == [(namespaces[0], 'Idle', 'stopped', False, 0),
                                          (namespaces[1], 'Idle', 'stopped', False, 2),
                                          (namespaces[2], 'Idle', 'stopped', False, 0)], WAIT)
    robots = client.status()
    assert robots[0].pose == pytest.approx(fleet[0].client.robot_pose().data)
    assert robots[1].pose is None and robots[1].pose_error

    for suite in fleet:
        assert suite.client.set_mode('autonomy').success
    acknowledgements = client.emergency_stop(True, timeout=WAIT)
    assert [(a.namespace, a.confirmed, a.emergency_stop) for a in acknowledgements] == [
        (namespace, True, True) for namespace in namespaces], acknowledgements
    for suite in fleet:
        assert suite.client.wait_for_mode(emergency_stop=True, timeout=0.0)
    # Release releases the e-stop only: every robot is then stopped, none resumes autonomy.
    acknowledgements = client.emergency_stop(False, timeout=WAIT)
    assert all(a.confirmed and a.emergency_stop is False for a in acknowledgements), \
        acknowledgements
    for suite in fleet:
        assert suite.client.wait_for_mode(timeout=0.0) == ('stopped', False)

    fleet[2].close()
    assert wait_until(lambda: client.robots() == namespaces[:2], WAIT), client.robots()
    assert [r.namespace for r in client.status()] == namespaces[:2]


def test_robot_sm_fleet_lists_and_stops_the_fleet_and_names_a_robot_that_did_not_confirm(
        ros: RosHarness, fleet: List[RunningSuite]) -> None:
    namespaces = [suite.namespace for suite in fleet]
    listed = run_cli(ros.namespace, '--json', 'fleet', '--expect', '3', timeout=8.0)
    assert listed.returncode == 0, describe(listed)
    robots = json.loads(listed.stdout)
    assert [(r['namespace'], r['state'], r['mode'], r['emergency_stop']) for r in robots] == [
        (namespace, 'Idle', 'stopped', False) for namespace in namespaces]
    table = run_cli(ros.namespace, 'fleet', '--expect', '3', timeout=8.0)
    assert table.returncode == 0, describe(table)
    for namespace in namespaces:
        assert namespace in table.stdout

    hung = ros.add_node(HungMux(f'{ros.namespace}/robot4', ros.context))
    try:
        # The timeout covers discovery too: a new process may take over 3 s to find a robot.
        stopped = run_cli(ros.namespace, 'fleet', 'estop', 'on', '--expect', '4', timeout=8.0)
        assert stopped.returncode == 1, describe(stopped)
        assert hung.asked.is_set()
        assert f'{ros.namespace}/robot4' in stopped.stderr, describe(stopped)
        for namespace in namespaces:
            assert namespace not in stopped.stderr, describe(stopped)
        for suite in fleet:
            assert suite.client.wait_for_mode(emergency_stop=True, timeout=0.0)
    finally:
        hung.release.set()
    ros.stop_node(hung)

    released = run_cli(ros.namespace, 'fleet', 'estop', 'off', '--expect', '3', timeout=8.0)
    assert released.returncode == 0, describe(released)
    for suite in fleet:
        assert suite.client.wait_for_mode(emergency_stop=False).mode == 'stopped'
    # An operator who expects more robots than answer is told, and it is not a success.
    missing = run_cli(ros.namespace, 'fleet', 'estop', 'on', '--expect', '4', timeout=8.0)
    assert missing.returncode == 1, describe(missing)
    assert 'expected 4 robots, found 3' in missing.stderr, describe(missing)
    # The robots that were found are stopped all the same.
    for suite in fleet:
        assert suite.client.wait_for_mode(emergency_stop=True).emergency_stop


def test_robot_sm_fleet_watch_shows_robots_as_they_change_and_leave(
        ros: RosHarness, fleet: List[RunningSuite]) -> None:
    watch = ros.start_process(cli_command() + ['--namespace', ros.namespace, 'fleet', '--watch'])

    def screen() -> str:
        return watch.output.split('\x1b[2J\x1b[H')[-1]

    def line(namespace: str) -> str:
        return next((row for row in screen().splitlines() if row.startswith(namespace)), '')

    assert wait_until(lambda: all('released' in line(suite.namespace) for suite in fleet),
                      WAIT), watch.output
    assert fleet[1].client.set_emergency_stop(True).success
    assert wait_until(lambda: 'Emergency Stop' in line(fleet[1].namespace)
                      and 'ENGAGED' in line(fleet[1].namespace), WAIT), screen()
    assert 'released' in line(fleet[0].namespace)
    fleet[2].close()
    assert wait_until(lambda: line(fleet[2].namespace) == '' and line(fleet[0].namespace),
                      WAIT), screen()
    watch.process.send_signal(signal.SIGINT)
    assert watch.wait(WAIT) == 0, watch.output
