"""
Per-input bookkeeping for diagnostics: messages received and dropped, age and rate.

Recording a message is O(1) (it sits on the hot path of every incoming command); age and rate
are computed when diagnostics ask for them.
"""

from collections import deque
from typing import Deque, Optional


class InputStatistics:
    """What arrived on one input: counts, the time of the newest message, the recent rate."""

    __slots__ = ('received', 'dropped', 'last', 'last_drop', '_arrivals', '_window')

    def __init__(self, window: float = 5.0, capacity: int = 512) -> None:
        """
        Start with nothing received.

        :param window: the rate is computed over messages of the last ``window`` seconds.
        :param capacity: at most this many arrival times are kept; at high rates the rate is
            computed over the newest ``capacity`` messages, which then span less than the window.
        """
        self.received = 0
        self.dropped = 0
        self.last: Optional[float] = None
        self.last_drop: Optional[float] = None
        self._arrivals: Deque[float] = deque(maxlen=capacity)
        self._window = window

    def record(self, now: float) -> None:
        """Count a message accepted at time ``now``."""
        self.received += 1
        self.last = now
        self._arrivals.append(now)

    def drop(self, now: float) -> None:
        """Count a message rejected at ``now`` (non-finite values); it does not refresh the age."""
        self.dropped += 1
        self.last_drop = now

    def dropped_recently(self, now: float) -> bool:
        """Return True if a message was dropped within the rate window."""
        return self.last_drop is not None and now - self.last_drop <= self._window

    def age(self, now: float) -> Optional[float]:
        """Seconds since the newest accepted message, or None if none was ever accepted."""
        return None if self.last is None else now - self.last

    def rate(self, now: float) -> float:
        """Messages per second over the recent window (0 with fewer than two recent messages)."""
        arrivals = self._arrivals
        while arrivals and arrivals[0] < now - self._window:
            arrivals.popleft()
        if len(arrivals) < 2:
            return 0.0
        span = arrivals[-1] - arrivals[0]
        return (len(arrivals) - 1) / span if span > 0.0 else 0.0
