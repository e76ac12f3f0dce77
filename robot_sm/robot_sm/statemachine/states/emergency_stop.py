"""Emergency Stop: the mux's e-stop is engaged."""

from robot_sm.statemachine.base_state import Answer, BaseState
from robot_sm.statemachine.constants import Interrupt, Role


class EmergencyStop(BaseState):
    """
    Refuse everything until released; then Idle, or Boot if boot had not finished.

    RSM went to Idle on release even when the e-stop came during boot, skipping boot.
    """

    NAME = 'Emergency Stop'

    def on_interrupt(self, interrupt: Interrupt) -> None:
        """Leave when the e-stop is released."""
        if interrupt != Interrupt.INTERRUPT_END:
            return
        assert self.machine is not None
        self.transition(Role.IDLE if self.machine.booted else Role.BOOT, interrupt=True)

    def on_exploration_start(self) -> Answer:
        """Refuse."""
        return False, 'Emergency Stop'

    def on_waypoint_following_start(self) -> Answer:
        """Refuse."""
        return False, 'Emergency Stop'
