"""Declare parameter specifications on a node and return their validated values."""

from typing import Any, Dict, Sequence

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from robot_sm.parameters import ConfigurationError, Param, validate


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
        try:
            values[spec.name] = validate(spec, value)
        except ConfigurationError as error:
            if not prefix:
                raise
            raise ConfigurationError(str(error).replace(f"parameter '{spec.name}'",
                                                        f"parameter '{name}'", 1)) from None
    return values
