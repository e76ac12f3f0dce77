"""
The end of an idle teleoperation: when it is due, and the mode it falls back to.

Teleoperation ends ``idle`` seconds after its last activity (a non-zero command, a joystick
action, the request that selected it). It falls back to STOPPED or, with ``to_previous``, to the
mode teleoperation took over from; never to AUTONOMOUS once the supervisor was lost meanwhile.
"""

from typing import Optional

from robot_sm.mux.status import Mode


class IdleFallback:
    """The teleoperation idle timer and the mode to return to."""

    def __init__(self, idle: float, to_previous: bool) -> None:
        self.idle = idle
        self._to_previous = to_previous
        self._deadline: Optional[float] = None
        self._previous = Mode.STOPPED

    def activity(self, now: float) -> None:
        """Note teleoperation activity at ``now``: the timer starts again."""
        self._deadline = now + self.idle

    def cancel(self) -> None:
        """Stop the timer (teleoperation ended otherwise, or the e-stop was engaged)."""
        self._deadline = None

    def entering(self, old: Mode, new: Mode) -> None:
        """Note a mode change from ``old`` to ``new``: remember what teleoperation took over."""
        if new is not Mode.TELEOPERATION:
            self._deadline = None
        elif old is not Mode.TELEOPERATION:
            self._previous = old

    def supervisor_lost(self) -> None:
        """Fall back to STOPPED rather than to AUTONOMOUS, which is now refused."""
        if self._previous is Mode.AUTONOMOUS:
            self._previous = Mode.STOPPED

    def due(self, now: float) -> Optional[Mode]:
        """Return the mode to fall back to if teleoperation has been idle for long enough."""
        if self._deadline is None or now < self._deadline:
            return None
        self._deadline = None
        return self._previous if self._to_previous else Mode.STOPPED
