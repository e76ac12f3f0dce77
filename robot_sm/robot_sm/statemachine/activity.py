"""
Activities and how they end, as codes: what operator tools read instead of state names.

An *activity* is what the operator started or what took over: waypoint following, exploration,
a simple goal, teleoperation, or a plugin package's own. The states of the cycle's roles belong
to one (:func:`role_activity`), and one *run* of it lasts from the transition into its first
state until the machine leaves its states. :class:`ActivityRuns` follows the runs from the
transitions alone and says how each ended (:class:`Outcome`), with the suite's own words:

- by a state's outcome: ``stopped`` is an operator's stop (CANCELED), ``failed`` and ``aborted``
  are FAILED, and the outcomes that end an activity where it should (``finished`` of waypoint
  following and exploration, a reached simple goal) SUCCEEDED (:data:`SUCCESS`);
- by an interrupt: the e-stop (STOPPED_BY_EMERGENCY_STOP), teleoperation or a new simple goal
  (INTERRUPTED), an operator's stop of the simple goal (CANCELED); teleoperation itself ends
  SUCCEEDED when the mux leaves it;
- by a state that raised: FAILED, with the error.

A start that the suite refuses never begins a run; :meth:`ActivityRuns.refuse` records it as
REFUSED so that a caller without an answer channel (a simple goal on a topic) learns it too.
Nothing here imports ROS; the codes are :mod:`robot_sm.contract`'s.
"""

from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, Optional, Tuple

from robot_sm.contract import Activity, Outcome
from robot_sm.statemachine.cycle import Interrupt, Role, ROLES
from robot_sm.waypoints.navigation_goal import NavigationMode


_OF_GOALS = {
    NavigationMode.NONE: Activity.NONE,
    NavigationMode.EXPLORATION: Activity.EXPLORATION,
    NavigationMode.WAYPOINT_FOLLOWING: Activity.WAYPOINT_FOLLOWING,
    NavigationMode.SIMPLE_GOAL: Activity.SIMPLE_GOAL,
}


def role_activity(role: Role) -> Activity:
    """Return the activity the states of ``role`` belong to."""
    if role is Role.TELEOPERATION:
        return Activity.TELEOPERATION
    return _OF_GOALS[ROLES[role].activity]


#: The state outcomes that end their role's activity as it should end.
SUCCESS: Dict[Role, FrozenSet[str]] = {
    Role.WAYPOINT_FOLLOWING: frozenset({'finished'}),
    Role.CALCULATE_GOAL: frozenset({'finished'}),
    Role.SIMPLE_GOAL_NAVIGATION: frozenset({'succeeded', 'routine'}),
}

#: How an interrupt that moves the machine on ends the run it leaves.
BY_INTERRUPT: Dict[Interrupt, Outcome] = {
    Interrupt.EMERGENCY_STOP: Outcome.STOPPED_BY_EMERGENCY_STOP,
    Interrupt.TELEOPERATION: Outcome.INTERRUPTED,
    Interrupt.SIMPLE_GOAL: Outcome.INTERRUPTED,
    Interrupt.SIMPLE_GOAL_STOP: Outcome.CANCELED,
    Interrupt.INTERRUPT_END: Outcome.SUCCEEDED,
}


#: What an interrupt's end of a run says.
INTERRUPT_TEXT: Dict[Interrupt, str] = {
    Interrupt.EMERGENCY_STOP: 'stopped by the emergency stop',
    Interrupt.TELEOPERATION: 'teleoperation took over',
    Interrupt.SIMPLE_GOAL: 'a new simple goal took over',
    Interrupt.SIMPLE_GOAL_STOP: 'Simple goal stopped',
    Interrupt.INTERRUPT_END: 'teleoperation ended',
}


def outcome_of(role: Role, outcome: str) -> Outcome:
    """Return how a run ends when a state of ``role`` ends with ``outcome`` and leaves it."""
    if outcome in SUCCESS.get(role, frozenset()):
        return Outcome.SUCCEEDED
    if outcome == 'stopped':
        return Outcome.CANCELED
    return Outcome.FAILED


@dataclass(frozen=True)
class Run:
    """One run of an activity."""

    activity: Activity
    #: Counts runs since the start (1, 2, ...).
    activity_id: int
    #: The activity's name: its label, or a plugin's own name.
    name: str


@dataclass(frozen=True)
class Ended:
    """How a run ended, in a code and in the suite's words."""

    run: Run
    outcome: Outcome
    text: str
    #: The state the machine went to ('' when the run never began).
    state: str = ''


class ActivityRuns:
    """The current run and how the last one ended, followed from the machine's transitions."""

    def __init__(self, on_end: Callable[[Ended], None] = lambda ended: None) -> None:
        """Follow runs; ``on_end`` is told every end (and refusal) as it happens."""
        self.current: Optional[Run] = None
        #: A run an operator paused: it has not ended, nothing of it runs.
        self.paused: Optional[Run] = None
        self.last: Optional[Ended] = None
        self._on_end = on_end
        self._next_id = 1

    def _begin(self, activity: Activity, name: str) -> Run:
        self.current = Run(activity, self._next_id, name or activity.label)
        self._next_id += 1
        return self.current

    def end(self, outcome: Outcome, text: str, state: str = '') -> Optional[Ended]:
        """End the current run (if any) with ``outcome``, going to ``state``; return the end."""
        run, self.current = self.current, None
        if run is None:
            return None
        self.last = Ended(run, outcome, text, state)
        self._on_end(self.last)
        return self.last

    def suspend(self) -> None:
        """Pause the current run: it is kept, not ended."""
        self.paused, self.current = self.current, None

    def resume(self) -> None:
        """Continue the paused run: it is current again (with its id)."""
        self.current, self.paused = self.paused, None

    def end_paused(self, outcome: Outcome, text: str, state: str) -> Optional[Ended]:
        """End the paused run (a stop of it, or it was abandoned); return how it ended."""
        run, self.paused = self.paused, None
        if run is None:
            return None
        self.last = Ended(run, outcome, text, state)
        self._on_end(self.last)
        return self.last

    def restore(self, activity: Activity, name: str) -> Run:
        """Take a paused run kept across a restart (it gets a new id)."""
        self.paused = Run(activity, self._next_id, name or activity.label)
        self._next_id += 1
        return self.paused

    def refuse(self, activity: Activity, text: str) -> Ended:
        """Record a start of ``activity`` that the suite refused: a run that never began."""
        run = Run(activity, self._next_id, activity.label)
        self._next_id += 1
        self.last = Ended(run, Outcome.REFUSED, text)
        self._on_end(self.last)
        return self.last

    def moving(self, to: Tuple[Activity, str], state: str, by: Optional[Interrupt] = None,
               leaving: Optional[Role] = None, outcome: str = '', text: str = '',
               failure: str = '') -> Optional[Ended]:
        """
        Follow a transition into ``state``, of activity ``to`` (and its name); return an end.

        ``by`` is the interrupt that requested it, else the transition is the outcome
        ``outcome`` of a state of role ``leaving``, told in ``text``. A run continues while the
        states stay in its activity and only their outcomes lead on; an interrupt, or a state
        of another activity, ends it. ``failure`` says why the state of the role the cycle
        gave could not be created (its plugin failed): the run then FAILED, for that reason.
        """
        activity, name = to
        run = self.current
        ended = None
        if run is not None and failure:
            ended = self.end(Outcome.FAILED, failure, state)
        elif run is not None and (by is not None or (run.activity, run.name) !=
                                  (activity, name or activity.label)):
            if by is not None:
                ended = self.end(BY_INTERRUPT[by], text or INTERRUPT_TEXT[by], state)
            else:
                assert leaving is not None
                ended = self.end(outcome_of(leaving, outcome), text or outcome, state)
        if activity is not Activity.NONE and self.current is None:
            self._begin(activity, name)
        return ended
