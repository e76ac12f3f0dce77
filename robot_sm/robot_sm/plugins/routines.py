"""
Waypoint routines: what the robot does on arrival at a waypoint that names one.

A waypoint whose routine is ``Wait`` runs the plugin ``WaitRoutine``; the service provider's
``waypoint_routines`` parameter lists the names operators may choose.
"""

from typing import Any, Dict, Optional

from robot_sm.contract import Answer
from robot_sm.parameters import duration
from robot_sm.statemachine.behaviours import RoutineState
from robot_sm.statemachine.calls import PendingCall


class WaitRoutine(RoutineState):
    """Wait at the waypoint for ``wait_duration`` seconds; paused, it waits what is left."""

    NAME = 'Waiting'
    PARAMETERS = (duration('wait_duration', 3.0, 'Time to wait at the waypoint.', 0.0, 3600.0),)

    def start(self) -> None:
        """Note when the wait ends (after what is left of a paused wait, when continuing)."""
        remaining = self.context.parameter('wait_duration')
        if self.resumed is not None and 'remaining' in self.resumed:
            remaining = min(remaining, max(0.0, float(self.resumed['remaining'])))
        self._until = self.context.now() + remaining

    def on_pause(self) -> Dict[str, Any]:
        """Keep what is left of the wait."""
        return {'remaining': max(0.0, self._until - self.context.now())}

    def update(self) -> None:
        """Succeed once the time is up."""
        if self.context.now() >= self._until:
            self.succeed()


class ReversingRoutine(RoutineState):
    """Toggle reverse driving (the robot drives backwards to the next waypoints, or stops to)."""

    NAME = 'Reversing'

    def start(self) -> None:
        """Ask the service provider for the current driving direction."""
        self._get: PendingCall[bool] = self.suite.reverse_mode()
        self._set: Optional[PendingCall[Answer]] = None

    def update(self) -> None:
        """Flip the direction once it is known; succeed when the change was accepted."""
        if self._set is None:
            if not self._get.done():
                return
            if not self._get.ok:
                self.fail(f'cannot read the reverse mode: {self._get.describe()}')
                return
            self._set = self.suite.set_reverse_mode(not self._get.response)
            return
        if not self._set.done():
            return
        if self._set.succeeded:
            self.succeed()
        else:
            self.fail(f'reverse mode not changed: {self._set.describe()}')
