"""
What a robot's controls may be: control types, per-DOF limits, and the scaling of commands.

A robot's joints (degrees of freedom, DOFs) have position, velocity and effort limits, and a
``has_limit`` flag per DOF: continuous joints (wheels, endless wrists) have none, so position
controls are clipped only on the DOFs that have limits, while velocity and effort controls are
clipped on every DOF.

Commands are mapped to controller goals by clipping to input limits, then scaling to output
limits: with input limits ``(a, b)`` and output limits ``(c, d)`` a command is clipped to
``[a, b]`` and mapped affinely, ``(x - (a + b) / 2) * |d - c| / |b - a| + (c + d) / 2``, so that
``a`` maps to ``c`` and ``b`` to ``d``. Without input limits commands pass unchanged (neither
clipped nor scaled); without output limits they are clipped only. Limits are given per command
dimension; a scalar is broadcast. ``'default'`` input limits are (-1, 1); ``'default'`` output
limits come from the controller (usually the control limits of its DOFs). Limits are fixed at
construction; the constants are computed once.
"""

from enum import IntEnum
from typing import Any, Callable, Optional, Tuple, Union

import numpy as np

from robot_sm_control.arrays import as_float_array, BoolArray, FloatArray, frozen, IntArray

Limits = Tuple[FloatArray, FloatArray]

#: How limits are given: None (off), 'default', or a (lower, upper) pair of scalars or arrays.
LimitsSpec = Union[None, str, Any]

DEFAULT = 'default'


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


def resolve_limits(spec: LimitsSpec, dim: int, name: str,
                   default: Callable[[], Any]) -> Optional[Limits]:
    """
    Return ``spec`` as a (lower, upper) pair of finite arrays of length ``dim``, or None.

    :raises ValueError: for an unknown string, a malformed pair, non-finite limits or a lower
        limit not strictly below its upper limit (which would make the scaling divide by zero
        or clip everything to one value).
    """
    if spec is None:
        return None
    if isinstance(spec, str):
        if spec != DEFAULT:
            raise ValueError(f"{name}: must be None, 'default' or (lower, upper), got {spec!r}")
        spec = default()
    if not isinstance(spec, (tuple, list)) or len(spec) != 2:
        raise ValueError(f'{name}: must be a pair (lower, upper)')
    bounds = []
    for value, label in zip(spec, ('lower', 'upper')):
        array = as_float_array(value, f'{name} {label}')
        if array.ndim == 0:
            array = np.full(dim, float(array))
        if array.shape != (dim,):
            raise ValueError(f'{name} {label}: must be a number or have {dim} elements, '
                             f'got shape {array.shape}')
        if not np.isfinite(array).all():
            raise ValueError(f'{name} {label}: must be finite, got {array}')
        bounds.append(frozen(array))
    lower, upper = bounds
    if not (lower < upper).all():
        raise ValueError(f'{name}: every lower limit must be below its upper limit, '
                         f'got {lower} and {upper}')
    return lower, upper


class CommandScaling:
    """The clip-and-scale map from command space to the controller's goal space."""

    def __init__(self, input_limits: Optional[Limits], output_limits: Optional[Limits]) -> None:
        """Fix the limits (as resolved by :func:`resolve_limits`); either may be None."""
        self.input_limits = input_limits
        self.output_limits = output_limits
        self._affine = input_limits is not None and output_limits is not None
        if input_limits is not None and output_limits is not None:
            (in_lo, in_hi), (out_lo, out_hi) = input_limits, output_limits
            self._in_mid = (in_hi + in_lo) / 2.0
            self._out_mid = (out_hi + out_lo) / 2.0
            self._scale = np.abs(out_hi - out_lo) / np.abs(in_hi - in_lo)

    def preprocess(self, commands: FloatArray) -> FloatArray:
        """Clip ``commands`` (any leading shape) to the input limits and scale to the output."""
        if self.input_limits is None:
            return commands
        clipped = np.clip(commands, *self.input_limits)
        if not self._affine:
            return clipped
        return (clipped - self._in_mid) * self._scale + self._out_mid


def make_scaling(command_dim: int, command_input_limits: LimitsSpec,
                 command_output_limits: LimitsSpec,
                 default_output_limits: Callable[[], Any]) -> CommandScaling:
    """
    Resolve both limit specifications and return the scaling.

    :raises ValueError: see :func:`resolve_limits`.
    """
    return CommandScaling(
        resolve_limits(command_input_limits, command_dim, 'command_input_limits',
                       lambda: (-1.0, 1.0)),
        resolve_limits(command_output_limits, command_dim, 'command_output_limits',
                       default_output_limits))
