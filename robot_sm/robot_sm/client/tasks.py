"""
Long activities of the suite as tasks: follow one, wait for it, learn how it ended.

Waypoint following, exploration and a simple goal run in the states whose names carry their
prefix (``W: ``, ``E: ``, ``G: ``). :class:`ActivityTracker` is told, in the order they arrived,
the state names (``robot_sm/state_info``), the outcomes (``robot_sm/state_outcome``) and the
waypoint lists (``robot_sm/waypoints``) that came after the activity was started, and works
out from them alone:

- when it ended: it has begun once one of its states is seen, and it ends when a state of
  another kind follows (Idle, Emergency Stop, Teleoperation, another activity). Before it
  began, Idle ends it only after an outcome (a plugin that could not start);
- how (:class:`TaskStatus`): the state it ended in says STOPPED_BY_ESTOP or INTERRUPTED; in Idle
  the activity's last outcome says SUCCEEDED (``... finished``, ``simple goal reached``),
  CANCELED (an operator's stop) or FAILED (anything else). The outcome and the state are
  published by the same tick but on two topics, which may arrive in either order: unless the
  outcome already settles it, the result waits :data:`OUTCOME_GRACE` for it;
- its progress (:class:`TaskFeedback`).

:class:`Task` is the handle :class:`robot_sm.client.SuiteClient` gives for a started activity. No
rclpy here: time is an argument (or an injected clock), and the module is checked by mypy.
"""

from dataclasses import dataclass, field
import enum
import threading
import time
from typing import Callable, FrozenSet, Generic, Optional, Protocol, Sequence, Set, TypeVar, Union

from robot_sm.waypoints.selection import next_waypoint_index, WaypointStatus

#: Seconds the result waits for the outcome after the state that ended the activity.
OUTCOME_GRACE = 0.25
IDLE = 'Idle'
EMERGENCY_STOP = 'Emergency Stop'
#: Outcome messages of a finished activity (the text after the state's name).
SUCCEEDED_OUTCOMES = ('waypoint following finished', 'exploration finished',
                      'simple goal reached')
#: Outcome messages of an operator's stop; also the stop services' answers.
CANCELED_OUTCOMES = ('Waypoint following stopped', 'Exploration stopped', 'Simple goal stopped')
#: How the state interface refuses a simple goal it cannot use.
GOAL_IGNORED = 'simple goal ignored'


class Activity(enum.Enum):
    """A long activity, by the prefix of its states' names."""

    WAYPOINT_FOLLOWING = 'W: '
    EXPLORATION = 'E: '
    SIMPLE_GOAL = 'G: '

    @property
    def navigation_state(self) -> str:
        """Return the name of the state that drives to one of its goals."""
        return f'{self.value}Navigation'

    def owns(self, state: str) -> bool:
        """Return whether ``state`` is one of this activity's states."""
        return state.startswith(self.value)


class TaskStatus(enum.Enum):
    """How a task ended."""

    SUCCEEDED = 'succeeded'
    #: It ended in Idle for another reason than finishing or a stop (the outcome says why).
    FAILED = 'failed'
    #: An operator stopped it (this client's :meth:`Task.cancel`, the CLI, the panel).
    CANCELED = 'canceled'
    STOPPED_BY_ESTOP = 'stopped by the e-stop'
    #: Teleoperation or another activity (a simple goal) took over.
    INTERRUPTED = 'interrupted'
    #: The suite refused to start it.
    REJECTED = 'rejected'


class WaypointLike(WaypointStatus, Protocol):
    """What the tracker reads of a waypoint (a ``robot_sm_msgs/Waypoint`` has it)."""

    @property
    def id(self) -> int:  # noqa: A003 - the message's field name
        """Return the waypoint's stable id."""
        ...  # pragma: no cover


class Reply(Protocol):
    """The suite's answer to a request (:class:`robot_sm.client.Result` is one)."""

    success: bool
    message: str


ReplyT = TypeVar('ReplyT', bound=Reply)


@dataclass(frozen=True)
class TaskFeedback:
    """How far a task has come."""

    #: The suite's current state.
    state: str
    #: Seconds since the task was started.
    elapsed: float
    #: Waypoint following: index and id of the waypoint being driven to (or run at), else None.
    waypoint_index: Optional[int] = None
    waypoint_id: Optional[int] = None
    #: Waypoints (by id) seen visited / unreachable since the task started, and the list size.
    visited: int = 0
    unreachable: int = 0
    total: int = 0
    #: Rounds completed: lists seen with every waypoint visited or unreachable.
    rounds: int = 0
    #: Goals driven to so far (entries into the activity's Navigation state): waypoints,
    #: exploration goals, the simple goal.
    goals: int = 0


@dataclass(frozen=True)
class TaskResult:
    """How a task ended."""

    status: TaskStatus
    #: The activity's last outcome on ``robot_sm/state_outcome`` (or the refusal), or ''.
    outcome: str
    #: The state it ended in ('' if it never ran).
    state: str
    feedback: TaskFeedback

    @property
    def message(self) -> str:
        """Return one line saying how it ended."""
        if self.status is TaskStatus.STOPPED_BY_ESTOP:
            return 'stopped by the emergency stop'
        if self.status is TaskStatus.INTERRUPTED:
            return f'interrupted: {self.state} took over'
        return self.outcome or f'ended in {self.state} without an outcome'


def _says(outcome: str, messages: Sequence[str]) -> bool:
    return any(outcome == message or outcome.endswith(f': {message}') for message in messages)


@dataclass
class _Progress:
    visited: Set[int] = field(default_factory=set)
    unreachable: Set[int] = field(default_factory=set)
    ids: FrozenSet[int] = frozenset()
    rounds: int = 0
    complete: bool = False
    index: Optional[int] = None
    waypoint_id: Optional[int] = None


class ActivityTracker:
    """One activity followed from the suite's messages (see the module's description)."""

    def __init__(self, activity: Activity, started_at: float, state: str = '',
                 waypoints: Sequence[WaypointLike] = (), reverse: bool = False) -> None:
        """Start from the state and the waypoint list as they were before the start."""
        self.activity = activity
        self.started_at = started_at
        self.state = state
        #: Whether one of the activity's states was seen.
        self.begun = False
        #: Entries into the activity's Navigation state.
        self.goals = 0
        #: The last outcome since the start ('' for none).
        self.outcome = ''
        #: Whether this client stopped it.
        self.canceled = False
        # Another activity running at the start may still change state before this one begins.
        self._earlier = next((a for a in Activity if a.owns(state)), None)
        self._refusal: Optional[str] = None
        self._ended_in: Optional[str] = None
        self._ended_at = 0.0
        self._outcome_after_end = False
        self._result: Optional[TaskResult] = None
        self._progress = _Progress()
        self.on_waypoints(waypoints, reverse)
        self._progress.rounds = 0

    # -- what the suite said --------------------------------------------------------------------

    def refused(self, message: str) -> None:
        """Take the suite's refusal to start."""
        self._refusal = message

    def on_state(self, name: str, now: float) -> None:
        """Take a state name, in arrival order."""
        self.state = name
        if self._ended_in is not None:
            return
        if self.activity.owns(name):
            self.begun = True
            if name == self.activity.navigation_state:
                self.goals += 1
            return
        if not self.begun:
            if name == IDLE and not self.outcome:
                return  # nothing has happened yet
            if self._earlier is not None and self._earlier.owns(name):
                return  # the activity it replaces, still ending
        self._ended_in, self._ended_at = name, now

    def on_outcome(self, text: str, now: float) -> None:
        """Take an outcome, in arrival order."""
        if self._ended_in is None:
            self.outcome = text
            if not self.begun and text.startswith(GOAL_IGNORED):
                self._refusal = text
        elif not self._outcome_after_end and now - self._ended_at <= OUTCOME_GRACE:
            # Published in the tick that ended the activity, arrived after its state.
            self._outcome_after_end = True
            if not self.outcome_settled:
                self.outcome = text

    def on_waypoints(self, waypoints: Sequence[WaypointLike], reverse: bool) -> None:
        """Take a waypoint list, in arrival order."""
        progress = self._progress
        progress.ids = frozenset(int(w.id) for w in waypoints)
        progress.visited.update(int(w.id) for w in waypoints if w.visited)
        progress.unreachable.update(int(w.id) for w in waypoints if w.unreachable)
        complete = bool(waypoints) and all(w.visited or w.unreachable for w in waypoints)
        if complete and not progress.complete:
            progress.rounds += 1
        progress.complete = complete
        index = next_waypoint_index(waypoints, reverse)
        progress.index = index
        progress.waypoint_id = int(waypoints[index].id) if index is not None else None

    # -- what it tells --------------------------------------------------------------------------

    @property
    def outcome_settled(self) -> bool:
        """Return whether the last outcome alone says how the activity ended."""
        return _says(self.outcome, SUCCEEDED_OUTCOMES + CANCELED_OUTCOMES)

    def feedback(self, now: float) -> TaskFeedback:
        """Return the progress at monotonic time ``now``."""
        progress = self._progress
        following = self.activity is Activity.WAYPOINT_FOLLOWING \
            and self.activity.owns(self.state)
        return TaskFeedback(
            state=self.state, elapsed=now - self.started_at,
            waypoint_index=progress.index if following else None,
            waypoint_id=progress.waypoint_id if following else None,
            visited=len(progress.visited & progress.ids),
            unreachable=len(progress.unreachable & progress.ids),
            total=len(progress.ids), rounds=progress.rounds, goals=self.goals)

    def result(self, now: float) -> Optional[TaskResult]:
        """Return how the activity ended, or None while it runs (or its outcome may come)."""
        if self._result is None:
            self._result = self._decide(now)
        return self._result

    def _decide(self, now: float) -> Optional[TaskResult]:
        if self._refusal is not None:
            return TaskResult(TaskStatus.REJECTED, self._refusal, '', self.feedback(now))
        ended_in = self._ended_in
        if ended_in is None:
            return None
        outcome = ''
        if ended_in == EMERGENCY_STOP:
            status = TaskStatus.STOPPED_BY_ESTOP
        elif ended_in != IDLE:
            status = TaskStatus.INTERRUPTED
        else:
            outcome = self.outcome
            if self.canceled or _says(outcome, CANCELED_OUTCOMES):
                status = TaskStatus.CANCELED
            elif _says(outcome, SUCCEEDED_OUTCOMES):
                status = TaskStatus.SUCCEEDED
            elif not self._outcome_after_end and now - self._ended_at < OUTCOME_GRACE:
                return None
            else:
                status = TaskStatus.FAILED
        return TaskResult(status, outcome, ended_in, self.feedback(self._ended_at))


class WaitTimeout(TimeoutError):
    """A wait ran out of time; the message says what was awaited and what was seen."""


class TaskEnded(RuntimeError):
    """The task ended before what was awaited happened; :attr:`result` says how."""

    def __init__(self, result: TaskResult) -> None:
        super().__init__(f'the task ended first: {result.status.value}: {result.message}')
        self.result = result


class Task(Generic[ReplyT]):
    """
    A started activity: ``is_done``, ``feedback``, ``result``, ``cancel`` and ``wait``.

    :class:`robot_sm.client.SuiteClient` creates it and feeds it the suite's messages from its
    spin thread (:meth:`update`); any thread may ask it.
    """

    def __init__(self, tracker: ActivityTracker, stop: Callable[[], ReplyT],
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Follow ``tracker``'s activity; ``stop`` asks the suite to stop it."""
        self.activity = tracker.activity
        self._tracker = tracker
        self._stop = stop
        self._clock = clock
        self._changed = threading.Condition()

    def update(self, apply: Callable[[ActivityTracker, float], None]) -> None:
        """Apply one message: ``apply(tracker, now)``; wake the waiters."""
        with self._changed:
            apply(self._tracker, self._clock())
            self._changed.notify_all()

    def is_done(self) -> bool:
        """Return whether the task has ended."""
        return self.result() is not None

    def feedback(self) -> TaskFeedback:
        """Return its progress now."""
        with self._changed:
            return self._tracker.feedback(self._clock())

    def result(self) -> Optional[TaskResult]:
        """Return how it ended, or None while it runs."""
        with self._changed:
            return self._tracker.result(self._clock())

    def cancel(self) -> ReplyT:
        """Stop the activity as an operator's stop does; return the suite's answer."""
        reply = self._stop()
        if reply.success:
            self.update(lambda tracker, now: setattr(tracker, 'canceled', True))
        return reply

    def wait(self, timeout: float) -> TaskResult:
        """
        Wait until the task ends; return how.

        :raises WaitTimeout: if it has not ended within ``timeout`` seconds.
        """
        ended = self._await(lambda feedback: False, timeout, 'end')
        assert isinstance(ended, TaskResult)
        return ended

    def wait_for_feedback(self, predicate: Callable[[TaskFeedback], bool],
                          timeout: float) -> TaskFeedback:
        """
        Wait until ``predicate(feedback)`` holds while the task runs; return that feedback.

        :raises WaitTimeout: if it does not hold within ``timeout`` seconds.
        :raises TaskEnded: if the task ends first.
        """
        found = self._await(predicate, timeout, 'make that progress')
        if isinstance(found, TaskResult):
            raise TaskEnded(found)
        return found

    def _await(self, predicate: Callable[[TaskFeedback], bool], timeout: float,
               what: str) -> Union[TaskFeedback, TaskResult]:
        deadline = self._clock() + timeout
        with self._changed:
            while True:
                now = self._clock()
                feedback = self._tracker.feedback(now)
                if predicate(feedback):
                    return feedback
                result = self._tracker.result(now)
                if result is not None:
                    return result
                if now >= deadline:
                    activity = self.activity.name.lower().replace('_', ' ')
                    raise WaitTimeout(f'{activity} did not {what} within {timeout:g} s '
                                      f'({describe(feedback)})')
                # Time alone may decide the result (OUTCOME_GRACE): look again soon.
                self._changed.wait(min(deadline - now, OUTCOME_GRACE / 5))


def describe(feedback: TaskFeedback) -> str:
    """Return the progress in one line: state, waypoints or goals, time."""
    parts = [f'state {feedback.state or "unknown"}']
    if feedback.total:
        parts.append(f'waypoints {feedback.visited} visited, {feedback.unreachable} '
                     f'unreachable of {feedback.total}')
    if feedback.waypoint_index is not None:
        parts.append(f'driving to #{feedback.waypoint_index} (id {feedback.waypoint_id})')
    if feedback.goals:
        parts.append(f'{feedback.goals} goals')
    parts.append(f'{feedback.elapsed:.1f} s')
    return ', '.join(parts)
