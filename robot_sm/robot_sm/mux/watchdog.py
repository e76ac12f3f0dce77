"""
A watchdog on a periodic signal: alive while it keeps arriving, silent once it stops.

The mux watches two signals with it, and both arm when they are first heard: the operator
heartbeat (``heartbeat_topic``, :mod:`robot_sm.mux.operator_heartbeat`: before it modes are
refused) and the supervisor's heartbeat (the state interface's
``robot_sm/supervisor_heartbeat``: a mux running without a supervisor works as before).
"""

from typing import Optional


class Watchdog:
    """Whether a signal was heard within the last ``timeout`` seconds."""

    def __init__(self, timeout: float, armed_at: Optional[float] = None) -> None:
        """
        Watch a signal that must arrive at least every ``timeout`` seconds.

        :param armed_at: the time watching starts (silence counts from it), or None to arm
            at the first :meth:`beat`.
        """
        if not timeout > 0.0:
            raise ValueError(f'timeout must be > 0 (got {timeout})')
        self.timeout = timeout
        self._last = armed_at

    @property
    def armed(self) -> bool:
        """Return True once watching has started."""
        return self._last is not None

    def beat(self, now: float) -> bool:
        """Take the signal at ``now``; return True if it had been silent (or never heard)."""
        was_silent = self._last is None or self.silent(now)
        self._last = now
        return was_silent

    def silence(self, now: float) -> Optional[float]:
        """Return seconds since the signal was last heard (or watching began); None unarmed."""
        return None if self._last is None else now - self._last

    def silent(self, now: float) -> bool:
        """Return True if armed and nothing was heard for longer than the timeout."""
        silence = self.silence(now)
        return silence is not None and silence > self.timeout
