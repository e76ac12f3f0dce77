"""
A command-driven controller for one robot: commands set a goal, every step turns it into controls.

The cycle: :meth:`CommandController.update_goal` clips and scales a command and turns it into a
goal; :meth:`CommandController.step` computes the control that pursues the goal and clips it to
the control limits. Goals are sticky: the last one is pursued at every step until
:meth:`CommandController.reset`. A step without a goal first sets the *no-op* goal, which holds
the robot where it is (current positions, or zero velocity), so a robot with no orders does not
move.
"""

from typing import Any, Dict, Mapping, Optional

import numpy as np

from robot_sm.control.arrays import as_float_array, as_vector, FloatArray
from robot_sm.control.command_scaling import LimitsSpec, make_scaling
from robot_sm.control.control_law import ControlLaw, Goals, States
from robot_sm.control.control_limits import ControlType


def batch_of_one(state: States) -> Dict[str, FloatArray]:
    """Return a single robot's state as a batch of one."""
    return {key: as_float_array(value, key)[None] for key, value in state.items()}


def check_goal(law: ControlLaw, goal: Mapping[str, Any]) -> Goals:
    """
    Return ``goal`` (one robot) as arrays of the law's goal shapes.

    :raises ValueError: for missing keys, wrong shapes or non-finite values.
    """
    if set(goal) != set(law.goal_shapes):
        raise ValueError(f'goal: must have the keys {sorted(law.goal_shapes)}, got {sorted(goal)}')
    checked = {}
    for key, shape in law.goal_shapes.items():
        array = as_float_array(goal[key], f'goal {key!r}')
        if array.shape != shape:
            raise ValueError(f'goal {key!r}: must have shape {shape}, got {array.shape}')
        if not np.isfinite(array).all():
            raise ValueError(f'goal {key!r}: must be finite')
        checked[key] = array
    return checked


def goal_to_vector(law: ControlLaw, goal: Mapping[str, FloatArray]) -> FloatArray:
    """Flatten one robot's goal, entries in the order of ``law.goal_shapes``."""
    return np.concatenate([np.ravel(goal[key]) for key in law.goal_shapes])


def goal_from_vector(law: ControlLaw, vector: FloatArray) -> Goals:
    """Split a flattened goal (see :func:`goal_to_vector`) into its entries."""
    goal, offset = {}, 0
    for key, shape in law.goal_shapes.items():
        size = int(np.prod(shape))
        goal[key] = vector[offset:offset + size].reshape(shape)
        offset += size
    return goal


class CommandController:
    """One robot's command-to-control cycle around a :class:`~robot_sm.control.ControlLaw`."""

    def __init__(self, law: ControlLaw, command_input_limits: LimitsSpec = 'default',
                 command_output_limits: LimitsSpec = 'default') -> None:
        """
        Run ``law`` with the given command limits (see :mod:`robot_sm.control.command_scaling`).

        :raises ValueError: for limits that cannot be used.
        """
        self.law = law
        self.scaling = make_scaling(law.command_dim, command_input_limits, command_output_limits,
                                    law.default_output_limits)
        self._goal: Optional[Goals] = None
        self._control: Optional[FloatArray] = None

    @property
    def command_dim(self) -> int:
        """Size of a command."""
        return self.law.command_dim

    @property
    def control_dim(self) -> int:
        """Size of a control."""
        return self.law.control_dim

    @property
    def control_type(self) -> ControlType:
        """Return what the controls set."""
        return self.law.control_type

    @property
    def goal_dim(self) -> int:
        """Return the number of values of a goal, flattened."""
        return self.law.goal_dim

    @property
    def state_size(self) -> int:
        """Length of :meth:`serialize`'s output: a goal-valid flag and the goal."""
        return self.goal_dim + 1

    @property
    def goal(self) -> Optional[Goals]:
        """Return a copy of the current goal, or None if there is none."""
        return None if self._goal is None else {k: v.copy() for k, v in self._goal.items()}

    @property
    def control(self) -> Optional[FloatArray]:
        """Return the last control returned by :meth:`step`, or None."""
        return None if self._control is None else self._control.copy()

    def update_goal(self, command: Any, state: States) -> None:
        """
        Set the goal from ``command``, given the robot's current ``state``.

        :raises ValueError: if the command has the wrong length or is not finite, or the goal it
            gives is not finite (e.g. a delta command on a NaN joint reading); the goal is then
            unchanged.
        """
        command = as_vector(command, 'command', self.command_dim)
        goals = self.law.goals_from_commands(self.scaling.preprocess(command[None]),
                                             batch_of_one(state))
        self._goal = check_goal(self.law, {key: value[0] for key, value in goals.items()})

    def step(self, state: States) -> FloatArray:
        """
        Return the clipped control for the current goal (the no-op goal if there is none).

        :raises ValueError: if the control is not finite (a NaN in ``state``); nothing is stored.
        """
        batch = batch_of_one(state)
        goal = self._goal
        if goal is None:
            goal = {key: value[0] for key, value in self.law.no_op_goals(batch).items()}
        control = self.law.clip_control(self.law.compute_control(
            {key: value[None] for key, value in goal.items()}, batch))[0]
        if not np.isfinite(control).all():
            raise ValueError(f'control is not finite ({control}); check the robot state')
        self._goal = goal
        self._control = control
        return control.copy()

    def reset(self) -> None:
        """Drop the goal, so that the next step holds the robot where it is then."""
        self._goal = None
        self._control = None

    def compute_no_op_action(self, state: States) -> FloatArray:
        """
        Return the command that holds the robot where it is, in command space.

        Note that holding by command can drift under external load: the command is recomputed
        from the sagging state every time.

        :raises ValueError: if the law has no no-op command (effort control).
        """
        if self._goal is None:
            self._goal = {k: v[0] for k, v in self.law.no_op_goals(batch_of_one(state)).items()}
        return self.scaling.reverse(self.law.no_op_commands(batch_of_one(state)))[0]

    def dump_state(self) -> Dict[str, Any]:
        """Return the controller's state: ``{'goal': goal dict or None}``."""
        return {'goal': self.goal}

    def load_state(self, state: Mapping[str, Any]) -> None:
        """
        Restore a state from :meth:`dump_state`.

        :raises ValueError: for a malformed goal.
        """
        goal = state.get('goal')
        self._goal = None if goal is None else check_goal(self.law, goal)

    def serialize(self) -> FloatArray:
        """Return the state as ``[goal is valid, goal values...]`` (``state_size`` values)."""
        if self._goal is None:
            return np.zeros(self.state_size)
        return np.concatenate(([1.0], goal_to_vector(self.law, self._goal)))

    def deserialize(self, values: Any) -> None:
        """
        Restore a state from :meth:`serialize`'s output.

        :raises ValueError: for a wrong length or non-finite values.
        """
        array = as_vector(values, 'state', self.state_size)
        self.load_state({'goal': goal_from_vector(self.law, array[1:]) if array[0] else None})
