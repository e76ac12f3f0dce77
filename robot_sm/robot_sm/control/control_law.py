"""
What a command-driven controller computes, written once for a whole batch of robots.

A :class:`ControlLaw` turns processed commands into goals, goals into controls, and knows the
*no-op* goal that holds a robot where it is. Every method works on a batch: arrays have a leading
axis of B robots, and robot states are a mapping of full-DOF arrays (B, n_dof) under the keys
:data:`JOINT_POSITION`, :data:`JOINT_VELOCITY` and :data:`JOINT_EFFORT`. The same law serves a
single :class:`~robot_sm.control.CommandController` (B = 1) and a
:class:`~robot_sm.control.ControllerGroup` (B = all members, one vectorised call).
"""

from abc import ABC, abstractmethod
from math import prod
from typing import Any, Dict, Mapping, Optional, Tuple

import numpy as np

from robot_sm.control.arrays import FloatArray, frozen, index_array, IntArray
from robot_sm.control.control_limits import ControlLimits, ControlType, Limits

JOINT_POSITION = 'joint_position'
JOINT_VELOCITY = 'joint_velocity'
JOINT_EFFORT = 'joint_effort'

#: Robot states by key; each array is (B, n_dof) in a law, (n_dof,) for a single robot.
States = Mapping[str, FloatArray]
#: Goals by key; each array is (B, *shape) with the shapes of ``ControlLaw.goal_shapes``.
Goals = Dict[str, FloatArray]


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

    @property
    def goal_dim(self) -> int:
        """Return the number of values in one robot's goal, flattened."""
        return sum(prod(shape) for shape in self.goal_shapes.values())

    @abstractmethod
    def goals_from_commands(self, commands: FloatArray, states: States) -> Goals:
        """Return the goals for processed ``commands`` (B, command_dim)."""

    @abstractmethod
    def compute_control(self, goals: Goals, states: States) -> FloatArray:
        """Return the (B, control_dim) controls (before clipping) that pursue ``goals``."""

    @abstractmethod
    def no_op_goals(self, states: States) -> Goals:
        """Return goals that keep the robots where they are."""

    @abstractmethod
    def no_op_commands(self, states: States) -> FloatArray:
        """
        Return the processed commands (B, command_dim) that keep the robots where they are.

        :raises ValueError: if the law has no such command.
        """

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
