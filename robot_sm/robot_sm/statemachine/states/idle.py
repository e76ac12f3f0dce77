"""Idle: wait for an operator."""

from robot_sm.contract import Answer
from robot_sm.statemachine.base_state import BaseState
from robot_sm.statemachine.cycle import Handover


class Idle(BaseState):
    """Start exploration or waypoint following, each with a fresh handover."""

    NAME = 'Idle'
    OUTCOMES = ('start_exploration', 'start_waypoint_following')

    def _start(self, outcome: str, message: str) -> Answer:
        if not self.finish(outcome, handover=Handover()):
            return Answer(False, 'An interrupt is being handled')
        return Answer(True, message)

    def on_exploration_start(self) -> Answer:
        """Start exploring with a look around (Mapping), as RSM's melodic version does."""
        return self._start('start_exploration', 'Exploration started')

    def on_waypoint_following_start(self) -> Answer:
        """Start waypoint following."""
        return self._start('start_waypoint_following', 'Waypoint following started')
