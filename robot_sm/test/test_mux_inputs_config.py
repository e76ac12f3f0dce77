"""
The robot_control_mux node's inputs and locks from parameter files: twist_mux's layout, refusals.

A bad entry stops the node with one line naming it, whether it comes as constructor overrides, a
``--params-file`` of a node process, or through ``robot-sm up``'s own parameter loading; the
README's migration from twist_mux drives as twist_mux would.
"""

import pathlib
import re
import time
from typing import Any, Dict, List

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import Twist
from mux_node_rig import (
    AUTONOMOUS,
    CONFIG,
    INPUTS,
    is_zero,
    linear_x,
    LOCKS,
    Mux,
    mux_status,
    selected,
    Stream,
    TELEOPERATION,
    twist,
    WAIT,
)
import pytest
from rclpy.parameter import Parameter
from robot_sm.bringup.parameter_files import load_parameter_file, parameters_for
from robot_sm.bringup.suite_nodes import NodeSpec
from robot_sm.bringup.suite_process import SuiteProcess
from robot_sm.nodes.robot_control_mux import RobotControlMux
from robot_sm.parameters import ConfigurationError
from robot_sm.testing import python_module_argv, RosHarness, wait_until
from robot_sm_msgs.srv import SetOperationMode
from std_msgs.msg import Bool
import yaml


def overrides(values: Dict[str, Any]) -> List[Parameter]:
    return [Parameter(name, value=value) for name, value in values.items()]


def refusal(ros: RosHarness, values: Dict[str, Any]) -> str:
    """Create the mux with ``values``; return the one line it refuses to start with."""
    with pytest.raises(ConfigurationError) as error:
        RobotControlMux(context=ros.context, namespace=ros.namespace,
                        parameter_overrides=overrides({'emergency_stop_file': '', **values}))
    message = str(error.value)
    assert '\n' not in message
    return message


def without(values: Dict[str, Any], name: str) -> Dict[str, Any]:
    return {key: value for key, value in values.items() if key != name}


@pytest.mark.parametrize('values, message', [
    (without(INPUTS, 'inputs.docking.priority'),
     "parameter 'inputs.docking.priority' is missing: every entry of inputs needs topic, "
     'timeout, priority, class'),
    ({**INPUTS, 'inputs.docking.prority': 30},
     "parameter 'inputs.docking.prority' is not a field of an entry of inputs"),
    ({**INPUTS, 'inputs.docking.timeout': -0.3},
     "parameter 'inputs.docking.timeout' must be >= 0.01 (got -0.3)"),
    ({**INPUTS, 'inputs.docking.priority': 300},
     "parameter 'inputs.docking.priority' must be <= 255 (got 300)"),
    ({**INPUTS, 'inputs.docking.class': 'docking'},
     "parameter 'inputs.docking.class' must be one of 'autonomy', 'teleoperation' "
     "(got 'docking')"),
    ({**INPUTS, 'inputs.docking.topic': 'dock vel'},
     "parameter 'inputs.docking.topic' is not a valid topic name (got 'dock vel'): topic name "
     'must not contain characters other than alphanumerics'),
    ({**INPUTS, 'inputs.docking.topic': 'nav_vel'},
     "parameter 'inputs.navigation.topic' names the topic of parameter 'inputs.docking.topic' "),
    ({**INPUTS, 'inputs.docking.topic': 'cmd_vel'},
     "parameter 'inputs.docking.topic' names the topic of the output cmd_vel "),
    ({**INPUTS, **LOCKS, 'locks.pause.topic': 'joy_vel'},
     "parameter 'locks.pause.topic' names the topic of parameter 'inputs.joystick.topic' "),
    ({**INPUTS, 'inputs.docking.priority': 10},
     "parameter 'inputs.navigation.priority' is also the priority of inputs.docking"),
    ({**INPUTS, **LOCKS, 'locks.pause.priority': 0},
     "parameter 'locks.pause.priority' must be >= 1 (got 0)"),
    ({**INPUTS, 'autonomy_timeout': 1.0},
     "parameter 'autonomy_timeout' has no effect with inputs"),
    ({'topics.navigation.topic': 'nav_vel', 'topics.navigation.timeout': 0.5,
      'topics.navigation.priority': 10},
     "parameter 'topics.navigation.priority': twist_mux's topics are this mux's inputs"),
])
def test_a_bad_entry_stops_the_mux_with_one_line_naming_it(
        ros: RosHarness, values: Dict[str, Any], message: str) -> None:
    assert refusal(ros, values).startswith(message)


def test_a_topic_is_compared_once_resolved(ros: RosHarness) -> None:
    absolute = f'{ros.namespace}/nav_vel'
    message = refusal(ros, {**INPUTS, 'inputs.docking.topic': absolute})
    assert message.startswith("parameter 'inputs.navigation.topic' names the topic of "
                              f"parameter 'inputs.docking.topic' ({absolute})")


def declared_inputs(ros: RosHarness, values: Dict[str, Any]) -> Dict[str, Any]:
    node = RobotControlMux(context=ros.context, namespace=ros.namespace,
                           parameter_overrides=overrides({'emergency_stop_file': '', **values}))
    try:
        return {name: parameter.value
                for name, parameter in node.get_parameters_by_prefix('inputs').items()}
    finally:
        node.destroy_node()


def test_the_shipped_configuration_writes_the_default_inputs(ros: RosHarness) -> None:
    shipped = parameters_for('robot_control_mux', [load_parameter_file(CONFIG / 'robot_sm.yaml')])
    assert any(name.startswith('inputs.') for name in shipped)
    assert declared_inputs(ros, shipped) == declared_inputs(ros, {})
    assert declared_inputs(ros, {}) == {
        'autonomy.topic': 'autonomy/cmd_vel', 'autonomy.timeout': 0.5,
        'autonomy.priority': 10, 'autonomy.class': 'autonomy', 'autonomy.takeover': False,
        'teleoperation.topic': 'teleoperation/cmd_vel', 'teleoperation.timeout': 0.5,
        'teleoperation.priority': 100, 'teleoperation.class': 'teleoperation',
        'teleoperation.takeover': True}
    assert declared_inputs(ros, {'autonomy_timeout': 0.8})['autonomy.timeout'] == 0.8


def params_file(path: pathlib.Path, namespace: str, body: Dict[str, Any]) -> pathlib.Path:
    path.write_text(yaml.safe_dump({f'{namespace}/robot_control_mux': {'ros__parameters': body}}))
    return path


def test_a_parameter_file_in_twist_mux_layout_configures_a_node_process(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    body = {'emergency_stop_file': '',
            'inputs': {'navigation': {'topic': 'nav_vel', 'timeout': 0.5, 'priority': 10,
                                      'class': 'autonomy'},
                       'docking': {'topic': 'dock_vel', 'timeout': 0.3, 'priority': 20,
                                   'class': 'autonomy'}},
            'locks': {'pause': {'topic': 'pause_navigation', 'timeout': 0.0, 'priority': 50}}}
    path = params_file(tmp_path / 'mux.yaml', ros.namespace, body)
    inputs = selected(ros)
    cmd_vel = ros.record(Twist, 'cmd_vel')
    ros.start_process(python_module_argv(
        'robot_sm.nodes.robot_control_mux', '--ros-args', '-r', f'__ns:={ros.namespace}',
        '--params-file', str(path)))
    docking = Stream(ros, Twist, 'dock_vel', twist(0.05))
    ros.wait_for_subscribers(docking.publisher, timeout=60.0)
    # The lock's subscription is discovered on its own, maybe after the input's.
    assert wait_until(
        lambda: ros.probe.count_subscribers(f'{ros.namespace}/pause_navigation') == 1, WAIT)
    assert ros.probe.count_subscribers(f'{ros.namespace}/autonomy/cmd_vel') == 0
    request = SetOperationMode.Request()
    request.operation_mode.mode = AUTONOMOUS
    assert ros.call(SetOperationMode, 'robot_sm/set_operation_mode', request).success
    cmd_vel.wait_for(linear_x(0.05), timeout=WAIT)
    inputs.wait_for(lambda m: m.data == 'docking', timeout=WAIT)


def test_a_bad_entry_in_a_parameter_file_exits_with_2_and_one_line(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    body = {'inputs': {'web': {'topic': 'web_vel', 'timeout': 0.5, 'priority': 100,
                               'class': 'teleoperation'},
                       'joystick': {'topic': 'joy_vel', 'timeout': 0.5, 'priority': 100,
                                    'class': 'teleoperation', 'takeover': True}}}
    path = params_file(tmp_path / 'mux.yaml', ros.namespace, body)
    process = ros.start_process(python_module_argv(
        'robot_sm.nodes.robot_control_mux', '--ros-args', '-r', f'__ns:={ros.namespace}',
        '--params-file', str(path)))
    assert process.wait(timeout=60.0) == 2, process.output
    [line] = process.lines()
    assert "refusing to start: parameter 'inputs.web.priority' is also the priority of " \
           'inputs.joystick, of the same class teleoperation' in line


def test_robot_sm_up_merges_the_inputs_of_its_parameter_files(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    user = tmp_path / 'robot.yaml'
    user.write_text(yaml.safe_dump({'/**/robot_control_mux': {'ros__parameters': {
        'emergency_stop_file': '',
        'inputs': {'autonomy': {'topic': 'nav_vel'},  # a field of a shipped input
                   'docking': {'topic': 'dock_vel', 'timeout': 0.3, 'priority': 20,
                               'class': 'autonomy'}},
        'locks': {'pause': {'topic': 'pause_navigation', 'timeout': 0.0, 'priority': 50}}}}}))
    spec = NodeSpec('robot_control_mux', 'robot_sm.nodes.robot_control_mux:RobotControlMux')
    suite = SuiteProcess([spec], [CONFIG / 'robot_sm.yaml', user], namespace=ros.namespace,
                         context=ros.context)
    try:
        node = suite.nodes['robot_control_mux']
        topics = {name: node.get_parameter(f'inputs.{name}.topic').value
                  for name in ('autonomy', 'teleoperation', 'docking')}
        assert topics == {'autonomy': 'nav_vel', 'teleoperation': 'teleoperation/cmd_vel',
                          'docking': 'dock_vel'}
        for topic in ('nav_vel', 'teleoperation/cmd_vel', 'dock_vel', 'pause_navigation'):
            assert wait_until(lambda: ros.probe.count_subscribers(
                f'{ros.namespace}/{topic}') == 1, WAIT), topic
    finally:
        suite.shutdown()


def readme_migration_blocks() -> List[Dict[str, Any]]:
    """Return the YAML blocks of the README's twist_mux note: twist_mux's, then ours."""
    readme = (pathlib.Path(__file__).resolve().parents[2] / 'README.md').read_text()
    section = readme.split('## Velocity inputs and locks: coming from twist_mux')[1]
    section = section.split('\n## ')[0]
    return [yaml.safe_load(block) for block in re.findall(r'```yaml\n(.*?)```', section, re.S)]


def flat(tree: Dict[str, Any], prefix: str = '') -> Dict[str, Any]:
    """Return a parameter file's nested ``ros__parameters`` as ROS keeps them: dotted names."""
    values: Dict[str, Any] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            values.update(flat(value, f'{prefix}{key}.'))
        else:
            values[f'{prefix}{key}'] = value
    return values


def test_the_readme_s_twist_mux_example_is_refused_and_ours_drives_as_twist_mux_would(
        ros: RosHarness) -> None:
    theirs, ours = readme_migration_blocks()
    message = refusal(ros, flat(theirs['twist_mux']['ros__parameters']))
    assert message.startswith("parameter 'topics.joystick.priority': twist_mux's topics are "
                              "this mux's inputs"), message
    inputs = selected(ros)
    # Teleoperation selected by request ends after the idle timer unless an unmasked input moves.
    mux = Mux(ros, {**flat(ours['/**/robot_control_mux']['ros__parameters']),
                    'teleoperation_idle_timer': 2.0})
    diagnostics = ros.record(DiagnosticArray, '/diagnostics')
    keyboard = Stream(ros, Twist, 'key_vel', twist(0.2))
    tablet = Stream(ros, Twist, 'tab_vel', None)
    # The pause masks the keyboard (90), not the tablet (100, the lock's priority).
    pause = Stream(ros, Bool, 'pause_navigation', Bool(data=True), rate=20.0)
    for publisher in (keyboard.publisher, tablet.publisher, pause.publisher):
        ros.wait_for_subscribers(publisher)
    mux_status(diagnostics, mux, 0.0, lambda s: any(
        (kv.key, kv.value) == ('pause state', 'locked (data true)') for kv in s.values))
    started = time.monotonic()
    assert mux.set_mode(TELEOPERATION).success
    time.sleep(0.3)
    assert all(is_zero(m) for m in mux.cmd_since(started))
    assert inputs.messages[-1].data == 'none'
    tablet.switch(twist(0.1))
    mux.wait_cmd(linear_x(0.1), after=started)
    inputs.wait_for(lambda m: m.data == 'tablet', after=started)
