"""
Which nodes make up the suite, and running them all in one process.

The launch files (``launch/*.launch.py``) and ``robot-sm up`` start the same nodes, listed here
once as :class:`NodeSpec` entries, with parameters from the same ROS parameter files. ``robot-sm
up`` is for machines without ``ros2 launch``: every node runs in this process on an executor of
its own thread, as if it were its own process.
"""

from dataclasses import dataclass, field
import importlib
import pathlib
import signal
import threading
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import yaml


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


#: The core of the suite: who moves the base, the data store, the state machine.
SUITE: Tuple[NodeSpec, ...] = (
    NodeSpec('robot_control_mux', 'robot_sm.nodes.robot_control_mux:RobotControlMux'),
    NodeSpec('service_provider', 'robot_sm.nodes.service_provider:ServiceProvider'),
    NodeSpec('state_interface', 'robot_sm.nodes.state_interface:StateInterface'),
)
#: The simulated robot: wheels from cmd_vel, and the simulation itself.
SIMULATION: Tuple[NodeSpec, ...] = (
    NodeSpec('base_controller', 'robot_sm.nodes.base_controller:BaseControllerNode'),
    NodeSpec('robot_sim', 'robot_sm.nodes.robot_sim:RobotSim'),
)
#: Arm teleoperation from XR controllers.
TELEOP: Tuple[NodeSpec, ...] = (
    NodeSpec('teleop_retargeting', 'robot_sm.nodes.teleop_retargeting:TeleopRetargeting'),
)


class ParameterFileError(ValueError):
    """A parameter file that cannot be read; the message names it and the problem."""


def load_parameter_file(path: pathlib.Path) -> Dict[str, Dict[str, Any]]:
    """
    Read a ROS 2 parameter file: ``{node_name: {ros__parameters: {...}}}``.

    Returns parameters by node name; the ``/**`` wildcard entry applies to every node. Nested
    mappings are flattened to dotted names as ROS does.
    """
    try:
        content = yaml.safe_load(pathlib.Path(path).read_text()) or {}
    except (OSError, yaml.YAMLError) as error:
        raise ParameterFileError(f'{path}: {error}') from error
    if not isinstance(content, dict):
        raise ParameterFileError(f'{path}: expected a mapping of node names')
    result: Dict[str, Dict[str, Any]] = {}
    for node, entry in content.items():
        if not isinstance(entry, dict) or not isinstance(entry.get('ros__parameters'), dict):
            raise ParameterFileError(f'{path}: {node} has no ros__parameters mapping')
        result[str(node).lstrip('/')] = _flatten(entry['ros__parameters'])
    return result


def _flatten(values: Mapping[str, Any], prefix: str = '') -> Dict[str, Any]:
    flat: Dict[str, Any] = {}
    for key, value in values.items():
        name = f'{prefix}{key}'
        if isinstance(value, dict):
            flat.update(_flatten(value, f'{name}.'))
        else:
            flat[name] = value
    return flat


def parameters_for(node_name: str, files: Iterable[Dict[str, Dict[str, Any]]],
                   overrides: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """Merge the wildcard and the node's own entries of ``files``, then ``overrides``."""
    merged: Dict[str, Any] = {}
    for content in files:
        merged.update(content.get('**', {}))
        merged.update(content.get(node_name, {}))
    merged.update(overrides or {})
    return merged


class SuiteProcess:
    """Nodes running in this process, each on its own executor thread."""

    def __init__(self, specs: Sequence[NodeSpec], parameter_files: Sequence[pathlib.Path] = (),
                 overrides: Optional[Mapping[str, Mapping[str, Any]]] = None,
                 namespace: str = '', context: Optional[Any] = None) -> None:
        import rclpy
        from rclpy.context import Context
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.parameter import Parameter

        self._own_context = context is None
        self.context = Context() if context is None else context
        if self._own_context:
            rclpy.init(context=self.context)
        files = [load_parameter_file(path) for path in parameter_files]
        self.nodes: Dict[str, Any] = {}
        self._executors: List[Any] = []
        self._threads: List[threading.Thread] = []
        try:
            for spec in specs:
                values = parameters_for(spec.executable, files,
                                        {**spec.parameters, **(overrides or {}).get(
                                            spec.executable, {})})
                node = spec.load_class()(
                    context=self.context, namespace=namespace or '/',
                    parameter_overrides=[Parameter(k, value=v) for k, v in values.items()])
                self.nodes[spec.executable] = node
        except Exception:
            self.shutdown()
            raise
        for name, node in self.nodes.items():
            executor = SingleThreadedExecutor(context=self.context)
            executor.add_node(node)
            thread = threading.Thread(target=self._spin, args=(executor,), name=name,
                                      daemon=True)
            self._executors.append(executor)
            self._threads.append(thread)
            thread.start()

    @staticmethod
    def _spin(executor: Any) -> None:
        try:
            executor.spin()
        except Exception:  # noqa: B902 - shutdown races end the spin
            pass

    def shutdown(self) -> None:
        """Stop every executor and node."""
        import rclpy
        for executor in self._executors:
            executor.shutdown(timeout_sec=2.0)
        for thread in self._threads:
            thread.join(timeout=5.0)
        for node in self.nodes.values():
            node.destroy_node()
        self.nodes.clear()
        if self._own_context:
            rclpy.try_shutdown(context=self.context)


def default_parameter_file() -> pathlib.Path:
    """Return the shipped parameter file ``config/robot_sm.yaml``."""
    from robot_sm.resources import share_directory
    return share_directory() / 'config' / 'robot_sm.yaml'


def run_up(sim: bool, world: Optional[str], parameter_files: Sequence[pathlib.Path],
           namespace: str = '', teleop: bool = False) -> int:
    """Run the suite (and the simulation) until Ctrl-C; return an exit code."""
    from robot_sm.parameters import ConfigurationError
    specs = list(SUITE) + (list(SIMULATION) if sim else []) + (list(TELEOP) if teleop else [])
    overrides: Dict[str, Dict[str, Any]] = {}
    if world:
        overrides['robot_sim'] = {'world': world}
    files = list(parameter_files) or [default_parameter_file()]
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        suite = SuiteProcess(specs, files, overrides, namespace)
    except (ConfigurationError, ParameterFileError) as error:
        print(f'robot-sm up: refusing to start: {error}')
        return 2
    print(f"robot-sm up: running {', '.join(suite.nodes)} (Ctrl-C to stop)", flush=True)
    try:
        stop.wait()
    finally:
        suite.shutdown()
    return 0
