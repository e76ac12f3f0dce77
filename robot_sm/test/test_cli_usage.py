"""robot-sm without a suite: usage errors, an unreachable suite, plugin listing."""

import json
import os
import pathlib
import subprocess
import sys
from typing import List

from operator_suite import cli_command
import pytest
from robot_sm.cli import build_parser, main


def run_cli(*args: str, timeout: float = 60.0) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, '-m', 'robot_sm.cli', *args], capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.parametrize('argv', [
    [],
    ['fly'],
    ['estop', 'maybe'],
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
    for command in ('status', 'estop', 'mode', 'waypoint', 'follow', 'explore', 'goal',
                    'reverse', 'plugins'):
        assert command in out


def test_an_unreachable_suite_is_named_and_exits_with_2() -> None:
    result = run_cli('--namespace', '/nobody_here', '--timeout', '0.5', 'estop', 'on')
    assert result.returncode == 2
    assert '/nobody_here/robot_sm/emergency_stop' in result.stderr
    assert 'is the suite running' in result.stderr


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
