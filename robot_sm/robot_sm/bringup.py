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
import re
import signal
import sys
import threading
import traceback
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


class ParameterFileError(ValueError):
    """A parameter file that cannot be read; the message is one line naming it and the problem."""


#: A parameter file as read: parameters by node name pattern (``/**``, ``/**/node``, ``/node``),
#: in the order of the file.
ParameterFile = Dict[str, Dict[str, Any]]


class _ParameterFileLoader(yaml.SafeLoader):
    """YAML as rcl reads parameter files: a tagged sequence is a list, whatever its tag."""


#: launch_ros writes a list given in a dictionary of parameters as ``!!python/tuple``.
_ParameterFileLoader.add_constructor(
    'tag:yaml.org,2002:python/tuple',
    lambda loader, node: loader.construct_sequence(node))  # type: ignore[arg-type]


def load_parameter_file(path: pathlib.Path) -> ParameterFile:
    """
    Read a ROS 2 parameter file: ``{node_name: {ros__parameters: {...}}}``.

    Returns parameters by node name pattern, with the leading ``/`` that ROS adds to names
    without one. Nested mappings are flattened to dotted names as ROS does.

    :raises ParameterFileError: if the file cannot be read, is not YAML, or is not shaped like a
        ROS parameter file.
    """
    try:
        content = yaml.load(pathlib.Path(path).read_text(), _ParameterFileLoader) or {}
    except OSError as error:
        raise ParameterFileError(f'{path}: {error.strerror or error}') from error
    except yaml.YAMLError as error:
        mark = getattr(error, 'problem_mark', None)
        where = f'line {mark.line + 1}: ' if mark is not None else ''
        problem = getattr(error, 'problem', None) or str(error)
        raise ParameterFileError(f"{path}: {where}{' '.join(problem.split())}") from error
    if not isinstance(content, dict):
        raise ParameterFileError(f'{path}: expected a mapping of node names')
    result: ParameterFile = {}
    for node, entry in content.items():
        if not isinstance(entry, dict) or not isinstance(entry.get('ros__parameters'), dict):
            raise ParameterFileError(f'{path}: {node} has no ros__parameters mapping')
        name = str(node) if str(node).startswith('/') else f'/{node}'
        result.setdefault(name, {}).update(_flatten(path, entry['ros__parameters']))
    return result


def _flatten(path: pathlib.Path, values: Mapping[str, Any], prefix: str = '') -> Dict[str, Any]:
    flat: Dict[str, Any] = {}
    for key, value in values.items():
        name = f'{prefix}{key}'
        if isinstance(value, dict):
            flat.update(_flatten(path, value, f'{name}.'))
        elif not _is_parameter_value(value):
            raise ParameterFileError(f'{path}: {name}: {value!r} is not a ROS parameter value '
                                     '(a bool, integer, float or string, or a list of one kind)')
        else:
            flat[name] = value
    return flat


def _is_parameter_value(value: Any) -> bool:
    scalar = (bool, int, float, str)
    if isinstance(value, scalar):
        return True
    if not isinstance(value, list):
        return False
    kinds = {type(v) for v in value}
    return kinds <= set(scalar) and len(kinds) <= 1


def matches(pattern: str, fully_qualified_name: str) -> bool:
    """
    Return whether a parameter file's node name applies to a node, as ROS decides it.

    ``*`` stands for one name token, ``**`` for any number of them: ``/**`` applies to every
    node, ``/**/mux`` to a node called ``mux`` in any namespace, ``/mux`` only to ``/mux``.
    """
    expression = re.escape(pattern).replace(r'/\*\*', r'(/\w+)*').replace(r'/\*', r'(/\w+)')
    return re.fullmatch(expression, fully_qualified_name) is not None


def parameters_for(node_name: str, files: Iterable[ParameterFile],
                   overrides: Optional[Mapping[str, Any]] = None,
                   namespace: str = '') -> Dict[str, Any]:
    """
    Merge what ``files`` set for the node, in order, then ``overrides``.

    Within and across files a later entry that applies to the node wins over an earlier one.
    """
    fully_qualified = f"/{namespace.strip('/')}/{node_name}".replace('//', '/')
    merged: Dict[str, Any] = {}
    for content in files:
        for pattern, values in content.items():
            if matches(pattern, fully_qualified):
                merged.update(values)
    merged.update(overrides or {})
    return merged


class SuiteProcess:
    """Nodes running in this process, each on its own executor thread."""

    def __init__(self, specs: Sequence[NodeSpec], parameter_files: Sequence[pathlib.Path] = (),
                 overrides: Optional[Mapping[str, Mapping[str, Any]]] = None,
                 namespace: str = '', context: Optional[Any] = None) -> None:
        """
        Load the parameter files, create the nodes and start spinning them.

        :raises ParameterFileError: if a parameter file cannot be used.
        :raises ConfigurationError: if a node refuses its parameters; the message starts with
            the node's name.
        """
        import rclpy
        from rclpy.context import Context
        from rclpy.parameter import Parameter
        from robot_sm.parameters import ConfigurationError

        files = [load_parameter_file(path) for path in parameter_files]
        self._own_context = context is None
        self.context = Context() if context is None else context
        if self._own_context:
            rclpy.init(context=self.context)
        self.nodes: Dict[str, Any] = {}
        self.errors: Dict[str, BaseException] = {}
        self._executors: List[Any] = []
        self._threads: List[threading.Thread] = []
        self._stopping = False
        try:
            for spec in specs:
                values = parameters_for(
                    spec.executable, files,
                    {**spec.parameters, **(overrides or {}).get(spec.executable, {})}, namespace)
                try:
                    node = spec.load_class()(
                        context=self.context, namespace=namespace or '/',
                        parameter_overrides=[Parameter(k, value=v) for k, v in values.items()])
                except ConfigurationError as error:
                    raise ConfigurationError(f'{spec.executable}: {error}') from error
                self.nodes[spec.executable] = node
        except BaseException:
            self.shutdown()
            raise
        self._start_executors()

    def _start_executors(self) -> None:
        from rclpy.executors import SingleThreadedExecutor
        for name, node in self.nodes.items():
            executor = SingleThreadedExecutor(context=self.context)
            executor.add_node(node)
            thread = threading.Thread(target=self._spin, args=(name, executor), name=name,
                                      daemon=True)
            self._executors.append(executor)
            self._threads.append(thread)
            thread.start()

    def _spin(self, name: str, executor: Any) -> None:
        try:
            executor.spin()
        except BaseException as error:  # noqa: B902 - reported by failure(), unless stopping
            if not self._stopping:
                self.errors[name] = error
                traceback.print_exc()

    def failure(self) -> Optional[str]:
        """Return a line naming a node that stopped spinning because a callback raised, or None."""
        for name, error in self.errors.items():
            return f'{name} stopped: {type(error).__name__}: {error}'
        return None

    def shutdown(self) -> None:
        """Stop every executor and node."""
        import rclpy
        self._stopping = True
        for executor in self._executors:
            executor.shutdown(timeout_sec=2.0)
        for thread in self._threads:
            thread.join(timeout=5.0)
        for node in self.nodes.values():
            node.destroy_node()
        self.nodes.clear()
        if self._own_context:
            rclpy.try_shutdown(context=self.context)


def rviz_refusal() -> Optional[str]:
    """
    Return why RViz cannot be started (rviz2 is not installed), or None if it can.

    ``sim.launch.py rviz:=true`` asks before it starts anything: a launch that fails on its last
    node leaves the others running.
    """
    from ament_index_python.packages import get_package_prefix, PackageNotFoundError
    try:
        get_package_prefix('rviz2')
    except PackageNotFoundError:
        return ('rviz:=true, but rviz2 is not installed (install ros-$ROS_DISTRO-rviz2, or leave '
                'rviz:=false): nothing was started')
    return None


def shipped_parameter_files(sim: bool, remote: bool = False) -> List[pathlib.Path]:
    """
    Return ``config/robot_sm.yaml``, then ``config/sim.yaml`` for the simulation.

    ``config/remote.yaml`` (the operator station on another computer) comes last.
    """
    from robot_sm.resources import share_directory
    config = share_directory() / 'config'
    return ([config / 'robot_sm.yaml'] + ([config / 'sim.yaml'] if sim else [])
            + ([config / 'remote.yaml'] if remote else []))


def fleet_names(count: int) -> List[str]:
    """Return the namespaces of a simulated fleet's robots: ``robot1`` ... ``robotN``."""
    return [f'robot{index}' for index in range(1, count + 1)]


def join_namespace(parent: str, name: str) -> str:
    """Return ``name`` under the namespace ``parent`` ('' or '/' for the root)."""
    return f"/{parent.strip('/')}/{name}".replace('//', '/')


def use_discovery_server(address: str, super_client: bool = False) -> None:
    """
    Choose how the DDS participants this process (and its children) creates find each other.

    They become clients of the discovery server at ``address``, or use simple discovery when
    ``address`` is ''. ``address`` is ``HOST:PORT`` (several separated by ``;``), as
    ``ROS_DISCOVERY_SERVER`` takes it; a ``super_client`` (a tool) sees the whole graph, a plain
    client (a robot's node) only what it uses.
    """
    import os
    for name in ('ROS_DISCOVERY_SERVER', 'ROS_SUPER_CLIENT'):
        os.environ.pop(name, None)
    if address:
        os.environ['ROS_DISCOVERY_SERVER'] = address
        if super_client:
            os.environ['ROS_SUPER_CLIENT'] = 'true'


def discovery_server_problem(address: str) -> Optional[str]:
    """Return why ``address`` is not a discovery server list (``HOST:PORT;...``), or None."""
    for entry in address.split(';'):
        host, _, port = entry.strip().rpartition(':')
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            return f'{address!r} is not HOST:PORT (e.g. 127.0.0.1:11811)'
    return None


#: Seconds the robots of a simulated fleet get to stop after a signal before they are killed.
FLEET_STOP_TIMEOUT = 10.0


def run_up(sim: bool, world: Optional[str], parameter_files: Sequence[pathlib.Path],
           namespace: str = '', teleop: bool = False, remote: bool = False,
           robots: Optional[int] = None, discovery_server: str = '',
           fleet_robot: bool = False) -> int:
    """
    Run the suite (with the simulation, with teleop) until SIGINT or SIGTERM; return exit code.

    The shipped parameter files are loaded first (with ``remote``, ``config/remote.yaml`` after
    the others), then ``parameter_files`` in order. With ``robots`` (and ``sim``) it runs a
    simulated fleet: robot_sim for all of them in this process, and each robot's suite with its
    base_controller in ``namespace/robot1`` ... ``robotN``, each in a process of its own (as
    on a robot of its own: its own DDS participant, its own share of the cores), started as
    ``robot-sm up --sim`` with ``fleet_robot``. With ``discovery_server`` (``HOST:PORT``) every
    node is a client of that Fast DDS discovery server. Returns 0
    when stopped by a signal, 2 (after one line on stderr saying why) when a world, a parameter
    file or a parameter cannot be used, 1 when a node (or a robot's process) stops on an error
    while running.
    """
    from robot_sm.parameters import ConfigurationError
    from robot_sm.resources import shipped_worlds, world_file

    def refuse(reason: str) -> int:
        print(f'robot-sm up: {reason}', file=sys.stderr)
        return 2

    overrides: Dict[str, Dict[str, Any]] = {}
    if world is not None:
        if not sim:
            return refuse('--world needs --sim')
        if world not in shipped_worlds() and not world_file(world).is_file():
            return refuse(f"unknown world '{world}': shipped worlds are "
                          f"{', '.join(shipped_worlds())}, or give a map YAML file")
        overrides['robot_sim'] = {'world': world}
    if robots is not None:
        if not sim:
            return refuse('--robots needs --sim (on real robots, run one suite on each)')
        if robots < 1:
            return refuse(f'--robots {robots}: must be at least 1')
        if teleop:
            return refuse('--teleop cannot be used with --robots: a simulated fleet has no arms')
    if discovery_server:
        problem = discovery_server_problem(discovery_server)
        if problem:
            return refuse(f'--discovery-server {problem}')
        use_discovery_server(discovery_server)
    files = shipped_parameter_files(sim, remote) + list(parameter_files)
    if fleet_robot:
        specs = list(SUITE) + list(ROBOT_NODES)
    elif robots is None:
        specs = list(SUITE) + (list(SIMULATION) if sim else []) + (list(TELEOP) if teleop else [])
    else:
        specs = list(SIMULATOR)
        overrides['robot_sim'] = {**overrides.get('robot_sim', {}),
                                  'robots': fleet_names(robots)}
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set())
                for sig in (signal.SIGINT, signal.SIGTERM)}
    suite: Optional[SuiteProcess] = None
    children: Dict[str, Any] = {}
    try:
        try:
            # The simulation first: it refuses a fleet its world has no start poses for.
            suite = SuiteProcess(specs, files, overrides, namespace)
        except (ConfigurationError, ParameterFileError) as error:
            return refuse(f'refusing to start: {error}')
        running = ', '.join(suite.nodes)
        if robots is not None:
            children = _start_fleet_robots(fleet_names(robots), namespace, parameter_files,
                                           remote)
            running = (f"{robots} robots ({', '.join(children)}), each in a process of its own "
                       f"running {', '.join(s.executable for s in SUITE + ROBOT_NODES)}, and "
                       f'{running}')
        print(f'robot-sm up: running {running} (Ctrl-C to stop)', flush=True)
        while not stop.wait(0.2):
            failure = suite.failure()
            for name, child in children.items():
                if child.poll() is not None:
                    # A robot that refused its parameters (2) said why on its own line.
                    print(f'robot-sm up: {name} stopped (exit code {child.returncode})',
                          file=sys.stderr)
                    return 2 if child.returncode == 2 else 1
            if failure is not None:
                print(f'robot-sm up: {failure}', file=sys.stderr)
                return 1
        return 0
    finally:
        _stop_fleet_robots(children)
        if suite is not None:
            suite.shutdown()
        if not fleet_robot:  # a robot of a fleet hears Ctrl-C twice (terminal, fleet): once counts
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def _start_fleet_robots(names: Sequence[str], namespace: str,
                        parameter_files: Sequence[pathlib.Path],
                        remote: bool) -> Dict[str, Any]:
    """Start each robot of a simulated fleet in a process of its own; return them by name."""
    import subprocess
    children = {}
    for name in names:
        argv = [sys.executable, '-m', 'robot_sm.cli', '--namespace',
                join_namespace(namespace, name), 'up', '--sim', '--fleet-robot',
                *(['--remote'] if remote else []),
                *(['--params', *map(str, parameter_files)] if parameter_files else [])]
        children[name] = subprocess.Popen(argv)
    return children


def _stop_fleet_robots(children: Mapping[str, Any]) -> None:
    """Stop the robots' processes with SIGINT; kill, and say so, those that do not stop."""
    import subprocess
    for child in children.values():
        if child.poll() is None:
            child.send_signal(signal.SIGINT)
    for name, child in children.items():
        try:
            child.wait(timeout=FLEET_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            print(f'robot-sm up: {name} did not stop within {FLEET_STOP_TIMEOUT:g} s: killed',
                  file=sys.stderr)
            child.kill()
            child.wait()
