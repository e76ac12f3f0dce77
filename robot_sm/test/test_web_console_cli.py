"""
``robot-sm web`` and ``robot-sm up --web`` as an operator starts them.

What they print, what they refuse, and that Ctrl-C stops them.
"""

import ast
import fnmatch
import pathlib
import re
import signal
import socket
import subprocess
from typing import List, Optional
import urllib.error
import urllib.request

from operator_suite import cli_command
import pytest
from robot_sm.testing import NodeProcess, RosHarness, wait_until

START = 60.0
PACKAGE = pathlib.Path(__file__).resolve().parents[1]


def robot_sm(*args: str, namespace: str = '') -> List[str]:
    return [*cli_command(), '--namespace', namespace or '/', *args]


def fetch(url: str, cookie: Optional[str] = None) -> int:
    """Return the HTTP status of GET ``url`` (redirects not followed)."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):

        def redirect_request(self, *args: object) -> None:
            return None
    opener = urllib.request.build_opener(NoRedirect)
    request = urllib.request.Request(url, headers={'Cookie': cookie} if cookie else {})
    try:
        with opener.open(request, timeout=10.0) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_a_token_file_others_may_read_is_refused_before_anything_starts(
        tmp_path: pathlib.Path) -> None:
    token = tmp_path / 'token'
    token.write_text('a-token-that-is-long-enough-0123456789\n')
    token.chmod(0o644)
    result = subprocess.run(robot_sm('web', '--token-file', str(token)), capture_output=True,
                            text=True, timeout=60.0)
    assert result.returncode == 2
    assert f'group or others may access this token file (mode 644); run: chmod 600 {token}' \
        in result.stderr
    result = subprocess.run(robot_sm('web', '--certfile', str(token)), capture_output=True,
                            text=True, timeout=60.0)
    assert result.returncode == 2 and '--certfile and --keyfile go together' in result.stderr


@pytest.mark.parametrize('command', [['web', '--port', '0'], ['up', '--web', '--web-port']])
def test_the_console_prints_a_token_url_serves_only_with_it_and_stops_on_ctrl_c(
        ros: RosHarness, command: List[str]) -> None:
    if command[0] == 'up':
        with socket.socket() as probe:
            probe.bind(('127.0.0.1', 0))
            command = [*command, str(probe.getsockname()[1])]
    process = NodeProcess(robot_sm(*command, namespace=ros.namespace))
    try:
        assert wait_until(lambda: 'operator:  http' in process.output, START), process.output
        found = re.search(r'operator:  (http://127\.0\.0\.1:(\d+))/login\?token=([\w-]+)',
                          process.output)
        assert found, process.output
        url, token = found.group(1), found.group(3)
        assert len(token) >= 43  # 256 bits in base64url
        assert fetch(url + '/') == 401
        assert fetch(url + '/login?token=' + token[:-2]) == 401
        assert fetch(url + '/login?token=' + token) == 303
    finally:
        process.process.send_signal(signal.SIGINT)
        code = process.wait(30.0)
        process.stop()
    assert code == 0, process.output


def test_every_file_of_the_page_is_installed_with_the_package() -> None:
    tree = ast.parse((PACKAGE / 'setup.py').read_text())
    setup = next(node for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and isinstance(node.func, ast.Name) and node.func.id == 'setup')
    patterns = ast.literal_eval(next(
        k.value for k in setup.keywords if k.arg == 'package_data'))['robot_sm.frontends.web']
    static = PACKAGE / 'robot_sm' / 'frontends' / 'web'
    files = [path.relative_to(static).as_posix() for path in (static / 'static').rglob('*')
             if path.is_file()]
    assert 'static/index.html' in files
    missing = [name for name in files if not any(fnmatch.fnmatch(name, p) for p in patterns)]
    assert not missing, f'not in setup.py package_data: {missing}'
