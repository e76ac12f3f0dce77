"""
The nodes the launch files and ``robot-sm up`` start: executables, parameter files, arguments.

The first part needs no ``launch``: every :class:`~robot_sm.bringup.suite_nodes.NodeSpec` is a
console script of setup.py, and every parameter the shipped parameter files give a node is one the
node declares (each node is created with them, so their values must be valid too). The second part
imports the launch files with ``launch`` and ``launch_ros`` and checks the nodes they would start;
it is skipped where those are not installed.
"""

import ast
import importlib.util
import os
import pathlib
from typing import Any, Dict, Iterator, List, Mapping, Tuple

import pytest
from robot_sm.bringup.environment import rviz_refusal
from robot_sm.bringup.parameter_files import (
    load_parameter_file,
    matches,
    ParameterFile,
    parameters_for,
)
from robot_sm.bringup.suite_nodes import (
    NodeSpec,
    RECORDER,
    SIMULATION,
    SUITE,
    TELEOP,
    web_console_arguments,
    WEB_PORT,
)
from robot_sm.resources import shipped_worlds
from robot_sm.testing import RosHarness

PACKAGE = pathlib.Path(__file__).resolve().parents[1]
CONFIG = PACKAGE / 'config'
SPECS = {spec.executable: spec for spec in SUITE + RECORDER + SIMULATION + TELEOP}
#: The shipped configurations: which parameter files, for which nodes.
CONFIGURATIONS: Dict[str, Tuple[List[pathlib.Path], Tuple[NodeSpec, ...]]] = {
    'robot': ([CONFIG / 'robot_sm.yaml'], SUITE + RECORDER + TELEOP),
    'sim': ([CONFIG / 'robot_sm.yaml', CONFIG / 'sim.yaml'],
            SUITE + RECORDER + SIMULATION + TELEOP),
    'remote': ([CONFIG / 'robot_sm.yaml', CONFIG / 'sim.yaml', CONFIG / 'remote.yaml'],
               SUITE + RECORDER + SIMULATION + TELEOP),
}


def console_scripts() -> Dict[str, str]:
    """Return setup.py's console scripts, name to ``module:function``, without running it."""
    tree = ast.parse((PACKAGE / 'setup.py').read_text())
    setup = next(node for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and isinstance(node.func, ast.Name) and node.func.id == 'setup')
    entry_points = next(k.value for k in setup.keywords if k.arg == 'entry_points')
    scripts = ast.literal_eval(entry_points)['console_scripts']
    return {name.strip(): target.strip()
            for name, target in (line.split('=') for line in scripts)}


def declared_parameters(ros: RosHarness, spec: NodeSpec, values: Mapping[str, Any],
                        namespace: str = '') -> List[str]:
    """Create the node with ``values`` (not spinning it); return the names it declares."""
    from rclpy.parameter import Parameter
    node = spec.load_class()(
        context=ros.context, namespace=namespace or ros.namespace,
        parameter_overrides=[Parameter(name, value=value) for name, value in values.items()])
    try:
        return list(node.list_parameters([], 0).names)
    finally:
        node.destroy_node()


@pytest.fixture(autouse=True)
def ros_home(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the service provider's default waypoint file out of the user's ROS_HOME."""
    monkeypatch.setenv('ROS_HOME', str(tmp_path))


@pytest.mark.parametrize('executable', sorted(SPECS))
def test_every_node_is_a_console_script_of_its_module(executable: str) -> None:
    scripts = console_scripts()
    assert executable in scripts, f'{executable} is not a console script in setup.py'
    # The entry point takes SIGINT and SIGTERM first, then runs the node module's main.
    assert scripts[executable] == f'robot_sm.nodes.executables:{executable}'
    from robot_sm.nodes import executables
    assert callable(getattr(executables, executable))
    module = SPECS[executable].node_class.partition(':')[0]
    assert module == f'robot_sm.nodes.{executable}'
    assert callable(importlib.import_module(module).main)
    assert callable(SPECS[executable].load_class())


@pytest.mark.parametrize('name', ['robot_sm.yaml', 'sim.yaml', 'remote.yaml'])
def test_every_entry_of_a_parameter_file_applies_to_a_node_in_any_namespace(name: str) -> None:
    for pattern in load_parameter_file(CONFIG / name):
        for namespace in ('', '/robot1', '/fleet/robot1'):
            assert any(matches(pattern, f'{namespace}/{name}') for name in SPECS), \
                f'{name}: {pattern} applies to no node of the suite in {namespace or "/"}'


@pytest.mark.parametrize('configuration, executable', [
    (configuration, spec.executable)
    for configuration, (_, specs) in CONFIGURATIONS.items() for spec in specs])
def test_the_shipped_parameters_are_declared_by_their_nodes(
        ros: RosHarness, configuration: str, executable: str) -> None:
    files, _ = CONFIGURATIONS[configuration]
    spec = SPECS[executable]
    values = parameters_for(executable, [load_parameter_file(f) for f in files],
                            spec.parameters, ros.namespace)
    declared = declared_parameters(ros, spec, values)
    assert not sorted(set(values) - set(declared)), \
        f'{executable} does not declare these parameters of the {configuration} files'


@pytest.mark.parametrize('world', shipped_worlds())
def test_the_sim_parameters_suit_every_shipped_world(ros: RosHarness, world: str) -> None:
    files, _ = CONFIGURATIONS['sim']
    spec = SPECS['robot_sim']
    values = parameters_for(spec.executable, [load_parameter_file(f) for f in files],
                            {'world': world}, ros.namespace)
    declared_parameters(ros, spec, values)  # refuses a start pose inside a wall


# -- the launch files, with launch and launch_ros -----------------------------------------------

LAUNCH_REASON = ('launch and launch_ros are not installed (no wheels exist; a ROS 2 install has '
                 'them): the launch files are checked on a machine with ROS')


class LaunchedNode:
    """What a launch_ros Node action would start, with its parameter files read."""

    def __init__(self, action: Any, context: Any) -> None:
        action._perform_substitutions(context)
        self.package: str = action.node_package
        self.executable: str = action.node_executable
        self.fully_qualified_name: str = action.node_name
        self.namespace: str = action.expanded_node_namespace
        self.remappings: List[Tuple[str, str]] = list(action.expanded_remapping_rules or [])
        # (path, True) per parameter file, including those launch_ros writes for dictionaries.
        assert hasattr(action, '_Node__expanded_parameter_arguments'), \
            'launch_ros.actions.Node no longer keeps its parameter arguments where expected'
        arguments = action._Node__expanded_parameter_arguments or []
        assert all(is_file for _, is_file in arguments), arguments
        self.parameter_files: List[ParameterFile] = []
        for path, _ in arguments:
            self.parameter_files.append(load_parameter_file(pathlib.Path(path)))
            if pathlib.Path(path).name.startswith('launch_params_'):
                pathlib.Path(path).unlink()  # written by launch_ros for a dictionary

    @property
    def name(self) -> str:
        return self.fully_qualified_name.rsplit('/', 1)[-1]

    def parameters(self) -> Dict[str, Any]:
        """Return the parameters the node would get, matched as rcl matches them."""
        return parameters_for(self.name, self.parameter_files, namespace=self.namespace)


def load_launch_file(file_name: str) -> Any:
    """Import ``launch/<file_name>`` (skip without launch and launch_ros); return the module."""
    pytest.importorskip('launch', reason=LAUNCH_REASON)
    pytest.importorskip('launch_ros', reason=LAUNCH_REASON)
    path = PACKAGE / 'launch' / file_name
    module_spec = importlib.util.spec_from_file_location(path.stem.replace('.', '_'), path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def launch(file_name: str, arguments: Mapping[str, str]) -> Iterator[LaunchedNode]:
    """Evaluate ``launch/<file_name>`` with ``arguments``; yield the nodes it would start."""
    description = load_launch_file(file_name).generate_launch_description()
    from launch import LaunchContext, LaunchDescriptionEntity
    from launch.actions import DeclareLaunchArgument
    from launch_ros.actions import Node

    declared = {a.name for a in description.entities if isinstance(a, DeclareLaunchArgument)}
    assert set(arguments) <= declared, f'{file_name} declares only {sorted(declared)}'
    context = LaunchContext()
    context.launch_configurations.update(arguments)
    pending: List[LaunchDescriptionEntity] = list(description.entities)
    while pending:
        entity = pending.pop(0)
        if isinstance(entity, Node):
            if entity.condition is None or entity.condition.evaluate(context):
                yield LaunchedNode(entity, context)
            continue
        pending[:0] = list(entity.execute(context) or [])  # type: ignore[attr-defined]


def check_parameters(ros: RosHarness, node: LaunchedNode) -> Dict[str, Any]:
    """Check a launched robot_sm node: script, name, parameters declared; return them."""
    assert node.package == 'robot_sm'
    assert node.executable in console_scripts()
    assert node.name == node.executable
    values = node.parameters()
    declared = declared_parameters(ros, SPECS[node.executable], values, node.namespace)
    assert not sorted(set(values) - set(declared)), \
        f'{node.executable} does not declare these parameters given by the launch file'
    return values


def test_robot_launch_starts_the_suite_with_its_arguments(ros: RosHarness,
                                                          tmp_path: pathlib.Path) -> None:
    params_file = tmp_path / 'my_robot.yaml'
    params_file.write_text('/**/robot_control_mux:\n  ros__parameters:\n'
                           '    max_linear_velocity: 0.3\n')
    nodes = list(launch('robot_sm.launch.py', {
        'namespace': 'robot1', 'params_file': str(params_file), 'use_sim_time': 'true',
        'navigation_plugin': 'MyNavigation'}))
    assert sorted(n.executable for n in nodes) == sorted(s.executable for s in SUITE + RECORDER)
    for node in nodes:
        assert node.fully_qualified_name == f'/robot1/{node.executable}'
        values = check_parameters(ros, node)
        assert values['use_sim_time'] is True
        if node.executable == 'robot_control_mux':
            assert values['max_linear_velocity'] == 0.3
        if node.executable == 'state_interface':
            assert values['navigation_plugin'] == 'MyNavigation'
            assert 'mapping_plugin' not in values  # empty argument: the file decides


@pytest.mark.parametrize('file_name', ['robot_sm.launch.py', 'sim.launch.py'])
def test_remote_true_loads_the_remote_configuration(ros: RosHarness, file_name: str) -> None:
    nodes = list(launch(file_name, {'remote': 'true'}))
    mux = next(node for node in nodes if node.executable == 'robot_control_mux')
    assert check_parameters(ros, mux)['heartbeat_topic'] == 'robot_sm/operator_heartbeat'


def test_robot_launch_defaults_to_the_shipped_parameters(ros: RosHarness) -> None:
    nodes = list(launch('robot_sm.launch.py', {}))
    assert sorted(n.executable for n in nodes) == sorted(s.executable for s in SUITE + RECORDER)
    assert sorted(n.executable for n in launch('robot_sm.launch.py', {'recorder': 'false'})) \
        == sorted(s.executable for s in SUITE)
    for node in nodes:
        assert node.fully_qualified_name == f'/{node.executable}'
        values = check_parameters(ros, node)
        assert values['use_sim_time'] is False
        if node.executable == 'service_provider':
            assert values['pose_source'] == 'tf'


def installed_rviz(prefix: pathlib.Path, monkeypatch: pytest.MonkeyPatch, present: bool) -> None:
    """Make rviz2 look installed (an ament index entry under ``prefix``) or not installed."""
    index = prefix / 'share' / 'ament_index' / 'resource_index' / 'packages'
    index.mkdir(parents=True)
    if present:
        (index / 'rviz2').touch()
    paths = [p for p in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep) if p
             and not (pathlib.Path(p) / index.relative_to(prefix) / 'rviz2').exists()]
    monkeypatch.setenv('AMENT_PREFIX_PATH', os.pathsep.join([str(prefix), *paths]))


def test_sim_launch_starts_suite_simulation_and_rviz(ros: RosHarness, tmp_path: pathlib.Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    installed_rviz(tmp_path / 'rviz', monkeypatch, present=True)
    nodes = list(launch('sim.launch.py', {'namespace': 'robot1', 'world': 'maze',
                                          'rviz': 'true'}))
    rviz = [n for n in nodes if n.package == 'rviz2']
    ours = [n for n in nodes if n.package != 'rviz2']
    assert sorted(n.executable for n in ours) == sorted(s.executable
                                                        for s in SUITE + RECORDER + SIMULATION)
    for node in ours:
        assert node.fully_qualified_name == f'/robot1/{node.executable}'
        values = check_parameters(ros, node)
        if node.executable == 'robot_sim':
            assert values['world'] == 'maze'
        if node.executable == 'service_provider':
            assert values['pose_source'] == 'topic'  # config/sim.yaml
    assert len(rviz) == 1 and rviz[0].namespace == '/robot1'
    assert ('goal_pose', 'robot_sm/simple_goal') in rviz[0].remappings
    assert not [n for n in launch('sim.launch.py', {}) if n.package == 'rviz2']


def test_sim_launch_robots_starts_a_suite_per_robot_and_one_simulation(
        ros: RosHarness) -> None:
    nodes = list(launch('sim.launch.py', {'namespace': 'fleet', 'robots': '3',
                                          'discovery_server': '127.0.0.1:11811'}))
    sims = [n for n in nodes if n.executable == 'robot_sim']
    assert len(sims) == 1 and sims[0].namespace == '/fleet'
    assert check_parameters(ros, sims[0])['robots'] == ['robot1', 'robot2', 'robot3']
    for name in ('robot1', 'robot2', 'robot3'):
        ours = [n for n in nodes if n.namespace == f'/fleet/{name}']
        assert sorted(n.executable for n in ours) == sorted(
            s.executable for s in SUITE + RECORDER + SIMULATION if s.executable != 'robot_sim')
        for node in ours:
            check_parameters(ros, node)
    with pytest.raises(RuntimeError, match="discovery_server:='nowhere' is not HOST:PORT"):
        list(launch('sim.launch.py', {'discovery_server': 'nowhere'}))


def test_sim_launch_without_rviz2_refuses_rviz_before_starting_any_node(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    installed_rviz(tmp_path / 'no_rviz', monkeypatch, present=False)
    started: List[LaunchedNode] = []
    with pytest.raises(RuntimeError, match='rviz2 is not installed'):
        started.extend(launch('sim.launch.py', {'rviz': 'true'}))
    assert started == []
    assert [n.package for n in launch('sim.launch.py', {'rviz': 'false'})] == ['robot_sm'] * 6


def test_rviz_is_refused_where_rviz2_is_not_installed(tmp_path: pathlib.Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # What sim.launch.py asks before it starts anything (checked here without launch).
    installed_rviz(tmp_path / 'no_rviz', monkeypatch, present=False)
    assert rviz_refusal() == ('rviz:=true, but rviz2 is not installed (install '
                              'ros-$ROS_DISTRO-rviz2, or leave rviz:=false): nothing was started')
    installed_rviz(tmp_path / 'rviz', monkeypatch, present=True)
    assert rviz_refusal() is None


def test_teleop_launch_starts_the_teleop_node(ros: RosHarness) -> None:
    urdf = PACKAGE / 'config' / 'so101_arm.urdf'
    nodes = list(launch('teleop.launch.py', {'namespace': 'robot1', 'urdf_path': str(urdf)}))
    assert [n.executable for n in nodes] == [s.executable for s in TELEOP]
    for node in nodes:
        assert node.fully_qualified_name == f'/robot1/{node.executable}'
        assert check_parameters(ros, node) == {'urdf_path': str(urdf)}
    assert [n.parameters() for n in launch('teleop.launch.py', {})] == [{}]


def test_launch_files_declare_the_documented_arguments() -> None:
    expected = {
        'robot_sm.launch.py': {'namespace', 'params_file', 'use_sim_time', 'navigation_plugin',
                               'calculate_goal_plugin', 'mapping_plugin', 'discovery_server',
                               'web', 'web_port', 'recorder'},
        'sim.launch.py': {'namespace', 'params_file', 'world', 'reveal_map', 'rviz', 'robots',
                          'discovery_server', 'web', 'web_port', 'recorder'},
        'teleop.launch.py': {'namespace', 'params_file', 'urdf_path'},
    }
    for file_name, names in expected.items():
        description = load_launch_file(file_name).generate_launch_description()
        arguments = description.get_launch_arguments()
        assert names <= {a.name for a in arguments}, file_name
        undocumented = [a.name for a in arguments if a.description == 'no description given']
        assert not undocumented, f'{file_name}: arguments without a description'


def test_web_true_serves_the_console_of_the_suite_with_robot_sm_web() -> None:
    # What web:=true runs (checked here without launch): robot-sm web for the launched suite.
    assert web_console_arguments('/robot1', 8081) == ['--namespace', '/robot1', 'web',
                                                      '--port', '8081']
    assert web_console_arguments('', WEB_PORT)[:2] == ['--namespace', '/']
    from robot_sm.frontends.cli import build_parser
    args = build_parser().parse_args(web_console_arguments('/robot1', 8081))
    assert (args.namespace, args.port, args.host) == ('/robot1', 8081, '127.0.0.1')


@pytest.mark.parametrize('file_name, namespace', [('robot_sm.launch.py', '/robot1'),
                                                  ('sim.launch.py', '/robot1')])
def test_web_true_adds_the_console_process(file_name: str, namespace: str) -> None:
    load_launch_file(file_name)  # skips without launch and launch_ros
    from launch import LaunchContext
    from launch.actions import ExecuteProcess
    description = load_launch_file(file_name).generate_launch_description()
    context = LaunchContext()
    context.launch_configurations.update({'namespace': 'robot1', 'web': 'true',
                                          'web_port': '8081'})
    actions = [entity for item in description.entities
               for entity in (item.execute(context) or [])]  # type: ignore[attr-defined]
    consoles = [a for a in actions if isinstance(a, ExecuteProcess)
                and not hasattr(a, 'node_executable')]
    assert len(consoles) == 1
    with pytest.raises(RuntimeError, match='is not a port number'):
        context.launch_configurations['web_port'] = 'eighty'
        [item.execute(context) for item in description.entities]
