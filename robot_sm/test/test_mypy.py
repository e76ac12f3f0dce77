"""
mypy over robot_sm and robot_sm_control; the pure-logic modules stay free of rclpy.

Every module is typed and checked by mypy with the configuration in setup.cfg. The cores (state
machine engine, mux arbitration, waypoint rules, teleop, frontier search, simulation) and the
controller library (robot_sm_control) are where behaviour lives; they must import without rclpy
so that they can be tested to the millisecond with injected time.
"""

import pathlib
import subprocess
import sys

from mypy import api
import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1]
SOURCE = PACKAGE / 'robot_sm'
CORES = ['drive', 'exploration', 'grid', 'mux', 'navigation', 'sim', 'statemachine', 'teleop',
         'recording', 'waypoints', 'xr']
#: The controller library, a package of its own beside robot_sm.
CONTROL = PACKAGE.parent / 'robot_sm_control' / 'robot_sm_control'


@pytest.mark.linter
@pytest.mark.mypy
def test_mypy_on_both_packages() -> None:
    stdout, stderr, rc = api.run(['--config-file', str(PACKAGE / 'setup.cfg'),
                                  '--no-error-summary', str(SOURCE), str(CONTROL)])
    assert rc == 0, stdout + stderr


@pytest.mark.parametrize('core', [f'robot_sm.{core}' for core in CORES] + ['robot_sm_control'])
def test_core_imports_without_rclpy(core: str) -> None:
    code = (
        'import importlib, pkgutil, sys\n'
        f'import {core} as core\n'
        'for info in pkgutil.walk_packages(core.__path__, core.__name__ + "."):\n'
        '    importlib.import_module(info.name)\n'
        'bad = sorted(m for m in sys.modules if m.split(".")[0] in ("rclpy", "rosidl_parser"))\n'
        'print(",".join(bad))\n'
    )
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '', f'{core} imports {result.stdout.strip()}'
