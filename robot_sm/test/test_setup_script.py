"""
tools/setup.sh interrupted with Ctrl-C, then run again, leaves a working environment.

Each test runs the script in a scratch copy of ``tools/`` whose requirements are one small
package (``--venv-only``: the Python environment, without the workspace build), interrupts it
the way Ctrl-C in a terminal does (SIGINT to its process group) at one point, and runs it again.
"""

import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time
from typing import Callable, Dict

import pytest

TOOLS = pathlib.Path(__file__).resolve().parents[2] / 'tools'
#: A small package without dependencies, pinned in tools/constraints.txt.
PACKAGE = 'iniconfig'


@pytest.fixture
def scratch(tmp_path: pathlib.Path) -> pathlib.Path:
    """Return a folder with tools/setup.sh and a one-package requirements file."""
    (tmp_path / 'tools').mkdir()
    for name in ('setup.sh', 'fix_cmake_paths.py'):
        shutil.copy(TOOLS / name, tmp_path / 'tools' / name)
    pin = next(line for line in (TOOLS / 'constraints.txt').read_text().splitlines()
               if line.lower().startswith(f'{PACKAGE}=='))
    (tmp_path / 'tools' / 'requirements.txt').write_text(f'{PACKAGE}\n')
    (tmp_path / 'tools' / 'constraints.txt').write_text(f'{pin}\n')
    return tmp_path


def environment() -> Dict[str, str]:
    """Return the environment of a shell outside any virtual environment."""
    env = {key: value for key, value in os.environ.items()
           if key not in ('VIRTUAL_ENV', 'PYTHONPATH', 'PYTHONHOME')}
    env['PYTHON'] = os.path.realpath(sys.executable)  # the interpreter the venv was made from
    return env


def run_setup(folder: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run(['bash', 'tools/setup.sh', '--venv-only'], cwd=folder,
                          env=environment(), capture_output=True, text=True, timeout=300)


def interrupt_setup(folder: pathlib.Path, when: Callable[[int], bool]) -> None:
    """Start the setup and press Ctrl-C as soon as ``when(process_group)`` is true."""
    process = subprocess.Popen(
        ['bash', 'tools/setup.sh', '--venv-only'], cwd=folder, env=environment(),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120.0
    while process.poll() is None and not when(process.pid):
        assert time.monotonic() < deadline, 'the setup never reached the point to interrupt'
        time.sleep(0.005)
    os.killpg(process.pid, signal.SIGINT)
    process.wait(timeout=60)


def running(group: int, words: str) -> bool:
    """Return whether a process of ``group`` has ``words`` in its command line."""
    for entry in pathlib.Path('/proc').iterdir():
        try:
            if entry.name.isdigit() and os.getpgid(int(entry.name)) == group and \
                    words in (entry / 'cmdline').read_bytes().replace(b'\0', b' ').decode():
                return True
        except (OSError, ProcessLookupError):
            continue
    return False


def assert_usable(folder: pathlib.Path) -> None:
    python = folder / '.venv' / 'bin' / 'python'
    check = subprocess.run([str(python), '-c', f'import {PACKAGE}, pip'], capture_output=True,
                           text=True)
    assert check.returncode == 0, check.stderr


def test_an_interrupted_venv_creation_is_built_again(scratch: pathlib.Path) -> None:
    venv = scratch / '.venv'
    interrupt_setup(scratch, lambda group: (venv / 'bin' / 'python').exists())
    # The interpreter is there, pip is not (python -m venv installs it last).
    assert not (venv / 'bin' / 'pip').exists()
    result = run_setup(scratch)
    assert result.returncode == 0, result.stderr
    assert '.venv is incomplete, building it again' in result.stderr
    assert_usable(scratch)


def test_an_interrupted_install_is_started_again(scratch: pathlib.Path) -> None:
    interrupt_setup(scratch, lambda group: running(group, '-m pip install'))
    result = run_setup(scratch)
    assert result.returncode == 0, result.stderr
    assert '.venv is incomplete, building it again' in result.stderr
    assert_usable(scratch)
    again = run_setup(scratch)  # complete now: nothing to do
    assert again.returncode == 0 and 'creating .venv' not in again.stderr, again.stderr
