"""
``robot-sm up``: the suite in a child process over DDS, stopping on signals, refusing bad input.

The processes run in the test's own namespace (``--namespace``), which also checks that the
shipped parameter files reach namespaced nodes.
"""

import os
import pathlib
import signal
import subprocess
import time
from typing import Dict, List

from nav_msgs.msg import Odometry
from operator_suite import cli_command
import pytest
from rcl_interfaces.srv import GetParameters
from robot_sm import qos
from robot_sm.bringup.parameter_files import (
    load_parameter_file,
    matches,
    ParameterFileError,
    parameters_for,
)
from robot_sm.bringup.up import FLEET_STOP_TIMEOUT
from robot_sm.frontends.cli import build_parser
from robot_sm.testing import NodeProcess, RosHarness, wait_until
from robot_sm_msgs.msg import OperationMode
from std_msgs.msg import String

#: Start-up of the whole suite on a loaded 2-core machine.
START = 30.0
#: How long the suite may take to stop after a signal.
STOP = 5.0


def up_argv(*args: str, namespace: str = '') -> List[str]:
    """Return the command line of ``robot-sm --namespace NAMESPACE up args...``."""
    return [*cli_command(), '--namespace', namespace, 'up', *args]


@pytest.fixture
def env(tmp_path: pathlib.Path) -> Dict[str, str]:
    """Keep files the suite writes (the waypoint list) out of the user's ROS_HOME."""
    # A hang is shown where it hangs: SIGABRT makes faulthandler print every thread's stack.
    return {'ROS_HOME': str(tmp_path), 'PYTHONFAULTHANDLER': '1'}


def stop_with(process: NodeProcess, sig: int, within: float = STOP) -> int:
    """Send ``sig`` to the process group as a terminal would; return the exit code."""
    os.killpg(process.pid, sig)
    started = time.monotonic()
    code = process.wait(within)
    if code is None:
        process.show_stacks()
    assert code is not None, f'still running {within} s after {sig!r}:\n{process.output}'
    assert time.monotonic() - started < within
    return code


def test_up_sim_runs_the_suite_and_stops_on_sigint(ros: RosHarness, env: Dict[str, str]) -> None:
    odom = ros.record(Odometry, 'odom')
    modes = ros.record(OperationMode, 'robot_sm/operation_mode', qos.STATE)
    states = ros.record(String, 'robot_sm/state_info', qos.STATE)
    process = ros.start_process(up_argv('--sim', namespace=ros.namespace), env=env)
    try:
        odom.wait_for(timeout=START)
        assert modes.wait_for(timeout=START).mode == OperationMode.STOPPED
        states.wait_for(lambda m: m.data == 'Idle', timeout=START)
        # config/sim.yaml (after config/robot_sm.yaml) reached the namespaced mux.
        values = ros.call(GetParameters, 'robot_control_mux/get_parameters',
                          GetParameters.Request(names=['max_linear_velocity'])).values
        assert values[0].double_value == 0.5
    except TimeoutError as error:
        raise AssertionError(f'{error}; robot-sm up printed:\n{process.output}') from error
    assert stop_with(process, signal.SIGINT) == 0, process.output
    assert 'Traceback' not in process.output, process.output


def test_up_stops_on_sigterm(ros: RosHarness, env: Dict[str, str]) -> None:
    modes = ros.record(OperationMode, 'robot_sm/operation_mode', qos.STATE)
    process = ros.start_process(up_argv(namespace=ros.namespace), env=env)
    modes.wait_for(timeout=START)
    running = ('robot-sm up: running robot_control_mux, service_provider, state_interface, and '
               'incident_recorder in a process of its own (')
    assert wait_until(lambda: running in process.output, START), process.output
    assert stop_with(process, signal.SIGTERM) == 0, process.output
    assert 'Traceback' not in process.output, process.output


def test_up_sim_robots_runs_a_suite_per_robot_around_one_simulation(
        ros: RosHarness, env: Dict[str, str]) -> None:
    names = ('robot1', 'robot2')
    odom = {name: ros.record(Odometry, f'{name}/odom') for name in names}
    states = {name: ros.record(String, f'{name}/robot_sm/state_info', qos.STATE)
              for name in names}
    process = ros.start_process(up_argv('--sim', '--robots', '2', namespace=ros.namespace),
                                env=env)
    try:
        for name, start in zip(names, ((1.0, 1.0), (6.6, 1.0))):
            states[name].wait_for(lambda m: m.data == 'Idle', timeout=START)
            position = odom[name].wait_for(timeout=START).pose.pose.position
            assert (position.x, position.y) == start
            values = ros.call(GetParameters, f'{name}/robot_control_mux/get_parameters',
                              GetParameters.Request(names=['max_linear_velocity'])).values
            assert values[0].double_value == 0.5
    except TimeoutError as error:
        raise AssertionError(f'{error}; robot-sm up printed:\n{process.output}') from error
    assert ('robot-sm up: running 2 robots (robot1, robot2), each in a process of its own running'
            ' robot_control_mux') in process.output
    # Each robot's process stops on its own; one that does not is killed after
    # FLEET_STOP_TIMEOUT, and up says so.
    assert stop_with(process, signal.SIGINT, FLEET_STOP_TIMEOUT + STOP) == 0, process.output
    assert 'Traceback' not in process.output, process.output


def bad_files(tmp_path: pathlib.Path) -> Dict[str, pathlib.Path]:
    """Write parameter files that robot-sm up must refuse; return them by what is wrong."""
    files = {
        'not YAML': 'robot_control_mux:\n  ros__parameters: [\n',
        'not a mapping': '- robot_control_mux\n',
        'no ros__parameters': 'robot_control_mux:\n  update_frequency: 5.0\n',
        'mixed list': 'robot_control_mux:\n  ros__parameters:\n    limits: [1, 2.5]\n',
        'bad value': '/**/robot_control_mux:\n  ros__parameters:\n    update_frequency: -1.0\n',
    }
    paths = {}
    for index, (problem, text) in enumerate(files.items()):
        paths[problem] = tmp_path / f'bad{index}.yaml'
        paths[problem].write_text(text)
    paths['missing'] = tmp_path / 'missing.yaml'
    paths['a directory'] = tmp_path
    return paths


@pytest.mark.parametrize('problem', ['not YAML', 'not a mapping', 'no ros__parameters',
                                     'mixed list', 'bad value', 'missing', 'a directory'])
def test_an_unusable_parameter_file_exits_with_2_and_one_line(
        problem: str, tmp_path: pathlib.Path, env: Dict[str, str]) -> None:
    path = bad_files(tmp_path)[problem]
    result = subprocess.run(up_argv('--params', str(path), namespace='/bad_params'),
                            capture_output=True, text=True, timeout=60.0,
                            env={**os.environ, **env})
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith('robot-sm up: refusing to start: ')
    if problem == 'bad value':
        assert "robot_control_mux: parameter 'update_frequency'" in lines[-1]
    else:
        assert str(path) in lines[-1] and len(lines) == 1, result.stderr


@pytest.mark.parametrize('argv, reason', [
    (['--sim', '--world', 'mars'], "unknown world 'mars': shipped worlds are maze, office"),
    (['--world', 'maze'], '--world needs --sim'),
    (['--robots', '2'], '--robots needs --sim'),
    (['--sim', '--robots', '0'], '--robots 0: must be at least 1'),
    (['--sim', '--robots', '2', '--teleop'], '--teleop cannot be used with --robots'),
    (['--sim', '--robots', '9', '--world', 'maze'],
     "refusing to start: robot_sim: parameter 'robots': 9 robots, but world 'maze' has start "
     'poses for 8'),
    (['--discovery-server', 'localhost'], "--discovery-server 'localhost' is not HOST:PORT"),
])
def test_a_bad_world_exits_with_2_and_one_line(argv: List[str], reason: str) -> None:
    result = subprocess.run(up_argv(*argv), capture_output=True, text=True, timeout=60.0)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert result.stderr.startswith(f'robot-sm up: {reason}')


def test_world_completes_with_the_shipped_worlds() -> None:
    commands = next(a for a in build_parser()._actions if a.dest == 'command')
    up = commands.choices['up']  # type: ignore[index]
    up.add_pending()  # a verb's arguments are added when its parser is first used
    world = next(a for a in up._actions if a.dest == 'world')
    assert list(world.completer()) == ['maze', 'office']  # type: ignore[attr-defined]


@pytest.mark.parametrize('pattern, name, applies', [
    ('/**', '/robot_control_mux', True),
    ('/**', '/robot1/robot_control_mux', True),
    ('/**/robot_control_mux', '/robot_control_mux', True),
    ('/**/robot_control_mux', '/a/b/robot_control_mux', True),
    ('/**/robot_control_mux', '/robot1/robot_sim', False),
    ('/robot_control_mux', '/robot1/robot_control_mux', False),
    ('/*/robot_control_mux', '/robot1/robot_control_mux', True),
    ('/*/robot_control_mux', '/robot_control_mux', False),
    ('/robot1/robot_control_mux', '/robot1/robot_control_mux', True),
])
def test_node_names_of_parameter_files_match_as_in_ros(pattern: str, name: str,
                                                       applies: bool) -> None:
    assert matches(pattern, name) is applies


def test_a_list_written_by_launch_ros_reads_as_a_list(tmp_path: pathlib.Path) -> None:
    # launch_ros writes a dictionary of parameters with yaml.dump: a list becomes a python/tuple.
    written = tmp_path / 'launch_params_x'
    written.write_text('/fleet/robot_sim:\n  ros__parameters:\n    robots: !!python/tuple\n'
                       '    - robot1\n    - robot2\n    world: office\n')
    assert parameters_for('robot_sim', [load_parameter_file(written)], namespace='/fleet') == {
        'robots': ['robot1', 'robot2'], 'world': 'office'}
    unsafe = tmp_path / 'unsafe.yaml'
    unsafe.write_text('/**:\n  ros__parameters:\n'
                      "    x: !!python/object/apply:os.system ['true']\n")
    with pytest.raises(ParameterFileError, match='unsafe.yaml: line 3'):
        load_parameter_file(unsafe)


def test_later_entries_win_and_names_are_flattened(tmp_path: pathlib.Path) -> None:
    first, second = tmp_path / 'first.yaml', tmp_path / 'second.yaml'
    first.write_text('/**/mux:\n  ros__parameters:\n    rate: 1.0\n    limits: {linear: 0.5}\n'
                     '/**:\n  ros__parameters:\n    use_sim_time: true\n    rate: 9.0\n'
                     'mux:\n  ros__parameters:\n    rate: 2.0\n')
    second.write_text('/robot1/mux:\n  ros__parameters:\n    rate: 3.0\n    empty: []\n')
    files = [load_parameter_file(first), load_parameter_file(second)]
    assert list(files[0]) == ['/**/mux', '/**', '/mux']
    assert parameters_for('mux', files) == {'rate': 2.0, 'limits.linear': 0.5,
                                            'use_sim_time': True}
    assert parameters_for('mux', files, {'rate': 4.0}, namespace='robot1') == {
        'rate': 4.0, 'limits.linear': 0.5, 'use_sim_time': True, 'empty': []}
    assert parameters_for('sim', files, namespace='/robot1') == {'rate': 9.0,
                                                                 'use_sim_time': True}


def test_a_yaml_error_is_reported_on_one_line(tmp_path: pathlib.Path) -> None:
    path = tmp_path / 'broken.yaml'
    path.write_text('mux:\n  ros__parameters:\n    rate: [1.0,\n  other: 2\n')
    with pytest.raises(ParameterFileError) as error:
        load_parameter_file(path)
    assert '\n' not in str(error.value) and str(error.value).startswith(f'{path}: line ')
