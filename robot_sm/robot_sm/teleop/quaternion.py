"""
Quaternion and rigid-transform helpers, ``[x, y, z, w]`` order throughout.

Small and written out by hand: these run several times per tick in the retargeters, where numpy's
per-call overhead (``np.linalg.norm`` costs microseconds on a 4-vector) would dominate.
"""

import math

import numpy as np

#: Smallest quaternion norm treated as a rotation; below it the orientation is unusable.
MIN_QUATERNION_NORM = 1e-6
#: Tolerance of :func:`is_rigid_transform` on orthonormality, determinant and bottom row.
RIGID_TOLERANCE = 1e-4


def multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return the Hamilton product ``a ⊗ b`` (apply ``b`` first, then ``a``)."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ])


def conjugate(q: np.ndarray) -> np.ndarray:
    """Return the conjugate, the inverse of a unit quaternion."""
    return np.array([-q[0], -q[1], -q[2], q[3]])


def is_usable(q: np.ndarray) -> bool:
    """Return True if ``q`` is finite with a norm large enough to be normalised."""
    norm = math.hypot(*q)
    return math.isfinite(norm) and norm >= MIN_QUATERNION_NORM


def normalize(q: np.ndarray) -> np.ndarray:
    """Return ``q`` scaled to unit norm (the caller checks :func:`is_usable` first)."""
    return np.asarray(q, dtype=float) / math.hypot(*q)


def from_axis_angle(axis: np.ndarray, angle: float) -> np.ndarray:
    """Return the unit quaternion rotating by ``angle`` radians about ``axis``."""
    unit = np.asarray(axis, dtype=float) / float(np.linalg.norm(axis))
    half = 0.5 * angle
    return np.array([*(unit * math.sin(half)), math.cos(half)])


def to_matrix(q: np.ndarray) -> np.ndarray:
    """Return the 3x3 rotation matrix of a unit quaternion."""
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def from_matrix(rotation: np.ndarray) -> np.ndarray:
    """Return the unit quaternion (``w >= 0``) of a 3x3 rotation matrix (Shepperd's method)."""
    m = rotation
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    if trace > 0.0:
        s = 2.0 * math.sqrt(trace + 1.0)
        q = [(m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, 0.25 * s]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
        q = [0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s]
    elif m[1, 1] > m[2, 2]:
        s = 2.0 * math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
        q = [(m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s]
    else:
        s = 2.0 * math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
        q = [(m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s, (m[1, 0] - m[0, 1]) / s]
    result = normalize(np.array(q))
    return -result if result[3] < 0.0 else result


def transform(position: np.ndarray, orientation: np.ndarray) -> np.ndarray:
    """Return the 4x4 homogeneous transform of a position and a unit quaternion."""
    matrix = np.eye(4)
    matrix[:3, :3] = to_matrix(orientation)
    matrix[:3, 3] = position
    return matrix


def is_rigid_transform(matrix: np.ndarray) -> bool:
    """
    Return True if ``matrix`` is a finite 4x4 rigid transform.

    Bottom row ``[0, 0, 0, 1]``, rotation block orthonormal with determinant 1, each within
    :data:`RIGID_TOLERANCE`: rejects scale, shear, reflection and transposed input.
    """
    if not isinstance(matrix, np.ndarray) or matrix.shape != (4, 4):
        return False
    if not np.all(np.isfinite(matrix)):
        return False
    if np.max(np.abs(matrix[3] - (0.0, 0.0, 0.0, 1.0))) > RIGID_TOLERANCE:
        return False
    rotation = matrix[:3, :3]
    if np.max(np.abs(rotation.T @ rotation - np.eye(3))) > RIGID_TOLERANCE:
        return False
    return abs(float(np.linalg.det(rotation)) - 1.0) <= RIGID_TOLERANCE


def twist_angle(q: np.ndarray, axis: np.ndarray) -> float:
    """
    Return the swing-twist twist angle of unit quaternion ``q`` about unit ``axis``, in [-π, π].

    Canonicalise to ``w >= 0``, project the vector part on the axis (``d``) and return
    ``2·atan2(d, w)``; a pure 180° swing (``w² + d² < 1e-12``) has no recoverable twist and gives
    0. Unlike Euler or rotation-vector extraction this stays well-conditioned near 180°.
    """
    x, y, z, w = q
    d = x * axis[0] + y * axis[1] + z * axis[2]
    if w < 0.0:
        w, d = -w, -d
    if w * w + d * d < 1e-12:
        return 0.0
    return 2.0 * math.atan2(d, w)
