"""
robot-sm's views and front doors against a running suite: cycle, plugins, pipes, ros2, README.

Each command runs as a child process, as an operator runs it, through a daemon of the module's
own; where ros2cli is installed, the README's ``ros2 topic echo`` lines are run too.
"""

import argparse
import importlib.metadata
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
from typing import List

from cli_calls import ok
from operator_suite import (
    cli_command,
    describe,
    run_cli,
    run_cli_together,
    run_into_a_closed_pipe,
    TEST_PLUGINS,
)
import pytest
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.nodes.robot_control_mux import RobotControlMux
from robot_sm.nodes.service_provider import ServiceProvider
from robot_sm.testing import RosHarness

#: Every command goes through a daemon of the module's own, as an operator's commands do
#: (test_cli_daemon.py checks that each gives what it gives without one).
pytestmark = pytest.mark.usefixtures('cli_daemon')


def test_status_into_a_pipe_whose_reader_has_gone_ends_quietly(suite: RunningSuite) -> None:
    # `robot-sm status | head -2`, when head has gone before status writes.
    result = run_into_a_closed_pipe(cli_command() + ['--namespace', suite.namespace, 'status'])
    assert (result.returncode, result.stderr) == (-signal.SIGPIPE, '')


def test_cycle_prints_the_table_the_state_interface_runs(suite: RunningSuite) -> None:
    document = json.loads(ok(suite, '--json', 'cycle').stdout)
    roles = {role['role']: role for role in document['roles']}
    assert document['start'] == 'boot'
    assert roles['idle']['interrupts']['EMERGENCY_STOP'] == 'emergency_stop'
    assert document['interrupt_priority'][0] == 'EMERGENCY_STOP'
    text = ok(suite, 'cycle').stdout
    assert text.startswith('| role | state (plugin) |')
    assert all(f'| {role} |' in text for role in roles)


def test_a_missing_part_of_the_suite_is_named_and_exits_with_2(ros: RosHarness) -> None:
    # The mux and the service provider run, the state interface does not.
    ros.start_node(RobotControlMux)
    ros.start_node(ServiceProvider, {'waypoints_file': ''})
    commands = [('robot_sm/command', ['goal', '1', '2']),
                ('robot_sm/command', ['follow', 'stop']),
                ('robot_sm/state_info', ['status'])]
    results = run_cli_together(ros.namespace, *(words for _, words in commands), timeout=0.5)
    for (missing, _), result in zip(commands, results):
        assert result.returncode == 2, describe(result)
        assert f'{ros.namespace}/{missing}' in result.stderr, describe(result)
        assert not result.stdout


def test_plugins_lists_installed_states_without_importing_them() -> None:
    plugins_path = os.pathsep.join(
        [str(TEST_PLUGINS)] + [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if p])
    result = run_cli('/', 'plugins', env={'PYTHONPATH': plugins_path})
    assert result.returncode == 0, describe(result)
    lines = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines()}
    assert lines['ScriptedNavigation'] == ['state', 'robot_sm_test_plugins:ScriptedNavigation']
    assert lines['ScriptedRoutine'][0] == 'routine'
    assert lines['WaitRoutine'][0] == 'routine'
    # Listed, not loaded: the module of this entry point does not exist.
    assert lines['MissingModule'] == ['state', 'robot_sm_test_plugins.does_not_exist:Anything']


def test_ros2_robot_sm_is_robot_sm_as_a_ros2_command(suite: RunningSuite) -> None:
    # ros2cli finds the command through its entry point and runs it as one of its own.
    [entry_point] = [e for e in importlib.metadata.entry_points(group='ros2cli.command')
                     if e.name == 'robot_sm']
    command = entry_point.load()()
    parser = argparse.ArgumentParser(prog='ros2 robot_sm')
    command.add_arguments(parser, 'ros2 robot_sm')
    args = parser.parse_args(['--namespace', suite.namespace, 'estop', 'on'])
    assert command.main(parser=parser, args=args) == 0
    suite.client.wait_for_state('Emergency Stop')
    if shutil.which('ros2') is None:
        pytest.skip('ros2cli is not installed (no wheels exist; a ROS 2 install has it): '
                    'the ros2 command itself is not run')
    result = subprocess.run(['ros2', 'robot_sm', '--namespace', suite.namespace, '--json',
                             'status'], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, describe(result)
    assert json.loads(result.stdout)['state'] == 'Emergency Stop'
    listed = subprocess.run(['ros2', '--help'], capture_output=True, text=True, timeout=60)
    assert 'robot_sm' in listed.stdout, describe(listed)


README = pathlib.Path(__file__).resolve().parents[2] / 'README.md'


def readme_topic_echoes() -> List[str]:
    """Return the ``ros2 topic echo`` command lines the README gives."""
    return re.findall(r'`(ros2 topic echo [^`]*)`', README.read_text())


def test_the_readme_s_topic_echo_lines_end_and_print_whole_messages() -> None:
    echoes = readme_topic_echoes()
    for line in echoes:
        assert '--once' in line.split(), line  # else it waits for ever, after the latched message
        if line.split()[-2].endswith(FULL_LENGTH_TOPICS):
            assert '--full-length' in line.split(), line  # ros2 topic echo cuts at 128 characters
    cells = [cell for cell in README.read_text().split(' | ') if 'robot_sm/operator_' in cell]
    assert cells
    for cell in cells:
        if 'ros2 topic' in cell:
            assert 'config/remote.yaml' in cell, cell  # the topics exist only with it


#: Topics whose messages can be longer than the 128 characters ``ros2 topic echo`` prints.
FULL_LENGTH_TOPICS = ('robot_sm/cycle', 'robot_sm/state_outcome')


#: Topics that exist only with ``config/remote.yaml`` (the operator heartbeat and presence):
#: the README's lines for them are not run against the plain suite.
REMOTE_ONLY_TOPICS = ('robot_sm/operator_heartbeat', 'robot_sm/operator_present')


def test_the_readme_s_topic_echo_lines_get_the_latched_state(suite: RunningSuite) -> None:
    echoes = readme_topic_echoes()
    assert echoes
    for line in echoes:
        if '--qos-durability transient_local' in line:
            # Without it ros2topic subscribes best effort and never gets the latched message.
            assert '--qos-reliability reliable' in line, line
    if shutil.which('ros2') is None:
        pytest.skip('ros2cli is not installed (no wheels exist; a ROS 2 install has it): the '
                    'lines are not run')
    for line in echoes:
        words = line.split()
        topic = next(word for word in words if word.startswith('robot_sm/'))
        if topic in REMOTE_ONLY_TOPICS:
            continue
        assert '--once' in words, f'{line}: without --once it echoes until Ctrl-C'
        argv = [f'{suite.namespace}/{word}' if word == topic else word for word in words]
        argv.insert(3, '--no-daemon')  # leave no ros2 daemon behind in the test's domain
        result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, describe(result)
        expected = {'robot_sm/state_info': 'data: Idle', 'robot_sm/control': 'held: '}.get(
            topic, 'data: ')
        assert expected in result.stdout, describe(result)
