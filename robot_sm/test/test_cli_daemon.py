"""
robot-sm through its daemon: the same answers as without it, and never a hang.

Every test gives its commands a socket folder of its own
(:class:`robot_sm.testing.private_daemons.PrivateDaemons`, through ``XDG_RUNTIME_DIR``), so that
they never reach a user's daemon, and stops every daemon started there. The suites run over real
DDS, as in ``test_cli_suite.py``; each command is a child process, as an operator runs it.
"""

import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import time
from typing import Callable, Dict, List, Optional, Sequence

from operator_suite import cli_command, describe, StartSuite, WAIT
import pytest
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.client.connection import RESEND_AFTER
from robot_sm.frontends.daemon import protocol
from robot_sm.testing import RosHarness, SCHEDULING_SLACK, wait_until
from robot_sm.testing.private_daemons import PrivateDaemons

Completed = subprocess.CompletedProcess


def cli(daemons: PrivateDaemons, *args: str, env: Optional[Dict[str, str]] = None,
        direct: bool = False) -> Completed:
    """Run ``robot-sm ARGS`` (``--no-daemon`` first if ``direct``) and wait for it."""
    argv = cli_command() + (['--no-daemon'] if direct else []) + list(args)
    return subprocess.run(argv, capture_output=True, text=True, timeout=90.0,
                          env=daemons.full_env(env))


def together(daemons: PrivateDaemons, commands: Sequence[Sequence[str]],
             direct: bool) -> List[Completed]:
    """Run several ``robot-sm`` commands at once; return their results in order."""
    prefix = cli_command() + (['--no-daemon'] if direct else [])
    children = [subprocess.Popen(prefix + list(args), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=daemons.full_env())
                for args in commands]
    results = []
    for child in children:
        stdout, stderr = child.communicate(timeout=90.0)
        results.append(Completed(child.args, child.returncode, stdout, stderr))
    return results


def daemon_status(daemons: PrivateDaemons, namespace: str = '') -> Dict:
    result = cli(daemons, '--namespace', namespace, '--json', 'daemon', 'status')
    return json.loads(result.stdout)


def start_daemon(daemons: PrivateDaemons, namespace: str) -> int:
    """Start the daemon with the suite in ``namespace`` prepared; return its pid."""
    result = cli(daemons, '--namespace', namespace, '--json', 'daemon', 'start')
    assert result.returncode == 0, describe(result)
    return int(json.loads(result.stdout)['pid'])


def assert_same(through: Completed, direct: Completed,
                normalise: Callable[[str], str] = lambda text: text) -> None:
    """Assert that a command printed and exited the same through the daemon and without it."""
    assert (through.returncode, normalise(through.stdout), normalise(through.stderr)) == (
        direct.returncode, normalise(direct.stdout), normalise(direct.stderr)), (
        f'through the daemon: {describe(through)}\nwithout: {describe(direct)}')


def test_the_first_command_starts_the_daemon_and_the_next_goes_through_it_without_rclpy(
        daemons: PrivateDaemons, suite: RunningSuite) -> None:
    first = cli(daemons, '--namespace', suite.namespace, 'status')
    assert first.returncode == 0 and first.stderr == '', describe(first)
    assert 'state      Idle' in first.stdout
    [pid] = daemons.wait_for_pids(1, WAIT)
    # The thin client: robot-sm's main up to the daemon's answer, and which modules it loaded:
    # neither rclpy nor even the parser.
    code = ('import sys\n'
            'from robot_sm.frontends.command import main\n'
            f'code = main(["--namespace", "{suite.namespace}", "status"])\n'
            'print("exit", code, sorted(m for m in sys.modules if m.split(".")[0] in '
            '("rclpy", "rosidl_parser", "argparse") or m == "robot_sm.frontends.cli"))\n')
    # From the root, as the robot-sm script does: the same robot_sm package, so the same daemon.
    thin = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                          timeout=60.0, env=daemons.full_env(), cwd='/')
    assert thin.stdout == first.stdout + 'exit 0 []\n', describe(thin)
    assert thin.stderr == ''
    status = daemon_status(daemons, suite.namespace)
    assert (status['pid'], status['requests'], status['suites']) == (pid, 1, [suite.namespace])


def test_every_verb_gives_the_same_output_and_exit_code_through_the_daemon(
        daemons: PrivateDaemons, suite: RunningSuite) -> None:
    ns, nobody = ['--namespace', suite.namespace], ['--namespace', '/nobody_here', '-t', '0.5']
    assert suite.client.add_waypoint(1.0, 2.0, routine='Wait').success
    start_daemon(daemons, suite.namespace)
    # What reads, what is refused, and what finds nothing answer alike (run at once each way).
    commands = [[*ns, 'status'], [*ns, '--json', 'status'], [*ns, 'waypoint', 'list'],
                [*ns, 'cycle'], ['plugins'], [*ns, 'fleet'], [*nobody, 'estop', 'on'],
                [*nobody, 'fleet'], [*ns, 'follow', 'stop'], [*ns, 'explore', 'stop'],
                [*ns, 'goal', 'cancel'], [*ns, 'waypoint', 'remove', '7']]
    for through, direct in zip(together(daemons, commands, direct=False),
                               together(daemons, commands, direct=True)):
        assert_same(through, direct)

    def varying(text: str) -> str:
        """Replace what differs from one run to the next: a new id, the time to confirm."""
        return re.sub(r'Added waypoint \d+|"data": \d+|confirmed in \d+ ms', '...', text)

    # What changes the suite answers alike from the same state (undone after each run).
    client = suite.client
    changes: Dict[tuple, Callable[[], object]] = {
        ('estop', 'on'): lambda: (client.set_emergency_stop(False),
                                  client.wait_for_state('Idle')),
        ('fleet', 'estop', 'on'): lambda: (client.set_emergency_stop(False),
                                           client.wait_for_state('Idle')),
        ('--json', 'waypoint', 'add', '3', '4'): lambda: client.remove_waypoint(1),
        ('goal', '1', '1', '--frame', 'nowhere'): lambda: None,  # the same outcome each time
    }
    for args, undo in changes.items():
        through = cli(daemons, *ns, *args)
        undo()
        direct = cli(daemons, *ns, *args, direct=True)
        undo()
        assert_same(through, direct, varying)
    status = daemon_status(daemons, suite.namespace)
    assert status['requests'] == len(commands) + len(changes)


def test_the_daemon_s_fleet_follows_robots_that_join_and_leave(
        daemons: PrivateDaemons, ros: RosHarness, start_scripted: StartSuite) -> None:
    fleet = ['--namespace', ros.namespace]
    robots = {name: start_scripted(namespace=f'{ros.namespace}/{name}')
              for name in ('robot1', 'robot2')}
    start_daemon(daemons, ros.namespace)

    def shown(*more: str) -> List[str]:
        result = cli(daemons, *fleet, '--json', 'fleet', *more)
        assert result.returncode in (0, 2), describe(result)  # 2: a robot expected is missing
        return [robot['namespace'].rsplit('/', 1)[1] + ('' if robot['found'] else ' NOT FOUND')
                for robot in json.loads(result.stdout)]

    assert shown('--expect', '2') == ['robot1', 'robot2']
    robots.pop('robot2').close()
    # Seen before, robot2 is expected: missing, until the operator forgets it.
    assert wait_until(lambda: shown() == ['robot1', 'robot2 NOT FOUND'], WAIT)
    forgotten = cli(daemons, *fleet, 'fleet', 'forget', 'robot2')
    assert forgotten.returncode == 0, describe(forgotten)
    assert wait_until(lambda: shown() == ['robot1'], WAIT)
    robots['robot3'] = start_scripted(namespace=f'{ros.namespace}/robot3')
    assert wait_until(lambda: shown() == ['robot1', 'robot3'], WAIT)
    stopped = cli(daemons, *fleet, 'fleet', 'estop', 'on')
    assert stopped.returncode == 0, describe(stopped)
    assert [line.split()[0].rsplit('/', 1)[1] for line in stopped.stdout.splitlines()] == [
        'robot1', 'robot3']
    assert all('engaged (confirmed in' in line for line in stopped.stdout.splitlines())
    for robot in robots.values():
        robot.client.wait_for_mode(emergency_stop=True)


def test_a_suite_restarted_under_the_daemon_is_served_again(
        daemons: PrivateDaemons, ros: RosHarness) -> None:
    up = cli_command() + ['--namespace', ros.namespace, 'up']
    first = ros.start_process(up)
    start_daemon(daemons, ros.namespace)
    listing = ['--namespace', ros.namespace, '-t', '30', 'waypoint', 'list']
    served = cli(daemons, *listing)
    assert served.returncode == 0, describe(served) + first.output
    os.killpg(first.pid, signal.SIGKILL)  # its servers stay in the graph until their lease ends
    first.wait(WAIT)
    ros.start_process(up)
    # From the restart, through the daemon and by a new process: the daemon serves the new suite
    # at most RESEND_AFTER after a new process first can.
    commands = [listing, listing]
    started = time.monotonic()
    children = [subprocess.Popen(cli_command() + (['--no-daemon'] if direct else []) + args,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=daemons.full_env())
                for direct, args in zip((False, True), commands)]
    ended = []
    for child in children:
        child.wait(timeout=90.0)
        ended.append(time.monotonic() - started)
    through, direct = [Completed(child.args, child.returncode, child.stdout.read(),
                                 child.stderr.read()) for child in children]
    assert_same(through, direct)
    assert ended[0] <= ended[1] + RESEND_AFTER + SCHEDULING_SLACK, ended
    estop = cli(daemons, '--namespace', ros.namespace, 'estop', 'on')
    assert (estop.returncode, estop.stderr) == (0, ''), describe(estop)
    print(f'after the restart: daemon {ended[0]:.2f} s, new process {ended[1]:.2f} s')


def test_a_killed_daemon_is_replaced_and_the_command_still_succeeds(
        daemons: PrivateDaemons, suite: RunningSuite) -> None:
    killed = start_daemon(daemons, suite.namespace)
    os.kill(killed, signal.SIGKILL)
    assert wait_until(lambda: killed not in daemons.pids(), WAIT)
    result = cli(daemons, '--namespace', suite.namespace, 'estop', 'on')
    assert result.returncode == 0 and result.stderr == '', describe(result)
    assert result.stdout.startswith('emergency stop engaged')
    suite.client.wait_for_mode(emergency_stop=True)
    [replacement] = daemons.wait_for_pids(1, WAIT, other_than=[killed])
    again = cli(daemons, '--namespace', suite.namespace, 'estop', 'on')
    assert again.returncode == 0 and 'already engaged' in again.stdout, describe(again)
    assert daemon_status(daemons, suite.namespace)['pid'] == replacement


def test_a_hung_daemon_is_passed_by_with_a_note(daemons: PrivateDaemons,
                                                suite: RunningSuite) -> None:
    hung = start_daemon(daemons, suite.namespace)
    os.kill(hung, signal.SIGSTOP)
    try:
        result = cli(daemons, '--namespace', suite.namespace, 'estop', 'on')
        assert result.returncode == 0, describe(result)
        assert result.stdout.startswith('emergency stop engaged')
        assert result.stderr == ('robot-sm: the daemon did not take the command (it did not take '
                                 'it within 1 s): doing it in this process\n')
        shown = cli(daemons, '--namespace', suite.namespace, 'daemon', 'status')
        assert (shown.returncode, shown.stdout.split(' (')[0]) == (
            2, 'running but not answering'), describe(shown)
    finally:
        os.kill(hung, signal.SIGCONT)


def _connect_as(uid: int, path: str) -> str:
    """Connect to the socket at ``path`` as ``uid`` in a child process; return what it met."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: another user, who asks the daemon for its status
        try:
            os.close(read_end)
            os.setuid(uid)
            with socket.socket(socket.AF_UNIX) as connection:
                try:
                    connection.settimeout(10.0)
                    connection.connect(path)
                    try:
                        connection.sendall(protocol.encode(protocol.control_request('status')))
                    except BrokenPipeError:
                        pass  # refused before it was sent: what the daemon said is still there
                    said = connection.recv(65536)
                except OSError as error:
                    said = type(error).__name__.encode()
            os.write(write_end, said)
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, 'rb') as pipe:
        said = pipe.read()
    os.waitpid(pid, 0)
    return said.decode().strip()


def test_another_user_is_refused(daemons: PrivateDaemons) -> None:
    if os.getuid() != 0:
        pytest.skip('running a client as another user needs root (os.setuid)')
    start_daemon(daemons, '/')
    [path] = daemons.sockets()
    nobody = 65534
    # The folder is this user's alone: another cannot even reach the socket.
    assert _connect_as(nobody, str(path)) == 'PermissionError'
    # Opened up by hand, the daemon itself still refuses the other user.
    folders = [daemons.folder, path.parent]
    for folder in folders:
        os.chmod(folder, 0o711)
    os.chmod(path, 0o666)
    try:
        answer = _connect_as(nobody, str(path))
    finally:
        for folder in folders:
            os.chmod(folder, 0o700)
        os.chmod(path, 0o600)
    assert json.loads(answer) == {'error': f'refused: this daemon serves uid {os.getuid()} only'}
    assert daemon_status(daemons)['running'] is True


def _exchange(path: str, data: bytes) -> Dict:
    with socket.socket(socket.AF_UNIX) as connection:
        connection.settimeout(10.0)
        connection.connect(path)
        connection.sendall(data)
        return json.loads(connection.makefile('rb').readline())


def test_garbage_oversized_and_foreign_requests_get_an_error_and_change_nothing(
        daemons: PrivateDaemons, suite: RunningSuite) -> None:
    start_daemon(daemons, suite.namespace)
    [path] = map(str, daemons.sockets())
    foreign = protocol.run_request(['--namespace', suite.namespace, 'estop', 'on'],
                                   {'ROS_DOMAIN_ID': '101'})
    answers = [_exchange(path, data) for data in (
        b'garbage\n', b'{"robot_sm_daemon": 1, "argv": "estop on"}\n',
        b'{"robot_sm_daemon": 1, "control": "reboot"}\n',
        b'x' * (protocol.MAX_REQUEST + 10), protocol.encode(foreign))]
    assert [answer['error'].split(':')[0].split(' (')[0] for answer in answers] == [
        'malformed request', 'malformed request', 'malformed request',
        f'request longer than {protocol.MAX_REQUEST} bytes',
        'this daemon serves another environment'], answers
    assert 'ROS_DOMAIN_ID' in answers[-1]['error']
    assert suite.client.wait_for_mode().emergency_stop is False  # nothing changed
    status = cli(daemons, '--namespace', suite.namespace, 'status')
    assert status.returncode == 0 and status.stderr == '', describe(status)
    assert daemon_status(daemons, suite.namespace)['requests'] == 1


def test_an_idle_daemon_exits_and_removes_its_socket(daemons: PrivateDaemons) -> None:
    pid = start_daemon(daemons, '/')
    [path] = daemons.sockets()
    assert cli(daemons, 'daemon', 'stop').stdout.strip() == f'stopped (pid {pid}) at {path}'
    assert not path.exists() and daemons.pids() == []
    idle = {protocol.IDLE_TIMEOUT_VARIABLE: '1'}
    result = cli(daemons, '--json', 'daemon', 'start', env=idle)
    assert json.loads(result.stdout)['idle_timeout'] == 1.0
    assert wait_until(lambda: not daemons.pids() and not path.exists(), WAIT)
    assert cli(daemons, 'daemon', 'status').returncode == 1


def test_each_environment_has_a_daemon_of_its_own(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: pathlib.Path) -> None:
    keys = set()
    for name, value in (('ROS_DOMAIN_ID', '7'), ('ROS_AUTOMATIC_DISCOVERY_RANGE', 'SUBNET'),
                        ('ROS_STATIC_PEERS', '192.168.0.7'), ('ROS_DISCOVERY_SERVER', ':11811'),
                        ('ROS_SUPER_CLIENT', 'true'), ('RMW_IMPLEMENTATION', 'rmw_cyclonedds_cpp'),
                        ('FASTRTPS_DEFAULT_PROFILES_FILE', '/elsewhere.xml')):
        before = protocol.environment_key(protocol.environment())
        if os.environ.get(name) == value:  # this worker's own (its ROS domain may be 7)
            value += '0'
        monkeypatch.setenv(name, value)
        keys.add(before)
        assert protocol.environment_key(protocol.environment()) != before, name
    assert len(keys) == 7
    # A socket folder that others can open is not used.
    monkeypatch.setenv('XDG_RUNTIME_DIR', str(tmp_path))
    folder = protocol.socket_directory()
    os.chmod(folder, 0o755)
    with pytest.raises(protocol.DaemonUnusable, match='not a folder that only this user'):
        protocol.socket_directory()
