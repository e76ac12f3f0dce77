"""
The fleet: three suites in three namespaces, seen and stopped from one client and from robot-sm.

The suites run in this process; the fleet client has a context, and so a DDS participant, of
its own (``robot-sm`` a process of its own), so the robots are found by DDS discovery as an
operator's station finds them.
"""

import json
import os
import pathlib
import signal
import subprocess
import threading
from typing import Dict, Iterator, List, Optional

from operator_suite import cli_command, describe, run_cli, StartSuite, WAIT
import pytest
from rclpy.node import Node
from rclpy.parameter import Parameter
from robot_sm import qos
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.client import FleetClient, operator
from robot_sm.client.fleet import RobotSearch
from robot_sm.client.fleet_robot import robot_namespaces
from robot_sm.client.roster import (
    load_fleet_file,
    parse_expect,
    RosterError,
    SeenRobots,
    write_fleet_file,
)
from robot_sm.contract import MUX_COMMAND
from robot_sm.nodes.robot_sim import RobotSim
from robot_sm.testing import NodeProcess, python_module_argv, ros_args, RosHarness, wait_until
from robot_sm.testing.private_daemons import PrivateDaemons
from robot_sm_msgs.msg import OperationMode
from robot_sm_msgs.srv import Command

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
        self.create_service(Command, MUX_COMMAND, self._hang, qos_profile=qos.SERVICES)

    def _hang(self, request: Command.Request, response: Command.Response) -> Command.Response:
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
        assert suite.client.wait_for_mode(emergency_stop=True)
    # Release releases the e-stop only: every robot is then stopped, none resumes autonomy.
    acknowledgements = client.emergency_stop(False, timeout=WAIT)
    assert all(a.confirmed and a.emergency_stop is False for a in acknowledgements), \
        acknowledgements
    for suite in fleet:  # (each suite's own client hears the release a moment later)
        assert suite.client.wait_for_mode(emergency_stop=False) == ('stopped', False)

    fleet[2].close()
    assert wait_until(lambda: client.robots() == namespaces[:2], WAIT), client.robots()
    assert [r.namespace for r in client.status()] == namespaces[:2]


def test_fleet_commands_are_an_operators_pause_and_continue_and_a_release_another_holds(
        ros: RosHarness, fleet: List[RunningSuite]) -> None:
    namespaces = [suite.namespace for suite in fleet]
    alice = operator('alice', 'cli')
    with FleetClient(within=ros.namespace, timeout=WAIT, by=alice) as client:
        assert client.wait_for_robots(count=3) == namespaces
        robot1 = fleet[0].client.with_operator(alice)
        for x in (1.0, 2.0):
            assert robot1.add_waypoint(x, 0.0).success
        assert robot1.start_waypoint_following('patrol').success
        fleet[0].wait_state(lambda name: name.startswith('W: '))
        paused = client.pause()
        # robot1 pauses its patrol; the others have nothing to pause and say so.
        assert [a.confirmed for a in paused] == [True, False, False], paused
        fleet[0].wait_state(lambda name: name.startswith('Paused'))
        assert client.resume()[0].confirmed
        fleet[0].wait_state(lambda name: name.startswith('W: '))
        bob = fleet[2].client.with_operator(operator('bob', 'cli'))
        assert bob.take_control().success
        stopped = client.emergency_stop(True)  # a STOP is anyone's
        assert all(a.confirmed for a in stopped), stopped
        released = client.emergency_stop(False)
        assert [a.confirmed for a in released] == [True, True, False], released
        assert released[2].message.startswith('control is held by bob (cli, ')
        assert fleet[2].client.wait_for_mode(timeout=0.0).emergency_stop

    def stops() -> List[str]:  # the mux's record of alice's STOP, in robot1's audit log
        return [r.command for r in fleet[0].client.audit(operator='alice').data
                if r.kind == 'stop']
    assert wait_until(lambda: 'engage_emergency_stop' in stops(), WAIT), stops()


def test_robot_sm_fleet_lists_and_stops_the_fleet_and_names_a_robot_that_did_not_confirm(
        ros: RosHarness, fleet: List[RunningSuite], daemons: PrivateDaemons) -> None:
    namespaces = [suite.namespace for suite in fleet]
    # Through a daemon, as an operator's commands run, once it has found them.
    warm(ros.namespace, daemons, 'fleet', '--expect', '3')
    listed = cli(ros.namespace, '--json', 'fleet', '--expect', '3', daemons=daemons, timeout=KNOWN)
    assert listed.returncode == 0, describe(listed)
    robots = json.loads(listed.stdout)
    assert [(r['namespace'], r['state'], r['mode'], r['emergency_stop']) for r in robots] == [
        (namespace, 'Idle', 'stopped', False) for namespace in namespaces]
    table = cli(ros.namespace, 'fleet', '--expect', '3', daemons=daemons, timeout=KNOWN)
    assert table.returncode == 0, describe(table)
    for namespace in namespaces:
        assert namespace in table.stdout

    hung = ros.add_node(HungMux(f'{ros.namespace}/robot4', ros.context))
    try:
        # The timeout covers the daemon finding robot4 too.
        stopped = cli(ros.namespace, 'fleet', 'estop', 'on', '--expect', '4', daemons=daemons,
                      timeout=2 * KNOWN)
        assert stopped.returncode == 1, describe(stopped)
        assert hung.asked.is_set()
        assert f'{ros.namespace}/robot4' in stopped.stderr, describe(stopped)
        for namespace in namespaces:
            assert namespace not in stopped.stderr, describe(stopped)
        for suite in fleet:
            assert suite.client.wait_for_mode(emergency_stop=True)
    finally:
        hung.release.set()
    ros.stop_node(hung)
    # robot4 was seen: it stays expected (NOT FOUND) until the operator forgets it.
    assert cli(ros.namespace, 'fleet', 'forget', 'robot4', daemons=daemons).returncode == 0

    released = cli(ros.namespace, 'fleet', 'estop', 'off', '--expect', '3', daemons=daemons)
    assert released.returncode == 0, describe(released)
    for suite in fleet:
        assert suite.client.wait_for_mode(emergency_stop=False).mode == 'stopped'
    # An operator who expects more robots than answer is told, and it is not a success.
    missing = cli(ros.namespace, 'fleet', 'estop', 'on', '--expect', '4', daemons=daemons,
                  timeout=KNOWN)
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


# -- the roster: robots expected by name --------------------------------------------------------


def test_the_search_waits_for_the_robots_expected_by_name_too() -> None:
    search = RobotSearch(count=None, settle=0.0, now=0.0, expected=['/a', '/b'])
    assert not search.done(['/a', '/c'], 1.0)
    assert search.done(['/a', '/b', '/c'], 2.0)


def test_expect_takes_a_count_or_names_and_a_fleet_file_names_robots(
        tmp_path: pathlib.Path) -> None:
    assert parse_expect('3', '/site') == (3, [])
    assert parse_expect('robot2,/elsewhere/robot1', '/site') == (
        None, ['/elsewhere/robot1', '/site/robot2'])
    for bad in ('0', 'robot1,,robot2', '/'):
        with pytest.raises(RosterError, match='--expect'):
            parse_expect(bad, '/site')
    path = tmp_path / 'fleet.yaml'
    write_fleet_file(path, ['/site/robot1', '/site/robot2'])
    assert load_fleet_file(path, '/') == ['/site/robot1', '/site/robot2']
    path.write_text('robots: [robot1, /other/robot9]\n')
    assert load_fleet_file(path, '/site') == ['/other/robot9', '/site/robot1']
    path.write_text('robot1\n')
    with pytest.raises(RosterError, match='must hold robots'):
        load_fleet_file(path)
    shipped = pathlib.Path(__file__).resolve().parents[1] / 'config' / 'fleet.yaml'
    assert load_fleet_file(shipped) == []  # it documents the format, and names nobody


def test_the_robots_seen_are_kept_per_ros_environment_until_forgotten(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = SeenRobots(tmp_path)
    seen.add(['/site/robot1', '/site/robot2', '/other/robot1'])
    assert SeenRobots(tmp_path).load() == ['/other/robot1', '/site/robot1', '/site/robot2']
    monkeypatch.setenv('ROS_DOMAIN_ID', str(int(os.environ.get('ROS_DOMAIN_ID', '0')) + 1))
    assert SeenRobots(tmp_path).load() == []  # another domain: other robots
    monkeypatch.undo()
    assert seen.forget('/site', ['/site/robot2']) == ['/site/robot2']
    assert seen.forget('/site') == ['/site/robot1']
    assert seen.load() == ['/other/robot1']


def mux_process(ros: RosHarness, namespace: str) -> NodeProcess:
    """Start a robot's mux (a robot as far as a fleet is concerned) in a process of its own."""
    process = ros.start_process(python_module_argv(
        'robot_sm.nodes.robot_control_mux',
        *ros_args(namespace, {'emergency_stop_file': ''})))
    assert wait_until(lambda: ('robot_control_mux', namespace) in
                      ros.probe.get_node_names_and_namespaces(), WAIT), process.output
    ros.record(OperationMode, f'{namespace}/robot_sm/operation_mode', qos.STATE).wait_for(
        timeout=WAIT)
    return process


#: A new process may take over 3 s to find a robot: the timeout of its fleet commands.
FRESH = 8.0
#: The timeout of a command through a daemon that has found the robots there are: a robot
#: that does not answer or is not there is waited for this long.
KNOWN = 2.0


def cli(namespace: str, *args: str, daemons: Optional[PrivateDaemons] = None,
        timeout: float = FRESH) -> subprocess.CompletedProcess:
    return run_cli(namespace, *args, timeout=timeout, env=daemons.env if daemons else None)


def warm(namespace: str, daemons: PrivateDaemons, *args: str) -> None:
    """Start the daemon and run ``args`` through it: what they find, it has found (and keeps)."""
    started = cli(namespace, 'daemon', 'start', daemons=daemons)
    assert started.returncode == 0, describe(started)
    found = cli(namespace, *args, daemons=daemons)
    assert found.returncode == 0, describe(found)


def verdicts(result: subprocess.CompletedProcess) -> Dict[str, str]:
    """Return each robot's line of a fleet-wide stop, by namespace."""
    return dict(line.split(None, 1) for line in result.stdout.splitlines() if line.strip())


def test_a_robot_frozen_before_any_command_saw_it_is_named_not_found(
        ros: RosHarness, start_scripted: StartSuite) -> None:
    robot1 = start_scripted(namespace=f'{ros.namespace}/robot1')
    robot2 = mux_process(ros, f'{ros.namespace}/robot2')
    os.kill(robot2.pid, signal.SIGSTOP)  # frozen before any robot-sm command found it
    try:
        stopped = cli(ros.namespace, 'fleet', 'estop', 'on', '--expect', 'robot1,robot2')
    finally:
        os.kill(robot2.pid, signal.SIGCONT)
    assert stopped.returncode == 1, describe(stopped)
    said = verdicts(stopped)
    assert said[robot1.namespace].startswith('engaged (confirmed in'), describe(stopped)
    assert said[f'{ros.namespace}/robot2'].startswith(
        f'NOT FOUND: expected but not found under {ros.namespace} within 8 s'), describe(stopped)
    assert f'not found: {ros.namespace}/robot2' in stopped.stderr, describe(stopped)
    assert robot1.client.wait_for_mode(emergency_stop=True).emergency_stop


def test_a_robot_frozen_after_a_command_saw_it_is_named_not_confirmed_through_the_daemon(
        ros: RosHarness, start_scripted: StartSuite, daemons: PrivateDaemons) -> None:
    robot1 = start_scripted(namespace=f'{ros.namespace}/robot1')
    robot2 = mux_process(ros, f'{ros.namespace}/robot2')
    started = cli(ros.namespace, 'daemon', 'start', daemons=daemons)
    assert started.returncode == 0, describe(started)
    # The daemon has found both: it listed them (a command it passed by would say so).
    listed = cli(ros.namespace, 'fleet', '--expect', '2', daemons=daemons, timeout=WAIT)
    assert listed.returncode == 0 and not listed.stderr, describe(listed)
    os.kill(robot2.pid, signal.SIGSTOP)
    try:
        stopped = cli(ros.namespace, 'fleet', 'estop', 'on', daemons=daemons, timeout=3.0)
    finally:
        os.kill(robot2.pid, signal.SIGCONT)
    assert stopped.returncode == 1, describe(stopped)
    said = verdicts(stopped)
    assert said[robot1.namespace].startswith('engaged (confirmed in'), describe(stopped)
    assert said[f'{ros.namespace}/robot2'] == (
        f'NOT CONFIRMED: service {ros.namespace}/robot2/{MUX_COMMAND} did not answer '
        'within 3 s'), describe(stopped)


def test_a_robot_seen_before_the_daemon_started_is_still_expected(
        ros: RosHarness, start_scripted: StartSuite, daemons: PrivateDaemons) -> None:
    robot1 = start_scripted(namespace=f'{ros.namespace}/robot1')
    robot2 = mux_process(ros, f'{ros.namespace}/robot2')
    listed = cli(ros.namespace, '--no-daemon', 'fleet', '--expect', '2', daemons=daemons)
    assert listed.returncode == 0, describe(listed)
    os.kill(robot2.pid, signal.SIGSTOP)  # frozen before any daemon could see it
    try:
        warm(robot1.namespace, daemons, 'status')  # (a fleet command would expect robot2)
        stopped = cli(ros.namespace, 'fleet', 'estop', 'on', daemons=daemons, timeout=KNOWN)
    finally:
        os.kill(robot2.pid, signal.SIGCONT)
    assert stopped.returncode == 1, describe(stopped)
    assert verdicts(stopped)[f'{ros.namespace}/robot2'].startswith('NOT FOUND'), \
        describe(stopped)
    # A robot the operator knows has left is forgotten on request.
    forgotten = cli(ros.namespace, 'fleet', 'forget', 'robot2', daemons=daemons)
    assert forgotten.stdout.strip() == f'forgotten: {ros.namespace}/robot2', describe(forgotten)


def test_a_fleet_file_names_a_robot_that_never_started(
        ros: RosHarness, start_scripted: StartSuite, tmp_path: pathlib.Path,
        daemons: PrivateDaemons) -> None:
    robot1 = start_scripted(namespace=f'{ros.namespace}/robot1')
    fleet_file = tmp_path / 'fleet.yaml'
    fleet_file.write_text('robots: [robot1, robot9]\n')
    warm(ros.namespace, daemons, 'fleet', '--expect', 'robot1')
    listed = cli(ros.namespace, 'fleet', '--fleet', str(fleet_file), daemons=daemons,
                 timeout=KNOWN)
    assert listed.returncode == 2, describe(listed)
    assert f'{ros.namespace}/robot9  NOT FOUND' in listed.stdout, describe(listed)
    stopped = cli(ros.namespace, '--json', 'fleet', 'estop', 'on', '--fleet', str(fleet_file),
                  daemons=daemons, timeout=KNOWN)
    assert stopped.returncode == 1, describe(stopped)
    answers = {a['namespace']: (a['confirmed'], a['found']) for a in json.loads(stopped.stdout)}
    assert answers == {robot1.namespace: (True, True), f'{ros.namespace}/robot9': (False, False)}
