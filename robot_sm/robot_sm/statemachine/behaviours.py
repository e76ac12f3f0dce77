"""
Base classes for plugin states with a simple life: ``start``, ``update`` each tick, ``stop``.

A plugin overrides those three and ends with :meth:`BehaviourState.succeed`,
:meth:`BehaviourState.fail` or :meth:`BehaviourState.abort`; the base class picks the next state
the RSM way (:meth:`BehaviourState.next_state`), answers operators' commands as RSM's tables
say, reports the goal's outcome to the service provider, and handles the interrupts. The
classes per plugin kind: :class:`CalculateGoalState`, :class:`MappingState` and
:class:`RoutineState` (and :class:`~robot_sm.statemachine.navigation_state.NavigationState`).
"""

from typing import Any

from robot_sm.statemachine.base_state import Answer, BaseState
from robot_sm.statemachine.constants import GoalStatus, Interrupt, NavigationMode, Role
from robot_sm.statemachine.goal import NavigationGoal

GOAL_COMPLETED = 'robot_sm_msgs/srv/GoalCompleted'
#: Key of :attr:`StateMachine.shared` holding the last goal report, which the next state awaits.
GOAL_REPORT = 'goal_report'


class BehaviourState(BaseState):
    """A state that runs until it succeeds, fails or is aborted."""

    INTERRUPTS = (Interrupt.EMERGENCY_STOP, Interrupt.TELEOPERATION, Interrupt.SIMPLE_GOAL)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: ACTIVE until the state ends; then how it ended.
        self.status = GoalStatus.ACTIVE

    # -- for plugins to override ----------------------------------------------------------

    def start(self) -> None:
        """Begin (on entry)."""

    def update(self) -> None:
        """Work one tick (only while ACTIVE)."""

    def stop(self) -> None:
        """Clean up (on exit, whatever the reason)."""

    def next_state(self, status: GoalStatus) -> bool:
        """Request the state that follows an end with ``status`` (Idle by default)."""
        return self.transition(Role.IDLE)

    # -- ending -------------------------------------------------------------------------------

    def succeed(self, message: str = '') -> None:
        """End with REACHED."""
        self._end(GoalStatus.REACHED, message)

    def fail(self, message: str) -> None:
        """End with FAILED and say why."""
        self._end(GoalStatus.FAILED, message)

    def abort(self, message: str) -> None:
        """End with ABORTED and say why (to Idle)."""
        self._end(GoalStatus.ABORTED, message)

    def _end(self, status: GoalStatus, message: str) -> None:
        if self.status != GoalStatus.ACTIVE or self.interrupt_occurred:
            return
        self.status = status
        if message:
            self.report(message)
        self.next_state(status)

    # -- lifecycle ------------------------------------------------------------------------------

    def on_entry(self) -> None:
        """Start the behaviour."""
        self.start()

    def on_active(self) -> None:
        """Update while running."""
        if self.status == GoalStatus.ACTIVE and not self.interrupt_occurred:
            self.update()

    def on_exit(self) -> None:
        """Stop the behaviour; an unfinished one counts as ABORTED."""
        if self.status == GoalStatus.ACTIVE:
            self.status = GoalStatus.ABORTED
        self.stop()

    def on_interrupt(self, interrupt: Interrupt) -> None:
        """Take the standard interrupts; one that moves the machine aborts the behaviour."""
        super().on_interrupt(interrupt)
        if self.interrupt_occurred and self.status == GoalStatus.ACTIVE:
            self.status = GoalStatus.ABORTED

    def stop_activity(self, message: str) -> Answer:
        """Answer an operator's stop: ABORTED, to Idle."""
        if self.status == GoalStatus.ACTIVE:
            self.status = GoalStatus.ABORTED
        return super().stop_activity(message)

    def report_goal(self, status: GoalStatus, navigation_status: bool) -> None:
        """Tell the service provider how the goal ended (REACHED → visited, ...)."""
        if self.goal is None or self.machine is None:
            return
        self.machine.shared[GOAL_REPORT] = self.context.call(
            'robot_sm/navigation_goal_completed', GOAL_COMPLETED,
            {'status': {'goal': self.goal.pose, 'goal_status': int(status)},
             'navigation_status': navigation_status})


class ExplorationBehaviour(BehaviourState):
    """A state of the exploration cycle (name prefix ``E: ``)."""

    PREFIX = 'E: '

    def on_exploration_start(self) -> Answer:
        """Exploration is already running."""
        return True, 'Exploration running'

    def on_exploration_stop(self) -> Answer:
        """Stop exploring: to Idle."""
        return self.stop_activity('Exploration stopped')

    def on_waypoint_following_start(self) -> Answer:
        """Refuse: exploration is running."""
        return False, 'Exploration running'

    def on_waypoint_following_stop(self) -> Answer:
        """Refuse: exploration is running."""
        return False, 'Exploration running'


class CalculateGoalState(ExplorationBehaviour):
    """Choose the next exploration goal; :meth:`navigate_to` it, or :meth:`abort` to Idle."""

    NAME = 'Calculate Goal'

    def navigate_to(self, pose: Any) -> None:
        """Drive to ``pose`` (a ``geometry_msgs/Pose`` in the map frame) as an exploration goal."""
        if self.status != GoalStatus.ACTIVE or self.interrupt_occurred:
            return
        self.status = GoalStatus.REACHED
        self.transition(Role.NAVIGATION, goal=NavigationGoal(pose, NavigationMode.EXPLORATION))


class MappingState(ExplorationBehaviour):
    """
    Map at the reached exploration goal, then Calculate Goal (also after a failure).

    The outcome is reported to the service provider every time (REACHED clears the failed
    goals), except at the start of exploration, when there is no goal yet: RSM's report then
    marked whatever goal was stored last (a waypoint, even) as reached.
    """

    NAME = 'Mapping'

    def on_exploration_start(self) -> Answer:
        """Refuse: exploration is running (RSM's answer in mapping states)."""
        return False, 'Exploration running'

    def next_state(self, status: GoalStatus) -> bool:
        """REACHED or FAILED: Calculate Goal; ABORTED: Idle."""
        if status == GoalStatus.ABORTED:
            return self.transition(Role.IDLE)
        return self.transition(Role.CALCULATE_GOAL)

    def on_exit(self) -> None:
        """Stop, and report the outcome."""
        super().on_exit()
        self.report_goal(self.status, navigation_status=False)


class FollowingAnswers(BaseState):
    """RSM's answers while waypoint following runs: everything is refused but its stop."""

    def on_exploration_start(self) -> Answer:
        """Refuse: waypoint following is running."""
        return False, 'Waypoint following running'

    def on_exploration_stop(self) -> Answer:
        """Refuse: waypoint following is running."""
        return False, 'Waypoint following running'

    def on_waypoint_following_start(self) -> Answer:
        """Refuse: waypoint following is running."""
        return False, 'Waypoint following running'

    def on_waypoint_following_stop(self) -> Answer:
        """Stop following: to Idle."""
        return self.stop_activity('Waypoint following stopped')


class RoutineState(FollowingAnswers, BehaviourState):
    """
    A waypoint routine (name prefix ``W: ``): its outcome marks the waypoint.

    REACHED marks it visited, FAILED unreachable, ABORTED (interrupted) leaves it to be tried
    again; then waypoint following goes on (Idle after an abort).
    """

    PREFIX = 'W: '

    def next_state(self, status: GoalStatus) -> bool:
        """Back to waypoint following, or Idle after an abort."""
        if status == GoalStatus.ABORTED:
            return self.transition(Role.IDLE)
        return self.transition(Role.WAYPOINT_FOLLOWING)

    def on_exit(self) -> None:
        """Stop, and report the outcome for the waypoint."""
        super().on_exit()
        self.report_goal(self.status, navigation_status=False)
