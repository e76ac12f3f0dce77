"""
The mux's velocity inputs and locks as configured: twist_mux's model inside the operation modes.

In a parameter file they are two maps of named entries (ROS 2 keeps them as flat parameters,
``inputs.navigation.topic``)::

    inputs:
      navigation: {topic: autonomy/cmd_vel, timeout: 0.5, priority: 10, class: autonomy}
      joystick: {topic: teleoperation/cmd_vel, timeout: 0.5, priority: 100,
                 class: teleoperation, takeover: true}
    locks:
      pause: {topic: pause_navigation, timeout: 0.0, priority: 50}

An input's class is the mode it drives in; ``takeover`` lets its non-zero commands switch to
TELEOPERATION. A lock (std_msgs/Bool) masks every input of a lower priority while it is locked.
:data:`INPUT_PARAMETERS` and :data:`LOCK_PARAMETERS` are the fields' specifications; the node
declares them once per entry, and :class:`VelocityInput` and :class:`Lock` check their fields
with them, so a node and a mux built in Python refuse the same values with the same message.
"""

from dataclasses import dataclass, replace
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

from robot_sm.mux.status import Mode
from robot_sm.parameters import ConfigurationError, duration, not_empty, Param, validate_all

#: The classes of input, and the mode in which each drives the base.
INPUT_CLASSES = {'autonomy': Mode.AUTONOMOUS, 'teleoperation': Mode.TELEOPERATION}
CLASS_NAMES = {mode: name for name, mode in INPUT_CLASSES.items()}
#: Names of the inputs a mux configured without any has.
AUTONOMY = 'autonomy'
TELEOPERATION = 'teleoperation'
#: Names the mux reports its other inputs by, and the name of no input.
JOYSTICK = 'joy'
HEARTBEAT = 'heartbeat'
SUPERVISOR = 'supervisor'
NO_INPUT = 'none'
#: The operators' own teleoperation stream (a web page's joystick): a teleoperation input that
#: every mux has, on :data:`OPERATOR_TOPIC`, whose commands count only from the operator who
#: holds control (the node checks; the core treats it as any teleoperation input).
OPERATOR = 'operator'
OPERATOR_TOPIC = 'robot_sm/operator_cmd_vel'
RESERVED_NAMES = (JOYSTICK, HEARTBEAT, SUPERVISOR, NO_INPUT, OPERATOR)


def _zero_or_at_least_a_hundredth(value: float) -> Optional[str]:
    return None if value == 0.0 or value >= 0.01 else 'must be 0 (no timeout) or >= 0.01'


INPUT_PARAMETERS = (
    Param('topic', '', 'Topic of its velocity commands (geometry_msgs/Twist, TwistStamped with '
          'input_stamped), relative to the namespace.', check=not_empty),
    duration('timeout', 0.5, 'Age after which its newest command is stale and no longer '
             'drives.', 0.01, 10.0),
    Param('priority', 0, 'Within its class the fresh input with the highest priority drives; a '
          'lock masks inputs of a lower priority (0 to 255).', minimum=0, maximum=255),
    Param('class', 'autonomy', 'The mode it drives in: autonomy (AUTONOMOUS) or teleoperation '
          '(TELEOPERATION).', choices=tuple(INPUT_CLASSES)),
    Param('takeover', False, 'A non-zero command switches to TELEOPERATION (teleoperation '
          'inputs only).'),
)
#: The fields every configured input gives; ``takeover`` is false when left out.
INPUT_REQUIRED = ('topic', 'timeout', 'priority', 'class')

LOCK_PARAMETERS = (
    Param('topic', '', 'std_msgs/Bool topic, relative to the namespace; data true locks.',
          check=not_empty),
    Param('timeout', 0.0, 'Silence after which it locks, also before its first message (s, 0 '
          'or 0.01 to 10); 0: it follows only its data and starts free.', minimum=0.0,
          maximum=10.0, check=_zero_or_at_least_a_hundredth),
    Param('priority', 1, 'While locked, inputs of a lower priority are masked (1 to 255).',
          minimum=1, maximum=255),
)
LOCK_REQUIRED = ('topic', 'timeout', 'priority')


@dataclass(frozen=True)
class VelocityInput:
    """
    A source of velocity commands: what tells one from another is data, not code.

    Its commands drive the base in ``mode`` (its class); one counts for ``timeout`` seconds
    after it arrived. With ``takes_over``, a non-zero command switches to ``mode`` (from
    AUTONOMOUS or STOPPED, once an operator has selected a mode).
    """

    name: str
    topic: str
    timeout: float
    priority: int
    mode: Mode
    takes_over: bool = False

    def __post_init__(self) -> None:
        """
        Check the fields with :data:`INPUT_PARAMETERS`.

        :raises ConfigurationError: naming ``inputs.<name>.<field>``.
        """
        prefix = f'inputs.{self.name}'
        mode = getattr(self.mode, 'name', str(self.mode)).lower()
        values = validate_all(INPUT_PARAMETERS, {
            'topic': self.topic, 'timeout': self.timeout, 'priority': self.priority,
            'class': CLASS_NAMES.get(self.mode, mode), 'takeover': self.takes_over}, prefix)
        object.__setattr__(self, 'timeout', values['timeout'])
        if self.takes_over and self.mode is not Mode.TELEOPERATION:
            raise ConfigurationError(
                f"parameter '{prefix}.takeover' must be false for an input of class "
                f"{values['class']}: only teleoperation inputs take over (got true)")

    @classmethod
    def from_parameters(cls, name: str, values: Mapping[str, Any]) -> 'VelocityInput':
        """Return the input of the entry ``name`` with the fields ``values``."""
        return cls(name, values['topic'], values['timeout'], values['priority'],
                   INPUT_CLASSES[values['class']], values['takeover'])

    def parameters(self) -> Tuple[Param, ...]:
        """Return :data:`INPUT_PARAMETERS` with this input's values as their defaults."""
        values = {'topic': self.topic, 'timeout': self.timeout, 'priority': self.priority,
                  'class': CLASS_NAMES[self.mode], 'takeover': self.takes_over}
        return tuple(replace(spec, default=values[spec.name]) for spec in INPUT_PARAMETERS)

    def __str__(self) -> str:
        """Describe the input in one line, for the log."""
        takeover = ', takes over' if self.takes_over else ''
        return (f'{self.name} ({self.topic}, {CLASS_NAMES[self.mode]}, priority {self.priority}, '
                f'timeout {self.timeout:g} s{takeover})')


@dataclass(frozen=True)
class Lock:
    """
    A std_msgs/Bool topic that masks every input of a lower priority while it is locked.

    It is locked while its newest message says true and, with a ``timeout`` other than 0, while
    it has not been heard for longer than ``timeout`` (before its first message too).
    """

    name: str
    topic: str
    timeout: float
    priority: int

    def __post_init__(self) -> None:
        """
        Check the fields with :data:`LOCK_PARAMETERS`.

        :raises ConfigurationError: naming ``locks.<name>.<field>``.
        """
        values = validate_all(LOCK_PARAMETERS, {
            'topic': self.topic, 'timeout': self.timeout, 'priority': self.priority},
            f'locks.{self.name}')
        object.__setattr__(self, 'timeout', values['timeout'])

    @classmethod
    def from_parameters(cls, name: str, values: Mapping[str, Any]) -> 'Lock':
        """Return the lock of the entry ``name`` with the fields ``values``."""
        return cls(name, values['topic'], values['timeout'], values['priority'])

    def __str__(self) -> str:
        """Describe the lock in one line, for the log."""
        timeout = f'timeout {self.timeout:g} s' if self.timeout else 'no timeout'
        return f'{self.name} ({self.topic}, priority {self.priority}, {timeout})'


def default_inputs(autonomy_timeout: float,
                   teleoperation_idle_timer: float) -> Tuple[VelocityInput, ...]:
    """
    Return the inputs of a mux configured without any.

    ``autonomy/cmd_vel`` drives in AUTONOMOUS and goes stale after ``autonomy_timeout``;
    ``teleoperation/cmd_vel`` drives in TELEOPERATION, goes stale after
    ``teleoperation_idle_timer`` and takes over. ``config/robot_sm.yaml`` writes the same two.
    """
    return (VelocityInput(AUTONOMY, f'{AUTONOMY}/cmd_vel', autonomy_timeout, 10,
                          Mode.AUTONOMOUS),
            VelocityInput(TELEOPERATION, f'{TELEOPERATION}/cmd_vel', teleoperation_idle_timer,
                          100, Mode.TELEOPERATION, takes_over=True))


def operator_input(priority: int, timeout: float) -> VelocityInput:
    """Return the operators' own teleoperation stream (:data:`OPERATOR`)."""
    return VelocityInput(OPERATOR, OPERATOR_TOPIC, timeout, priority, Mode.TELEOPERATION)


def check_entries(inputs: Sequence[VelocityInput], locks: Sequence[Lock],
                  builtin: Sequence[VelocityInput] = ()) -> None:
    """
    Check the inputs and locks together: unique names, and unique priorities within a class.

    ``builtin`` are the mux's own inputs (:func:`operator_input`): their names are reserved,
    and their priorities count among those of their class.

    Two inputs of one class with the same priority are refused: which of them drives would
    depend on their names (twist_mux lets the first in name order win).

    :raises ConfigurationError: naming the entry that breaks the rule.
    """
    seen: Dict[str, str] = {}
    for group, entries in (('inputs', inputs), ('locks', locks)):
        for entry in entries:
            if entry.name in RESERVED_NAMES:
                raise ConfigurationError(
                    f"parameter '{group}.{entry.name}': the name {entry.name} is reserved "
                    f"({', '.join(RESERVED_NAMES)} name the mux's other inputs and no input)")
            if entry.name in seen:
                raise ConfigurationError(
                    f"parameter '{group}.{entry.name}': the name {entry.name} is also given to "
                    f'{seen[entry.name]}.{entry.name}: names must be unique')
            seen[entry.name] = group
    by_priority: Dict[Tuple[Mode, int], str] = {}
    for entry in (*builtin, *inputs):
        other = by_priority.setdefault((entry.mode, entry.priority), entry.name)
        if other != entry.name:
            raise ConfigurationError(
                f"parameter 'inputs.{entry.name}.priority' is also the priority of "
                f'inputs.{other}, of the same class {CLASS_NAMES[entry.mode]}: give them '
                f'different priorities (got {entry.priority})')


__all__ = ['AUTONOMY', 'check_entries', 'CLASS_NAMES', 'default_inputs', 'HEARTBEAT',
           'INPUT_CLASSES', 'INPUT_PARAMETERS', 'INPUT_REQUIRED', 'JOYSTICK', 'Lock',
           'LOCK_PARAMETERS', 'LOCK_REQUIRED', 'NO_INPUT', 'OPERATOR', 'operator_input',
           'OPERATOR_TOPIC', 'RESERVED_NAMES', 'SUPERVISOR', 'TELEOPERATION', 'VelocityInput']
