"""
Joint-space state: positions, velocities and efforts of some joints of a declared joint space.

A :class:`JointState` lives in a *joint space*, the ordered list of every joint name that the
controllers working together agree on. It holds a (3, N) data array (rows: position, velocity,
effort) and a (3, N) validity mask, so a state may be partial: any joint may have any subset of
the three fields, and some joints none. Field getters return only the valid entries, ordered by
the joint space (not by the order they were given in).
"""

from typing import Any, List, Optional, Tuple

import numpy as np

from robot_sm.control.arrays import (
    as_float_array, as_vector, BoolArray, check_count, control_space, field_spec, FloatArray,
    frozen, index_array, indices_of, IntArray)

FIELDS = ('positions', 'velocities', 'efforts')
POSITION, VELOCITY, EFFORT = 0, 1, 2


class JointState:
    """Positions, velocities and efforts of some joints of a joint space (read-only)."""

    __slots__ = ('_space', '_data', '_valid')

    _space: Tuple[str, ...]
    _data: FloatArray
    _valid: BoolArray

    def __init__(self, robot_joint_space: Any, data_array: Any, valid_array: Any) -> None:
        """
        Build a state from a full (3, N) data array and a (3, N) validity mask.

        Valid entries must be finite; invalid ones are ignored (stored as zero).

        :raises ValueError: for a bad joint space, wrong shapes or dtypes, or non-finite values.
        """
        space = control_space(robot_joint_space, 'robot_joint_space')
        data = as_float_array(data_array, 'data_array')
        valid = np.array(valid_array)
        shape = (3, len(space))
        if data.shape != shape:
            raise ValueError(f'data_array: must have shape {shape}, got {data.shape}')
        if valid.dtype != np.bool_ or valid.shape != shape:
            raise ValueError(f'valid_array: must be a bool array of shape {shape}, '
                             f'got {valid.dtype} {valid.shape}')
        if not np.isfinite(data[valid]).all():
            raise ValueError('data_array: valid entries must be finite')
        self._init(space, np.where(valid, data, 0.0), valid.copy())

    def _init(self, space: Tuple[str, ...], data: FloatArray, valid: BoolArray) -> None:
        self._space = space
        self._data = frozen(data)
        self._valid = frozen(valid)

    @classmethod
    def trusted(cls, space: Tuple[str, ...], data: FloatArray, valid: BoolArray) -> 'JointState':
        """
        Wrap arrays that are already known to be valid, without checks or copies.

        For the library's own controllers, which build states from states; the arrays are made
        read-only and must not be modified afterwards.
        """
        state = cls.__new__(cls)
        state._init(space, data, valid)
        return state

    @classmethod
    def from_name(cls, robot_joint_space: Any, positions: Optional[Tuple[Any, Any]] = None,
                  velocities: Optional[Tuple[Any, Any]] = None,
                  efforts: Optional[Tuple[Any, Any]] = None) -> 'JointState':
        """
        Build a state from ``(joint names, values)`` pairs; pass None to leave a field out.

        :raises ValueError: if no field is given, a name is unknown or repeated, the counts of
            names and values differ, or a value is not a finite real number.
        """
        space = control_space(robot_joint_space, 'robot_joint_space')
        return cls._build(space, (positions, velocities, efforts),
                          lambda keys, field: indices_of(keys, space, field))

    @classmethod
    def from_index(cls, robot_joint_space: Any, positions: Optional[Tuple[Any, Any]] = None,
                   velocities: Optional[Tuple[Any, Any]] = None,
                   efforts: Optional[Tuple[Any, Any]] = None) -> 'JointState':
        """
        Build a state from ``(joint indices, values)`` pairs; pass None to leave a field out.

        :raises ValueError: if no field is given, an index is out of range or repeated, the
            counts differ, or a value is not a finite real number.
        """
        space = control_space(robot_joint_space, 'robot_joint_space')
        return cls._build(space, (positions, velocities, efforts),
                          lambda keys, field: index_array(keys, len(space), field))

    @classmethod
    def _build(cls, space: Tuple[str, ...], specs: Tuple[Any, ...], locate: Any) -> 'JointState':
        if all(spec is None for spec in specs):
            raise ValueError('JointState needs at least one of positions, velocities, efforts')
        data = np.zeros((3, len(space)))
        valid = np.zeros((3, len(space)), dtype=np.bool_)
        for row, (field, spec) in enumerate(zip(FIELDS, specs)):
            if spec is None:
                continue
            keys, values = field_spec(spec, field)
            array = as_vector(values, field)
            indices: IntArray = locate(keys, field)
            check_count(indices, array, field)
            data[row, indices] = array
            valid[row, indices] = True
        return cls.trusted(space, data, valid)

    @property
    def robot_joint_space(self) -> List[str]:
        """Return the ordered names of the joint space this state lives in."""
        return list(self._space)

    @property
    def space(self) -> Tuple[str, ...]:
        """Return the joint space as a tuple (cheap to compare)."""
        return self._space

    @property
    def data_array(self) -> FloatArray:
        """Return the (3, N) data (rows position, velocity, effort; zero where not valid)."""
        return self._data

    @property
    def valid_array(self) -> BoolArray:
        """Return the (3, N) mask of valid entries."""
        return self._valid

    def _values(self, row: int) -> Optional[FloatArray]:
        mask = self._valid[row]
        return frozen(self._data[row, mask]) if mask.any() else None

    def _indices(self, row: int) -> Optional[IntArray]:
        mask = self._valid[row]
        return frozen(np.flatnonzero(mask)) if mask.any() else None

    def _names(self, row: int) -> Optional[List[str]]:
        indices = self._indices(row)
        return None if indices is None else [self._space[i] for i in indices]

    @property
    def positions(self) -> Optional[FloatArray]:
        """Return the valid positions in joint-space order, or None if there are none."""
        return self._values(POSITION)

    @property
    def position_indices(self) -> Optional[IntArray]:
        """Joint-space indices of the valid positions, or None."""
        return self._indices(POSITION)

    @property
    def position_names(self) -> Optional[List[str]]:
        """Names of the joints with a valid position, or None."""
        return self._names(POSITION)

    @property
    def velocities(self) -> Optional[FloatArray]:
        """Return the valid velocities in joint-space order, or None if there are none."""
        return self._values(VELOCITY)

    @property
    def velocity_indices(self) -> Optional[IntArray]:
        """Joint-space indices of the valid velocities, or None."""
        return self._indices(VELOCITY)

    @property
    def velocity_names(self) -> Optional[List[str]]:
        """Names of the joints with a valid velocity, or None."""
        return self._names(VELOCITY)

    @property
    def efforts(self) -> Optional[FloatArray]:
        """Return the valid efforts in joint-space order, or None if there are none."""
        return self._values(EFFORT)

    @property
    def effort_indices(self) -> Optional[IntArray]:
        """Joint-space indices of the valid efforts, or None."""
        return self._indices(EFFORT)

    @property
    def effort_names(self) -> Optional[List[str]]:
        """Names of the joints with a valid effort, or None."""
        return self._names(EFFORT)

    def __repr__(self) -> str:
        fields = []
        for row, field in enumerate(FIELDS):
            names = self._names(row)
            if names is not None:
                values = self._data[row, self._valid[row]]
                fields.append(f'{field}={dict(zip(names, values.tolist()))}')
        return f"JointState({', '.join(fields)})"
