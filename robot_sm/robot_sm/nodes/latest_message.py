"""The newest message on a topic and when it came: a subscription callback that keeps it."""

from typing import Any, Callable, Optional


class LatestMessage:
    """Keep the newest message given to it and the time it came (``clock``, seconds)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self.latest: Any = None
        self.received_at: Optional[float] = None

    def __call__(self, message: Any) -> None:
        """Take a message (the subscription's callback)."""
        self.latest, self.received_at = message, self._clock()

    def fresh(self, now: float, timeout: float) -> bool:
        """Return True if a message came at most ``timeout`` seconds before ``now``."""
        return self.received_at is not None and now - self.received_at <= timeout
