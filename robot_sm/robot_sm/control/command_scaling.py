"""
Map user commands to controller goals: clip to input limits, then scale to output limits.

With input limits ``(a, b)`` and output limits ``(c, d)`` a command is first clipped to
``[a, b]`` and then mapped affinely, ``(x - (a + b) / 2) * |d - c| / |b - a| + (c + d) / 2``, so
that ``a`` maps to ``c`` and ``b`` to ``d``. Without input limits commands pass unchanged
(neither clipped nor scaled); without output limits they are clipped only.

Limits are given per command dimension; a scalar is broadcast. ``'default'`` input limits are
(-1, 1); ``'default'`` output limits come from the controller (usually the control limits of its
DOFs). Limits are fixed at construction; the constants are computed once.
"""

from typing import Any, Callable, Optional, Union

import numpy as np

from robot_sm.control.arrays import as_float_array, FloatArray, frozen
from robot_sm.control.control_limits import Limits

#: How limits are given: None (off), 'default', or a (lower, upper) pair of scalars or arrays.
LimitsSpec = Union[None, str, Any]

DEFAULT = 'default'


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
    """The clip-and-scale map from command space to the controller's goal space, and back."""

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

    def reverse(self, commands: FloatArray) -> FloatArray:
        """Map goal-space values back to command space (the inverse scaling; no un-clipping)."""
        if not self._affine:
            return commands
        return (commands - self._out_mid) / self._scale + self._in_mid


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
