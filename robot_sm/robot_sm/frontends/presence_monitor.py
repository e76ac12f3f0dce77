"""
What an operator station shows about its presence: whether the robot hears its heartbeat.

The robot's mux answers every operator heartbeat it hears on ``robot_sm/operator_present``
(true), and says false once the heartbeat has been silent for its ``heartbeat_timeout`` (then it
engages the e-stop). :class:`PresenceMonitor` takes those answers with the time they arrived and
tells the operator where they stand:

- ``SEEN``: the robot heard a heartbeat within the last ``link_timeout`` seconds;
- ``NOT_HEARD``: the robot says it does not hear the heartbeat (the way out is blocked, or the
  robot watches another topic);
- ``LINK_LOST``: the robot heard the heartbeat, but nothing came back for ``link_timeout``: the
  link is gone, and the robot has stopped (or will, ``heartbeat_timeout`` after the last beat
  it heard);
- ``WAITING``: nothing from the robot yet;
- ``NOT_WATCHED``: the robot is there but watches no operator heartbeat: it will not stop when
  the link is lost.
"""

from dataclasses import dataclass
from enum import Enum
from typing import Optional


class Presence(Enum):
    """The operator's presence as the robot sees it."""

    SEEN = 'seen'
    NOT_HEARD = 'not heard'
    LINK_LOST = 'link lost'
    WAITING = 'waiting'
    NOT_WATCHED = 'not watched'


@dataclass(frozen=True)
class PresenceReport:
    """The indicator's state and one line for the operator saying it."""

    presence: Presence
    text: str

    @property
    def seen(self) -> bool:
        """Return True while the robot hears the operator."""
        return self.presence is Presence.SEEN


class PresenceMonitor:
    """The robot's answers to the operator's heartbeat, and what they mean at a given time."""

    def __init__(self, link_timeout: float = 1.0) -> None:
        """Count the link as lost after ``link_timeout`` seconds without an answer."""
        if not link_timeout > 0.0:
            raise ValueError(f'link_timeout must be > 0 (got {link_timeout!r})')
        self.link_timeout = link_timeout
        self._present: Optional[bool] = None
        self._time = 0.0

    def answer(self, present: bool, now: float) -> None:
        """Take an answer of the robot (``robot_sm/operator_present``) arriving at ``now``."""
        self._present = present
        self._time = now

    def report(self, now: float, watched: bool = True) -> PresenceReport:
        """
        Return the presence at ``now``.

        ``watched`` false says the robot is known to publish no answers (its mux has no
        heartbeat topic); it matters only while no answer has arrived.
        """
        if self._present is None:
            if not watched:
                return PresenceReport(
                    Presence.NOT_WATCHED,
                    'the robot watches no operator heartbeat (its heartbeat_topic is empty): '
                    'it will NOT stop if this link is lost')
            return PresenceReport(Presence.WAITING, 'waiting for the robot')
        silence = now - self._time
        if not self._present:
            return PresenceReport(Presence.NOT_HEARD,
                                  'NOT CONNECTED: the robot does not hear your heartbeat')
        if silence > self.link_timeout:
            return PresenceReport(Presence.LINK_LOST,
                                  f'NOT CONNECTED: no answer from the robot for {silence:.1f} s '
                                  '(link lost?)')
        return PresenceReport(Presence.SEEN, 'connected: the robot hears your heartbeat')
