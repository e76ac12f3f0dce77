"""
Differential-drive control law: commands (forward speed, yaw rate) to wheel velocities.

The default command output limits are the base speeds the wheels can reach: with equal,
symmetric wheel velocity limits ``w``, ``v_max = w r`` and ``yaw_max = 2 v_max / L``, so a
normalised command of +/-1 spans what the wheels can do. No-op goal and command are zero.
"""

from typing import Any, Dict, Tuple

import numpy as np

from robot_sm.control.arrays import FloatArray
from robot_sm.control.control_law import batch_size, ControlLaw, Goals, States
from robot_sm.control.control_limits import ControlLimits, ControlType, Limits
from robot_sm.control.differential_drive import check_geometry, wheel_velocities


class DifferentialDriveLaw(ControlLaw):
    """Wheel velocities (left, right) for commands (forward speed m/s, yaw rate rad/s)."""

    def __init__(self, control_limits: ControlLimits, dof_idx: Any, wheel_radius: float,
                 wheel_axle_length: float) -> None:
        """
        Drive the wheels ``dof_idx`` = (left, right) of the given radius and separation.

        :raises ValueError: for non-positive dimensions or other than two wheel DOFs.
        """
        check_geometry(wheel_radius, wheel_axle_length)
        super().__init__(control_limits, dof_idx)
        if self.control_dim != 2:
            raise ValueError(f'dof_idx: must be the (left, right) wheel DOFs, got '
                             f'{self.dof_idx.tolist()}')
        self.wheel_radius = float(wheel_radius)
        self.wheel_axle_length = float(wheel_axle_length)

    @property
    def control_type(self) -> ControlType:
        """Wheel velocity control."""
        return ControlType.VELOCITY

    @property
    def command_dim(self) -> int:
        """Forward speed and yaw rate."""
        return 2

    @property
    def goal_shapes(self) -> Dict[str, Tuple[int, ...]]:
        """Return the goal shape: the base twist (forward speed, yaw rate)."""
        return {'velocity': (2,)}

    def goals_from_commands(self, commands: FloatArray, states: States) -> Goals:
        """Return the commands as base twist goals."""
        return {'velocity': commands}

    def compute_control(self, goals: Goals, states: States) -> FloatArray:
        """Return (B, 2) wheel velocities for the base twist goals."""
        twist = goals['velocity']
        left, right = wheel_velocities(twist[:, 0], twist[:, 1], self.wheel_radius,
                                       self.wheel_axle_length)
        return np.stack((left, right), axis=1)

    def _zeros(self, states: States) -> FloatArray:
        return np.zeros((batch_size(states), 2))

    def no_op_goals(self, states: States) -> Goals:
        """Stand still."""
        return {'velocity': self._zeros(states)}

    def no_op_commands(self, states: States) -> FloatArray:
        """Stand still."""
        return self._zeros(states)

    def default_output_limits(self) -> Limits:
        """
        Return (-v_max, -yaw_max), (v_max, yaw_max) from the wheels' velocity limits.

        :raises ValueError: unless both wheels have the same symmetric, finite limit.
        """
        lower, upper = self.control_limits.limits(ControlType.VELOCITY)
        lower, upper = lower[self.dof_idx], upper[self.dof_idx]
        if not (np.isfinite(upper).all() and upper[0] == upper[1] and (lower == -upper).all()
                and upper[0] > 0):
            raise ValueError('command_output_limits: the default needs equal, symmetric, finite '
                             f'wheel velocity limits, got {lower} and {upper}; pass them '
                             'explicitly')
        v_max = float(upper[0]) * self.wheel_radius
        yaw_max = 2.0 * v_max / self.wheel_axle_length
        return np.array([-v_max, -yaw_max]), np.array([v_max, yaw_max])
