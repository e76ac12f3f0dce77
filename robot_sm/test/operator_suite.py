"""
The suite as the node tests run it, and ``robot-sm`` run as an operator runs it.

:func:`scripted` gives the parameters of the suite without a robot: navigation is the test
package's ``ScriptedNavigation`` (it pretends to drive for a number of ticks), the service
provider takes the pose as ``config/sim.yaml`` tells it to, for the tests that add the simulated
robot with :func:`start_robot`; the ``start_scripted`` and ``suite`` fixtures (``conftest.py``)
start that suite. :func:`run_cli` runs ``robot-sm`` as a child process, the way an operator runs
it, against the suite's namespace.
"""

import os
import pathlib
import shutil
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from robot_sm.bringup.parameter_files import load_parameter_file, parameters_for
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.nodes.robot_sim import RobotSim
from robot_sm.testing import RosHarness, wait_until

WAIT = 10.0
#: Routines the service provider accepts in these tests (``Scripted`` is the test package's).
ROUTINES = ['Wait', 'Scripted']
#: The test package of plugin states, installed the way robot packages are.
TEST_PLUGINS = pathlib.Path(__file__).parent / 'fixtures' / 'plugins'
SIM_CONFIG = pathlib.Path(__file__).resolve().parents[1] / 'config' / 'sim.yaml'
#: The type of the ``start_suite`` and ``start_scripted`` fixtures.
StartSuite = Callable[..., RunningSuite]


def scripted(state_interface: Optional[Mapping[str, Any]] = None) -> Dict[str, Dict[str, Any]]:
    """Return the parameters of the suite with ScriptedNavigation, ``state_interface`` over."""
    pose = {name: value for name, value in parameters_for(
        'service_provider', [load_parameter_file(SIM_CONFIG)]).items()
        if name.startswith('pose_')}
    return {
        'service_provider': {'waypoints_file': '', 'waypoint_routines': ROUTINES, **pose},
        'state_interface': {'navigation_plugin': 'ScriptedNavigation',
                            'ScriptedNavigation.drive_ticks': 4,
                            'CalculateGoal.map_timeout': 60.0, **(state_interface or {})},
    }


def start_robot(ros: RosHarness, suite: RunningSuite, x: float, y: float,
                yaw: float = 0.0) -> None:
    """Start the simulated robot at ``(x, y, yaw)``; wait until the suite knows its pose."""
    ros.start_node(RobotSim, {'world': 'office', 'start_x': x, 'start_y': y, 'start_yaw': yaw})

    def known() -> bool:
        pose = suite.client.robot_pose()
        return pose.success and abs(pose.data[0] - x) < 1e-9 and abs(pose.data[1] - y) < 1e-9

    if not wait_until(known, WAIT, interval=0.05):
        raise TimeoutError('the service provider did not take the robot pose')


def estop(suite: RunningSuite, engaged: bool) -> float:
    """Engage or release the e-stop; return when the call was made."""
    called = time.monotonic()
    result = suite.client.set_emergency_stop(engaged)
    assert result.success, result.message
    return called


def cli_command() -> List[str]:
    """Return the installed ``robot-sm`` console script, else ``python -m ...frontends.cli``."""
    script = shutil.which('robot-sm')
    return [script] if script else [sys.executable, '-m', 'robot_sm.frontends.cli']


def cli_argv(namespace: str, *args: str, timeout: float = 5.0) -> List[str]:
    """Return the argv of ``robot-sm --namespace NAMESPACE --timeout TIMEOUT ARGS...``."""
    return cli_command() + ['--namespace', namespace, '--timeout', str(timeout), *args]


def run_cli(namespace: str, *args: str, timeout: float = 5.0,
            env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    """
    Run ``robot-sm`` against the suite in ``namespace`` in a child process; wait for it.

    The child inherits the test's ROS domain and loopback discovery; it is killed if it has not
    ended ``timeout`` + 30 s later.
    """
    return subprocess.run(cli_argv(namespace, *args, timeout=timeout), capture_output=True,
                          text=True, timeout=timeout + 30.0, env={**os.environ, **(env or {})})


def run_cli_together(namespace: str, *commands: Sequence[str], timeout: float = 5.0,
                     env: Optional[Dict[str, str]] = None) -> List[subprocess.CompletedProcess]:
    """
    Run several ``robot-sm`` commands at the same time (they must not depend on each other).

    Returns their results in the order given.
    """
    children = [subprocess.Popen(cli_argv(namespace, *args, timeout=timeout),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env={**os.environ, **(env or {})})
                for args in commands]
    results = []
    for child in children:
        try:
            stdout, stderr = child.communicate(timeout=timeout + 30.0)
        except subprocess.TimeoutExpired:
            child.kill()
            stdout, stderr = child.communicate()
        results.append(subprocess.CompletedProcess(child.args, child.returncode, stdout,
                                                   stderr))
    return results


def describe(result: subprocess.CompletedProcess) -> str:
    """Return what a CLI run printed, for assertion messages."""
    return (f'exit {result.returncode}\n--- stdout\n{result.stdout}\n'
            f'--- stderr\n{result.stderr}')


def run_into_a_closed_pipe(argv: Sequence[str]) -> subprocess.CompletedProcess:
    """Run ``argv`` with its stdout a pipe whose reader has gone (``robot-sm ... | head -0``)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(list(argv), stdout=write_end, stderr=subprocess.PIPE, text=True,
                              timeout=60.0)
    finally:
        os.close(write_end)
