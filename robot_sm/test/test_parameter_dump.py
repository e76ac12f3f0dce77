"""
Every node starts again from its own ``ros2 param dump``: tuned parameters can be saved and loaded.

The dump is made as ros2param's ``dump`` verb makes it: the node's ``list_parameters`` and
``get_parameters`` services, names split at dots into nested mappings, ``yaml.dump``. The node
is then created from that file with ``--ros-args --params-file``, parsed by rcl as on a robot.
"""

import pathlib
from typing import Any, Dict

import pytest
from rcl_interfaces.msg import ParameterType, ParameterValue
from rcl_interfaces.srv import GetParameters, ListParameters
import rclpy
from rclpy.context import Context
from robot_sm.bringup.suite_nodes import NodeSpec, SIMULATION, SUITE, TELEOP
from robot_sm.testing import RosHarness
import yaml

#: Every executable that runs a node, with the parameters it needs to start here.
NODES: Dict[str, Any] = {
    **{spec.executable: (spec, {}) for spec in SUITE + SIMULATION + TELEOP},
    'topic_recorder': (NodeSpec('topic_recorder',
                                'robot_sm.nodes.topic_recorder:TopicRecorder'), {}),
    'xr_replay': (NodeSpec('xr_replay', 'robot_sm.nodes.xr_replay:XrReplay'), {}),
}
NODES['robot_control_mux'] = (NODES['robot_control_mux'][0], {'emergency_stop_file': ''})
NODES['robot_sim'] = (NODES['robot_sim'][0], {'world': 'office'})

#: ros2param's reading of a ParameterValue (``ros2param.api.get_value``).
VALUE_FIELDS = {
    ParameterType.PARAMETER_BOOL: 'bool_value',
    ParameterType.PARAMETER_INTEGER: 'integer_value',
    ParameterType.PARAMETER_DOUBLE: 'double_value',
    ParameterType.PARAMETER_STRING: 'string_value',
    ParameterType.PARAMETER_BYTE_ARRAY: 'byte_array_value',
    ParameterType.PARAMETER_BOOL_ARRAY: 'bool_array_value',
    ParameterType.PARAMETER_INTEGER_ARRAY: 'integer_array_value',
    ParameterType.PARAMETER_DOUBLE_ARRAY: 'double_array_value',
    ParameterType.PARAMETER_STRING_ARRAY: 'string_array_value',
}


def value_of(value: ParameterValue) -> Any:
    """Return the Python value of ``value`` as ros2param reads it (None: not set)."""
    field = VALUE_FIELDS.get(value.type)
    if field is None:
        return None
    read = getattr(value, field)
    return list(read) if value.type in (ParameterType.PARAMETER_BYTE_ARRAY,
                                        ParameterType.PARAMETER_BOOL_ARRAY,
                                        ParameterType.PARAMETER_INTEGER_ARRAY,
                                        ParameterType.PARAMETER_DOUBLE_ARRAY,
                                        ParameterType.PARAMETER_STRING_ARRAY) else read


def insert(tree: Dict[str, Any], name: str, value: Any) -> None:
    """Put ``name`` into ``tree``, a level per dot (ros2param's ``insert_dict``)."""
    head, _, rest = name.partition('.')
    if rest:
        insert(tree.setdefault(head, {}), rest, value)
    else:
        tree[name] = value


def parameter_dump(ros: RosHarness, node_name: str) -> str:
    """Return what ``ros2 param dump node_name`` prints, through the node's services."""
    names = sorted(ros.call(ListParameters, f'{node_name}/list_parameters').result.names)
    values = ros.call(GetParameters, f'{node_name}/get_parameters',
                      GetParameters.Request(names=names)).values
    tree: Dict[str, Any] = {}
    for name, value in zip(names, values):
        insert(tree, name, value_of(value))
    return yaml.dump({node_name: {'ros__parameters': tree}}, default_flow_style=False)


@pytest.mark.parametrize('executable', sorted(NODES))
def test_a_node_starts_from_its_own_parameter_dump(
        ros: RosHarness, executable: str, tmp_path: pathlib.Path) -> None:
    spec, needed = NODES[executable]
    if executable == 'topic_recorder':
        needed = {'output': str(tmp_path / 'recording.mcap')}
    node_class = spec.load_class()
    node = ros.start_node(node_class, needed)
    name = node.get_fully_qualified_name()
    dumped = {param.name: param.value for param in node._parameters.values()}
    path = tmp_path / f'{executable}.yaml'
    path.write_text(parameter_dump(ros, name))
    ros.stop_node(node)
    context = Context()
    rclpy.init(args=['--ros-args', '--params-file', str(path)], context=context)
    try:
        loaded = node_class(context=context, namespace=ros.namespace)
        try:
            assert {param.name: param.value for param in loaded._parameters.values()} == dumped
        finally:
            loaded.destroy_node()
    finally:
        rclpy.try_shutdown(context=context)
