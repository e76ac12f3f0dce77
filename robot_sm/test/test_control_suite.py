"""
One operator in control, over DDS: operators on the command line, a web page, raw ROS callers.

Each test checks what the robot did (the mux's mode and e-stop, the waypoints), not only the
answers: two ``robot-sm`` operators (``ROBOT_SM_OPERATOR``), a web page and a command line, a
holder's page closed and its control taken without forcing, raw ``SetOperationMode`` refused
while an operator holds control and accepted when nobody does, STOP from anyone, a release by
someone else refused, and the audit file of a suite killed with SIGKILL.
"""

import asyncio
import json
import os
import pathlib
import time
from typing import Any, Dict, List

import aiohttp
from operator_suite import describe, run_cli, StartSuite
import pytest
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.client import operator, SuiteClient
from robot_sm.frontends.web.gate import Gate
from robot_sm.frontends.web.server import WebServer, WebServerThread
from robot_sm.frontends.web.tokens import AccessTokens
from robot_sm.gateway.audit import read_records
from robot_sm.testing import NodeProcess, python_module_argv, ros_args, RosHarness, wait_until
from robot_sm_msgs.msg import OperationMode
from robot_sm_msgs.srv import AddWaypoint, SetOperationMode
from std_srvs.srv import SetBool

#: The operators' commands go through a daemon of the module's own, as an operator's do.
pytestmark = pytest.mark.usefixtures('cli_daemon')
WAIT = 10.0
ALICE = {'ROBOT_SM_OPERATOR': 'alice'}
BOB = {'ROBOT_SM_OPERATOR': 'bob'}
TOKEN = 'operator-token-for-the-control-tests-0123456789abcdef'


def test_two_operators_on_the_command_line(suite: RunningSuite) -> None:
    namespace = suite.namespace
    first = run_cli(namespace, 'mode', 'autonomy', env=ALICE)
    assert first.returncode == 0, describe(first)
    assert 'you hold the control of the robot now' in first.stderr
    refused = run_cli(namespace, 'mode', 'teleop', env=BOB)
    assert refused.returncode == 1, describe(refused)
    assert refused.stdout.startswith('control is held by alice (cli, '), describe(refused)
    assert 'robot-sm control take' in refused.stdout
    suite.client.wait_for_mode('autonomy')  # bob changed nothing
    shown = json.loads(run_cli(namespace, 'control', '--json', env=BOB).stdout)
    assert (shown['holder'], shown['mine'], shown['surface']) == ('alice', False, 'cli')
    taken = run_cli(namespace, 'control', 'take', env=BOB)
    assert taken.returncode == 0 and 'control taken by bob from alice' in taken.stdout
    told = run_cli(namespace, 'mode', 'stopped', env=ALICE)
    assert told.returncode == 1 and 'control was taken from you by bob' in told.stdout
    suite.client.wait_for_mode('autonomy')
    assert run_cli(namespace, 'mode', 'teleop', env=BOB).returncode == 0
    suite.client.wait_for_mode('teleop')
    # Only the holder gives it up; then alice's command acquires it again.
    assert run_cli(namespace, 'control', 'give-up', env=ALICE).returncode == 1
    assert run_cli(namespace, 'control', 'give-up', env=BOB).returncode == 0
    assert 'free' in run_cli(namespace, 'control', env=ALICE).stdout
    assert run_cli(namespace, 'waypoint', 'add', '1', '2', env=ALICE).returncode == 0
    assert suite.client.control().holder == 'alice'
    # Every one of it is in the audit log, with who gave it.
    entries = json.loads(run_cli(namespace, 'audit', '--json', '--operator', 'bob').stdout)
    assert [e['command'] for e in entries] == [
        'select_mode', 'take_control', 'select_mode', 'release_control']
    assert [e['code'] for e in entries] == ['not_in_control', 'done', 'done', 'done']


def test_raw_ros_while_an_operator_holds_control_and_when_nobody_does(
        ros: RosHarness, suite: RunningSuite) -> None:
    autonomy = SetOperationMode.Request()
    autonomy.operation_mode.mode = OperationMode.AUTONOMOUS
    accepted = ros.call(SetOperationMode, 'robot_sm/set_operation_mode', autonomy)
    assert accepted.success, accepted.message  # nobody holds control: as RSM's tools expect
    suite.client.wait_for_mode('autonomy')
    alice = suite.client.with_operator(operator('alice', 'cli'))
    assert alice.set_mode('teleop').success  # she acquires control
    suite.wait_state('Teleoperation')  # the state machine follows the mux's mode
    refused = ros.call(SetOperationMode, 'robot_sm/set_operation_mode', autonomy)
    assert not refused.success and refused.message.startswith('control is held by alice')
    suite.client.wait_for_mode('teleop')
    edit = AddWaypoint.Request()
    edit.waypoint.pose.orientation.w = 1.0
    added = ros.call(AddWaypoint, 'robot_sm/add_waypoint', edit)
    assert not added.success and 'control is held by alice' in added.message
    started = ros.call(SetBool, 'robot_sm/start_stop_waypoint_following',
                       SetBool.Request(data=True))
    assert not started.success and 'control is held by alice' in started.message
    assert suite.client.waypoints().data['waypoints'] == []
    assert suite.state == 'Teleoperation'  # not started
    # STOP always works, from raw ROS too; a release is the holder's.
    stopped = ros.call(SetBool, 'robot_sm/emergency_stop', SetBool.Request(data=True))
    assert stopped.success
    suite.client.wait_for_mode(emergency_stop=True)
    released = ros.call(SetBool, 'robot_sm/emergency_stop', SetBool.Request(data=False))
    assert not released.success and 'control is held by alice' in released.message
    charlie = suite.client.with_operator(operator('charlie', 'cli'))
    assert charlie.set_emergency_stop(True).success  # STOP needs no control
    refused_release = charlie.set_emergency_stop(False)
    assert not refused_release.success and 'held by alice' in refused_release.message
    assert suite.client.wait_for_mode().emergency_stop
    assert alice.set_emergency_stop(False).success
    assert suite.client.wait_for_mode(emergency_stop=False).mode == 'stopped'
    # Given up, raw ROS operates again.
    assert alice.release_control().success
    assert ros.call(SetOperationMode, 'robot_sm/set_operation_mode', autonomy).success


def page(url: str, calls: List[Dict[str, Any]], hold: float = 0.0) -> List[Dict[str, Any]]:
    """Open a page, send ``calls``, return their results; keep it open ``hold`` s more."""
    async def go() -> List[Dict[str, Any]]:
        headers = {'Authorization': f'Bearer {TOKEN}'}
        async with aiohttp.ClientSession(headers=headers) as session:
            async with session.ws_connect(url.replace('http', 'ws', 1) + '/ws') as ws:
                results: List[Dict[str, Any]] = []
                for number, call in enumerate(calls, start=1):
                    await ws.send_str(json.dumps({'type': 'call', 'id': number, **call}))
                    while True:
                        msg = json.loads((await ws.receive(timeout=WAIT)).data)
                        if msg['type'] in ('result', 'error') and msg.get('id') == number:
                            results.append(msg)
                            break
                deadline = time.monotonic() + hold
                while time.monotonic() < deadline:
                    await ws.send_str(json.dumps({'type': 'ping', 'seq': 1}))
                    await asyncio.sleep(0.1)
                return results
    return asyncio.run(go())


def test_a_web_page_and_a_command_line_and_a_closed_page_going_stale(
        ros: RosHarness, start_scripted: StartSuite) -> None:
    suite = start_scripted()
    server = WebServerThread(WebServer(ros.context, ros.namespace,
                                       Gate(AccessTokens(TOKEN), tls=False), port=0))
    try:
        [selected] = page(server.url, [{'action': 'mode', 'args': {'mode': 'autonomy'}}],
                          hold=2.0)
        assert selected['success'], selected
        holder = suite.client.control()
        assert (holder.holder, holder.surface) == ('web@127.0.0.1', 'web')
        refused = run_cli(suite.namespace, 'mode', 'teleop', env=ALICE)
        assert refused.returncode == 1 and 'held by web@127.0.0.1' in refused.stdout
        suite.client.wait_for_mode('autonomy')
        # The page is closed: its keep-alives stop, and its control goes stale within 3 s.
        assert wait_until(lambda: suite.client.control().stale, WAIT)
        taken = run_cli(suite.namespace, 'control', 'take', env=ALICE)
        assert taken.returncode == 0, describe(taken)
        assert 'from web@127.0.0.1' in taken.stdout and 'stale' in taken.stdout
        assert run_cli(suite.namespace, 'mode', 'teleop', env=ALICE).returncode == 0
        suite.client.wait_for_mode('teleop')
    finally:
        server.close()


def test_the_audit_file_keeps_every_acknowledged_entry_after_a_sigkill(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    home = tmp_path / 'ros_home'
    suite = NodeProcess(python_module_argv('robot_sm.frontends.cli', '--namespace',
                                           ros.namespace, 'up'),
                        env={'ROS_HOME': str(home), 'ROBOT_SM_NO_DAEMON': '1'})
    client = SuiteClient(namespace=ros.namespace, timeout=WAIT, context=ros.context,
                         by=operator('alice', 'python'))
    try:
        client.wait_for_state('Idle', timeout=30.0)
        acknowledged = []
        for number in range(12):
            answer = client.add_waypoint(float(number), 1.0)
            assert answer.success, answer.message
            acknowledged.append(answer.message)
        suite.kill()  # SIGKILL: nothing is closed, nothing flushed at exit
    finally:
        client.close()
        suite.stop()
    folder = home / 'robot_sm' / ros.namespace.strip('/')
    written = [r.message for r in read_records(sorted(folder.glob('audit.jsonl*')))
               if r.command == 'add_waypoint']
    assert written == acknowledged, os.listdir(folder)


def test_a_stop_while_the_state_interface_is_down_reaches_the_audit_log_once(
        ros: RosHarness, start_scripted: StartSuite, tmp_path: pathlib.Path) -> None:
    suite = start_scripted(leave_out=('state_interface',), ready_state=None)
    audit = tmp_path / 'audit.jsonl'
    argv = python_module_argv('robot_sm.nodes.state_interface',
                              *ros_args(ros.namespace, {'audit_file': str(audit)}))
    alice = suite.client.with_operator(operator('alice', 'cli'))
    assert alice.set_emergency_stop(True).success  # the mux alone hears it

    def stops() -> List[str]:
        return [r.operator for r in read_records([audit]) if r.kind == 'stop']
    for _ in range(2):  # started, then killed and started again: the mux replays its records
        process = ros.start_process(argv)
        suite.wait_state('Emergency Stop', after=time.monotonic() - 0.5, timeout=30.0)
        assert wait_until(lambda: stops() == ['alice'], WAIT), stops()
        time.sleep(0.5)
        process.kill()
    assert stops() == ['alice']
