"""One tracked controller (XR controller or gamepad) as the retargeters see it in one tick."""

from dataclasses import dataclass, field
import enum
from typing import Tuple

import numpy as np

#: Names of the two hands, also the outputs of :func:`robot_sm.teleop.graph.controllers_source`.
HANDS: Tuple[str, ...] = ('left', 'right')


class ControllerInputIndex(enum.IntEnum):
    """Index of each field of a :class:`ControllerSample` (OpenXR controller layout)."""

    GRIP_POSITION = 0
    GRIP_ORIENTATION = 1
    GRIP_IS_VALID = 2
    AIM_POSITION = 3
    AIM_ORIENTATION = 4
    AIM_IS_VALID = 5
    PRIMARY_CLICK = 6
    SECONDARY_CLICK = 7
    THUMBSTICK_X = 8
    THUMBSTICK_Y = 9
    THUMBSTICK_CLICK = 10
    MENU_CLICK = 11
    SQUEEZE_VALUE = 12
    TRIGGER_VALUE = 13


def _zero3() -> np.ndarray:
    return np.zeros(3)


def _identity_quaternion() -> np.ndarray:
    return np.array([0.0, 0.0, 0.0, 1.0])


@dataclass(frozen=True)
class ControllerSample:
    """
    One controller in one tick; a controller that is not there is ``None``, not a sample.

    A present sample may still carry an untracked pose (``grip_is_valid`` false, possibly a zero
    quaternion): retargeters treat that pose like an absent one. Positions are metres, quaternions
    ``[x, y, z, w]``, buttons 0.0 / 1.0, the thumbstick -1..1 (right and up positive), squeeze and
    trigger 0..1.
    """

    grip_position: np.ndarray = field(default_factory=_zero3)
    grip_orientation: np.ndarray = field(default_factory=_identity_quaternion)
    grip_is_valid: bool = False
    aim_position: np.ndarray = field(default_factory=_zero3)
    aim_orientation: np.ndarray = field(default_factory=_identity_quaternion)
    aim_is_valid: bool = False
    primary_click: float = 0.0
    secondary_click: float = 0.0
    thumbstick_x: float = 0.0
    thumbstick_y: float = 0.0
    thumbstick_click: float = 0.0
    menu_click: float = 0.0
    squeeze_value: float = 0.0
    trigger_value: float = 0.0

    def __getitem__(self, index: ControllerInputIndex) -> object:
        """Return the field at ``index`` (a :class:`ControllerInputIndex`)."""
        return getattr(self, ControllerInputIndex(index).name.lower())
