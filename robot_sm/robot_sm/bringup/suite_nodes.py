"""
Which nodes make up the suite, and the namespaces of a simulated fleet's robots.

The launch files (``launch/*.launch.py``) and ``robot-sm up`` start the same nodes, listed here
once as :class:`NodeSpec` entries, with parameters from the same ROS parameter files
(:mod:`robot_sm.bringup.parameter_files`).
"""

from dataclasses import dataclass, field
import importlib
from typing import Any, Callable, List, Mapping, Tuple


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
