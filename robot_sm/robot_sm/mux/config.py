"""
The mux's configuration: the specification of each of its parameters, and its inputs.

:data:`MUX_PARAMETERS` are the ``robot_control_mux`` node's parameters that configure the core;
:class:`MuxConfig` takes its defaults from them and checks its fields with them, so the node and
a mux built in Python refuse the same values with the same message. Its velocity inputs and locks
are those of :mod:`robot_sm.mux.inputs`; without configured inputs it has autonomy and
teleoperation (:func:`velocity_inputs`).
"""

from dataclasses import dataclass, field
from typing import Optional, Tuple

from robot_sm.mux.inputs import (
    check_entries,
    default_inputs,
    Lock,
    operator_input,
    OPERATOR_TOPIC,
    VelocityInput,
)
from robot_sm.parameters import defaults, duration, Param, Settings

#: Values of ``teleop_timeout_mode``: the mode to fall back to when teleoperation goes idle.
TELEOP_TIMEOUT_MODES = ('stopped', 'previous')

#: The supervisor's heartbeat: published by the state interface on every tick.
SUPERVISOR_HEARTBEAT = 'robot_sm/supervisor_heartbeat'

MUX_PARAMETERS = (
    duration('teleoperation_idle_timer', 0.5, 'Time after the last non-zero teleoperation '
             'command (or joystick action, or the request) after which teleoperation ends; '
             'without inputs, also the age at which a teleoperation command is stale.', 0.05,
             10.0),
    Param('teleop_timeout_mode', 'stopped', 'Mode after teleoperation ends: stopped, or '
          'previous (the mode teleoperation took over from).', choices=TELEOP_TIMEOUT_MODES),
    duration('autonomy_timeout', 0.5, 'Age after which an autonomy command is stale and '
             'replaced by zero; without inputs only (inputs give their own timeout).', 0.01,
             10.0),
    Param('joystick_used', False, 'Subscribe to joy: moving an axis away from rest or '
          'pressing a button takes over control.'),
    Param('joystick_axis_threshold', 0.05, 'How far from rest a joystick axis must move to '
          'count as operator activity.', minimum=0.0, exclusive_minimum=True),
    duration('heartbeat_timeout', 0.5, 'Silence of the operator heartbeat (once first heard) '
             'that engages the emergency stop.', 0.01, 10.0),
    duration('supervisor_timeout', 1.0, 'Silence of the supervisor heartbeat '
             f'({SUPERVISOR_HEARTBEAT}, once heard) after which AUTONOMOUS falls to '
             'STOPPED and is refused until it is heard again.', 0.05, 10.0),
    Param('supervised', False, 'A supervisor (the state interface) belongs to this mux, as in '
          'the suite launched together: AUTONOMOUS is refused until its heartbeat '
          f'({SUPERVISOR_HEARTBEAT}) has been heard. False: the supervisor watchdog arms at '
          'the first heartbeat, and a mux used alone takes AUTONOMOUS at once.'),
    Param('max_linear_velocity', 0.0, 'Limit (m/s) on the length of the linear velocity; '
          'commands above it are scaled down keeping direction; 0: no limit.', minimum=0.0),
    Param('max_angular_velocity', 0.0, 'Limit (rad/s) on the length of the angular '
          'velocity; 0: no limit.', minimum=0.0),
    Param('operator_input_priority', 50, 'Priority among the teleoperation inputs of the '
          f"operators' own stream ({OPERATOR_TOPIC}, a web page's joystick), which drives "
          'only from the operator holding control (0 to 255).', minimum=0, maximum=255),
    duration('operator_input_timeout', 0.5, "Age after which a command of the operators' "
             'own stream is stale: the stop of a page that died.', 0.05, 10.0),
)
_default = defaults(MUX_PARAMETERS)


@dataclass(frozen=True)
class MuxConfig(Settings):
    """Timeouts, limits and options of the mux; times in seconds, velocities in SI units."""

    SPECS = MUX_PARAMETERS

    teleoperation_idle_timer: float = _default('teleoperation_idle_timer')
    teleop_timeout_mode: str = _default('teleop_timeout_mode')
    autonomy_timeout: float = _default('autonomy_timeout')
    joystick_used: bool = _default('joystick_used')
    joystick_axis_threshold: float = _default('joystick_axis_threshold')
    #: None: no heartbeat watchdog (the node sets it only with a ``heartbeat_topic``).
    heartbeat_timeout: Optional[float] = None
    #: The operator heartbeat's topic, named when modes are refused before it is first heard.
    heartbeat_topic: str = ''
    supervisor_timeout: float = _default('supervisor_timeout')
    supervised: bool = _default('supervised')
    max_linear_velocity: float = _default('max_linear_velocity')
    max_angular_velocity: float = _default('max_angular_velocity')
    operator_input_priority: int = _default('operator_input_priority')
    operator_input_timeout: float = _default('operator_input_timeout')
    #: The configured velocity inputs; empty: autonomy and teleoperation (see velocity_inputs).
    inputs: Tuple[VelocityInput, ...] = field(default=(), repr=False)
    locks: Tuple[Lock, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        """
        Check the fields, then the inputs and locks together.

        :raises ConfigurationError: naming the parameter or entry at fault.
        """
        super().__post_init__()
        check_entries(velocity_inputs(self), self.locks, (operator_stream(self),))


def velocity_inputs(config: MuxConfig) -> Tuple[VelocityInput, ...]:
    """Return the mux's velocity inputs: the configured ones, else autonomy and teleoperation."""
    return config.inputs or default_inputs(config.autonomy_timeout,
                                           config.teleoperation_idle_timer)


def operator_stream(config: MuxConfig) -> VelocityInput:
    """Return the operators' own teleoperation stream of the mux."""
    return operator_input(config.operator_input_priority, config.operator_input_timeout)


def all_inputs(config: MuxConfig) -> Tuple[VelocityInput, ...]:
    """Return every velocity input of the mux: :func:`velocity_inputs` and the operators'."""
    return (*velocity_inputs(config), operator_stream(config))
