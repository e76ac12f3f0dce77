"""
Each operator page's heartbeat, and which pages' heartbeats the robot hears.

Every operator page pings the console ten times a second; its pings are its own heartbeat.
:class:`PageHeartbeats` keeps one per page of a robot and says, ping by ping, whether the robot's
operator heartbeat is beaten for it: only for a page that counts (:meth:`PageHeartbeats.counts`:
today every operator page; with control, the page of the operator who holds it), and at most
every ``min_interval`` seconds whatever the number of pages. So the robot's heartbeat lives as
long as a page that counts pings: closing one of two such pages leaves it beating, closing the
last one ends it. Pure: no aiohttp, no rclpy, time as an argument.
"""

from dataclasses import dataclass
from typing import Callable, Dict, Hashable, Optional

#: Seconds between two beats of the robot's heartbeat at least (10 pages do not beat 100 Hz).
MIN_INTERVAL = 0.05


@dataclass
class PageBeat:
    """One page's heartbeat: whether it operates, and when it last pinged."""

    operator: bool
    last_ping: Optional[float] = None


class PageHeartbeats:
    """The heartbeats of the pages showing one robot."""

    def __init__(self, min_interval: float = MIN_INTERVAL,
                 counting: Optional[Callable[[Hashable], bool]] = None) -> None:
        """
        Beat at most every ``min_interval`` s.

        ``counting`` narrows the operator pages that count (None: all of them).
        """
        self.min_interval = min_interval
        self.counting = counting
        self._pages: Dict[Hashable, PageBeat] = {}
        self._beaten: Optional[float] = None

    def join(self, page: Hashable, operator: bool) -> None:
        """Add ``page`` (an operator page, or a read-only one, which never beats)."""
        self._pages[page] = PageBeat(operator)

    def leave(self, page: Hashable) -> None:
        """Forget ``page``: its heartbeat ends with it."""
        self._pages.pop(page, None)

    def counts(self, page: Hashable) -> bool:
        """Return whether the robot hears ``page``'s heartbeat."""
        beat = self._pages.get(page)
        if beat is None or not beat.operator:
            return False
        return self.counting is None or self.counting(page)

    def ping(self, page: Hashable, now: float) -> bool:
        """Take a ping of ``page`` at ``now``; return whether to beat the robot's heartbeat."""
        beat = self._pages.get(page)
        if beat is None:
            return False
        beat.last_ping = now
        if not self.counts(page):
            return False
        if self._beaten is not None and now - self._beaten < self.min_interval:
            return False
        self._beaten = now
        return True

    def beating(self, now: float, within: float) -> int:
        """Return how many pages that count pinged within ``within`` s of ``now``."""
        return sum(1 for page, beat in self._pages.items()
                   if beat.last_ping is not None and now - beat.last_ping <= within
                   and self.counts(page))
