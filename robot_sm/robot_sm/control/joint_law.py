"""
Joint control law: commands are joint position, velocity or effort targets.

In absolute mode a command is the target; in delta mode the target is the current joint value
plus the command. Either way the target is clipped to the motor type's limits on every DOF. The
no-op goal holds the current positions (position control) or commands zero (velocity, effort).
"""

from typing import Any, Dict, Tuple, Union

import numpy as np

from robot_sm.control.arrays import FloatArray
from robot_sm.control.control_law import (
    batch_size, ControlLaw, Goals, JOINT_EFFORT, JOINT_POSITION, JOINT_VELOCITY, state_rows,
    States)
from robot_sm.control.control_limits import ControlLimits, ControlType, Limits

_STATE_KEY = {ControlType.POSITION: JOINT_POSITION, ControlType.VELOCITY: JOINT_VELOCITY,
              ControlType.EFFORT: JOINT_EFFORT}


class JointLaw(ControlLaw):
    """Joint targets from absolute or delta commands, for one motor type."""

    def __init__(self, control_limits: ControlLimits, dof_idx: Any,
                 motor_type: Union[str, ControlType] = ControlType.POSITION,
                 use_delta_commands: bool = False) -> None:
        """
        Control ``dof_idx`` with ``motor_type`` targets ('position', 'velocity' or 'effort').

        :raises ValueError: for an unknown motor type or bad DOF indices.
        """
        if isinstance(motor_type, str):
            motor_type = ControlType.from_name(motor_type)
        if motor_type not in _STATE_KEY:
            raise ValueError(f'motor_type: must be position, velocity or effort, '
                             f'got {motor_type!r}')
        self._motor_type = ControlType(motor_type)
        self.use_delta_commands = bool(use_delta_commands)
        super().__init__(control_limits, dof_idx)
        lower, upper = control_limits.limits(self._motor_type)
        self._target_bounds = (lower[self.dof_idx], upper[self.dof_idx])

    @property
    def control_type(self) -> ControlType:
        """Return the motor type."""
        return self._motor_type

    @property
    def command_dim(self) -> int:
        """One command value per controlled DOF."""
        return self.control_dim

    @property
    def goal_shapes(self) -> Dict[str, Tuple[int, ...]]:
        """Return the goal shape: a target for every controlled DOF."""
        return {'target': (self.control_dim,)}

    def _current(self, states: States) -> FloatArray:
        return state_rows(states, _STATE_KEY[self._motor_type], self.dof_idx)

    def goals_from_commands(self, commands: FloatArray, states: States) -> Goals:
        """Return the targets: the commands (plus the current values in delta mode), clipped."""
        target = commands + self._current(states) if self.use_delta_commands else commands
        return {'target': np.clip(target, *self._target_bounds)}

    def compute_control(self, goals: Goals, states: States) -> FloatArray:
        """Return the targets as controls."""
        return goals['target']

    def no_op_goals(self, states: States) -> Goals:
        """Hold the current positions (position control) or command zero (otherwise)."""
        if self._motor_type is ControlType.POSITION:
            return {'target': self._current(states).copy()}
        return {'target': np.zeros((batch_size(states), self.control_dim))}

    def no_op_commands(self, states: States) -> FloatArray:
        """
        Return the commands that hold the robot.

        Position: the current positions (absolute) or zero (delta). Velocity: zero (absolute) or
        minus the current velocity (delta).

        :raises ValueError: for effort control, which has no command that holds a robot.
        """
        if self._motor_type is ControlType.EFFORT:
            raise ValueError('effort control has no no-op command')
        current = self._current(states)
        if self._motor_type is ControlType.POSITION:
            return np.zeros_like(current) if self.use_delta_commands else current.copy()
        return -current if self.use_delta_commands else np.zeros_like(current)

    def default_output_limits(self) -> Limits:
        """
        Return the motor limits of the DOFs (absolute mode only).

        :raises ValueError: in delta mode, where the motor limits are not a range of deltas.
        """
        if self.use_delta_commands:
            raise ValueError("command_output_limits: 'default' is not allowed with delta "
                             'commands (motor limits are not delta limits); pass None or '
                             '(lower, upper)')
        return super().default_output_limits()
