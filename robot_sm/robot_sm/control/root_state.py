"""
Root state: pose and twist of the robot's root (its base), each part optional.

There is only one root, so unlike joints and frames it needs no control space. Orientation is a
quaternion (w, x, y, z); velocities are 3-vectors (for a mobile base: linear x forward, angular
z yaw rate, REP-103).
"""

from typing import Any, Optional, Tuple

from robot_sm.control.arrays import as_vector, FloatArray, frozen

FIELDS = ('position', 'orientation', 'linear_velocity', 'angular_velocity')
LENGTHS = (3, 4, 3, 3)


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
            raise ValueError('RootState needs at least one of ' + ', '.join(FIELDS))
        self._fields = tuple(
            None if value is None else frozen(as_vector(value, field, length))
            for field, length, value in zip(FIELDS, LENGTHS, given))

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
        parts = [f'{field}={value.tolist()}' for field, value in zip(FIELDS, self._fields)
                 if value is not None]
        return f"RootState({', '.join(parts)})"
