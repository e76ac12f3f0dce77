"""
Operator activity on a joystick: an axis moving away from rest, or a button being pressed.

The rest position of every axis is taken from the first message (and again whenever the number
of axes or buttons changes, i.e. another device): stick axes rest at 0, but many drivers report
analogue triggers at rest as +1.
"""

from typing import List, Optional, Sequence


class JoystickActivity:
    """Detect the moments an operator acts on a joystick."""

    def __init__(self, axis_threshold: float) -> None:
        """Count an axis as moved once it is more than ``axis_threshold`` away from rest."""
        self._threshold = axis_threshold
        self._rest: Optional[List[float]] = None
        self._axes: List[float] = []
        self._buttons: List[int] = []

    def update(self, axes: Sequence[float], buttons: Sequence[int]) -> bool:
        """
        Take a new joystick message; return True if it shows the operator acting.

        Acting means: some axis is more than the threshold away from rest and further away than
        in the previous message (moving away from rest, so a stick held still or returning to
        rest is not an action), or some button went from released to pressed. The first message
        of a device only sets the rest position.
        """
        axes = list(axes)
        buttons = list(buttons)
        if (self._rest is None or len(axes) != len(self._rest)
                or len(buttons) != len(self._buttons)):
            self._rest = axes
            self._axes = axes
            self._buttons = buttons
            return False
        acted = any(
            abs(new - rest) > self._threshold and abs(new - rest) > abs(old - rest)
            for new, old, rest in zip(axes, self._axes, self._rest))
        acted = acted or any(new and not old for new, old in zip(buttons, self._buttons))
        self._axes = axes
        self._buttons = buttons
        return acted
