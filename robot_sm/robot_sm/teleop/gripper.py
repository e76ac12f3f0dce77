"""
Gripper retargeter: the analog trigger as jaw closedness, 0 open to 1 closed.

``c = clamp((trigger − deadzone) / (1 − deadzone), 0, 1)``: the small released-end deadzone absorbs
triggers that rest slightly above 0, and a half-pressed trigger leaves the jaw half closed. An
absent controller or a non-finite trigger holds the last value; a reset opens the jaw (0). Not
gated on the execution state: the node only sends joint commands while RUNNING.
"""

import math
from typing import Mapping, Optional

from robot_sm.teleop.controller import ControllerSample
from robot_sm.teleop.execution import ComputeContext
from robot_sm.teleop.graph import Port, Retargeter, Value, Values
from robot_sm.teleop.settings import checked


def closedness(trigger: float, deadzone: float = 0.05) -> float:
    """Return the jaw closedness in [0, 1] for a trigger value (finite)."""
    return min(1.0, max(0.0, (trigger - deadzone) / (1.0 - deadzone)))


class GripperRetargeter(Retargeter):
    """Proportional jaw closedness from the controller's trigger."""

    CONTROLLER_INPUT = 'controller'
    OUTPUT = 'gripper_command'
    ELEMENT = 'gripper_value'

    def __init__(self, name: str, *, deadzone: float = 0.05) -> None:
        super().__init__(name, [Port(self.CONTROLLER_INPUT, True)], [Port(self.OUTPUT)])
        self.deadzone = checked('gripper_deadzone', deadzone)
        self._last = 0.0

    def compute(self, inputs: Mapping[str, Value], context: ComputeContext) -> Values:
        """Emit this tick's closedness (held on an absent or non-finite trigger)."""
        if context.events.reset:
            self._last = 0.0
        sample: Optional[ControllerSample] = inputs[self.CONTROLLER_INPUT]
        if sample is not None:
            trigger = float(sample.trigger_value)
            if math.isfinite(trigger):
                self._last = closedness(trigger, self.deadzone)
        return {self.OUTPUT: self._last}
