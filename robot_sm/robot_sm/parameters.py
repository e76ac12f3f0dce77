"""
Parameter specifications: what each parameter of the suite is, and how its value is checked.

Every node of the suite (and every plugin state) lists its parameters as :class:`Param`
specifications; :func:`robot_sm.nodes.node_parameters.declare_parameters` declares them on a node
with a descriptor (description, constraints, read-only flag), so ``ros2 param describe`` tells an
operator what each one means, and :func:`validate` checks each value at once: a value the node
cannot run with raises :class:`ConfigurationError` with one line naming the parameter and the
problem, and :func:`robot_sm.nodes.runner.run_node` turns that into a refusal to start. This
module does not import rclpy, so cores and plugin states can declare their parameters too.

Numbers are accepted as int or float wherever a float is expected (``timeout: 1`` in a YAML file
is not an error), but never as bool, NaN or infinity. Rates and durations (:func:`rate`,
:func:`duration`) always carry bounds that make physical sense: a timer of 1e-12 Hz or 1e12 Hz is
refused at start rather than crashing the node or burning a core. Values are quoted back cut to
a readable length.
"""

import array
from dataclasses import dataclass, field, fields
import math
from typing import (
    Any, Callable, ClassVar, Dict, Iterable, List, Mapping, Optional, Sequence, Type, TypeVar)

from robot_sm.quoting import quoted

#: A core's configuration: a dataclass whose fields are named like its parameters.
ConfigT = TypeVar('ConfigT')

#: The kinds of value a parameter can hold.
KINDS = ('float', 'int', 'bool', 'str', 'float_list', 'int_list', 'str_list')


class ConfigurationError(ValueError):
    """A parameter value the node cannot start with; the message is one line naming it."""


@dataclass(frozen=True)
class Param:
    """Specification of one parameter: name, kind, default, meaning and constraints."""

    name: str
    default: Any
    description: str
    kind: str = ''
    minimum: Optional[float] = None
    maximum: Optional[float] = None
    exclusive_minimum: bool = False
    choices: Sequence[str] = ()
    read_only: bool = True
    check: Optional[Callable[[Any], Optional[str]]] = field(default=None, compare=False)

    def resolved_kind(self) -> str:
        """Return the kind, inferred from the default when not given."""
        if self.kind:
            if self.kind not in KINDS:
                raise ValueError(f'unknown parameter kind {self.kind!r}')
            return self.kind
        default = self.default
        if isinstance(default, bool):
            return 'bool'
        if isinstance(default, int):
            return 'int'
        if isinstance(default, float):
            return 'float'
        if isinstance(default, str):
            return 'str'
        raise ValueError(f'parameter {self.name!r}: give kind= for a default of {default!r}')

    def constraints(self) -> str:
        """Describe the constraints in words, for the descriptor."""
        parts = [f'type: {self.resolved_kind()}']
        if self.minimum is not None:
            parts.append(f"{'>' if self.exclusive_minimum else '>='} {self.minimum:g}")
        if self.maximum is not None:
            parts.append(f'<= {self.maximum:g}')
        if self.choices:
            parts.append('one of: ' + ', '.join(self.choices))
        return '; '.join(parts)


def rate(name: str, default: float, description: str, low: float, high: float,
         off: bool = False) -> Param:
    """
    Return the spec of a rate in Hz within ``[low, high]``.

    With ``off``, 0 is accepted too and means off; the description should say so.
    """
    if not off:
        return Param(name, default, f"{description.rstrip('.')} (Hz, {low:g} to {high:g}).",
                     minimum=low, maximum=high)

    def zero_or_at_least_low(value: float) -> Optional[str]:
        return None if value == 0.0 or value >= low else f'must be 0 (off) or >= {low:g}'
    return Param(name, default, f"{description.rstrip('.')} (Hz, 0 or {low:g} to {high:g}).",
                 minimum=0.0, maximum=high, check=zero_or_at_least_low)


def duration(name: str, default: float, description: str, low: float, high: float) -> Param:
    """Return the spec of a duration in seconds within ``[low, high]``."""
    return Param(name, default, f"{description.rstrip('.')} (s, {low:g} to {high:g}).",
                 minimum=low, maximum=high)


def not_empty(value: str) -> Optional[str]:
    """Check a string parameter that must name something: say so if it is empty."""
    return None if value.strip() else 'must not be empty'


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def validate(spec: Param, value: Any, name: str = '') -> Any:
    """
    Return ``value`` converted to the spec's kind, or raise :class:`ConfigurationError`.

    The message names the parameter ``name`` (the spec's name if empty): an entry's field is
    declared as ``<group>.<entry>.<field>``.
    """
    kind = spec.resolved_kind()
    name = name or spec.name

    def fail(problem: str) -> ConfigurationError:
        return ConfigurationError(f"parameter '{name}' {problem} (got {quoted(value)})")

    if kind == 'float':
        if not _is_number(value):
            raise fail('must be a number')
        value = float(value)
        if not math.isfinite(value):
            raise fail('must be finite')
    elif kind == 'int':
        if not isinstance(value, int) or isinstance(value, bool):
            raise fail('must be an integer')
    elif kind == 'bool':
        if not isinstance(value, bool):
            raise fail('must be true or false')
    elif kind == 'str':
        if not isinstance(value, str):
            raise fail('must be a string')
        if spec.choices and value not in spec.choices:
            raise fail('must be one of ' + ', '.join(repr(c) for c in spec.choices))
    else:
        if not isinstance(value, (list, tuple, array.array)):
            raise fail('must be a list')
        item_ok = {
            'float_list': _is_number,
            'int_list': lambda v: isinstance(v, int) and not isinstance(v, bool),
            'str_list': lambda v: isinstance(v, str),
        }[kind]
        if not all(item_ok(v) for v in value):
            raise fail(f"must be a list of {kind.split('_')[0]}s")
        value = [float(v) for v in value] if kind == 'float_list' else list(value)
        if kind == 'float_list' and not all(math.isfinite(v) for v in value):
            raise fail('must hold finite numbers')
    if kind in ('float', 'int'):
        if spec.minimum is not None:
            if value < spec.minimum or (spec.exclusive_minimum and value == spec.minimum):
                op = '>' if spec.exclusive_minimum else '>='
                raise fail(f'must be {op} {spec.minimum:g}')
        if spec.maximum is not None and value > spec.maximum:
            raise fail(f'must be <= {spec.maximum:g}')
    if spec.check is not None:
        problem = spec.check(value)
        if problem:
            raise fail(problem)
    return value


def validate_all(specs: Sequence[Param], values: Mapping[str, Any],
                 prefix: str = '') -> Dict[str, Any]:
    """
    Return every spec's value from ``values`` (its default where missing), validated.

    With a ``prefix``, messages name ``<prefix>.<name>``.

    :raises ConfigurationError: for the first value with the wrong type or out of its bounds.
    """
    return {spec.name: validate(spec, values.get(spec.name, spec.default),
                                f'{prefix}.{spec.name}' if prefix else '')
            for spec in specs}


# Named entries ---------------------------------------------------------------------------------
#
# A group of entries is a map of names to fields in a parameter file, twist_mux's layout:
#
#     inputs:
#       navigation: {topic: nav_vel, timeout: 0.5, priority: 10, class: autonomy}
#
# ROS 2 keeps parameters flat (``inputs.navigation.topic``); the entry names are found among the
# names of the parameters a node was given.


def named_entries(names: Iterable[str], group: str, specs: Sequence[Param],
                  required: Sequence[str]) -> List[str]:
    """
    Return the names of the entries of ``group`` among the parameter ``names``, sorted.

    Each entry's fields are ``<group>.<entry>.<field>``, a field being one of ``specs``.

    :raises ConfigurationError: naming the first parameter under ``group`` that is not an
        entry's field, or the first field of ``required`` an entry lacks.
    """
    fields = {spec.name for spec in specs}
    found: Dict[str, List[str]] = {}
    for name in sorted(names):
        if name != group and not name.startswith(f'{group}.'):
            continue
        parts = name.split('.')
        if len(parts) != 3 or parts[2] not in fields:
            raise ConfigurationError(
                f"parameter '{name}' is not a field of an entry of {group}: give "
                f"{group}.<name>.<field>, a field being one of {', '.join(sorted(fields))}")
        found.setdefault(parts[1], []).append(parts[2])
    for entry, given in found.items():
        missing = [field_name for field_name in required if field_name not in given]
        if missing:
            raise ConfigurationError(
                f"parameter '{group}.{entry}.{missing[0]}' is missing: every entry of {group} "
                f"needs {', '.join(required)}")
    return sorted(found)


# Core configurations ----------------------------------------------------------------------------
#
# A core's configuration is a frozen dataclass whose fields are named like the parameters that set
# them. The specs live beside it; the dataclass takes its defaults from them (:func:`defaults`),
# checks its fields with them (:class:`Settings`), and a node builds it from its declared values
# with :func:`config_from`. One spec per parameter: one default, one
# rule, one error format, for the node and for the core used on its own.


def defaults(specs: Sequence[Param]) -> Callable[[str], Any]:
    """Return a function giving the default of the spec named by its argument."""
    by_name = {spec.name: spec.default for spec in specs}
    return by_name.__getitem__


class Settings:
    """
    Base of a core's settings: a frozen dataclass whose fields are named like its parameters.

    After ``__init__`` every field that one of ``SPECS`` names is validated and converted in place
    (an int given for a float becomes a float). A field holding None is left alone: where a core
    allows None it means "off".
    """

    SPECS: ClassVar[Sequence[Param]] = ()

    def __post_init__(self) -> None:
        """
        Validate the fields ``SPECS`` name.

        :raises ConfigurationError: for the first field with the wrong type or out of its bounds.
        """
        for spec in self.SPECS:
            value = getattr(self, spec.name)
            if value is not None:
                object.__setattr__(self, spec.name, validate(spec, value))


def config_from(config_class: Type[ConfigT], values: Mapping[str, Any]) -> ConfigT:
    """Return ``config_class`` built from the entries of ``values`` named like its fields."""
    names = {item.name for item in fields(config_class)}  # type: ignore[arg-type]
    return config_class(**{name: value for name, value in values.items() if name in names})
