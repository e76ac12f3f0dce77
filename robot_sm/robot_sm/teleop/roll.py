"""
Wrist-roll retargeter: the controller's twist as a dedicated joint channel.

Position-only IK of a 5-DOF arm drops the controller's orientation; this recovers the roll for the
``wrist_roll`` joint. The roll is the swing-twist twist angle (:func:`quaternion.twist_angle`,
``2·atan2(d, w)`` after canonicalising ``w >= 0``) of the grip orientation about fixed world Z
(``twist_axis='world_z'``, the default) or about the grip's own Z axis (``'body_z'``, which does
not pick up the controller's heading).

The channel is engage-relative so that engaging never jumps the wrist: on the first engaged tick
(RUNNING, grip tracked and usable, squeeze above ``squeeze_threshold`` when ``require_squeeze``,
the same condition as the clutch) it latches the reference orientation and the current value as
baseline, then emits ``baseline + roll_sign · twist(delta)``, where the delta is
``q · q_ref⁻¹`` for the world axis and ``q_ref⁻¹ · q`` for the body axis. Disengaged, absent or
unusable ticks hold the value and re-arm; a reset returns it to ``roll_offset``. The baseline is
not wrapped (it can exceed ±π across re-engagements) unless ``wrap_roll`` is set, which wraps the
emitted value to (-π, π].
"""

import math
from typing import Mapping, Optional

import numpy as np

from robot_sm.teleop import quaternion
from robot_sm.teleop.clutch import engaged
from robot_sm.teleop.controller import ControllerSample
from robot_sm.teleop.execution import ComputeContext
from robot_sm.teleop.graph import Port, Retargeter, Value, Values
from robot_sm.teleop.settings import checked

_Z = np.array([0.0, 0.0, 1.0])


def wrap_angle(angle: float) -> float:
    """Return ``angle`` wrapped to (-π, π]."""
    wrapped = math.remainder(angle, 2.0 * math.pi)
    return math.pi if wrapped == -math.pi else wrapped


class RollRetargeter(Retargeter):
    """Engage-relative twist of the grip orientation, for the ``wrist_roll`` joint."""

    CONTROLLER_INPUT = 'controller'
    OUTPUT = 'roll_command'
    ELEMENT = 'roll_value'

    def __init__(
        self,
        name: str,
        *,
        twist_axis: str = 'world_z',
        roll_offset: float = 0.0,
        roll_sign: float = 1.0,
        squeeze_threshold: float = 0.5,
        require_squeeze: bool = True,
        wrap_roll: bool = False,
    ) -> None:
        super().__init__(name, [Port(self.CONTROLLER_INPUT, True)], [Port(self.OUTPUT)])
        self.twist_axis = checked('twist_axis', twist_axis)
        self.roll_offset = checked('roll_offset', roll_offset)
        self.roll_sign = checked('roll_sign', roll_sign)
        self.squeeze_threshold = checked('squeeze_threshold', squeeze_threshold)
        self.require_squeeze = bool(require_squeeze)
        self.wrap_roll = bool(wrap_roll)
        self._reference: Optional[np.ndarray] = None
        self._baseline = self.roll_offset
        self._last = self.roll_offset

    def compute(self, inputs: Mapping[str, Value], context: ComputeContext) -> Values:
        """Emit this tick's roll in radians (held while disengaged)."""
        if context.events.reset:
            self._reference = None
            self._last = self.roll_offset
        sample: Optional[ControllerSample] = inputs[self.CONTROLLER_INPUT]
        if not engaged(sample, context, self.require_squeeze, self.squeeze_threshold):
            self._reference = None
            return self._emit()
        current = quaternion.normalize(sample.grip_orientation)
        if self._reference is None:
            self._reference = current
            self._baseline = self._last
        inverse = quaternion.conjugate(self._reference)
        if self.twist_axis == 'world_z':
            delta = quaternion.multiply(current, inverse)
        else:
            delta = quaternion.multiply(inverse, current)
        self._last = self._baseline + self.roll_sign * quaternion.twist_angle(delta, _Z)
        return self._emit()

    def _emit(self) -> Values:
        return {self.OUTPUT: wrap_angle(self._last) if self.wrap_roll else self._last}
