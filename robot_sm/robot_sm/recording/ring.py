"""
The recorder's ring buffer: the last seconds of the suite's topics, serialized, in memory.

:class:`MessageRing` keeps every message it is given (a topic, a time in nanoseconds, the CDR
bytes) for ``seconds`` and within ``max_bytes``: the oldest go first, when they are older than
the window or when the newest would not fit (those are counted in :attr:`MessageRing.dropped`:
the window did not fit in memory). Topics given a minimum period (the map, scans) are kept at most
once per period. The newest message of a latched topic (the map, the state, the mode: published
on change) is kept even after it left the window, so that a snapshot always holds the current
value; its bytes count against ``max_bytes`` too.
"""

from collections import deque
from itertools import islice
from typing import Deque, Dict, List, Mapping, NamedTuple, Optional, Set

#: Bytes counted per message besides its data: the entry, its tuple and the bytes object.
ENTRY_OVERHEAD = 120


class Entry(NamedTuple):
    """One message: its topic, when it arrived (ns) and its serialized data."""

    stamp: int
    topic: str
    data: bytes


def _size(entry: Entry) -> int:
    return len(entry.data) + ENTRY_OVERHEAD


class MessageRing:
    """The messages of the last ``seconds``, within ``max_bytes``; see the module."""

    def __init__(self, seconds: float, max_bytes: int,
                 min_periods: Optional[Mapping[str, float]] = None) -> None:
        """Keep ``seconds`` of messages within ``max_bytes``; ``min_periods`` per topic (s)."""
        self.window = int(seconds * 1e9)
        self.max_bytes = int(max_bytes)
        self._min_periods = {topic: int(period * 1e9)
                             for topic, period in (min_periods or {}).items() if period > 0.0}
        self._entries: Deque[Entry] = deque()
        self._latched: Set[str] = set()
        #: The newest entry of each latched topic, and which of them left the ring.
        self._newest: Dict[str, Entry] = {}
        self._held: Set[str] = set()
        self._last_kept: Dict[str, int] = {}
        #: Bytes held now: the ring's entries and the latched ones that left it.
        self.bytes = 0
        #: Messages that left the ring before their time because ``max_bytes`` was reached.
        self.dropped = 0
        #: Messages taken in, and those skipped for their topic's minimum period.
        self.added = 0
        self.thinned = 0

    def latch(self, topic: str) -> None:
        """Keep the newest message of ``topic`` even when it is older than the window."""
        self._latched.add(topic)

    def add(self, topic: str, stamp: int, data: bytes) -> bool:
        """Take a message that arrived at ``stamp`` (ns); False if thinned out by its period."""
        period = self._min_periods.get(topic)
        if period is not None:
            last = self._last_kept.get(topic)
            if last is not None and stamp - last < period:
                self.thinned += 1
                return False
            self._last_kept[topic] = stamp
        entry = Entry(stamp, topic, data)
        if topic in self._latched:
            if topic in self._held:
                self._held.discard(topic)
                self.bytes -= _size(self._newest[topic])
            self._newest[topic] = entry
        self._entries.append(entry)
        self.bytes += _size(entry)
        self.added += 1
        self._evict(stamp - self.window)
        while self.bytes > self.max_bytes and len(self._entries) > 1:
            self._pop()
            self.dropped += 1
        return True

    def trim(self, now: int) -> None:
        """Let the messages older than the window at ``now`` (ns) go."""
        self._evict(now - self.window)

    def _evict(self, oldest: int) -> None:
        entries = self._entries
        while entries and entries[0].stamp < oldest:
            self._pop()

    def _pop(self) -> None:
        entry = self._entries.popleft()
        topic = entry.topic
        if topic in self._latched and self._newest.get(topic) is entry:
            self._held.add(topic)  # still counted: it is kept as the topic's current value
        else:
            self.bytes -= _size(entry)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def oldest(self) -> Optional[int]:
        """Return the time (ns) of the oldest message in the window, or None."""
        return self._entries[0].stamp if self._entries else None

    def entries(self, since: Optional[int] = None) -> List[Entry]:
        """
        Return the messages in the window, in the order they were added.

        ``since``: only those added after the first ``since`` (a value :attr:`added` had), in
        the window still: a message taken late may carry an earlier stamp than one before it.
        """
        if since is None:
            return list(self._entries)
        new = min(self.added - since, len(self._entries))
        if new <= 0:
            return []
        return list(islice(self._entries, len(self._entries) - new, None))

    def held(self) -> List[Entry]:
        """Return the newest message of each latched topic that left the window, oldest first."""
        return sorted((self._newest[topic] for topic in self._held), key=lambda e: e.stamp)

    def topics(self) -> Set[str]:
        """Return the topics with a message in the window or held (from any thread)."""
        return {entry.topic for entry in list(self._entries)} | set(self._held)
