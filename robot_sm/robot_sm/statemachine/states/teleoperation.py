"""Teleoperation: an operator drives; ends when the mux leaves teleoperation."""

from robot_sm.statemachine.base_state import Answer, BaseState
from robot_sm.statemachine.constants import Interrupt


class Teleoperation(BaseState):
    """Refuse to start anything; to Idle when teleoperation ends, to Emergency Stop on e-stop."""

    NAME = 'Teleoperation'
    INTERRUPTS = (Interrupt.EMERGENCY_STOP, Interrupt.INTERRUPT_END)

    def on_exploration_start(self) -> Answer:
        """Refuse."""
        return False, 'Teleoperation active'

    def on_waypoint_following_start(self) -> Answer:
        """Refuse."""
        return False, 'Teleoperation active'
