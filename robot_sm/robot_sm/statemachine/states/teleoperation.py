"""Teleoperation: an operator drives; ends when the mux leaves teleoperation."""

from robot_sm.contract import Answer
from robot_sm.statemachine.base_state import BaseState


class Teleoperation(BaseState):
    """Refuse to start anything; the interrupts lead on (to Idle, or to the Emergency Stop)."""

    NAME = 'Teleoperation'

    def on_exploration_start(self) -> Answer:
        """Refuse."""
        return Answer(False, 'Teleoperation active')

    def on_waypoint_following_start(self) -> Answer:
        """Refuse."""
        return Answer(False, 'Teleoperation active')
