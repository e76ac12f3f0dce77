"""
mypy over the pure-logic modules, and a check that they stay free of rclpy.

The cores (state machine engine, mux arbitration, waypoint rules, teleop, controllers, frontier
search, simulation) are where behaviour lives; they are typed, checked by mypy with the
configuration in setup.cfg, and must import without rclpy so that they can be tested to the
millisecond with injected time.
"""

import pathlib
import subprocess
import sys

from mypy import api
import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1]
SOURCE = PACKAGE / 'robot_sm'
CORES = ['control', 'exploration', 'grid', 'mux', 'navigation', 'sim', 'statemachine', 'teleop',
         'recording', 'waypoints', 'xr']
#: Pure modules outside the core packages.
PURE_MODULES = ['background_writer', 'parameters', 'planar', 'quoting', 'storage', 'tasks']
#: Typed modules that use rclpy: the Python API for operators and the running suite.
CLIENT_MODULES = ['api', 'running_suite', 'suite_connection']


def _present_cores() -> list[str]:
    return [core for core in CORES if (SOURCE / core / '__init__.py').exists()]


@pytest.mark.linter
@pytest.mark.mypy
def test_mypy_on_cores() -> None:
    cores = _present_cores()
    if not cores:
        pytest.skip('no core package yet')
    paths = [str(SOURCE / core) for core in cores]
    paths += [str(SOURCE / f'{module}.py') for module in PURE_MODULES + CLIENT_MODULES]
    stdout, stderr, rc = api.run(
        ['--config-file', str(PACKAGE / 'setup.cfg'), '--no-error-summary', *paths])
    assert rc == 0, stdout + stderr


@pytest.mark.parametrize('core', CORES)
def test_core_imports_without_rclpy(core: str) -> None:
    if not (SOURCE / core / '__init__.py').exists():
        pytest.skip(f'robot_sm.{core} does not exist yet')
    code = (
        'import importlib, pkgutil, sys\n'
        f'import robot_sm.{core} as core\n'
        'for info in pkgutil.walk_packages(core.__path__, core.__name__ + "."):\n'
        '    importlib.import_module(info.name)\n'
        'bad = sorted(m for m in sys.modules if m.split(".")[0] in ("rclpy", "rosidl_parser"))\n'
        'print(",".join(bad))\n'
    )
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == '', f'robot_sm.{core} imports {result.stdout.strip()}'
