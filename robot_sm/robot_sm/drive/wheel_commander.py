"""
The mobile base's command path: base twist commands in, wheel velocity commands out.

A :class:`WheelCommander` computes the wheel speeds of a differential drive with the controller
library's kinematics (:func:`robot_sm_control.wheel_velocities`, with the curvature-keeping
limit of :func:`robot_sm_control.limited_wheel_velocities`) and smooths them with its low-pass
filter weight (:func:`robot_sm_control.low_pass_weight`), on two floats: what
``SequentialController([DifferentialDriveController, LowPassFilterController])`` computes, without
building robot states for two numbers. Around that it adds what a robot needs:

- a command older than ``command_timeout`` (or none yet) gives zero wheel velocities at once,
  not through the filter: stopping is immediate; the next command starts the filter from rest;
- a command with a NaN or infinite component is dropped and counted; it never reaches the
  wheels (the previous command stays in force until it times out);
- any finite command gives finite wheel speeds within ``max_wheel_speed``; without a limit, a
  command whose wheel speeds would not be finite (``linear_x`` near 1e308) is refused and
  counted the same way;
- time is the caller's clock in seconds; a clock that jumps back counts as a timeout.
"""

from dataclasses import dataclass
import math
from typing import List, Optional, Sequence, Tuple

from robot_sm.parameters import defaults, duration, Param, Settings
from robot_sm_control import limited_wheel_velocities, low_pass_weight, wheel_velocities


def _two_wheel_names(names: List[str]) -> Optional[str]:
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        return 'must be two distinct, non-empty joint names (left, right)'
    return None


WHEEL_PARAMETERS = (
    Param('wheel_radius', 0.03, 'Wheel radius in metres.', minimum=0.0, exclusive_minimum=True),
    Param('wheel_base', 0.1125, 'Distance between the left and right wheels in metres.',
          minimum=0.0, exclusive_minimum=True),
    Param('wheel_joint_names', ('left_wheel_joint', 'right_wheel_joint'),
          'Names of the left and right wheel joints in wheel_command.', kind='str_list',
          check=_two_wheel_names),
    Param('max_wheel_speed', 0.0,
          'Wheel speed limit in rad/s (0 = no limit). Both wheels are scaled by the same factor, '
          'so the base slows down along the commanded arc.', minimum=0.0),
    Param('filter_alpha', 1.0,
          'Low-pass filter weight of a new command per update period, in (0, 1]; 1 = no filter.',
          minimum=0.0, exclusive_minimum=True, maximum=1.0),
    duration('command_timeout', 0.5,
             'Time without a valid cmd_vel after which the wheels are commanded to zero.',
             0.01, 10.0),
)
_default = defaults(WHEEL_PARAMETERS)

ZERO = (0.0, 0.0)


@dataclass(frozen=True)
class WheelSettings(Settings):
    """The drive's dimensions and wheel names, its speed limit, filter and command timeout."""

    SPECS = WHEEL_PARAMETERS

    wheel_radius: float = _default('wheel_radius')
    wheel_base: float = _default('wheel_base')
    wheel_joint_names: Sequence[str] = _default('wheel_joint_names')
    #: Wheel speed limit (rad/s); 0: none.
    max_wheel_speed: float = _default('max_wheel_speed')
    #: Weight of a new command per ``filter_period``; 1: no filter.
    filter_alpha: float = _default('filter_alpha')
    command_timeout: float = _default('command_timeout')


class WheelCommander:
    """Differential-drive wheel commands from base twists, with a timeout and NaN rejection."""

    def __init__(self, settings: WheelSettings = WheelSettings(),
                 filter_period: Optional[float] = None) -> None:
        """
        Configure the drive from ``settings``.

        ``filter_period`` (s) makes ``filter_alpha`` the weight per period whatever the call
        rate; None: per call.
        """
        self.settings = settings
        self.wheel_joints = list(settings.wheel_joint_names)
        self.filtered = settings.filter_alpha != 1.0
        self._filter_period = filter_period
        self._target = ZERO
        self._output = ZERO
        self._command_time: Optional[float] = None
        self._last_update = 0.0
        self._running = False
        #: Commands dropped for a NaN or infinite component.
        self.dropped_commands = 0
        #: Finite commands refused because their wheel speeds would overflow (no limit set).
        self.refused_commands = 0

    def command(self, linear_x: float, angular_z: float, t: float, *ignored: float) -> bool:
        """
        Take a base velocity command, forward m/s and yaw rate rad/s, received at time ``t``.

        Any further components given in ``ignored`` (a twist's other four) are only checked for
        NaN/Inf: a differential drive cannot follow them. Return False if the command was
        dropped (non-finite) or refused (wheel speeds beyond the float range without a limit).
        """
        isfinite = math.isfinite
        if not (isfinite(linear_x) and isfinite(angular_z) and all(map(isfinite, ignored))):
            self.dropped_commands += 1
            return False
        settings = self.settings
        if settings.max_wheel_speed > 0.0:
            wheels = limited_wheel_velocities(linear_x, angular_z, settings.wheel_radius,
                                              settings.wheel_base, settings.max_wheel_speed)
        else:
            wheels = wheel_velocities(linear_x, angular_z, settings.wheel_radius,
                                      settings.wheel_base)
            if not (isfinite(wheels[0]) and isfinite(wheels[1])):
                self.refused_commands += 1
                return False
        self._target = wheels
        self._command_time = t
        return True

    def is_stale(self, t: float) -> bool:
        """Return True if there is no command younger than the timeout at time ``t``."""
        if self._command_time is None:
            return True
        age = t - self._command_time
        return not 0.0 <= age < self.settings.command_timeout

    def update(self, t: float) -> Tuple[float, float]:
        """Return the wheel velocities (rad/s, in ``wheel_joints`` order) to command at ``t``."""
        if self.is_stale(t):
            self._running = False
            self._command_time = None  # a timed-out command is gone, whatever the clock does
            return ZERO
        if not self.filtered:
            return self._target
        if not self._running:  # the filter starts from rest
            self._running = True
            self._output, self._last_update = ZERO, t
        weight = low_pass_weight(self.settings.filter_alpha, self._filter_period,
                                 t - self._last_update)
        self._last_update = t
        (left, right), (old_left, old_right) = self._target, self._output
        self._output = (weight * left + (1.0 - weight) * old_left,
                        weight * right + (1.0 - weight) * old_right)
        return self._output
