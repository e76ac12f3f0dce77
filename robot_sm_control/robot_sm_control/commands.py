"""
Command controllers: commands set sticky goals, every step turns them into clipped controls.

The cycle, for one robot (:class:`CommandController`) or many stepped together in one
vectorised call (:class:`ControllerGroup`): ``update_goal`` clips and scales a command and
turns it into a goal; ``step`` computes the control that pursues the goal and clips it to the
control limits. Goals are sticky: the last one is pursued at every step until ``reset``. A step
without a goal first sets the *no-op* goal, which holds the robot where it is (current
positions, or zero velocity), so a robot with no orders does not move.

A :class:`ControllerGroup` serves every robot that shares a control law and its configuration
(for a fleet of identical robots: one group per body part). Each member gets a stable slot index
from :meth:`ControllerGroup.add_member`; per-member goals, flags and last controls live in rows
of shared arrays. Removing a member only marks its slot as a *tombstone*: no other member's
index changes, and the lowest tombstoned slot is reused (cleared) by the next
:meth:`~ControllerGroup.add_member`. A disabled member keeps its goal and its last control but
is not written by a step.
"""

from typing import Any, Dict, Mapping, NamedTuple, Optional

import numpy as np

from robot_sm_control.arrays import (
    as_float_array, as_rows, as_vector, BoolArray, FloatArray, IntArray)
from robot_sm_control.laws import ControlLaw, Goals, States
from robot_sm_control.limits import ControlType, LimitsSpec, make_scaling


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


class CommandController:
    """One robot's command-to-control cycle around a :class:`~robot_sm_control.laws.ControlLaw`."""

    def __init__(self, law: ControlLaw, command_input_limits: LimitsSpec = 'default',
                 command_output_limits: LimitsSpec = 'default') -> None:
        """
        Run ``law`` with the given command limits (see :mod:`robot_sm_control.limits`).

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


def _resized(array: Any, capacity: int) -> Any:
    """Return a zero-padded copy of ``array`` with ``capacity`` rows."""
    grown = np.zeros((capacity, *array.shape[1:]), dtype=array.dtype)
    grown[:array.shape[0]] = array
    return grown


class GroupControl(NamedTuple):
    """The result of a group step."""

    #: (n_members, control_dim): every slot's last stored control (zero if never stepped).
    controls: FloatArray
    #: (n_members,): True for the members whose control was computed and stored by this step.
    written: BoolArray
    #: (n_members,): True for active members whose control was not finite (e.g. a NaN in their
    #: state); their previous control is kept.
    rejected: BoolArray


class ControllerGroup:
    """A batch of command controllers sharing one :class:`~robot_sm_control.laws.ControlLaw`."""

    def __init__(self, law: ControlLaw, command_input_limits: LimitsSpec = 'default',
                 command_output_limits: LimitsSpec = 'default', capacity: int = 8) -> None:
        """
        Create an empty group; ``capacity`` is the initial number of slots (grown as needed).

        :raises ValueError: for limits that cannot be used.
        """
        self.law = law
        self.scaling = make_scaling(law.command_dim, command_input_limits, command_output_limits,
                                    law.default_output_limits)
        capacity = max(1, int(capacity))
        self._size = 0
        self._goal_set: BoolArray = np.zeros(capacity, dtype=np.bool_)
        self._enabled: BoolArray = np.zeros(capacity, dtype=np.bool_)
        self._tombstone: BoolArray = np.zeros(capacity, dtype=np.bool_)
        self._has_control: BoolArray = np.zeros(capacity, dtype=np.bool_)
        self._controls: FloatArray = np.zeros((capacity, law.control_dim))
        self._goals: Goals = {key: np.zeros((capacity, *shape))
                              for key, shape in law.goal_shapes.items()}

    def _grow(self) -> None:
        capacity = 2 * self._goal_set.shape[0]
        self._goal_set = _resized(self._goal_set, capacity)
        self._enabled = _resized(self._enabled, capacity)
        self._tombstone = _resized(self._tombstone, capacity)
        self._has_control = _resized(self._has_control, capacity)
        self._controls = _resized(self._controls, capacity)
        self._goals = {key: _resized(values, capacity) for key, values in self._goals.items()}

    # -- membership --------------------------------------------------------------------------

    @property
    def n_members(self) -> int:
        """Return the number of slots, tombstoned ones included (the rows of step's arrays)."""
        return self._size

    @property
    def control_type(self) -> ControlType:
        """Return what the controls set."""
        return self.law.control_type

    def add_member(self, control_enabled: bool = True) -> int:
        """Register a member in the lowest tombstoned slot, or a new one; return its index."""
        free = np.flatnonzero(self._tombstone[:self._size])
        if free.shape[0]:
            index = int(free[0])
        else:
            if self._size == self._goal_set.shape[0]:
                self._grow()
            index = self._size
            self._size += 1
        self._clear(index)
        self._enabled[index] = bool(control_enabled)
        self._tombstone[index] = False
        return index

    def unregister_member(self, index: int) -> None:
        """
        Tombstone member ``index``; no other index changes.

        :raises IndexError: if there is no such slot; LookupError if it is already unregistered.
        """
        self._registered(index)
        self._tombstone[index] = True

    def is_registered(self, index: int) -> bool:
        """Return True if slot ``index`` exists and is not tombstoned."""
        return 0 <= index < self._size and not self._tombstone[index]

    def set_control_enabled(self, index: int, enabled: bool) -> None:
        """Enable or disable member ``index`` (a disabled member keeps its goal and control)."""
        self._registered(index)
        self._enabled[index] = bool(enabled)

    def _slot(self, index: int) -> int:
        if not isinstance(index, (int, np.integer)) or not 0 <= index < self._size:
            raise IndexError(f'no member {index!r} (slots 0..{self._size - 1})')
        return int(index)

    def _registered(self, index: int) -> int:
        index = self._slot(index)
        if self._tombstone[index]:
            raise LookupError(f'member {index} is unregistered')
        return index

    def _registered_many(self, members: Any) -> IntArray:
        indices = np.asarray(members)
        if indices.ndim != 1 or (indices.size and indices.dtype.kind not in 'iu'):
            raise IndexError(f'members: must be a list of member indices, got {members!r}')
        indices = indices.astype(np.intp, copy=False)
        outside = (indices < 0) | (indices >= self._size)
        if outside.any():
            raise IndexError(f'no members {indices[outside].tolist()} '
                             f'(slots 0..{self._size - 1})')
        if self._tombstone[indices].any():
            raise LookupError(f'members {indices[self._tombstone[indices]].tolist()} are '
                              'unregistered')
        if indices.size and np.bincount(indices).max() > 1:
            raise ValueError(f'members: repeated indices {indices.tolist()}')
        return indices

    def _clear(self, index: int) -> None:
        self._goal_set[index] = False
        self._has_control[index] = False
        self._controls[index] = 0.0
        for goals in self._goals.values():
            goals[index] = 0.0

    # -- goals and steps ---------------------------------------------------------------------

    def update_goal(self, index: int, command: Any, state: States) -> None:
        """
        Set member ``index``'s goal from ``command`` and its current ``state`` (1-D arrays).

        :raises ValueError: for a command of the wrong length or not finite, or a non-finite
            goal; IndexError / LookupError for a bad or unregistered member.
        """
        self.update_goals([index], as_vector(command, 'command', self.law.command_dim)[None],
                          batch_of_one(state))

    def update_goals(self, members: Any, commands: Any, states: States) -> None:
        """
        Set the goals of several members at once.

        Row k of ``commands`` and of every ``states`` array is for ``members[k]``. All or
        nothing: on an error no goal changes.

        :raises ValueError: for repeated members, commands of the wrong shape or not finite, or
            non-finite goals; IndexError / LookupError for bad or unregistered members.
        """
        indices = self._registered_many(members)
        count = indices.shape[0]
        commands = as_rows(commands, 'commands', self.law.command_dim)
        if commands.shape[0] != count:
            raise ValueError(f'commands: {commands.shape[0]} rows for {count} members')
        for key, values in states.items():
            if np.shape(values)[:1] != (count,):
                raise ValueError(f'state {key!r}: must have {count} rows (one per member), '
                                 f'got shape {np.shape(values)}')
        goals = self.law.goals_from_commands(self.scaling.preprocess(commands), states)
        bad = ~np.all([np.isfinite(v.reshape(count, -1)).all(axis=1)
                       for v in goals.values()], axis=0)
        if bad.any():
            raise ValueError(f'goals of members {indices[bad].tolist()} are not finite; '
                             'check their state')
        for key, values in goals.items():
            self._goals[key][indices] = values
        self._goal_set[indices] = True

    def step(self, states: States) -> GroupControl:
        """
        Compute every active, enabled member's control in one call and store it.

        ``states`` holds one row per slot (``n_members`` rows; rows of tombstoned or disabled
        members are computed but ignored, so any finite filler will do). Members without a goal
        first get the no-op goal. Nothing is computed when no member is active and enabled.

        :raises ValueError: if a state array does not have ``n_members`` rows.
        """
        size = self._size
        for key, values in states.items():
            if np.shape(values)[:1] != (size,):
                raise ValueError(f'state {key!r}: must have {size} rows (one per slot), '
                                 f'got shape {np.shape(values)}')
        active = self._enabled[:size] & ~self._tombstone[:size]
        if not active.any():
            none = np.zeros(size, dtype=np.bool_)
            return GroupControl(self._controls[:size].copy(), none, none.copy())
        need = active & ~self._goal_set[:size]
        if need.any():
            no_op = self.law.no_op_goals({key: np.asarray(v)[need] for key, v in states.items()})
            rows = np.flatnonzero(need)
            for key, values in no_op.items():
                self._goals[key][rows] = values
            self._goal_set[rows] = True
        goals = {key: values[:size] for key, values in self._goals.items()}
        controls = self.law.clip_control(self.law.compute_control(goals, states))
        finite = np.isfinite(controls).all(axis=1)
        written = active & finite
        rejected = active & ~finite
        self._goal_set[:size][rejected & need] = False
        self._controls[:size][written] = controls[written]
        self._has_control[:size][written] = True
        return GroupControl(self._controls[:size].copy(), written, rejected)

    def reset(self, index: int) -> None:
        """Drop member ``index``'s goal and control (no-op for a tombstoned slot)."""
        index = self._slot(index)
        if not self._tombstone[index]:
            self._clear(index)

    def get_goal(self, index: int) -> Optional[Goals]:
        """Return a copy of member ``index``'s goal, or None if it has none."""
        index = self._slot(index)
        if not self._goal_set[index]:
            return None
        return {key: values[index].copy() for key, values in self._goals.items()}

    def get_control(self, index: int) -> Optional[FloatArray]:
        """Return member ``index``'s last stored control, or None if it has none."""
        index = self._slot(index)
        return self._controls[index].copy() if self._has_control[index] else None
