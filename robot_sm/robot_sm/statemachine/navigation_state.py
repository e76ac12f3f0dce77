"""
The base of navigation plugins: drive to the goal the transition carried.

On entry the goal is stored in the service provider (``robot_sm/set_navigation_goal``: the
waypoint markers, the goal-obsolete check and ``get_navigation_goal`` read it there). The
outcome leads on as RSM's navigation state did:

======================  ======================  =====================  =========================
goal mode               REACHED                 FAILED                 ABORTED
======================  ======================  =====================  =========================
EXPLORATION             Mapping (it reports)    Calculate Goal         Idle
WAYPOINT_FOLLOWING      the routine (it         Waypoint Following     Idle
                        reports), else Waypoint (unreachable)
                        Following (visited)
SIMPLE_GOAL             Idle                    Idle                   Idle
======================  ======================  =====================  =========================

Unlike RSM, only an interrupt that moves the machine aborts the goal: SIMPLE_GOAL_STOP stops a
simple goal and is ignored by the other modes.
"""

from typing import ClassVar, Dict, Optional

from robot_sm.statemachine.base_state import Answer
from robot_sm.statemachine.behaviours import BehaviourState
from robot_sm.statemachine.calls import PendingCall
from robot_sm.statemachine.constants import GoalStatus, Interrupt, NavigationMode, Role

SET_NAVIGATION_GOAL = 'robot_sm_msgs/srv/SetNavigationGoal'


class NavigationState(BehaviourState):
    """Drive to :attr:`goal`; subclasses implement ``start``, ``update`` and ``stop``."""

    NAME = 'Navigation'
    PREFIXES: ClassVar[Dict[NavigationMode, str]] = {
        NavigationMode.EXPLORATION: 'E: ',
        NavigationMode.WAYPOINT_FOLLOWING: 'W: ',
        NavigationMode.SIMPLE_GOAL: 'G: ',
    }
    RUNNING: ClassVar[Dict[NavigationMode, str]] = {
        NavigationMode.EXPLORATION: 'Exploration running',
        NavigationMode.WAYPOINT_FOLLOWING: 'Waypoint following running',
        NavigationMode.SIMPLE_GOAL: 'Simple Goal running',
    }

    _stored: Optional[PendingCall] = None

    @property
    def name(self) -> str:
        """Return ``E: ``/``W: ``/``G: `` and the name, by the goal's mode."""
        prefix = self.PREFIXES.get(self.goal.mode, '') if self.goal is not None else ''
        return prefix + (self.NAME or type(self).__name__)

    @property
    def mode(self) -> Optional[NavigationMode]:
        """Give the goal's mode, or None without a goal."""
        return self.goal.mode if self.goal is not None else None

    def on_entry(self) -> None:
        """Store the goal in the service provider and start driving."""
        if self.goal is None:
            self.abort('no navigation goal was given')
            return
        self._stored = self.context.call(
            'robot_sm/set_navigation_goal', SET_NAVIGATION_GOAL,
            {'goal': self.goal.pose, 'navigation_mode': int(self.goal.mode),
             'waypoint_position': self.goal.waypoint_position, 'routine': self.goal.routine})
        super().on_entry()

    def on_interrupt(self, interrupt: Interrupt) -> None:
        """Take the standard interrupts; SIMPLE_GOAL_STOP ends a simple goal only."""
        if interrupt == Interrupt.SIMPLE_GOAL_STOP:
            stopped = self.mode == NavigationMode.SIMPLE_GOAL \
                and self.transition(Role.IDLE, interrupt=True)
            if stopped:
                self.status = GoalStatus.ABORTED
                self.report('Simple goal stopped')
            return
        super().on_interrupt(interrupt)

    def succeed(self, message: str = '') -> None:
        """End with REACHED; a simple goal, which ends the activity, always says so."""
        if not message and self.mode == NavigationMode.SIMPLE_GOAL:
            message = 'simple goal reached'
        super().succeed(message)

    def next_state(self, status: GoalStatus) -> bool:
        """Follow the table of the module."""
        assert self.goal is not None
        mode = self.goal.mode
        if status == GoalStatus.ABORTED or mode == NavigationMode.SIMPLE_GOAL:
            return self.transition(Role.IDLE)
        if mode == NavigationMode.EXPLORATION:
            role = Role.MAPPING if status == GoalStatus.REACHED else Role.CALCULATE_GOAL
            return self.transition(role, goal=self.goal)
        if status == GoalStatus.REACHED and self.goal.routine:
            return self.transition(Role.ROUTINE, goal=self.goal, routine=self.goal.routine)
        return self.transition(Role.WAYPOINT_FOLLOWING)

    def on_exit(self) -> None:
        """Stop driving and report the outcome (unless a mapping state or routine will)."""
        super().on_exit()
        if self.goal is None:
            return
        handed_over = self.status == GoalStatus.REACHED and (
            self.goal.mode == NavigationMode.EXPLORATION or bool(self.goal.routine))
        if handed_over:
            return
        if self._stored is None or not self._stored.succeeded:
            detail = self._stored.describe() if self._stored is not None else 'not sent'
            self.context.logger.warning(f'{self.name}: the goal was not stored ({detail}); '
                                        f'its outcome {self.status.name} is not reported')
            return
        self.report_goal(self.status, navigation_status=True)

    def _running(self) -> str:
        return self.RUNNING.get(self.mode, 'Nothing running') if self.mode is not None \
            else 'Nothing running'

    def on_exploration_start(self) -> Answer:
        """Refuse, naming what runs."""
        return False, self._running()

    def on_exploration_stop(self) -> Answer:
        """Stop an exploration goal: to Idle."""
        if self.mode == NavigationMode.EXPLORATION:
            return self.stop_activity('Exploration stopped')
        return False, self._running()

    def on_waypoint_following_start(self) -> Answer:
        """Refuse, naming what runs."""
        return False, self._running()

    def on_waypoint_following_stop(self) -> Answer:
        """Stop a waypoint goal: to Idle."""
        if self.mode == NavigationMode.WAYPOINT_FOLLOWING:
            return self.stop_activity('Waypoint following stopped')
        return False, self._running()
