"""
Clutch retargeter: absolute end-effector position target with clutch-style rebasing.

The clutch re-arms whenever teleop is not RUNNING (and, with ``require_squeeze``, whenever the
squeeze is not above ``squeeze_threshold``). On the first engaged tick it latches the controller
origin ``p0``, the base frame (rotation ``R`` and translation ``t`` of the optional
``robot_base_pose`` input, world ← base; identity when absent) and the home: the optional
``robot_ee_pose`` measurement (world ← end effector) converted into that base frame when present,
else the last commanded position (the configured ``home_position`` until the first engagement and
after each reset). From then on it emits::

    position = home + position_scale · Rᵀ · (p − p0)

so engaging with a still controller does not move the arm (no teleport, no jump on re-engage),
and a world-frame hand motion moves the target the same way in the base frame. The orientation
emitted is the controller's grip orientation expressed in the latched base frame (informational:
position-only IK ignores it; the wrist roll has its own channel).

A dropped tick (controller absent), an untracked or non-finite pose, or a quaternion too small to
normalise holds the last pose and re-arms, so a release and re-squeeze inside a tracking gap
cannot jump. A present but malformed measurement blocks the latch (the pose holds) until it is
valid or absent. A reset restores the configured home and identity orientation and re-arms. The
output is never NaN.
"""

import math
from typing import Mapping, Optional, Tuple, TypeGuard

import numpy as np

from robot_sm.teleop import quaternion
from robot_sm.teleop.checks import Vector, vector
from robot_sm.teleop.controller import ControllerSample
from robot_sm.teleop.execution import ComputeContext, ExecutionState
from robot_sm.teleop.graph import Port, Retargeter, Value, Values
from robot_sm.teleop.settings import checked

#: Element names of the ``ee_pose`` output, for the reorderer.
EE_POSE_ELEMENTS: Tuple[str, ...] = (
    'pos_x', 'pos_y', 'pos_z', 'quat_x', 'quat_y', 'quat_z', 'quat_w')


def usable_grip(sample: Optional[ControllerSample]) -> TypeGuard[ControllerSample]:
    """Return True if ``sample`` is present with a tracked, finite, normalisable grip pose."""
    return (sample is not None and bool(sample.grip_is_valid)
            and all(map(math.isfinite, sample.grip_position))
            and quaternion.is_usable(sample.grip_orientation))


def engaged(sample: Optional[ControllerSample], context: ComputeContext, require_squeeze: bool,
            squeeze_threshold: float) -> TypeGuard[ControllerSample]:
    """
    Return True if a clutch-like retargeter engages on ``sample`` in this tick.

    RUNNING, a usable grip pose and, with ``require_squeeze``, the squeeze strictly above the
    threshold (NaN is not above).
    """
    return (context.events.state is ExecutionState.RUNNING and usable_grip(sample)
            and (not require_squeeze or float(sample.squeeze_value) > squeeze_threshold))


class ClutchRetargeter(Retargeter):
    """Engage-relative end-effector position target, latched on the first engaged tick."""

    CONTROLLER_INPUT = 'controller'
    ROBOT_EE_POSE_INPUT = 'robot_ee_pose'
    ROBOT_BASE_POSE_INPUT = 'robot_base_pose'
    OUTPUT = 'ee_pose'

    def __init__(
        self,
        name: str,
        home_position: Vector,
        *,
        position_scale: float = 1.0,
        squeeze_threshold: float = 0.5,
        require_squeeze: bool = True,
    ) -> None:
        super().__init__(
            name,
            [Port(self.CONTROLLER_INPUT, True), Port(self.ROBOT_EE_POSE_INPUT, True),
             Port(self.ROBOT_BASE_POSE_INPUT, True)],
            [Port(self.OUTPUT)])
        self._configured_home = vector(home_position, 3, 'home_position')
        self.position_scale = checked('position_scale', position_scale)
        self.squeeze_threshold = checked('squeeze_threshold', squeeze_threshold)
        self.require_squeeze = bool(require_squeeze)
        self._last_position = self._configured_home.copy()
        self._last_orientation = np.array([0.0, 0.0, 0.0, 1.0])
        self._origin: Optional[np.ndarray] = None
        self._home = self._configured_home.copy()
        self._base_rotation = np.eye(3)
        self._base_orientation_inverse = np.array([0.0, 0.0, 0.0, 1.0])

    @property
    def is_engaged(self) -> bool:
        """Return True while an origin is latched; its rising edge is the latch tick."""
        return self._origin is not None

    def compute(self, inputs: Mapping[str, Value], context: ComputeContext) -> Values:
        """Emit the target ``[x, y, z, qx, qy, qz, qw]`` of this tick (held when disengaged)."""
        if context.events.reset:
            self._last_position = self._configured_home.copy()
            self._last_orientation = np.array([0.0, 0.0, 0.0, 1.0])
            self._origin = None
        sample: Optional[ControllerSample] = inputs[self.CONTROLLER_INPUT]
        if not engaged(sample, context, self.require_squeeze, self.squeeze_threshold):
            self._origin = None
            return self._held()
        position = np.asarray(sample.grip_position, dtype=float)
        if self._origin is None and not self._latch(position, inputs):
            return self._held()
        assert self._origin is not None
        target = self._home + self.position_scale * (
            self._base_rotation.T @ (position - self._origin))
        if not all(map(math.isfinite, target)):
            self._origin = None
            return self._held()
        self._last_position = target
        self._last_orientation = quaternion.normalize(quaternion.multiply(
            self._base_orientation_inverse, quaternion.normalize(sample.grip_orientation)))
        return self._held()

    def _latch(self, position: np.ndarray, inputs: Mapping[str, Value]) -> bool:
        """Latch origin, base frame and home; False (stay armed) on a malformed measurement."""
        base = inputs[self.ROBOT_BASE_POSE_INPUT]
        measured_ee = inputs[self.ROBOT_EE_POSE_INPUT]
        for matrix in (base, measured_ee):
            if matrix is not None and not quaternion.is_rigid_transform(matrix):
                return False
        rotation = np.eye(3) if base is None else np.array(base[:3, :3], dtype=float)
        translation = np.zeros(3) if base is None else np.array(base[:3, 3], dtype=float)
        if measured_ee is not None:
            self._home = rotation.T @ (np.array(measured_ee[:3, 3], dtype=float) - translation)
        else:
            self._home = self._last_position.copy()
        self._base_rotation = rotation
        self._base_orientation_inverse = quaternion.conjugate(quaternion.from_matrix(rotation))
        self._origin = position.copy()
        return True

    def _held(self) -> Values:
        return {self.OUTPUT: np.concatenate((self._last_position, self._last_orientation))}
