"""
Debounced, hysteretic boolean from one input: the buttons of the teleop control pipeline.

A selector function picks a value from the upstream group (a controller sample): a bool is used
as it is, a number is compared with a threshold, pressing at ``v >= threshold`` and staying pressed
while ``v >= release_threshold``. The result must hold for ``activate_frames`` ticks to switch on
and ``deactivate_frames`` ticks to switch off. An absent input, a selector returning ``None`` or a
non-finite number gives an *absent* output and resets the debounce, so the state manager can
fail safe.

After an absent tick the output stays absent until the raw value has been steady for its debounce
length (``activate_frames`` if pressed, ``deactivate_frames`` if released) and then starts with
that value. A button held through a dropout therefore comes back as *held*, never as a fresh
press: the debounce would otherwise report it released for a tick and then pressed again, a
rising edge the state manager could not tell from a real one.
"""

import math
import numbers
from typing import Any, Callable, Mapping, Optional, Union

import numpy as np

from robot_sm.teleop.execution import ComputeContext
from robot_sm.teleop.graph import ConnectedRetargeter, OutputSelector, Port, Retargeter, Value
from robot_sm.teleop.graph import Values

#: Picks the signal from the upstream group: a bool, a number, or None for "not available".
SelectorFn = Callable[[Any], Union[bool, float, None]]


def check_threshold(value: Any, name: str = 'threshold') -> float:
    """
    Return ``value`` as a float if it is a usable threshold.

    :raises TypeError: for a bool or a non-number.
    :raises ValueError: for NaN, infinity or a negative number.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f'{name} must be a number, got {value!r}')
    number = float(value)
    if not math.isfinite(number) or number < 0.0:
        raise ValueError(f'{name} must be finite and >= 0, got {value!r}')
    return number


def check_frames(value: Any, name: str) -> int:
    """
    Return ``value`` if it is a usable debounce length (an integer >= 1).

    :raises TypeError: for a bool or a non-integer.
    :raises ValueError: for a number below 1.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f'{name} must be an integer, got {value!r}')
    if value < 1:
        raise ValueError(f'{name} must be >= 1, got {value!r}')
    return int(value)


def check_release_threshold(release_threshold: float, threshold: float) -> None:
    """Raise ``ValueError`` if the release threshold is above the press threshold."""
    if release_threshold > threshold:
        raise ValueError(f'release_threshold ({release_threshold:g}) must be <= '
                         f'threshold ({threshold:g})')


class BoolSelector(Retargeter):
    """Debounced bool from one optional input group; the output is optional (absent-capable)."""

    INPUT = 'input'

    def __init__(
        self,
        name: str,
        selector_fn: SelectorFn,
        *,
        output_name: str = 'value',
        threshold: float = 0.5,
        release_threshold: Optional[float] = None,
        activate_frames: int = 2,
        deactivate_frames: int = 2,
        initial_state: bool = False,
    ) -> None:
        if not callable(selector_fn):
            raise TypeError(f'{name}: selector_fn must be callable')
        self._selector_fn = selector_fn
        self._threshold = check_threshold(threshold)
        self._release = (self._threshold if release_threshold is None
                         else check_threshold(release_threshold, 'release_threshold'))
        check_release_threshold(self._release, self._threshold)
        self._activate_frames = check_frames(activate_frames, 'activate_frames')
        self._deactivate_frames = check_frames(deactivate_frames, 'deactivate_frames')
        self._initial = bool(initial_state)
        self._output_name = output_name
        super().__init__(name, [Port(self.INPUT, optional=True)],
                         [Port(output_name, optional=True)])
        self._reset()

    def _reset(self) -> None:
        self._state = self._initial
        self._rising = 0
        self._falling = 0
        self._steady = 0
        self._settled = True

    def _settle(self, raw: bool) -> Optional[bool]:
        """Count a steady raw value after a dropout; return the state once it is known."""
        self._steady = self._steady + 1 if raw == self._state else 1
        self._state = raw
        if self._steady < (self._activate_frames if raw else self._deactivate_frames):
            return None
        self._settled = True
        return raw

    def _raw(self, group: Value) -> Optional[bool]:
        if group is None:
            return None
        value = self._selector_fn(group)
        if value is None:
            return None
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        if isinstance(value, numbers.Real):
            number = float(value)
            if not math.isfinite(number):
                return None
            return number >= (self._release if self._state else self._threshold)
        raise TypeError(f'{self.name}: selector_fn returned {type(value).__name__}, '
                        'expected bool, a number or None')

    def compute(self, inputs: Mapping[str, Value], context: ComputeContext) -> Values:
        """Debounce this tick's raw value; absent in (or None selected) gives absent out."""
        raw = self._raw(inputs[self.INPUT])
        if raw is None:
            self._reset()
            self._settled = False
            return {self._output_name: None}
        if not self._settled:
            return {self._output_name: self._settle(raw)}
        if raw == self._state:
            self._rising = self._falling = 0
        elif raw:
            self._falling = 0
            self._rising += 1
            if self._rising >= self._activate_frames:
                self._state, self._rising = True, 0
        else:
            self._rising = 0
            self._falling += 1
            if self._falling >= self._deactivate_frames:
                self._state, self._falling = False, 0
        return {self._output_name: self._state}


def create_bool_selector(source: OutputSelector, *, name: str, selector_fn: SelectorFn,
                         **options: Any) -> ConnectedRetargeter:
    """Return a connected :class:`BoolSelector` reading ``source`` (``options``: its keywords)."""
    if not isinstance(source, OutputSelector):
        raise TypeError(f'{name}: source must be an OutputSelector')
    return BoolSelector(name, selector_fn, **options).connect({BoolSelector.INPUT: source})
