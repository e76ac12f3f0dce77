"""
Whether a controller's stream is there, late or lost: from its samples' arrival and their stamps.

A controller sends samples at its own rate, each stamped with its own clock. On a loaded machine,
or over a link with jitter, samples can arrive late, in a burst, while the controller sent every
one of them on time: the stream is late, not lost. A lost controller is one whose own samples
show a gap (consecutive stamps further apart than ``timeout``), or that stays silent for longer
than ``timeout + tolerance``.

- :attr:`Presence.PRESENT`: a sample came within ``timeout``;
- :attr:`Presence.LATE`: nothing for longer than ``timeout`` but not yet ``timeout +
  tolerance``; the caller holds its last sample (no new motion) and waits;
- :attr:`Presence.LOST`: the controller is gone; teleop stops (fail-safe). A gap seen in the stamps
  of a sample that arrives after a silence reads LOST once, for the tick that follows it, even
  though samples flow again.

Stamps of 0 (an unstamped publisher) are not compared: such a stream is judged by arrival alone.
No rclpy here: times are arguments (seconds).
"""

import enum
from typing import Optional

from robot_sm.parameters import duration

INPUT_PARAMETERS = (
    duration('input_timeout', 0.1, 'a controller without a message for this long is late: '
             'teleop holds its last sample, no new motion', 0.005, 10.0),
    duration('input_tolerance', 0.4, 'a late controller counts as lost (teleop STOPPED) after '
             'input_timeout plus this, or at once when its stamps show a gap of more than '
             'input_timeout', 0.0, 10.0),
)


class Presence(enum.Enum):
    """What a controller's stream is at one moment."""

    PRESENT = 'present'
    LATE = 'late'
    LOST = 'lost'


class InputPresence:
    """The presence of one controller's stream, told every sample as it arrives."""

    def __init__(self, timeout: float, tolerance: float) -> None:
        """Judge by ``timeout`` and ``tolerance`` (seconds, as :data:`INPUT_PARAMETERS`)."""
        self.timeout = timeout
        self.tolerance = tolerance
        self._arrived: Optional[float] = None
        self._stamp: Optional[float] = None
        self._gap = False

    def received(self, now: float, stamp: float) -> None:
        """Take a sample that arrived at ``now`` and was stamped ``stamp`` by its source."""
        if stamp > 0.0 and self._stamp is not None and stamp - self._stamp > self.timeout:
            self._gap = True  # the source itself went silent: a dropout, not a delay
        if stamp > 0.0:
            self._stamp = stamp if self._stamp is None else max(self._stamp, stamp)
        self._arrived = now

    def presence(self, now: float) -> Presence:
        """Return the stream's presence at ``now``; a gap in the stamps reads LOST once."""
        if self._gap:
            self._gap = False
            return Presence.LOST
        if self._arrived is None:
            return Presence.LOST
        silent = now - self._arrived
        if silent <= self.timeout:
            return Presence.PRESENT
        return Presence.LATE if silent <= self.timeout + self.tolerance else Presence.LOST
