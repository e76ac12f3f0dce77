"""
The operator heartbeat as the mux watches it: armed at the first beat heard.

An operator station (``robot-sm connect``, the rqt panel, the web console) publishes the heartbeat
while it is open. Until the first beat is heard the operator is not there yet: the mux stays
STOPPED and refuses every mode selection (the restart interlock keeps the robot still), rather
than counting silence from its own start, which latched an e-stop whenever discovering the
operator took longer than ``heartbeat_timeout``. From the first beat on, silence for
``heartbeat_timeout`` engages the latched e-stop, as for a link cut or a station that hides.
"""

from typing import Optional

from robot_sm.mux.watchdog import Watchdog


class OperatorHeartbeat:
    """Whether the operator was heard, and since when they are silent."""

    def __init__(self, timeout: float, topic: str = '') -> None:
        """Watch the heartbeat on ``topic`` (named in refusals) for silences over ``timeout``."""
        self.topic = topic
        self._watchdog = Watchdog(timeout)  # armed at the first beat

    @property
    def timeout(self) -> float:
        """Return the silence (s) that engages the e-stop once the operator was heard."""
        return self._watchdog.timeout

    @property
    def heard(self) -> bool:
        """Return True once a heartbeat was heard: its silence counts from then on."""
        return self._watchdog.armed

    def beat(self, now: float) -> None:
        """Take a heartbeat at ``now``."""
        self._watchdog.beat(now)

    def silence(self, now: float) -> Optional[float]:
        """Return seconds since the last beat; None before the first."""
        return self._watchdog.silence(now)

    def silent(self, now: float) -> bool:
        """Return True if the operator was heard and has been silent for over the timeout."""
        return self._watchdog.silent(now)

    def silent_for(self, now: float) -> str:
        """Say how long the operator has been silent if :meth:`silent`, else return ''."""
        silence = self.silence(now)
        if silence is None or not self.silent(now):
            return ''
        return f'heartbeat silent for {silence:.2f} s (timeout {self.timeout:g} s)'

    def not_heard(self) -> str:
        """Say why modes are refused before the first beat."""
        topic = f' (heartbeat topic {self.topic})' if self.topic else ''
        return (f'the operator is not heard yet{topic}: the mux stays STOPPED and refuses '
                'modes until the first heartbeat arrives')
