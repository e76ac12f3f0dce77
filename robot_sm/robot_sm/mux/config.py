"""
The mux's configuration: the specification of each of its parameters, and its inputs.

:data:`MUX_PARAMETERS` are the ``robot_control_mux`` node's parameters that configure the core;
:class:`MuxConfig` takes its defaults from them and checks its fields with them, so the node and
a mux built in Python refuse the same values with the same message.
"""

from dataclasses import dataclass
from typing import Optional, Tuple

from robot_sm.mux.status import Mode
from robot_sm.parameters import defaults, duration, Param, Settings

#: Values of ``teleop_timeout_mode``: the mode to fall back to when teleoperation goes idle.
TELEOP_TIMEOUT_MODES = ('stopped', 'previous')

#: Names of the inputs, as reported in diagnostics.
AUTONOMY = 'autonomy'
TELEOPERATION = 'teleoperation'
JOYSTICK = 'joy'
HEARTBEAT = 'heartbeat'
SUPERVISOR = 'supervisor'

#: The supervisor's heartbeat: published by the state interface on every tick.
SUPERVISOR_HEARTBEAT = 'robot_sm/supervisor_heartbeat'

MUX_PARAMETERS = (
    duration('teleoperation_idle_timer', 0.5, 'Time after the last non-zero teleoperation '
             'command (or joystick action) after which teleoperation ends.', 0.05, 10.0),
    Param('teleop_timeout_mode', 'stopped', 'Mode after teleoperation ends: stopped, or '
          'previous (the mode teleoperation took over from).', choices=TELEOP_TIMEOUT_MODES),
    duration('autonomy_timeout', 0.5, 'Age after which an autonomy command is stale and '
             'replaced by zero.', 0.01, 10.0),
    Param('joystick_used', False, 'Subscribe to joy: moving an axis away from rest or '
          'pressing a button takes over control.'),
    Param('joystick_axis_threshold', 0.05, 'How far from rest a joystick axis must move to '
          'count as operator activity.', minimum=0.0, exclusive_minimum=True),
    duration('heartbeat_timeout', 0.5, 'Heartbeat silence that engages the emergency stop.',
             0.01, 10.0),
    duration('supervisor_timeout', 1.0, 'Silence of the supervisor heartbeat '
             f'({SUPERVISOR_HEARTBEAT}, once heard) after which AUTONOMOUS falls to '
             'STOPPED and is refused until it is heard again.', 0.05, 10.0),
    Param('max_linear_velocity', 0.0, 'Limit (m/s) on the length of the linear velocity; '
          'commands above it are scaled down keeping direction; 0: no limit.', minimum=0.0),
    Param('max_angular_velocity', 0.0, 'Limit (rad/s) on the length of the angular '
          'velocity; 0: no limit.', minimum=0.0),
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
    supervisor_timeout: float = _default('supervisor_timeout')
    max_linear_velocity: float = _default('max_linear_velocity')
    max_angular_velocity: float = _default('max_angular_velocity')


@dataclass(frozen=True)
class VelocityInput:
    """
    A source of velocity commands: what tells one from another is data, not code.

    Its commands drive the base in ``mode``; one counts for ``timeout`` seconds after it
    arrived. With ``takes_over``, a non-zero command switches to ``mode`` (from AUTONOMOUS or
    STOPPED, once an operator has selected a mode), and ``timeout`` after the last one the mode
    falls back (``teleop_timeout_mode``).
    """

    name: str
    mode: Mode
    timeout: float
    takes_over: bool


def velocity_inputs(config: MuxConfig) -> Tuple[VelocityInput, ...]:
    """Return the mux's velocity inputs: autonomy, and teleoperation, which takes over."""
    return (VelocityInput(AUTONOMY, Mode.AUTONOMOUS, config.autonomy_timeout, False),
            VelocityInput(TELEOPERATION, Mode.TELEOPERATION, config.teleoperation_idle_timer,
                          True))
