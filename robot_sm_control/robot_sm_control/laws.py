"""
Control laws: what a command-driven controller computes, written once for a batch of robots.

A :class:`ControlLaw` turns processed commands into goals, goals into controls, and knows the
*no-op* goal that holds a robot where it is. Every method works on a batch: arrays have a leading
axis of B robots, and robot states are a mapping of full-DOF arrays (B, n_dof) under the keys
:data:`JOINT_POSITION`, :data:`JOINT_VELOCITY` and :data:`JOINT_EFFORT`. The same law serves a
single :class:`~robot_sm_control.commands.CommandController` (B = 1) and a
:class:`~robot_sm_control.commands.ControllerGroup` (B = all members, one vectorised call).

- :class:`JointLaw`: commands are joint position, velocity or effort targets, absolute or added
  to the current value (delta), clipped to the motor type's limits; the no-op goal holds the
  current positions (position control) or commands zero (velocity, effort).
- :class:`DifferentialDriveLaw`: commands (forward speed, yaw rate) to wheel velocities. Its
  default command output limits are the base speeds the wheels can reach: with equal, symmetric
  wheel velocity limits ``w``, ``v_max = w r`` and ``yaw_max = 2 v_max / L``, so a normalised
  command of +/-1 spans what the wheels can do. No-op goal and command are zero.
"""

from abc import ABC, abstractmethod
from typing import Any, Dict, Mapping, Optional, Tuple, Union

import numpy as np

from robot_sm_control.arrays import FloatArray, frozen, index_array, IntArray
from robot_sm_control.controllers import check_geometry, wheel_velocities
from robot_sm_control.limits import ControlLimits, ControlType, Limits

JOINT_POSITION = 'joint_position'
JOINT_VELOCITY = 'joint_velocity'
JOINT_EFFORT = 'joint_effort'

#: Robot states by key; each array is (B, n_dof) in a law, (n_dof,) for a single robot.
States = Mapping[str, FloatArray]
#: Goals by key; each array is (B, *shape) with the shapes of ``ControlLaw.goal_shapes``.
Goals = Dict[str, FloatArray]

_STATE_KEY = {ControlType.POSITION: JOINT_POSITION, ControlType.VELOCITY: JOINT_VELOCITY,
              ControlType.EFFORT: JOINT_EFFORT}


def state_rows(states: States, key: str, dof_idx: IntArray) -> FloatArray:
    """
    Return the batch's ``key`` values of the DOFs ``dof_idx``, shape (B, len(dof_idx)).

    :raises KeyError: naming the missing key.
    """
    try:
        values = states[key]
    except KeyError:
        raise KeyError(f'the robot state has no {key!r} (keys: {sorted(states)})') from None
    return np.asarray(values)[:, dof_idx]


def batch_size(states: States) -> int:
    """
    Return the number of robots B in ``states``.

    :raises ValueError: if ``states`` is empty.
    """
    for values in states.values():
        return int(np.shape(values)[0])
    raise ValueError('the robot state is empty: give at least one of '
                     f'{JOINT_POSITION!r}, {JOINT_VELOCITY!r}, {JOINT_EFFORT!r}')


class ControlLaw(ABC):
    """Batched goal and control computation for the DOFs ``dof_idx`` of a robot."""

    def __init__(self, control_limits: ControlLimits, dof_idx: Any) -> None:
        """
        Control the DOFs ``dof_idx`` of a robot with ``control_limits``.

        :raises ValueError: if the indices are not unique DOFs of the limits.
        """
        if not isinstance(control_limits, ControlLimits):
            raise ValueError('control_limits: must be a ControlLimits')
        self.control_limits = control_limits
        self.dof_idx: IntArray = frozen(index_array(dof_idx, control_limits.n_dof, 'dof_idx'))
        self._clip: Optional[Limits] = None

    @property
    def control_dim(self) -> int:
        """Size of a control (one value per controlled DOF)."""
        return int(self.dof_idx.shape[0])

    @property
    @abstractmethod
    def control_type(self) -> ControlType:
        """Return what the controls set."""

    @property
    @abstractmethod
    def command_dim(self) -> int:
        """Size of a command."""

    @property
    @abstractmethod
    def goal_shapes(self) -> Dict[str, Tuple[int, ...]]:
        """Shape of each goal entry for one robot."""

    @abstractmethod
    def goals_from_commands(self, commands: FloatArray, states: States) -> Goals:
        """Return the goals for processed ``commands`` (B, command_dim)."""

    @abstractmethod
    def compute_control(self, goals: Goals, states: States) -> FloatArray:
        """Return the (B, control_dim) controls (before clipping) that pursue ``goals``."""

    @abstractmethod
    def no_op_goals(self, states: States) -> Goals:
        """Return goals that keep the robots where they are."""

    def default_output_limits(self) -> Limits:
        """
        Return the command output limits used for ``'default'``: the DOFs' control limits.

        :raises ValueError: if commands and controls differ in size.
        """
        if self.command_dim != self.control_dim:
            raise ValueError(f'{type(self).__name__}: no default command output limits; '
                             'give command_output_limits')
        lower, upper = self.control_limits.limits(self.control_type)
        return lower[self.dof_idx], upper[self.dof_idx]

    def clip_control(self, controls: FloatArray) -> FloatArray:
        """Clip (B, control_dim) controls to the control limits (see ``ControlLimits``)."""
        if self._clip is None:
            self._clip = self.control_limits.clip_bounds(self.control_type, self.dof_idx)
        return np.clip(controls, *self._clip)


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

    def no_op_goals(self, states: States) -> Goals:
        """Stand still."""
        return {'velocity': np.zeros((batch_size(states), 2))}

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
