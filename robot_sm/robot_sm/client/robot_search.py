"""When a search for robots on the ROS graph is done: :class:`RobotSearch` (no rclpy)."""

from typing import Iterable, Optional, Set


class RobotSearch:
    """When to stop looking for robots: ``count`` found, or (None) none new for ``settle`` s."""

    def __init__(self, count: Optional[int], settle: float, now: float) -> None:
        self.count = count
        self.settle = settle
        self._known: Set[str] = set()
        self._last_new = now

    def done(self, found: Iterable[str], now: float) -> bool:
        """Take the robots found at ``now``; return whether to stop looking."""
        seen = set(found)
        if seen - self._known:
            self._last_new = now
        self._known |= seen
        if self.count is not None:
            return len(self._known) >= self.count
        return bool(self._known or not self.settle) and now - self._last_new >= self.settle
