"""
mypy over the pure-logic modules, and a check that they stay free of rclpy.

The cores (state machine engine, mux arbitration, waypoint rules, teleop, frontier search,
simulation) and the controller library (robot_sm_control) are where behaviour lives; they are
typed, checked by mypy with the configuration in setup.cfg, and must import without rclpy so that
they can be tested to the millisecond with injected time.
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
#: Pure modules outside the core packages.
PURE_MODULES = ['parameters', 'planar', 'quoting', 'storage', 'client/robot_search',
                'client/tasks', 'frontends/presence_monitor', 'frontends/cli_parser',
                'frontends/command', 'frontends/daemon/capture', 'frontends/daemon/client',
                'frontends/daemon/control', 'frontends/daemon/protocol',
                'frontends/web/map_image', 'frontends/web/outbox', 'frontends/web/protocol',
                'frontends/web/tokens', 'frontends/web/views']
#: Typed modules that use rclpy: the Python API for operators, the running suite, the robot-sm
#: daemon, the web console.
CLIENT_MODULES = ['client/__init__', 'client/connection', 'client/fleet', 'client/interface',
                  'client/spinning_node', 'client/status', 'client/suite_client',
                  'client/waypoint_calls', 'bringup/running_suite',
                  'frontends/daemon/held_clients', 'frontends/daemon/server',
                  'frontends/web/actions', 'frontends/web/bridge', 'frontends/web/console',
                  'frontends/web/gate', 'frontends/web/main', 'frontends/web/server',
                  'frontends/web/session']
#: The controller library, a package of its own beside robot_sm.
CONTROL = PACKAGE.parent / 'robot_sm_control' / 'robot_sm_control'


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
    paths += [str(CONTROL)]
    stdout, stderr, rc = api.run(
        ['--config-file', str(PACKAGE / 'setup.cfg'), '--no-error-summary', *paths])
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
