"""
Link- or site-space state: poses and twists of some frames of a declared frame space.

A :class:`SpatialState` lives in a *spatial space*, the ordered list of frame names (links, or
sites such as tool frames) that the controllers working together agree on. Each frame may have
any of position (3), orientation (4, quaternion w, x, y, z), linear velocity (3) and angular
velocity (3); a (N, 4) mask records which. Getters return the valid rows in space order.
"""

from typing import Any, List, Optional, Tuple

import numpy as np

from robot_sm_control.arrays import (
    as_float_array, as_rows, BoolArray, check_count, control_space, field_spec, FloatArray,
    frozen, indices_of)

#: The fields of a frame, their widths, in the column order of the validity mask.
FIELDS = ('positions', 'orientations', 'linear_velocities', 'angular_velocities')
WIDTHS = (3, 4, 3, 3)


class SpatialState:
    """Poses and twists of some frames of a link or site space (read-only)."""

    __slots__ = ('_space', '_fields', '_valid')

    _space: Tuple[str, ...]
    _fields: Tuple[FloatArray, FloatArray, FloatArray, FloatArray]
    _valid: BoolArray

    def __init__(self, spatial_space: Any, position: Any, orientation: Any,
                 linear_velocity: Any, angular_velocity: Any, valid_array: Any) -> None:
        """
        Build a state from full (N, 3), (N, 4), (N, 3), (N, 3) arrays and a (N, 4) mask.

        :raises ValueError: for a bad space, wrong shapes or dtypes, or non-finite valid rows.
        """
        space = control_space(spatial_space, 'spatial_space')
        count = len(space)
        valid = np.array(valid_array)
        if valid.dtype != np.bool_ or valid.shape != (count, 4):
            raise ValueError(f'valid_array: must be a bool array of shape ({count}, 4), '
                             f'got {valid.dtype} {valid.shape}')
        fields = []
        given = (position, orientation, linear_velocity, angular_velocity)
        for column, (field, width, value) in enumerate(zip(FIELDS, WIDTHS, given)):
            array = as_float_array(value, field)
            if array.shape != (count, width):
                raise ValueError(f'{field}: must have shape ({count}, {width}), '
                                 f'got {array.shape}')
            mask = valid[:, column]
            if not np.isfinite(array[mask]).all():
                raise ValueError(f'{field}: valid rows must be finite')
            fields.append(np.where(mask[:, None], array, 0.0))
        self._init(space, (fields[0], fields[1], fields[2], fields[3]), valid.copy())

    def _init(self, space: Tuple[str, ...],
              fields: Tuple[FloatArray, FloatArray, FloatArray, FloatArray],
              valid: BoolArray) -> None:
        self._space = space
        self._fields = (frozen(fields[0]), frozen(fields[1]), frozen(fields[2]),
                        frozen(fields[3]))
        self._valid = frozen(valid)

    @classmethod
    def trusted(cls, space: Tuple[str, ...],
                fields: Tuple[FloatArray, FloatArray, FloatArray, FloatArray],
                valid: BoolArray) -> 'SpatialState':
        """Wrap arrays already known to be valid, without checks or copies."""
        state = cls.__new__(cls)
        state._init(space, fields, valid)
        return state

    @classmethod
    def from_name(cls, spatial_space: Any, positions: Optional[Tuple[Any, Any]] = None,
                  orientations: Optional[Tuple[Any, Any]] = None,
                  linear_velocities: Optional[Tuple[Any, Any]] = None,
                  angular_velocities: Optional[Tuple[Any, Any]] = None) -> 'SpatialState':
        """
        Build a state from ``(frame names, rows)`` pairs; pass None to leave a field out.

        Rows are 2-D: (m, 3) for positions and velocities, (m, 4) for orientations (w, x, y, z).

        :raises ValueError: if no field is given, a name is unknown or repeated, the counts
            differ, or the rows have the wrong shape or are not finite.
        """
        space = control_space(spatial_space, 'spatial_space')
        specs = (positions, orientations, linear_velocities, angular_velocities)
        if all(spec is None for spec in specs):
            raise ValueError('SpatialState needs at least one of ' + ', '.join(FIELDS))
        count = len(space)
        fields = [np.zeros((count, width)) for width in WIDTHS]
        valid = np.zeros((count, 4), dtype=np.bool_)
        for column, (field, width, spec) in enumerate(zip(FIELDS, WIDTHS, specs)):
            if spec is None:
                continue
            keys, values = field_spec(spec, field)
            rows = as_rows(values, field, width)
            indices = indices_of(keys, space, field)
            check_count(indices, rows, field)
            fields[column][indices] = rows
            valid[indices, column] = True
        return cls.trusted(space, (fields[0], fields[1], fields[2], fields[3]), valid)

    @property
    def space(self) -> Tuple[str, ...]:
        """Return the spatial space as a tuple (cheap to compare)."""
        return self._space

    @property
    def field_arrays(self) -> Tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """Return the full (N, 3), (N, 4), (N, 3), (N, 3) arrays (zero where not valid)."""
        return self._fields

    @property
    def valid_array(self) -> BoolArray:
        """Return the (N, 4) mask (columns position, orientation, linear, angular velocity)."""
        return self._valid

    def _rows(self, column: int) -> Optional[FloatArray]:
        mask = self._valid[:, column]
        return frozen(self._fields[column][mask]) if mask.any() else None

    def _names(self, column: int) -> Optional[List[str]]:
        mask = self._valid[:, column]
        return [name for name, valid in zip(self._space, mask) if valid] if mask.any() else None

    @property
    def positions(self) -> Optional[FloatArray]:
        """Return the valid (m, 3) positions in space order, or None."""
        return self._rows(0)

    @property
    def position_names(self) -> Optional[List[str]]:
        """Names of the frames with a valid position, or None."""
        return self._names(0)

    @property
    def orientations(self) -> Optional[FloatArray]:
        """Return the valid (m, 4) quaternions (w, x, y, z) in space order, or None."""
        return self._rows(1)

    @property
    def orientation_names(self) -> Optional[List[str]]:
        """Names of the frames with a valid orientation, or None."""
        return self._names(1)

    @property
    def linear_velocities(self) -> Optional[FloatArray]:
        """Return the valid (m, 3) linear velocities in space order, or None."""
        return self._rows(2)

    @property
    def linear_velocity_names(self) -> Optional[List[str]]:
        """Names of the frames with a valid linear velocity, or None."""
        return self._names(2)

    @property
    def angular_velocities(self) -> Optional[FloatArray]:
        """Return the valid (m, 3) angular velocities in space order, or None."""
        return self._rows(3)

    @property
    def angular_velocity_names(self) -> Optional[List[str]]:
        """Names of the frames with a valid angular velocity, or None."""
        return self._names(3)

    def __repr__(self) -> str:
        fields = [f'{field}={names}' for column, field in enumerate(FIELDS)
                  if (names := self._names(column)) is not None]
        return f"SpatialState({', '.join(fields)})"
