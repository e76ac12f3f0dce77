"""
The mobile base's command path: base twist commands in, wheel velocity commands out.

A :class:`WheelCommander` runs the library's :class:`~robot_sm.control.DifferentialDriveController`
(with its optional wheel speed limit), followed by a
:class:`~robot_sm.control.LowPassFilterController` when filtering is on, and adds what a robot
needs around them:

- a command older than ``command_timeout`` (or none yet) gives zero wheel velocities at once,
  not through the filter: stopping is immediate; the next command starts the filter from rest;
- a command with a NaN or infinite component is dropped and counted; it never reaches the
  wheels (the previous command stays in force until it times out);
- any finite command gives finite wheel speeds within ``max_wheel_speed``; without a limit, a
  command whose wheel speeds would not be finite (``linear_x`` near 1e308) is refused and
  counted the same way;
- time is the caller's clock in seconds; a clock that jumps back counts as a timeout.
"""

from typing import Any, Optional, Sequence

import numpy as np

from robot_sm.control.arrays import FloatArray
from robot_sm.control.base_controller import BaseController
from robot_sm.control.composition import SequentialController
from robot_sm.control.differential_drive import (
    DEFAULT_WHEEL_JOINTS,
    DifferentialDriveController,
    wheel_velocities,
)
from robot_sm.control.joint_state import JointState, VELOCITY
from robot_sm.control.low_pass_filter import LowPassFilterController
from robot_sm.control.robot_state import RobotState
from robot_sm.control.root_state import RootState


class WheelCommander:
    """Differential-drive wheel commands from base twists, with a timeout and NaN rejection."""

    def __init__(self, wheel_radius: float, wheel_base: float,
                 wheel_joints: Sequence[str] = DEFAULT_WHEEL_JOINTS,
                 max_wheel_speed: Optional[float] = None, filter_alpha: float = 1.0,
                 filter_period: Optional[float] = None, command_timeout: float = 0.5) -> None:
        """
        Configure the drive, the filter (``filter_alpha`` 1.0 = off) and the timeout (s).

        ``filter_period`` (s) makes ``filter_alpha`` the weight per period whatever the call
        rate (see :class:`~robot_sm.control.LowPassFilterController`).

        :raises ValueError: for bad dimensions, limit, filter settings or timeout.
        """
        if not (isinstance(command_timeout, (int, float)) and np.isfinite(command_timeout)
                and command_timeout > 0):
            raise ValueError(f'command_timeout: must be a finite number > 0, '
                             f'got {command_timeout!r}')
        joints = list(wheel_joints)
        drive = DifferentialDriveController(joints, wheel_radius, wheel_base, joints,
                                            max_wheel_speed)
        self._drive = drive
        self._controller: BaseController = drive
        if filter_alpha != 1.0:
            self._controller = SequentialController(
                [drive, LowPassFilterController(joints, filter_alpha, filter_period)])
        self.filtered = filter_alpha != 1.0
        self.command_timeout = float(command_timeout)
        self.wheel_joints = joints
        self._at_rest = RobotState(joints=JointState.from_name(
            joints, velocities=(joints, np.zeros(len(joints)))))
        self._setpoint: Optional[RobotState] = None
        self._command_time: Optional[float] = None
        self._running = False
        #: Commands dropped for a NaN or infinite component.
        self.dropped_commands = 0
        #: Finite commands refused because their wheel speeds would overflow (no limit set).
        self.refused_commands = 0

    def command(self, linear_x: float, angular_z: float, t: float, *ignored: Any) -> bool:
        """
        Take a base velocity command, forward m/s and yaw rate rad/s, received at time ``t``.

        Any further components given in ``ignored`` (a twist's other four) are only checked for
        NaN/Inf: a differential drive cannot follow them. Return False if the command was
        dropped (non-finite) or refused (wheel speeds beyond the float range without a limit).
        """
        if not np.isfinite((linear_x, angular_z, *ignored)).all():
            self.dropped_commands += 1
            return False
        drive = self._drive
        if drive.max_wheel_speed is None and not np.isfinite(wheel_velocities(
                linear_x, angular_z, drive.wheel_radius, drive.wheel_base)).all():
            self.refused_commands += 1
            return False
        self._setpoint = RobotState(root=RootState(linear_velocity=(linear_x, 0.0, 0.0),
                                                   angular_velocity=(0.0, 0.0, angular_z)))
        self._command_time = t
        return True

    def is_stale(self, t: float) -> bool:
        """Return True if there is no command younger than the timeout at time ``t``."""
        if self._command_time is None:
            return True
        age = t - self._command_time
        return not 0.0 <= age < self.command_timeout

    def update(self, t: float) -> FloatArray:
        """Return the wheel velocities (rad/s, in ``wheel_joints`` order) to command at ``t``."""
        stop = np.zeros(len(self.wheel_joints))
        if self.is_stale(t):
            self._running = False
            self._setpoint = None
            return stop
        if not self._running:
            self._running = self._controller.reset(self._at_rest, None, t)
        output = self._controller.forward(self._at_rest, self._setpoint, t)
        if output is None or output.joints is None:
            return stop
        return output.joints.data_array[VELOCITY].copy()
