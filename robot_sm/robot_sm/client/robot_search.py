"""When a search for robots on the ROS graph is done: :class:`RobotSearch` (no rclpy)."""

from typing import Iterable, Optional, Set


class RobotSearch:
    """
    When to stop looking for robots.

    ``count`` found, or (None) none new for ``settle`` s; and in either case every robot of
    ``expected`` (the roster's namespaces) found.
    """

    def __init__(self, count: Optional[int], settle: float, now: float,
                 expected: Iterable[str] = ()) -> None:
        self.count = count
        self.settle = settle
        self.expected = set(expected)
        self._known: Set[str] = set()
        self._last_new = now

    def done(self, found: Iterable[str], now: float) -> bool:
        """Take the robots found at ``now``; return whether to stop looking."""
        seen = set(found)
        if seen - self._known:
            self._last_new = now
        self._known |= seen
        if not self.expected <= self._known:
            return False
        if self.count is not None:
            return len(self._known) >= self.count
        return bool(self._known or not self.settle) and now - self._last_new >= self.settle
