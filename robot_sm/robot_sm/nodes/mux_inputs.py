"""
The robot control mux's inputs and locks from its parameters, and the check of their topics.

``inputs.<name>.<field>`` and ``locks.<name>.<field>`` are found among the parameters the node
was given (parameter files, ``-p``, ``robot-sm up``'s overrides) and declared with descriptors,
one parameter per field; see :mod:`robot_sm.mux.inputs`.
"""

from typing import Any, Dict, Sequence, Tuple

from rclpy.node import Node
from robot_sm.mux import (
    INPUT_PARAMETERS,
    INPUT_REQUIRED,
    Lock,
    LOCK_PARAMETERS,
    LOCK_REQUIRED,
    Mode,
    MuxConfig,
    velocity_inputs,
    VelocityInput,
)
from robot_sm.nodes.node_parameters import (
    declare_entries, declare_parameters, given_parameter_names)
from robot_sm.parameters import config_from, ConfigurationError
from robot_sm.quoting import quoted


def declare_inputs_and_locks(node: Node, config: Dict[str, Any]) -> None:
    """
    Declare the configured inputs and locks on ``node``; put them into ``config``.

    ``config`` holds the node's other parameters. Without configured inputs, the default two are
    declared (with the values they take from ``autonomy_timeout`` and
    ``teleoperation_idle_timer``), so that every input's parameters can be read from the node.

    :raises ConfigurationError: naming the parameter at fault.
    """
    given = given_parameter_names(node)
    twist_mux = next((name for name in sorted(given) if name.startswith('topics.')), None)
    if twist_mux is not None:
        raise ConfigurationError(
            f"parameter '{twist_mux}': twist_mux's topics are this mux's inputs, and each needs "
            "a class too (autonomy or teleoperation): see the README's section 'Velocity "
            "inputs and locks: coming from twist_mux'")
    inputs = declare_entries(node, 'inputs', INPUT_PARAMETERS, INPUT_REQUIRED)
    locks = declare_entries(node, 'locks', LOCK_PARAMETERS, LOCK_REQUIRED)
    config['inputs'] = tuple(VelocityInput.from_parameters(name, values)
                             for name, values in inputs.items())
    if 'autonomy_timeout' in given:
        _check_autonomy_timeout(config['autonomy_timeout'], config['inputs'])
    config['locks'] = tuple(Lock.from_parameters(name, values) for name, values in locks.items())
    if not inputs:
        for source in velocity_inputs(config_from(MuxConfig, config)):
            declare_parameters(node, source.parameters(), f'inputs.{source.name}')


def _check_autonomy_timeout(timeout: float, inputs: Sequence[VelocityInput]) -> None:
    """
    Refuse an ``autonomy_timeout`` that the configured inputs would leave without effect.

    With inputs, each autonomy input has its own timeout. The node's own parameter dump
    (``ros2 param dump``) holds ``autonomy_timeout`` beside them, equal to theirs: accepted.

    :raises ConfigurationError: if an autonomy input's timeout differs from it.
    """
    for source in inputs:
        if source.mode is Mode.AUTONOMOUS and source.timeout != timeout:
            raise ConfigurationError(
                f"parameter 'autonomy_timeout' has no effect with inputs: it is {timeout:g} s, "
                f'and the autonomy input {source.name} goes stale after its own '
                f'inputs.{source.name}.timeout ({source.timeout:g} s)')


def check_topics(node: Node, topics: Sequence[Tuple[str, str]]) -> None:
    """
    Refuse a topic name that is invalid, or that names the topic of another one or the output.

    ``topics`` pairs each parameter that names a topic with its value; names are compared once
    resolved (namespace and remappings applied). This runs before any subscription is made: one
    participant cannot subscribe to a topic with two types.

    :raises ConfigurationError: naming the parameter (and the other one).
    """
    seen = {node.resolve_topic_name('cmd_vel'): 'the output cmd_vel'}
    for parameter, topic in topics:
        name = f"parameter '{parameter}'"
        try:
            resolved = node.resolve_topic_name(topic)
        except Exception as error:  # noqa: B902 - rclpy raises RCLError, not exported
            reason = str(error).splitlines()[0].removeprefix('failed to resolve name: ')
            raise ConfigurationError(f'{name} is not a valid topic name (got {quoted(topic)}): '
                                     f"{reason.split(', at ')[0]}") from error
        other = seen.setdefault(resolved, name)
        if other != name:
            raise ConfigurationError(
                f'{name} names the topic of {other} ({resolved}): every input and lock needs a '
                'topic of its own')
