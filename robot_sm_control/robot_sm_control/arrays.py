"""
Validate and convert the arrays and name lists that the control library accepts.

Every public constructor of the library goes through these helpers, so bad input is rejected
where it enters, with a :class:`ValueError` that names the argument, instead of failing later
inside a controller.
"""

from functools import lru_cache
from typing import Any, Dict, Sequence, Tuple

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.intp]


def as_float_array(value: Any, name: str) -> FloatArray:
    """
    Return ``value`` as a new float64 array.

    Real numbers (int or float) are accepted; bool, complex, text and objects are not.

    :raises ValueError: naming ``name`` when the values are not real numbers.
    """
    try:
        array = np.array(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f'{name}: not an array of numbers ({error})') from error
    if array.dtype.kind not in 'iuf':
        raise ValueError(f'{name}: must hold real numbers, got dtype {array.dtype}')
    return array.astype(np.float64, copy=False)


def as_vector(value: Any, name: str, length: int = -1, finite: bool = True) -> FloatArray:
    """
    Return ``value`` as a 1-D float64 array; an array of shape (1, n) is flattened.

    :raises ValueError: on another shape, a length other than ``length`` (when given, else an
        empty array) or, with ``finite``, a NaN or infinity.
    """
    array = as_float_array(value, name)
    if array.ndim == 2 and array.shape[0] == 1:
        array = array.reshape(-1)
    if array.ndim != 1:
        raise ValueError(f'{name}: must be one-dimensional, got shape {array.shape}')
    if length >= 0 and array.shape[0] != length:
        raise ValueError(f'{name}: must have {length} elements, got {array.shape[0]}')
    if array.shape[0] == 0:
        raise ValueError(f'{name}: must not be empty')
    if finite and not np.isfinite(array).all():
        raise ValueError(f'{name}: must be finite, got {array}')
    return array


def as_rows(value: Any, name: str, columns: int) -> FloatArray:
    """
    Return ``value`` as a finite float64 array of shape (m, ``columns``) with m >= 1.

    :raises ValueError: on another shape or a NaN or infinity.
    """
    array = as_float_array(value, name)
    if array.ndim != 2 or array.shape[1] != columns or array.shape[0] == 0:
        raise ValueError(f'{name}: must have shape (m, {columns}) with m >= 1, '
                         f'got {array.shape}')
    if not np.isfinite(array).all():
        raise ValueError(f'{name}: must be finite')
    return array


def name_list(value: Any, name: str) -> Tuple[str, ...]:
    """
    Return ``value``, a list or tuple of unique non-empty strings, as a tuple.

    :raises ValueError: for a bare string, other element types, empty names or duplicates.
    """
    if not isinstance(value, (list, tuple)):
        raise ValueError(f'{name}: must be a list of names, got {type(value).__name__}')
    if not all(isinstance(item, str) and item for item in value):
        raise ValueError(f'{name}: every name must be a non-empty string, got {value!r}')
    if len(set(value)) != len(value):
        duplicates = sorted({item for item in value if value.count(item) > 1})
        raise ValueError(f'{name}: duplicate names {duplicates}')
    return tuple(value)


@lru_cache(maxsize=256)
def space_index(space: Tuple[str, ...]) -> Dict[str, int]:
    """Return the index of every name of an already validated ``space`` (cached per space)."""
    return {item: index for index, item in enumerate(space)}


def control_space(value: Any, name: str) -> Tuple[str, ...]:
    """
    Return a control space (an ordered list of at least one unique name) as a tuple.

    :raises ValueError: if it is empty or not a list of unique non-empty names.
    """
    space = name_list(value, name)
    if not space:
        raise ValueError(f'{name}: must name at least one element')
    return space


def indices_of(names: Any, space: Tuple[str, ...], name: str) -> IntArray:
    """
    Return the indices in ``space`` of ``names`` (unique names of the space).

    :raises ValueError: for names outside the space, duplicates or an empty list.
    """
    names = name_list(names, name)
    if not names:
        raise ValueError(f'{name}: must name at least one element')
    index = space_index(space)
    unknown = [item for item in names if item not in index]
    if unknown:
        raise ValueError(f'{name}: {unknown} not in the control space {list(space)}')
    return np.fromiter((index[item] for item in names), dtype=np.intp, count=len(names))


def index_array(value: Any, size: int, name: str) -> IntArray:
    """
    Return ``value`` as unique integer indices in ``[0, size)``.

    :raises ValueError: for non-integers, out-of-range or duplicate indices or an empty list.
    """
    array = np.array(value)
    if array.ndim == 2 and array.shape[0] == 1:
        array = array.reshape(-1)
    if array.ndim != 1 or array.shape[0] == 0:
        raise ValueError(f'{name}: must be a non-empty list of indices, got shape {array.shape}')
    if array.dtype.kind not in 'iu':
        raise ValueError(f'{name}: indices must be integers, got dtype {array.dtype}')
    if (array < 0).any() or (array >= size).any():
        raise ValueError(f'{name}: indices must be in [0, {size}), got {array.tolist()}')
    if np.unique(array).shape[0] != array.shape[0]:
        raise ValueError(f'{name}: duplicate indices {array.tolist()}')
    return array.astype(np.intp, copy=False)


def frozen(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Mark ``array`` read-only and return it."""
    array.flags.writeable = False
    return array


def field_spec(spec: Any, name: str) -> Tuple[Any, Any]:
    """
    Split a ``(names or indices, values)`` pair.

    :raises ValueError: if ``spec`` is not a pair.
    """
    if not isinstance(spec, (tuple, list)) or len(spec) != 2:
        raise ValueError(f'{name}: must be a pair (names or indices, values)')
    return spec[0], spec[1]


def check_count(keys: Sequence[Any] | np.ndarray, values: np.ndarray, name: str) -> None:
    """
    Check that there is one value (row) per key.

    :raises ValueError: naming both lengths otherwise.
    """
    if len(keys) != values.shape[0]:
        raise ValueError(f'{name}: {len(keys)} names or indices but {values.shape[0]} values')
