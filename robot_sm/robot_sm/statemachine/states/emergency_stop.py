"""Emergency Stop: the mux's e-stop is engaged."""

from robot_sm.contract import Answer
from robot_sm.statemachine.base_state import BaseState


class EmergencyStop(BaseState):
    """
    Refuse everything until released; the cycle then leads to Idle, or back to Boot.

    It plays two roles: the e-stop during boot, released to Boot (RSM went to Idle, skipping
    boot), and the e-stop afterwards, released to Idle.
    """

    NAME = 'Emergency Stop'

    def on_exploration_start(self) -> Answer:
        """Refuse."""
        return Answer(False, 'Emergency Stop')

    def on_waypoint_following_start(self) -> Answer:
        """Refuse."""
        return Answer(False, 'Emergency Stop')
