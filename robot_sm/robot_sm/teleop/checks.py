"""The vector arguments of the clutch and the IK: a fixed number of finite numbers."""

from typing import Sequence, Union

import numpy as np

#: A vector argument: a sequence of numbers or an array.
Vector = Union[Sequence[float], np.ndarray]


def vector(value: Vector, size: int, name: str) -> np.ndarray:
    """Return ``value`` as a float array; :raises ValueError: unless ``size`` finite numbers."""
    try:
        array = np.array(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f'{name} must be {size} numbers, got {value!r}') from None
    if array.size != size or not np.all(np.isfinite(array)):
        raise ValueError(f'{name} must be {size} finite numbers, got {list(value)!r}')
    return array
