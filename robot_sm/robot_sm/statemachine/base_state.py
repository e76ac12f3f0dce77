"""
The lifecycle every state follows, RSM's ``BaseState`` in Python.

A state is created when a transition to it is requested, with the context it reaches ROS
through and, for navigation-like states, the goal it is for. The engine then calls:

- :meth:`BaseState.on_setup` at once, when the transition is requested;
- :meth:`BaseState.on_entry` on the next tick, after the old state's last ``on_active`` and
  its ``on_exit``;
- :meth:`BaseState.on_active` on every following tick;
- :meth:`BaseState.on_exit` on the tick the state is left.

Operators' start and stop requests reach the four command hooks, which answer
``(success, message)``; interrupts reach :meth:`BaseState.on_interrupt` once per edge. A state
asks for the next one with :meth:`BaseState.transition`. After it handled an interrupt
(``interrupt_occurred``), its own logic can no longer request a transition, so the interrupt's
target wins, as in RSM.
"""

from dataclasses import dataclass
import math
from typing import Any, ClassVar, Dict, Optional, Tuple, TYPE_CHECKING

from robot_sm.quoting import quoted
from robot_sm.statemachine.constants import Interrupt, Role
from robot_sm.statemachine.goal import NavigationGoal
from robot_sm.statemachine.port import Context

if TYPE_CHECKING:  # pragma: no cover
    from robot_sm.statemachine.machine import StateMachine

#: What a command hook answers: success and a message for the operator.
Answer = Tuple[bool, str]

#: Where the standard interrupt responses lead.
INTERRUPT_TARGETS: Dict[Interrupt, Role] = {
    Interrupt.EMERGENCY_STOP: Role.EMERGENCY_STOP,
    Interrupt.TELEOPERATION: Role.TELEOPERATION,
    Interrupt.INTERRUPT_END: Role.IDLE,
    Interrupt.SIMPLE_GOAL: Role.NAVIGATION,
    Interrupt.SIMPLE_GOAL_STOP: Role.IDLE,
}


@dataclass(frozen=True)
class StateParameter:
    """A parameter of a plugin state, declared by the node as ``<plugin>.<name>``."""

    name: str
    default: Any
    description: str
    minimum: Optional[float] = None
    maximum: Optional[float] = None
    #: 0 is accepted too (it means off) besides ``minimum`` to ``maximum``.
    off: bool = False

    def problem(self, value: Any) -> Optional[str]:
        """Return why ``value`` is not acceptable, or None if it is."""
        if isinstance(self.default, bool) or not isinstance(self.default, (int, float)):
            return None
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return f'must be a number (got {quoted(value)})'
        if not math.isfinite(value):
            return f'must be finite (got {value!r})'
        if self.off and value == 0:
            return None
        if self.minimum is not None and value < self.minimum:
            if self.off:
                return f'must be 0 (off) or at least {self.minimum:g} (got {value:g})'
            return f'must be at least {self.minimum:g} (got {value:g})'
        if self.maximum is not None and value > self.maximum:
            return f'must be at most {self.maximum:g} (got {value:g})'
        return None


class BaseState:
    """
    A state of the operating cycle; subclass it and override the hooks you need.

    Class attributes: ``NAME`` is what operators see (after ``PREFIX``: ``'E: '`` exploration,
    ``'W: '`` waypoint following, ``'G: '`` simple goal); ``PARAMETERS`` lists the plugin's
    parameters; ``INTERRUPTS`` the interrupts answered with the standard transition of
    :data:`INTERRUPT_TARGETS` (e-stop → Emergency Stop, teleoperation → Teleoperation, simple
    goal → Navigation to it, ...).
    """

    NAME: ClassVar[str] = ''
    PREFIX: ClassVar[str] = ''
    PARAMETERS: ClassVar[Tuple[StateParameter, ...]] = ()
    INTERRUPTS: ClassVar[Tuple[Interrupt, ...]] = ()

    def __init__(self, context: Context, goal: Optional[NavigationGoal] = None) -> None:
        self.context = context
        self.goal = goal
        self.interrupt_occurred = False
        self.machine: Optional['StateMachine'] = None

    @property
    def name(self) -> str:
        """Return the name operators see, with its prefix."""
        return self.PREFIX + (self.NAME or type(self).__name__)

    def __repr__(self) -> str:
        return f'<{type(self).__name__} {self.name!r}>'

    # -- lifecycle hooks --------------------------------------------------------------------

    def on_setup(self) -> None:
        """Prepare when the transition is requested (before the old state exits)."""

    def on_entry(self) -> None:
        """Start: the state is now current."""

    def on_active(self) -> None:
        """Do one tick of work."""

    def on_exit(self) -> None:
        """Clean up: another state follows."""

    # -- operators' commands ------------------------------------------------------------------

    def on_exploration_start(self) -> Answer:
        """Answer a request to start exploration."""
        return False, f'{self.name}: exploration cannot start in this state'

    def on_exploration_stop(self) -> Answer:
        """Answer a request to stop exploration."""
        return False, 'Exploration not running'

    def on_waypoint_following_start(self) -> Answer:
        """Answer a request to start waypoint following."""
        return False, f'{self.name}: waypoint following cannot start in this state'

    def on_waypoint_following_stop(self) -> Answer:
        """Answer a request to stop waypoint following."""
        return False, 'Waypoint following not running'

    def on_interrupt(self, interrupt: Interrupt) -> None:
        """Handle an interrupt: the standard transition if it is one of ``INTERRUPTS``."""
        if interrupt not in self.INTERRUPTS:
            return
        if interrupt == Interrupt.SIMPLE_GOAL:
            assert self.machine is not None
            self.transition(Role.NAVIGATION, goal=self.machine.simple_goal, interrupt=True)
        else:
            self.transition(INTERRUPT_TARGETS[interrupt], interrupt=True)

    # -- helpers for states -------------------------------------------------------------------

    def transition(self, role: Role, goal: Optional[NavigationGoal] = None, routine: str = '',
                   *, interrupt: bool = False) -> bool:
        """
        Request the state that plays ``role`` (with ``goal``, or the plugin of ``routine``).

        Return False if the request is refused: after an interrupt only another interrupt's
        transition (``interrupt=True``) is taken, and only the current state may request.
        """
        if self.interrupt_occurred and not interrupt:
            return False
        if self.machine is None:
            return False
        accepted = self.machine.request(role, goal=goal, routine=routine, requester=self)
        if accepted and interrupt:
            self.interrupt_occurred = True
        return accepted

    def stop_activity(self, message: str) -> Answer:
        """Answer an operator's stop: to Idle (reported), unless an interrupt is being handled."""
        if not self.transition(Role.IDLE):
            return False, f'{self.name} is handling an interrupt'
        self.report(message)
        return True, message

    def report(self, message: str) -> None:
        """Tell operators how this state ended (published as the state's outcome and logged)."""
        if self.machine is not None:
            self.machine.report(self, message)
