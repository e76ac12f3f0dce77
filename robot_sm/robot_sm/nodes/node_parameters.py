"""Declare parameter specifications on a node and return their validated values."""

import time
from typing import Any, Dict, List, Sequence

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from robot_sm.parameters import ConfigurationError, named_entries, Param, validate
from robot_sm.storage import PersistenceError


def declare_parameters(node: Node, specs: Sequence[Param], prefix: str = '') -> Dict[str, Any]:
    """
    Declare ``specs`` on ``node`` (as ``<prefix>.<name>`` with a prefix) and return their values.

    The values are validated and keyed by the specs' own names, without the prefix.

    :raises ConfigurationError: if a value has the wrong type or breaks a constraint.
    """
    values: Dict[str, Any] = {}
    for spec in specs:
        name = f'{prefix}.{spec.name}' if prefix else spec.name
        descriptor = ParameterDescriptor(
            description=spec.description,
            additional_constraints=spec.constraints(),
            read_only=spec.read_only,
            dynamic_typing=True,
        )
        default = list(spec.default) if isinstance(spec.default, tuple) else spec.default
        try:
            value = node.declare_parameter(name, default, descriptor).value
        except Exception as error:  # noqa: B902 - rclpy raises several unrelated types here
            raise ConfigurationError(f"parameter '{name}': {error}") from error
        if value is None:
            value = default
        values[spec.name] = validate(spec, value, name)
    return values


def given_parameter_names(node: Node) -> List[str]:
    """
    Return the names of the parameters ``node`` was given values for, declared or not.

    They come from parameter files, ``-p`` arguments and the ``parameter_overrides`` the node was
    created with (``robot-sm up``, the test harness). rclcpp lists them with
    ``get_parameter_overrides()``; rclpy keeps them in ``Node._parameter_overrides`` without a
    public accessor, and the alternative, ``automatically_declare_parameters_from_overrides``,
    would declare every parameter without its descriptor before the node could declare it.
    """
    return list(node._parameter_overrides)  # noqa: SLF001 - no public accessor in rclpy


def declare_entries(node: Node, group: str, specs: Sequence[Param],
                    required: Sequence[str]) -> Dict[str, Dict[str, Any]]:
    """
    Declare the fields of every entry of ``group`` the node was given; return them by entry.

    An entry ``navigation`` of the group ``inputs`` has the parameters
    ``inputs.navigation.<field>``, one per spec, declared with its descriptor.

    :raises ConfigurationError: naming the parameter, for a field that is unknown, missing (one
        of ``required``) or breaks its spec.
    """
    names = named_entries(given_parameter_names(node), group, specs, required)
    return {name: declare_parameters(node, specs, f'{group}.{name}') for name in names}


def load_kept_file(file: Any, parameter: str, disable: str) -> Any:
    """
    Prepare ``file`` (a :class:`robot_sm.storage.KeptFile` the path ``parameter`` names), load it.

    :raises ConfigurationError: naming ``parameter`` if its directory cannot be created or a
        corrupt file cannot be moved aside; the message says that '' would ``disable`` it.
    """
    try:
        file.prepare()
        return file.load(time.time())
    except PersistenceError as error:
        raise ConfigurationError(f"parameter '{parameter}': {error}") from error
    except OSError as error:
        raise ConfigurationError(
            f"parameter '{parameter}': cannot create the directory of {file.path} "
            f"({error}); set another path, or '' to {disable}") from error
