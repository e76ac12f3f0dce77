"""
Robot states: joints, root, links and sites, each optional, and how two of them combine.

A :class:`JointState` lives in a *joint space*, the ordered list of every joint name that the
controllers working together agree on. It holds a (3, N) data array (rows: position, velocity,
effort) and a (3, N) validity mask, so a state may be partial: any joint may have any subset of
the three fields, and some joints none. Field getters return only the valid entries, ordered by
the joint space (not by the order they were given in). A :class:`RootState` is the pose and twist
of the base; links and sites are :class:`~robot_sm_control.spatial.SpatialState` values.

A controller fills in only the parts it controls; :func:`combine_robot_states` merges the outputs
of controllers that control different parts, and succeeds only when the two states never set the
same thing: no (field, joint) pair, (field, frame) pair or root field may be defined by both, and
joint, link and site states must live in identical control spaces (same names in the same
order). Anything else returns None, so a parallel composition can never silently let one
controller overwrite another. ``RobotState()`` with nothing set is valid and is the identity of
that merge.
"""

from typing import Any, Callable, List, Optional, Tuple, TypeVar

import numpy as np

from robot_sm_control.arrays import (
    as_float_array, as_vector, BoolArray, check_count, control_space, field_spec, FloatArray,
    frozen, indices_of)
from robot_sm_control.spatial import SpatialState

FIELDS = ('positions', 'velocities', 'efforts')
POSITION, VELOCITY, EFFORT = 0, 1, 2
ROOT_FIELDS = ('position', 'orientation', 'linear_velocity', 'angular_velocity')
ROOT_LENGTHS = (3, 4, 3, 3)

PartT = TypeVar('PartT')


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
        specs = (positions, velocities, efforts)
        if all(spec is None for spec in specs):
            raise ValueError('JointState needs at least one of positions, velocities, efforts')
        data = np.zeros((3, len(space)))
        valid = np.zeros((3, len(space)), dtype=np.bool_)
        for row, (field, spec) in enumerate(zip(FIELDS, specs)):
            if spec is None:
                continue
            keys, values = field_spec(spec, field)
            array = as_vector(values, field)
            indices = indices_of(keys, space, field)
            check_count(indices, array, field)
            data[row, indices] = array
            valid[row, indices] = True
        return cls.trusted(space, data, valid)

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

    def _names(self, row: int) -> Optional[List[str]]:
        mask = self._valid[row]
        return [name for name, valid in zip(self._space, mask) if valid] if mask.any() else None

    @property
    def positions(self) -> Optional[FloatArray]:
        """Return the valid positions in joint-space order, or None if there are none."""
        return self._values(POSITION)

    @property
    def position_names(self) -> Optional[List[str]]:
        """Names of the joints with a valid position, or None."""
        return self._names(POSITION)

    @property
    def velocities(self) -> Optional[FloatArray]:
        """Return the valid velocities in joint-space order, or None if there are none."""
        return self._values(VELOCITY)

    @property
    def velocity_names(self) -> Optional[List[str]]:
        """Names of the joints with a valid velocity, or None."""
        return self._names(VELOCITY)

    @property
    def efforts(self) -> Optional[FloatArray]:
        """Return the valid efforts in joint-space order, or None if there are none."""
        return self._values(EFFORT)

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


class RootState:
    """Position, orientation, linear and angular velocity of the root (read-only)."""

    __slots__ = ('_fields',)

    _fields: Tuple[Optional[FloatArray], ...]

    def __init__(self, position: Any = None, orientation: Any = None,
                 linear_velocity: Any = None, angular_velocity: Any = None) -> None:
        """
        Build a root state from any of its four parts (copied; at least one required).

        :raises ValueError: if none is given, or one has the wrong length or is not finite.
        """
        given = (position, orientation, linear_velocity, angular_velocity)
        if all(value is None for value in given):
            raise ValueError('RootState needs at least one of ' + ', '.join(ROOT_FIELDS))
        self._fields = tuple(
            None if value is None else frozen(as_vector(value, field, length))
            for field, length, value in zip(ROOT_FIELDS, ROOT_LENGTHS, given))

    @classmethod
    def trusted(cls, fields: Tuple[Optional[FloatArray], ...]) -> 'RootState':
        """Wrap four already validated read-only arrays (or None), without checks."""
        state = cls.__new__(cls)
        state._fields = fields
        return state

    @property
    def fields(self) -> Tuple[Optional[FloatArray], ...]:
        """Return the four parts in the order position, orientation, linear, angular velocity."""
        return self._fields

    @property
    def position(self) -> Optional[FloatArray]:
        """Position (x, y, z), or None."""
        return self._fields[0]

    @property
    def orientation(self) -> Optional[FloatArray]:
        """Orientation quaternion (w, x, y, z), or None."""
        return self._fields[1]

    @property
    def linear_velocity(self) -> Optional[FloatArray]:
        """Linear velocity (x, y, z), or None."""
        return self._fields[2]

    @property
    def angular_velocity(self) -> Optional[FloatArray]:
        """Angular velocity (x, y, z), or None."""
        return self._fields[3]

    def __repr__(self) -> str:
        parts = [f'{field}={value.tolist()}' for field, value in zip(ROOT_FIELDS, self._fields)
                 if value is not None]
        return f"RootState({', '.join(parts)})"


def _checked(value: Any, expected: type, name: str) -> Any:
    if value is not None and not isinstance(value, expected):
        raise ValueError(f'RobotState {name}: must be a {expected.__name__} or None, '
                         f'got {type(value).__name__}')
    return value


class RobotState:
    """Joint, root, link and site states of one robot; any of them may be None (read-only)."""

    __slots__ = ('_joints', '_root', '_links', '_sites')

    def __init__(self, joints: Optional[JointState] = None, root: Optional[RootState] = None,
                 links: Optional[SpatialState] = None,
                 sites: Optional[SpatialState] = None) -> None:
        """
        Group the parts of a robot state.

        :raises ValueError: if a part is not of its type.
        """
        self._joints: Optional[JointState] = _checked(joints, JointState, 'joints')
        self._root: Optional[RootState] = _checked(root, RootState, 'root')
        self._links: Optional[SpatialState] = _checked(links, SpatialState, 'links')
        self._sites: Optional[SpatialState] = _checked(sites, SpatialState, 'sites')

    @property
    def joints(self) -> Optional[JointState]:
        """Joint-space state, or None."""
        return self._joints

    @property
    def root(self) -> Optional[RootState]:
        """Root state, or None."""
        return self._root

    @property
    def links(self) -> Optional[SpatialState]:
        """Link-space state, or None."""
        return self._links

    @property
    def sites(self) -> Optional[SpatialState]:
        """Site-space state, or None."""
        return self._sites

    def __repr__(self) -> str:
        parts = [f'{name}={value!r}' for name, value in (
            ('joints', self._joints), ('root', self._root), ('links', self._links),
            ('sites', self._sites)) if value is not None]
        return f"RobotState({', '.join(parts)})"


class _Conflict(Exception):
    """The two parts cannot be merged."""


def _merge_joints(a: JointState, b: JointState) -> JointState:
    if a.space != b.space:
        raise _Conflict()
    valid_a, valid_b = a.valid_array, b.valid_array
    if (valid_a & valid_b).any():
        raise _Conflict()
    return JointState.trusted(a.space, np.where(valid_a, a.data_array, b.data_array),
                              valid_a | valid_b)


def _merge_spatial(a: SpatialState, b: SpatialState) -> SpatialState:
    if a.space != b.space:
        raise _Conflict()
    valid_a, valid_b = a.valid_array, b.valid_array
    if (valid_a & valid_b).any():
        raise _Conflict()
    fa, fb = a.field_arrays, b.field_arrays
    merged = tuple(np.where(valid_a[:, column, None], fa[column], fb[column])
                   for column in range(4))
    return SpatialState.trusted(a.space, (merged[0], merged[1], merged[2], merged[3]),
                                valid_a | valid_b)


def _merge_root(a: RootState, b: RootState) -> RootState:
    if any(x is not None and y is not None for x, y in zip(a.fields, b.fields)):
        raise _Conflict()
    return RootState.trusted(tuple(x if x is not None else y for x, y in zip(a.fields, b.fields)))


def _merge(a: Optional[PartT], b: Optional[PartT],
           merge: Callable[[PartT, PartT], PartT]) -> Optional[PartT]:
    if a is None:
        return b
    if b is None:
        return a
    return merge(a, b)


def combine_robot_states(a: Optional[RobotState],
                         b: Optional[RobotState]) -> Optional[RobotState]:
    """
    Return the union of two robot states, or None if they cannot be combined.

    None is returned when either argument is None, when joint, link or site spaces differ
    (including the same names in another order), or when both define the same field of the same
    joint, frame or root. The same joint (or frame) may get different fields from each side. A
    part defined by one side only is taken as is (the same object); ``RobotState()`` is the
    identity.
    """
    if a is None or b is None:
        return None
    try:
        return RobotState(
            joints=_merge(a.joints, b.joints, _merge_joints),
            root=_merge(a.root, b.root, _merge_root),
            sites=_merge(a.sites, b.sites, _merge_spatial),
            links=_merge(a.links, b.links, _merge_spatial),
        )
    except _Conflict:
        return None
