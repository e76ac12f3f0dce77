"""
The typed contract between the suite and its tools, and the layers of the package.

- :mod:`robot_sm.contract`'s numbers are the messages' constants (a tool and the suite never
  disagree on what 2 means);
- no client or front-end code reads the suite's English: state-name prefixes (``'W: '``) and
  outcome texts are matched nowhere outside the state machine that writes them;
- the import-linter contracts of ``setup.cfg`` hold: cores import no ROS, and each role imports
  only the roles below it.
"""

import pathlib
import re
import subprocess
import sys
from typing import Any, Iterator, List, Tuple

import pytest
from robot_sm import contract
from robot_sm_msgs.msg import OperationMode, StateInfo, WaypointArray
from robot_sm_msgs.srv import Command

PACKAGE = pathlib.Path(__file__).resolve().parents[1]
SOURCES = PACKAGE / 'robot_sm'


def _constants(msg_type: Any, prefix: str = '') -> Iterator[Tuple[str, int]]:
    for name in dir(msg_type):
        if name.isupper() and name.startswith(prefix) and not name.endswith('__DEFAULT') \
                and isinstance(getattr(msg_type, name), int):
            yield name[len(prefix):], int(getattr(msg_type, name))


@pytest.mark.parametrize('enum,msg_type,prefix', [
    (contract.Mode, OperationMode, ''),
    (contract.FollowingMode, WaypointArray, ''),
    (contract.Activity, StateInfo, 'ACTIVITY_'),
    (contract.Outcome, StateInfo, 'OUTCOME_'),
    (contract.Command, Command.Request, ''),
    (contract.Code, Command.Response, ''),
    (contract.GoalObsolete, Command.Request, 'GOAL_OBSOLETE_'),
])
def test_the_contract_s_numbers_are_the_messages(enum: Any, msg_type: Any, prefix: str) -> None:
    expected = {name: value for name, value in _constants(msg_type, prefix)
                if not (prefix == '' and (name.startswith('GOAL_OBSOLETE_') or name == 'KEEP'))}
    assert {member.name: int(member) for member in enum} == expected
    assert contract.KEEP == Command.Request.KEEP


#: What reading the suite's English looks like: a state-name prefix, or an outcome text.
ENGLISH = [
    re.compile(r"""['"][WEG]: ?['"]"""),  # 'W: ', "E:"
    re.compile(r"""(startswith|startsWith)\(\s*['"][WEG]:"""),
    re.compile(r"""['"](waypoint following finished|exploration finished|simple goal """
               r"""reached|mode is already|Waypoint following stopped|Exploration stopped|"""
               r"""Simple goal stopped|simple goal ignored)"""),
]
#: Where the suite writes its English (and where a rule may name it in a comment).
WRITERS = ('statemachine', 'plugins', 'mux', 'gateway', 'nodes/command_gateway.py')


def _readers() -> List[pathlib.Path]:
    """Return the client's and front-ends' sources, and the nodes that are not the writers."""
    found = []
    for folder in ('client', 'frontends', 'nodes', 'bringup'):
        for path in sorted((SOURCES / folder).rglob('*')):
            relative = path.relative_to(SOURCES).as_posix()
            if path.suffix in ('.py', '.js', '.html') and not relative.startswith(WRITERS):
                found.append(path)
    return found


def test_no_tool_reads_the_suite_s_english() -> None:
    readers = _readers()
    assert any(path.suffix == '.js' for path in readers)
    matches = []
    for path in readers:
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            code = line.split('#', 1)[0] if path.suffix == '.py' else line.split('//', 1)[0]
            if any(pattern.search(code) for pattern in ENGLISH):
                matches.append(f'{path.relative_to(SOURCES)}:{number}: {line.strip()}')
    assert not matches, ('tools must read the typed state (robot_sm/state) and the answer '
                         'codes, not names or texts:\n' + '\n'.join(matches))


def test_the_english_check_finds_what_it_looks_for() -> None:
    for line in ("if state.startswith('W: '):", "shown.state.startsWith('E: ')",
                 "if outcome == 'exploration finished':", "message.startswith('mode is already')"):
        assert any(pattern.search(line) for pattern in ENGLISH), line


def test_the_layers_hold() -> None:
    lint = pathlib.Path(sys.executable).with_name('lint-imports')
    if not lint.exists():  # make test installs it (tools/requirements.txt)
        pytest.skip('import-linter is not installed: pip install import-linter')
    result = subprocess.run([str(lint), 'setup.cfg'], cwd=PACKAGE, capture_output=True,
                            text=True, timeout=120.0)
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'Contracts: 2 kept, 0 broken.' in result.stdout
