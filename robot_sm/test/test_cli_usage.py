"""robot-sm without a suite: usage errors, an unreachable suite, plugin listing."""

import argparse
import inspect
import json
import os
import pathlib
import signal
import subprocess
import sys
from typing import List

from operator_suite import cli_command, run_into_a_closed_pipe
import pytest
from robot_sm.frontends.cli import build_parser, main, Ros2Command, VERBS


def run_cli(*args: str, timeout: float = 60.0) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, '-m', 'robot_sm.frontends.cli', *args],
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize('argv', [
    [],
    ['fly'],
    ['estop', 'maybe'],
    ['fleet', 'estop', 'maybe'],
    ['fleet', '--expect', 'some'],
    ['mode', 'turbo'],
    ['waypoint', 'add', '1.0'],
    ['waypoint', 'add', 'nan', '2.0'],
    ['waypoint', 'add', '1.0', 'inf'],
    ['follow', 'start', '--mode', 'zigzag'],
    ['goal', 'north', '1.0'],
    ['goal', '1.0'],
])
def test_usage_errors_exit_with_2(argv: List[str]) -> None:
    assert main(argv) == 2


def test_help_lists_every_command(capsys: pytest.CaptureFixture) -> None:
    assert main(['--help']) == 0
    out = capsys.readouterr().out
    for command in ('status', 'fleet', 'estop', 'mode', 'waypoint', 'follow', 'explore', 'goal',
                    'reverse', 'plugins'):
        assert command in out


def test_an_unreachable_suite_is_named_and_exits_with_2() -> None:
    result = run_cli('--namespace', '/nobody_here', '--timeout', '0.5', 'estop', 'on')
    assert result.returncode == 2
    assert '/nobody_here/robot_sm/_mux/command' in result.stderr
    assert 'is the suite running' in result.stderr


def test_a_fleet_without_robots_is_said_and_exits_with_2() -> None:
    for verb in (['fleet'], ['fleet', 'estop', 'on']):
        result = run_cli('--namespace', '/nobody_here', '--timeout', '0.5', *verb)
        assert result.returncode == 2, result
        assert 'no robot_sm suite found under /nobody_here' in result.stderr


def test_plugins_are_listed_as_json() -> None:
    result = run_cli('--json', 'plugins')
    assert result.returncode == 0, result.stderr
    plugins = json.loads(result.stdout)
    assert isinstance(plugins, list)
    for plugin in plugins:
        assert set(plugin) == {'name', 'target', 'kind'}


def test_parser_defaults() -> None:
    args = build_parser().parse_args(['waypoint', 'add', '1', '2'])
    assert (args.x, args.y, args.yaw, args.routine, args.at) == (1.0, 2.0, 0.0, '', -1)


def complete(tmp_path: pathlib.Path, line: str) -> List[str]:
    """Return what the shell offers when Tab is pressed after ``line`` (argcomplete)."""
    out = tmp_path / 'completions'
    env = {**os.environ, '_ARGCOMPLETE': '1', '_ARGCOMPLETE_IFS': '\n', 'COMP_LINE': line,
           'COMP_POINT': str(len(line)), '_ARGCOMPLETE_STDOUT_FILENAME': str(out)}
    result = subprocess.run(cli_command(), env=env, capture_output=True, text=True, timeout=60.0)
    assert result.returncode == 0, result.stderr
    return [word.strip() for word in out.read_text().split('\n')]


@pytest.mark.parametrize('line, offered', [
    ('robot-sm wa', ['waypoint']),
    ('robot-sm waypoint r', ['remove', 'routine', 'routines', 'reset']),
    ('robot-sm follow start --mode ', ['single', 'roundtrip', 'patrol']),
    ('robot-sm estop o', ['on', 'off']),
    ('robot-sm fleet e', ['estop']),
    ('robot-sm fleet estop o', ['on', 'off']),
])
def test_tab_completes_commands_and_choices(tmp_path: pathlib.Path, line: str,
                                            offered: List[str]) -> None:
    pytest.importorskip('argcomplete')
    assert complete(tmp_path, line) == offered


def test_the_cli_works_without_argcomplete(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setitem(sys.modules, 'argcomplete', None)  # import argcomplete fails
    assert main(['--help']) == 0
    assert 'robot-sm' in capsys.readouterr().out


def subcommands(parser: argparse.ArgumentParser, prefix: str = '') -> List[str]:
    """Return the words of every verb the parser has, 'group verb' for grouped ones."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action._name_parser_map.items():
                nested = subcommands(sub, f'{prefix}{name} ')
                if not nested or sub.get_default('run_verb') is not None:
                    found.append(f'{prefix}{name}')  # a verb (with verbs of its own: fleet)
                found += nested
    return found


def test_robot_sm_and_ros2_robot_sm_have_every_verb_of_the_table_with_its_docstring() -> None:
    ros2 = argparse.ArgumentParser(prog='ros2 robot_sm')
    Ros2Command().add_arguments(ros2, 'ros2 robot_sm')
    assert subcommands(build_parser()) == subcommands(ros2) == list(VERBS)
    for words, verb in VERBS.items():
        args = build_parser().parse_args([*words.split(), *REQUIRED.get(words, [])])
        assert args.run_verb is verb
        summary = inspect.getdoc(verb.function).splitlines()[0]
        page = subprocess.run(
            [sys.executable, '-m', 'robot_sm.frontends.cli', *words.split(), '--help'],
            capture_output=True, text=True, timeout=60).stdout
        assert summary in ' '.join(page.split()), (words, page)


#: Arguments a verb cannot be parsed without.
REQUIRED = {'estop': ['on'], 'fleet estop': ['on'], 'mode': ['stopped'], 'reverse': ['off'],
            'waypoint add': ['1', '2'],
            'waypoint move': ['0', '1', '2'], 'waypoint remove': ['0'],
            'waypoint routine': ['0', ''], 'goal send': ['1', '2']}


def test_goal_cancel_is_a_verb_and_send_may_be_left_out() -> None:
    assert build_parser().parse_args(['goal', 'cancel']).run_verb is VERBS['goal cancel']
    for argv in (['goal', 'send', '1', '2.5'], ['goal', '1', '2.5']):
        args = build_parser().parse_args(argv)
        assert args.run_verb is VERBS['goal send'] and (args.x, args.y, args.yaw) == (1, 2.5, 0)
    assert main(['goal', 'cancel', '1']) == 2  # cancel takes nothing: no X doubles as a verb
    assert main(['goal', 'send', 'cancel', '1']) == 2


def test_tab_completes_the_goal_verbs(tmp_path: pathlib.Path) -> None:
    pytest.importorskip('argcomplete')
    assert complete(tmp_path, 'robot-sm goal s') == ['send']
    assert complete(tmp_path, 'robot-sm goal c') == ['cancel']


@pytest.mark.parametrize('argv, namespace, timeout, as_json', [
    (['status', '--json'], '', 5.0, True),
    (['fleet', '--json'], '', 5.0, True),
    (['waypoint', 'list', '-t', '2'], '', 2.0, False),
    (['fleet', 'estop', 'on', '--namespace', '/fleet', '--json'], '/fleet', 5.0, True),
    (['goal', '1', '2', '-n', '/r1', '--timeout', '3'], '/r1', 3.0, False),
    (['-n', '/r1', '-t', '1', 'estop', 'on', '-t', '2'], '/r1', 2.0, False),  # after wins
])
def test_json_timeout_and_namespace_are_taken_after_the_verb_too(
        argv: List[str], namespace: str, timeout: float, as_json: bool) -> None:
    args = build_parser().parse_args(argv)
    assert (args.namespace, args.timeout, args.json) == (namespace, timeout, as_json)


@pytest.mark.parametrize('argv', [['plugins'], ['--json', 'plugins']])
def test_output_into_a_closed_pipe_ends_quietly_as_unix_tools_do(argv: List[str]) -> None:
    result = run_into_a_closed_pipe(cli_command() + argv)
    assert result.stderr == ''
    assert result.returncode == -signal.SIGPIPE  # the shell shows 141, as for `yes | head -1`
