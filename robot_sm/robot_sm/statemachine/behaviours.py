"""
Base classes for plugin states with a simple life: ``start``, ``update`` each tick, ``stop``.

A plugin overrides those three and ends with :meth:`BehaviourState.succeed`,
:meth:`BehaviourState.fail` or :meth:`BehaviourState.abort` (outcomes ``succeeded``, ``failed``,
``aborted``; an operator's stop is ``stopped``); the cycle's table says what follows. The base
classes report the goal's outcome to the service provider. The classes per plugin kind:
:class:`CalculateGoalState`, :class:`MappingState` and :class:`RoutineState` (and
:class:`~robot_sm.statemachine.navigation_state.NavigationState`).
"""

from dataclasses import replace
from typing import ClassVar, Dict, Optional, Tuple

from robot_sm.contract import Answer
from robot_sm.statemachine.base_state import BaseState
from robot_sm.statemachine.cycle import Handover
from robot_sm.waypoints.navigation_goal import GoalStatus, NavigationGoal, NavigationMode
from robot_sm.waypoints.pose import Pose


class BehaviourState(BaseState):
    """A state that runs until it succeeds, fails or is aborted."""

    OUTCOMES: ClassVar[Tuple[str, ...]] = ('succeeded', 'failed', 'aborted', 'stopped')
    #: How each outcome is reported to the service provider; any other end is ABORTED.
    STATUS: ClassVar[Dict[str, GoalStatus]] = {'succeeded': GoalStatus.REACHED,
                                               'failed': GoalStatus.FAILED}

    # -- for plugins to override ----------------------------------------------------------

    def start(self) -> None:
        """Begin (on entry)."""

    def update(self) -> None:
        """Work one tick (only while running)."""

    def stop(self) -> None:
        """Clean up (on exit, whatever the reason)."""

    # -- ending -------------------------------------------------------------------------------

    def succeed(self, message: str = '', handover: Optional[Handover] = None) -> None:
        """End with ``succeeded``."""
        self.end_with('succeeded', message, handover)

    def fail(self, message: str) -> None:
        """End with ``failed`` and say why."""
        self.end_with('failed', message)

    def abort(self, message: str) -> None:
        """End with ``aborted`` and say why."""
        self.end_with('aborted', message)

    def end_with(self, outcome: str, message: str = '',
                 handover: Optional[Handover] = None) -> None:
        """End with ``outcome`` unless the state has ended already or was interrupted."""
        if self.running:
            self.finish(outcome, message, handover)

    @property
    def status(self) -> GoalStatus:
        """Return how the goal ended: ACTIVE while running, else by the outcome."""
        if self.running:
            return GoalStatus.ACTIVE
        return self.STATUS.get(self.outcome or '', GoalStatus.ABORTED)

    # -- lifecycle ------------------------------------------------------------------------------

    def on_entry(self) -> None:
        """Start the behaviour."""
        self.start()

    def on_active(self) -> None:
        """Update while running."""
        if self.running:
            self.update()

    def on_exit(self) -> None:
        """Stop the behaviour."""
        self.stop()

    def report_goal(self, navigation_status: bool) -> None:
        """Tell the service provider how the goal ended (REACHED → visited, ...)."""
        if self.goal is not None:
            status = self.STATUS.get(self.outcome or '', GoalStatus.ABORTED)
            self.suite.report_goal(self.goal, status, navigation_status)


class CalculateGoalState(BehaviourState):
    """
    Choose the next exploration goal: :meth:`navigate_to` it, or end the exploration.

    :meth:`finish_exploration` ends it as it should end (nothing left to explore: the run
    SUCCEEDED, whatever the message says); :meth:`abort` or :meth:`fail` end it FAILED.
    """

    NAME = 'Calculate Goal'
    OUTCOMES: ClassVar[Tuple[str, ...]] = BehaviourState.OUTCOMES + ('finished',)

    def navigate_to(self, pose: Pose) -> None:
        """Drive to ``pose`` (in the map frame) as an exploration goal: outcome ``succeeded``."""
        self.succeed(handover=replace(self.handover, goal=NavigationGoal(
            pose, NavigationMode.EXPLORATION)))

    def finish_exploration(self, message: str = 'exploration finished') -> None:
        """End the exploration: nothing is left to explore (outcome ``finished``)."""
        self.end_with('finished', message)

    def on_exploration_start(self) -> Answer:
        """Exploration is already running (RSM answers true here)."""
        return Answer(True, 'Exploration running')


class MappingState(BehaviourState):
    """
    Map at the reached exploration goal, then Calculate Goal (also after a failure).

    The outcome is reported to the service provider every time (REACHED clears the failed
    goals), except at the start of exploration, when there is no goal yet: RSM's report then
    marked whatever goal was stored last (a waypoint, even) as reached.
    """

    NAME = 'Mapping'

    def on_exit(self) -> None:
        """Stop, and report the outcome."""
        super().on_exit()
        self.report_goal(navigation_status=False)


class RoutineState(BehaviourState):
    """
    A waypoint routine: its outcome marks the waypoint.

    ``succeeded`` marks it visited, ``failed`` unreachable, anything else (an interrupt, a
    stop) leaves it to be tried again.
    """

    def on_exit(self) -> None:
        """Stop, and report the outcome for the waypoint."""
        super().on_exit()
        self.report_goal(navigation_status=False)
