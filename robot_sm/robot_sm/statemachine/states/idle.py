"""Idle: wait for an operator."""

from robot_sm.statemachine.base_state import Answer, BaseState
from robot_sm.statemachine.constants import Interrupt, Role


class Idle(BaseState):
    """Start exploration (in Mapping) or waypoint following; take interrupts and simple goals."""

    NAME = 'Idle'
    INTERRUPTS = (Interrupt.EMERGENCY_STOP, Interrupt.TELEOPERATION, Interrupt.SIMPLE_GOAL)

    def _start(self, role: Role, message: str) -> Answer:
        assert self.machine is not None
        if not self.transition(role):
            return False, 'An interrupt is being handled'
        self.machine.shared.clear()
        return True, message

    def on_exploration_start(self) -> Answer:
        """Start exploring with a look around (Mapping), as RSM's melodic version does."""
        return self._start(Role.MAPPING, 'Exploration started')

    def on_waypoint_following_start(self) -> Answer:
        """Start waypoint following."""
        return self._start(Role.WAYPOINT_FOLLOWING, 'Waypoint following started')
