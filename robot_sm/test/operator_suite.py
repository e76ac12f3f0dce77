"""
The suite as an operator meets it, for the CLI and control panel tests.

:class:`OperatorSuite` runs the mux, the service provider and the state interface in the test
process (navigation is the test package's ``ScriptedNavigation``: it pretends to drive for a
number of ticks) and records what they publish. Where a test needs the robot's pose it starts the
simulated robot, and the service provider takes the pose as ``config/sim.yaml`` tells it to.
:func:`run_cli` runs ``robot-sm`` as a child process, the way an operator runs it, against the
suite's namespace.
"""

import os
import pathlib
import shutil
import subprocess
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence

from geometry_msgs.msg import Point, Pose, Quaternion
from robot_sm import qos
from robot_sm.bringup import load_parameter_file, parameters_for
from robot_sm.nodes.robot_control_mux import RobotControlMux
from robot_sm.nodes.robot_sim import RobotSim
from robot_sm.nodes.service_provider import ServiceProvider
from robot_sm.nodes.state_interface import StateInterface
from robot_sm.testing import Recorder, RosHarness, wait_until
from robot_sm_msgs.msg import OperationMode, WaypointArray
from robot_sm_msgs.srv import AddWaypoint, GetRobotPose, GetWaypoints
from std_msgs.msg import Bool, String

WAIT = 10.0
#: Routines the service provider accepts in these tests (``Scripted`` is the test package's).
ROUTINES = ['Wait', 'Scripted']
#: The test package of plugin states, installed the way robot packages are.
TEST_PLUGINS = pathlib.Path(__file__).parent / 'fixtures' / 'plugins'
SIM_CONFIG = pathlib.Path(__file__).resolve().parents[1] / 'config' / 'sim.yaml'


def sim_pose_parameters() -> Dict[str, Any]:
    """Return how ``config/sim.yaml`` has the service provider take the simulated robot's pose."""
    values = parameters_for('service_provider', [load_parameter_file(SIM_CONFIG)])
    return {name: value for name, value in values.items() if name.startswith('pose_')}


class OperatorSuite:
    """The mux, the service provider and the state interface, with the probe recording."""

    def __init__(self, ros: RosHarness, state_parameters: Optional[Dict[str, Any]] = None,
                 start_nodes: bool = True) -> None:
        self.ros = ros
        self.states: Recorder[String] = ros.record(String, 'robot_sm/state_info', qos.STATE)
        self.modes: Recorder[OperationMode] = ros.record(
            OperationMode, 'robot_sm/operation_mode', qos.STATE)
        self.lists: Recorder[WaypointArray] = ros.record(
            WaypointArray, 'robot_sm/waypoints', qos.STATE)
        self.reverse: Recorder[Bool] = ros.record(Bool, 'robot_sm/reverse_mode', qos.STATE)
        self.exploration: Recorder[Bool] = ros.record(Bool, 'robot_sm/exploration_mode',
                                                      qos.STATE)
        if not start_nodes:
            return
        ros.start_node(RobotControlMux)
        ros.start_node(ServiceProvider, {'waypoints_file': '', 'waypoint_routines': ROUTINES,
                                         **sim_pose_parameters()})
        parameters: Dict[str, Any] = {'navigation_plugin': 'ScriptedNavigation',
                                      'ScriptedNavigation.drive_ticks': 4,
                                      'CalculateGoal.map_timeout': 60.0}
        parameters.update(state_parameters or {})
        ros.start_node(StateInterface, parameters)
        self.wait_state('Idle')

    @property
    def state(self) -> str:
        """Return the newest state name, or ''."""
        last = self.states.last
        return last.data if last is not None else ''

    def wait_state(self, predicate: 'str | Callable[[str], bool]', after: float = 0.0,
                   timeout: float = WAIT) -> str:
        """Wait for a state named ``predicate`` (or satisfying it); return its name."""
        check = predicate if callable(predicate) else (lambda name: name == predicate)
        return self.states.wait_for(lambda m: check(m.data), timeout=timeout, after=after).data

    def wait_current_state(self, name: str, timeout: float = WAIT) -> None:
        """Wait until the newest state is ``name``."""
        if not wait_until(lambda: self.state == name, timeout):
            raise TimeoutError(f'state is {self.state!r}, not {name!r}, after {timeout} s')

    def wait_mode(self, predicate: Callable[[OperationMode], bool],
                  timeout: float = WAIT) -> OperationMode:
        """Wait until the newest operation mode satisfies ``predicate``; return it."""
        if not wait_until(lambda: self.modes.last is not None and predicate(self.modes.last),
                          timeout):
            raise TimeoutError(f'operation mode is {self.modes.last}, after {timeout} s')
        return self.modes.last

    def wait_list(self, predicate: Callable[[WaypointArray], bool],
                  timeout: float = WAIT) -> WaypointArray:
        """Wait until the newest waypoint list satisfies ``predicate``; return it."""
        if not wait_until(lambda: self.lists.last is not None and predicate(self.lists.last),
                          timeout):
            raise TimeoutError(f'waypoint list is {self.lists.last}, after {timeout} s')
        return self.lists.last

    def waypoints(self) -> WaypointArray:
        """Return the list the service provider holds (asked by service)."""
        return self.ros.call(GetWaypoints, 'robot_sm/get_waypoints').waypoint_array

    def add_waypoint(self, x: float, y: float, routine: str = '') -> None:
        """Append a waypoint through the service."""
        request = AddWaypoint.Request(position=-1)
        request.waypoint.pose = Pose(position=Point(x=x, y=y), orientation=Quaternion(w=1.0))
        request.waypoint.routine = routine
        response = self.ros.call(AddWaypoint, 'robot_sm/add_waypoint', request)
        assert response.success, response.message

    def start_robot(self, x: float, y: float, yaw: float = 0.0) -> None:
        """Start the simulated robot at ``(x, y, yaw)``; wait until the suite knows its pose."""
        self.ros.start_node(RobotSim, {'world': 'office', 'start_x': x, 'start_y': y,
                                       'start_yaw': yaw})

        def known() -> bool:
            response = self.ros.call(GetRobotPose, 'robot_sm/get_robot_pose')
            return bool(response.success) and abs(response.pose.position.x - x) < 1e-9 \
                and abs(response.pose.position.y - y) < 1e-9

        if not wait_until(known, WAIT, interval=0.05):
            raise TimeoutError('the service provider did not take the robot pose')


def cli_command() -> List[str]:
    """Return the installed ``robot-sm`` console script, else ``python -m robot_sm.cli``."""
    script = shutil.which('robot-sm')
    return [script] if script else [sys.executable, '-m', 'robot_sm.cli']


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


def run_cli_together(namespace: str, *commands: Sequence[str],
                     timeout: float = 5.0) -> List[subprocess.CompletedProcess]:
    """
    Run several ``robot-sm`` commands at the same time (they must not depend on each other).

    Returns their results in the order given.
    """
    children = [subprocess.Popen(cli_argv(namespace, *args, timeout=timeout),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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
