"""
Argument checks shared by the retargeters' constructors and the node's parameter validation.

Each raises ``ValueError`` naming the argument, so a node can refuse to start with the same rule
the constructor applies.
"""

import math
from typing import Any, Sequence, Union

import numpy as np

#: A vector argument: a sequence of numbers or an array.
Vector = Union[Sequence[float], np.ndarray]


def finite(value: Any, name: str) -> float:
    """Return ``value`` as a float; :raises ValueError: unless it is a finite number."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f'{name} must be a number, got {value!r}')
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f'{name} must be a number, got {value!r}') from None
    if not math.isfinite(number):
        raise ValueError(f'{name} must be finite, got {value!r}')
    return number


def positive(value: Any, name: str) -> float:
    """Return ``value`` as a float; :raises ValueError: unless finite and > 0."""
    number = finite(value, name)
    if number <= 0.0:
        raise ValueError(f'{name} must be > 0, got {value!r}')
    return number


def unit_interval(value: Any, name: str) -> float:
    """Return ``value`` as a float; :raises ValueError: unless finite and in [0, 1)."""
    number = finite(value, name)
    if not 0.0 <= number < 1.0:
        raise ValueError(f'{name} must be in [0, 1), got {value!r}')
    return number


def vector(value: Vector, size: int, name: str) -> np.ndarray:
    """Return ``value`` as a float array; :raises ValueError: unless ``size`` finite numbers."""
    try:
        array = np.array(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f'{name} must be {size} numbers, got {value!r}') from None
    if array.size != size or not np.all(np.isfinite(array)):
        raise ValueError(f'{name} must be {size} finite numbers, got {list(value)!r}')
    return array


def choice(value: Any, choices: Sequence[str], name: str) -> str:
    """Return ``value``; :raises ValueError: unless it is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return str(value)
