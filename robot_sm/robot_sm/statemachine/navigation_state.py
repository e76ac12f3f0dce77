"""
The base of navigation plugins: drive to the goal the transition carried.

On entry the goal is stored in the service provider (``robot_sm/set_navigation_goal``: the
waypoint markers, the goal-obsolete check and ``get_navigation_goal`` read it there). The state
ends ``succeeded`` (``routine`` when the reached waypoint names a routine), ``failed`` or
``aborted``, and the cycle's table leads on by the role: exploration, waypoint or simple goal
navigation. On exit it reports how the goal ended, unless the state that follows reports it: the
mapping state after a reached exploration goal, the routine after a reached waypoint.
"""

from typing import ClassVar, Dict, Optional, Tuple

from robot_sm.contract import Answer
from robot_sm.statemachine.behaviours import BehaviourState
from robot_sm.statemachine.calls import PendingCall
from robot_sm.statemachine.cycle import Handover
from robot_sm.waypoints.navigation_goal import GoalStatus, NavigationMode


class NavigationState(BehaviourState):
    """Drive to :attr:`goal`; subclasses implement ``start``, ``update`` and ``stop``."""

    NAME = 'Navigation'
    OUTCOMES: ClassVar[Tuple[str, ...]] = BehaviourState.OUTCOMES + ('routine',)
    STATUS: ClassVar[Dict[str, GoalStatus]] = {**BehaviourState.STATUS,
                                               'routine': GoalStatus.REACHED}

    #: The call that stored the goal in the service provider.
    stored: Optional[PendingCall[Answer]] = None
    #: The distance left to the goal (m), as the plugin last knew it; None: not known.
    distance_left: Optional[float] = None

    @property
    def distance_remaining(self) -> Optional[float]:
        """Return the distance left to the goal (:attr:`distance_left`, which plugins keep)."""
        return self.distance_left

    def on_entry(self) -> None:
        """Store the goal in the service provider and start driving."""
        if self.goal is None:
            self.abort('no navigation goal was given')
            return
        self.stored = self.suite.store_goal(self.goal)
        super().on_entry()

    def succeed(self, message: str = '', handover: Optional[Handover] = None) -> None:
        """End with ``succeeded``, or ``routine`` at a waypoint that names one."""
        if self.goal is not None and self.goal.routine:
            self.end_with('routine', message, handover)
            return
        if not message and self.activity is NavigationMode.SIMPLE_GOAL:
            message = 'simple goal reached'  # it ends the activity: always say so
        self.end_with('succeeded', message, handover)

    def on_exit(self) -> None:
        """Stop driving and report the outcome (unless a mapping state or routine will)."""
        super().on_exit()
        if self.goal is None:
            return
        handed_over = self.outcome == 'routine' or (
            self.outcome == 'succeeded' and self.activity is NavigationMode.EXPLORATION)
        if handed_over:
            return
        if self.stored is None or not self.stored.succeeded:
            detail = self.stored.describe() if self.stored is not None else 'not sent'
            self.context.logger.warning(f'{self.name}: the goal was not stored ({detail}); '
                                        f"its outcome ({self.outcome or 'none'}) is not "
                                        'reported')
            return
        self.report_goal(navigation_status=True)
