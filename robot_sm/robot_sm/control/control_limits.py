"""
Control types and the per-DOF limits of a robot's controls.

A robot's joints (degrees of freedom, DOFs) have position, velocity and effort limits, and a
``has_limit`` flag per DOF: continuous joints (wheels, endless wrists) have none, so position
controls are clipped only on the DOFs that have limits, while velocity and effort controls are
clipped on every DOF.
"""

from enum import IntEnum
from typing import Any, Tuple

import numpy as np

from robot_sm.control.arrays import as_float_array, BoolArray, FloatArray, frozen, IntArray

Limits = Tuple[FloatArray, FloatArray]


class ControlType(IntEnum):
    """What a control signal sets: a joint position, velocity or effort target."""

    NONE = -1
    POSITION = 0
    VELOCITY = 1
    EFFORT = 2

    @classmethod
    def from_name(cls, name: str) -> 'ControlType':
        """
        Return the type named ``name`` ('position', 'velocity' or 'effort', any case).

        :raises ValueError: for any other name.
        """
        key = name.upper() if isinstance(name, str) else ''
        if key not in ('POSITION', 'VELOCITY', 'EFFORT'):
            raise ValueError(f"unknown control type {name!r}; use 'position', 'velocity' or "
                             "'effort'")
        return cls[key]


def _pair(value: Any, name: str, count: int) -> Limits:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ValueError(f'{name}: must be a pair (lower, upper)')
    lower = as_float_array(value[0], f'{name} lower')
    upper = as_float_array(value[1], f'{name} upper')
    for bound, label in ((lower, 'lower'), (upper, 'upper')):
        if bound.shape != (count,):
            raise ValueError(f'{name} {label}: must have {count} elements (one per DOF), '
                             f'got shape {bound.shape}')
        if np.isnan(bound).any():
            raise ValueError(f'{name} {label}: must not be NaN')
    if (lower > upper).any():
        raise ValueError(f'{name}: lower limits above upper limits at DOFs '
                         f'{np.flatnonzero(lower > upper).tolist()}')
    return frozen(lower), frozen(upper)


class ControlLimits:
    """Position, velocity and effort limits of every DOF, and which DOFs have position limits."""

    __slots__ = ('_limits', '_has_limit')

    def __init__(self, position: Any, velocity: Any, effort: Any, has_limit: Any) -> None:
        """
        Store ``(lower, upper)`` arrays per control type (one value per DOF; infinities allowed).

        :raises ValueError: if lengths differ, a limit is NaN, a lower limit exceeds its upper
            limit, or ``has_limit`` is not one bool per DOF.
        """
        flags = np.array(has_limit)
        if flags.dtype != np.bool_ or flags.ndim != 1 or flags.shape[0] == 0:
            raise ValueError('has_limit: must be a non-empty list of bools, one per DOF')
        count = flags.shape[0]
        self._has_limit: BoolArray = frozen(flags)
        self._limits = (_pair(position, 'position limits', count),
                        _pair(velocity, 'velocity limits', count),
                        _pair(effort, 'effort limits', count))

    @property
    def n_dof(self) -> int:
        """Return the number of DOFs."""
        return int(self._has_limit.shape[0])

    @property
    def has_limit(self) -> BoolArray:
        """Per DOF: True if its position is limited (False for continuous joints)."""
        return self._has_limit

    def limits(self, control_type: ControlType) -> Limits:
        """
        Return the (lower, upper) limits of every DOF for ``control_type``.

        :raises ValueError: for ``ControlType.NONE``.
        """
        if control_type is ControlType.NONE:
            raise ValueError('control type NONE has no limits')
        return self._limits[int(control_type)]

    def clip_bounds(self, control_type: ControlType, dof_idx: IntArray) -> Limits:
        """
        Return the bounds that controls of ``control_type`` on ``dof_idx`` are clipped to.

        Position controls are not clipped on DOFs without position limits (their bounds are
        infinite); velocity and effort controls are clipped on every DOF.
        """
        lower, upper = (bound[dof_idx] for bound in self.limits(control_type))
        if control_type is ControlType.POSITION:
            free = ~self._has_limit[dof_idx]
            lower = np.where(free, -np.inf, lower)
            upper = np.where(free, np.inf, upper)
        return frozen(lower), frozen(upper)
