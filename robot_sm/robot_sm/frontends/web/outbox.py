"""
What a page is sent, and when: the newest value of each kind, no faster than its rate limit.

The console keeps the newest value of each kind (state, pose, map, ...) with a version that
grows on every change. Each page has an :class:`Outbox` that remembers which version it was
sent and when: a kind is due when it has a newer version and its interval (:data:`INTERVALS`)
has passed since the last send. Values that change faster than that are coalesced: the page
gets the newest, never a backlog. Pure: time as an argument.
"""

from typing import Dict, List, Mapping, Optional, Tuple

#: Seconds between two sends of a kind to one page (0: at once, on every change).
INTERVALS: Dict[str, float] = {
    'robot': 0.0,            # the robot the page shows, and the robots to choose from
    'state': 0.0,            # state machine state and the last outcome
    'mode': 0.0,             # mux mode, e-stop, the input that drives
    'estop_reason': 0.0,
    'presence': 0.25,        # whether the robot hears the operator
    'waypoints': 0.05,
    'routines': 0.0,
    'settings': 0.0,         # exploration and driving direction modes
    'pose': 0.1,             # 10 Hz at most
    'path': 0.5,
    'goals': 1.0,            # exploration goals (frontiers)
    'map': 1.0,
    'fleet': 1.0,
    'cycle': 0.0,            # the operating cycle, drawn
    'events': 0.2,           # the timeline: every event, in batches
    'arm': 0.2,              # the arm under teleop: state, clutch, joints, tracking error
    'control': 0.0,          # who holds control of the robot
    'drive_limits': 0.0,     # the speeds a page may drive at (the mux's limits)
    'incidents': 1.0,        # the incidents the recorder kept
}


class Outbox:
    """What one page has been sent: the version and time of each kind."""

    def __init__(self, intervals: Mapping[str, float] = INTERVALS) -> None:
        """Limit each kind to one send per its interval (kinds not listed: no limit)."""
        self.intervals = intervals
        self._sent: Dict[str, Tuple[int, float]] = {}

    def reset(self) -> None:
        """Forget what was sent: everything is due again (the page shows another robot)."""
        self._sent.clear()

    def due(self, versions: Mapping[str, int], now: float) -> Tuple[List[str], Optional[float]]:
        """
        Return what to send now, and the seconds until more is due, or None.

        ``versions`` are the newest versions of every kind known.
        """
        ready: List[str] = []
        wait: Optional[float] = None
        for kind, version in versions.items():
            sent_version, sent_at = self._sent.get(kind, (-1, -float('inf')))
            if version <= sent_version:
                continue
            remaining = sent_at + self.intervals.get(kind, 0.0) - now
            if remaining <= 0.0:
                ready.append(kind)
            elif wait is None or remaining < wait:
                wait = remaining
        return ready, wait

    def version_sent(self, kind: str) -> int:
        """Return the version of ``kind`` sent last (-1: none yet)."""
        return self._sent.get(kind, (-1, 0.0))[0]

    def sent(self, kind: str, version: int, now: float) -> None:
        """Record that ``version`` of ``kind`` was sent at ``now``."""
        self._sent[kind] = (version, now)
