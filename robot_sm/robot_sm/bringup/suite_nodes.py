"""
Which nodes make up the suite, and the namespaces of a simulated fleet's robots.

The launch files (``launch/*.launch.py``) and ``robot-sm up`` start the same nodes, listed here
once as :class:`NodeSpec` entries, with parameters from the same ROS parameter files
(:mod:`robot_sm.bringup.parameter_files`).
"""

from dataclasses import dataclass, field
import importlib
from typing import Any, Callable, List, Mapping, Optional, Tuple


@dataclass(frozen=True)
class NodeSpec:
    """One node of the suite: its executable, its class and the remappings it is started with."""

    #: The executable (console script) and node name.
    executable: str
    #: ``module:Class`` of the node.
    node_class: str
    #: Topic remappings ``(from, to)`` applied when it is launched.
    remappings: Tuple[Tuple[str, str], ...] = ()
    #: Parameters always passed (on top of the parameter file).
    parameters: Mapping[str, Any] = field(default_factory=dict)

    def load_class(self) -> Callable[..., Any]:
        """Import and return the node class."""
        module, _, name = self.node_class.partition(':')
        return getattr(importlib.import_module(module), name)


#: The core of the suite: who moves the base, the data store, the state machine. The mux is
#: ``supervised``: its state interface is started with it, and AUTONOMOUS waits until it is heard.
SUITE: Tuple[NodeSpec, ...] = (
    NodeSpec('robot_control_mux', 'robot_sm.nodes.robot_control_mux:RobotControlMux',
             parameters={'supervised': True}),
    NodeSpec('service_provider', 'robot_sm.nodes.service_provider:ServiceProvider'),
    NodeSpec('state_interface', 'robot_sm.nodes.state_interface:StateInterface'),
)


#: The simulated robot's nodes besides robot_sim (wheels from cmd_vel): one set per robot of a
#: simulated fleet.
ROBOT_NODES: Tuple[NodeSpec, ...] = (
    NodeSpec('base_controller', 'robot_sm.nodes.base_controller:BaseControllerNode'),
)


#: The simulation itself: one for a robot, or for a whole simulated fleet.
SIMULATOR: Tuple[NodeSpec, ...] = (NodeSpec('robot_sim', 'robot_sm.nodes.robot_sim:RobotSim'),)


#: The simulated robot: wheels from cmd_vel, and the simulation itself.
SIMULATION: Tuple[NodeSpec, ...] = ROBOT_NODES + SIMULATOR


#: The incident recorder: on by default (``recorder:=true`` of the launch files, ``robot-sm up``
#: without ``--no-recorder``), always in a process of its own beside the suite's, so that a crash
#: of the recorder never touches the mux.
RECORDER: Tuple[NodeSpec, ...] = (
    NodeSpec('incident_recorder', 'robot_sm.nodes.incident_recorder:IncidentRecorder'),
)


#: Arm teleoperation from XR controllers.
TELEOP: Tuple[NodeSpec, ...] = (
    NodeSpec('teleop_retargeting', 'robot_sm.nodes.teleop_retargeting:TeleopRetargeting'),
)


def fleet_names(count: int) -> List[str]:
    """Return the namespaces of a simulated fleet's robots: ``robot1`` ... ``robotN``."""
    return [f'robot{index}' for index in range(1, count + 1)]


def join_namespace(parent: str, name: str) -> str:
    """Return ``name`` under the namespace ``parent`` ('' or '/' for the root)."""
    return f"/{parent.strip('/')}/{name}".replace('//', '/')


#: The web operator console's default port (``robot-sm web --port``).
WEB_PORT = 8080


def web_console_arguments(namespace: str, port: int = WEB_PORT) -> List[str]:
    """
    Return the arguments of ``robot-sm`` that serve the web console of the suite in ``namespace``.

    ``robot-sm up --web`` runs them in a process of its own, and the launch files' ``web:=true``
    as a process of the launch; the console binds 127.0.0.1 and prints its address with the
    access token.
    """
    return ['--namespace', namespace or '/', 'web', '--port', str(port)]


def web_console_process(namespace: str, port: str,
                        environment: Optional[Mapping[str, str]] = None) -> Any:
    """
    Return the launch action that serves the web console (``web:=true`` of the launch files).

    ``robot-sm web`` from this package, as a process of the launch (it is no ROS node of its
    own: it runs the suite's client). Needs ``launch`` and ``launch_ros``.

    :raises RuntimeError: if ``port`` is not a port number (nothing is started).
    """
    from launch.actions import ExecuteProcess
    from launch_ros.substitutions import ExecutableInPackage
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise RuntimeError(f'web_port:={port!r} is not a port number (0..65535)')
    return ExecuteProcess(
        cmd=[ExecutableInPackage(executable='robot-sm', package='robot_sm'),
             *web_console_arguments(namespace, int(port))],
        name='robot_sm_web', additional_env=dict(environment or {}), output='screen',
        emulate_tty=True)
