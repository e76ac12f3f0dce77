"""
Poses as the store keeps them: validated, with a unit quaternion.

A pose from a request is accepted only through :func:`checked_pose`: every component finite and
the quaternion normalisable (its norm above :data:`MIN_QUATERNION_NORM`), and it is stored
normalised; one already of unit norm (to rounding) is kept bit for bit, so that normalising
is idempotent and a saved pose loads back exactly. Goals are compared by the Euclidean
distance between their positions.
"""

from dataclasses import dataclass
import math
from typing import Iterable, Optional

from robot_sm.waypoints.errors import RequestError

#: A quaternion shorter than this has no meaningful direction (an all-zero default, noise).
MIN_QUATERNION_NORM = 1e-6
#: A quaternion whose norm is this close to 1 is kept as it is (normalising is then idempotent).
UNIT_TOLERANCE = 1e-12


@dataclass(frozen=True)
class Pose:
    """A position in metres and an orientation as a unit quaternion (x, y, z, w)."""

    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    qx: float = 0.0
    qy: float = 0.0
    qz: float = 0.0
    qw: float = 1.0

    def distance_to(self, other: 'Pose') -> float:
        """Return the Euclidean distance between the two positions, in metres."""
        return math.dist((self.x, self.y, self.z), (other.x, other.y, other.z))


def checked_pose(field: str, x: float, y: float, z: float,
                 qx: float, qy: float, qz: float, qw: float) -> Pose:
    """
    Return the pose with its quaternion normalised.

    :param field: the request field the values come from, named in the error.
    :raises RequestError: if a component is not finite or the quaternion cannot be normalised.
    """
    for name, value in (('position.x', x), ('position.y', y), ('position.z', z),
                        ('orientation.x', qx), ('orientation.y', qy),
                        ('orientation.z', qz), ('orientation.w', qw)):
        if not math.isfinite(value):
            raise RequestError(f'{field}.{name}', f'must be finite (got {value!r})')
    norm = math.hypot(qx, qy, qz, qw)
    if not math.isfinite(norm) or norm < MIN_QUATERNION_NORM:
        raise RequestError(
            f'{field}.orientation',
            f'must be a non-zero quaternion (its norm is {norm:.3g}; identity is w=1)')
    if abs(norm - 1.0) <= UNIT_TOLERANCE:
        # Already a unit quaternion (to rounding): dividing again could move it by an ulp, and a
        # saved pose must load back exactly as it was.
        return Pose(x, y, z, qx, qy, qz, qw)
    return Pose(x, y, z, qx / norm, qy / norm, qz / norm, qw / norm)


def nearest_within(pose: Pose, candidates: Iterable[Pose], tolerance: float) -> Optional[int]:
    """Return the index of the first candidate within ``tolerance`` metres of ``pose``, or None."""
    for index, candidate in enumerate(candidates):
        if pose.distance_to(candidate) <= tolerance:
            return index
    return None
