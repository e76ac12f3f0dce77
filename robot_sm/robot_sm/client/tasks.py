"""
Long activities of the suite as tasks: thin handles on its actions, as nav2_simple_commander has.

:meth:`robot_sm.client.SuiteClient.follow_waypoints`, :meth:`~robot_sm.client.SuiteClient.explore`
and :meth:`~robot_sm.client.SuiteClient.go_to` send a goal to the suite's action
(``robot_sm/follow_waypoints``, ``robot_sm/explore``, ``robot_sm/go_to``) and return a
:class:`Task`: :meth:`Task.feedback` is the newest feedback, :meth:`Task.result` the action's
result once it came, with the suite's outcome code as a :class:`TaskStatus`, :meth:`Task.cancel`
the operator's stop, and :meth:`Task.wait` and :meth:`Task.wait_for_feedback` wait with a
timeout. Nothing is read from names or texts: the suite says how the activity ended.
"""

from dataclasses import dataclass
import enum
import math
import threading
import time
from typing import Any, Callable, Optional, Union

from robot_sm.contract import Outcome


class TaskStatus(enum.Enum):
    """How a task ended (the suite's outcome codes, ``StateInfo.OUTCOME_*``)."""

    SUCCEEDED = 'succeeded'
    #: It ended for another reason than finishing or a stop (the outcome says why).
    FAILED = 'failed'
    #: An operator stopped it (this task's :meth:`Task.cancel`, the CLI, the panel).
    CANCELED = 'canceled'
    STOPPED_BY_ESTOP = 'stopped by the e-stop'
    #: Teleoperation or another activity (a simple goal) took over.
    INTERRUPTED = 'interrupted'
    #: The suite refused to start it.
    REJECTED = 'rejected'


#: The task's status for each outcome code.
STATUS_OF = {
    Outcome.SUCCEEDED: TaskStatus.SUCCEEDED,
    Outcome.CANCELED: TaskStatus.CANCELED,
    Outcome.FAILED: TaskStatus.FAILED,
    Outcome.REFUSED: TaskStatus.REJECTED,
    Outcome.INTERRUPTED: TaskStatus.INTERRUPTED,
    Outcome.STOPPED_BY_EMERGENCY_STOP: TaskStatus.STOPPED_BY_ESTOP,
}


@dataclass(frozen=True)
class TaskFeedback:
    """How far a task has come (the action's newest feedback)."""

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
    #: Goals driven to so far: waypoints, exploration goals.
    goals: int = 0
    #: The distance left to the goal being driven to (m); None when not known.
    distance_remaining: Optional[float] = None
    #: Waypoint following: the share of the round done, 0..1.
    progress: float = 0.0


@dataclass(frozen=True)
class TaskResult:
    """How a task ended."""

    status: TaskStatus
    #: The suite's words for how it ended ('waypoint following finished', the refusal).
    outcome: str
    #: The state it ended in ('Idle', 'Emergency Stop'; '' if it never ran).
    state: str
    feedback: TaskFeedback

    @property
    def message(self) -> str:
        """Return one line saying how it ended."""
        return self.outcome or self.status.value


class WaitTimeout(TimeoutError):
    """A wait ran out of time; the message says what was awaited and what was seen."""


class TaskEnded(RuntimeError):
    """The task ended before what was awaited happened; :attr:`result` says how."""

    def __init__(self, result: TaskResult) -> None:
        super().__init__(f'the task ended first: {result.status.value}: {result.message}')
        self.result = result


def feedback_of(message: Any, elapsed: float) -> TaskFeedback:
    """Return a task's feedback from an action's feedback message."""
    index = getattr(message, 'waypoint_index', -1)
    distance = float(getattr(message, 'distance_remaining', math.nan))
    return TaskFeedback(
        state=str(message.state), elapsed=elapsed,
        waypoint_index=index if index >= 0 else None,
        waypoint_id=int(message.waypoint_id) if index >= 0 else None,
        visited=int(getattr(message, 'visited', 0)),
        unreachable=int(getattr(message, 'unreachable', 0)),
        total=int(getattr(message, 'total', 0)), rounds=int(getattr(message, 'rounds', 0)),
        goals=int(getattr(message, 'goals', 0)),
        distance_remaining=None if math.isnan(distance) else distance,
        progress=float(getattr(message, 'progress', 0.0)))


class Task:
    """
    A started activity: ``is_done``, ``feedback``, ``result``, ``cancel`` and ``wait``.

    :class:`robot_sm.client.SuiteClient` creates it with the action goal it sent; the client's
    spin thread tells it the feedback (:meth:`on_feedback`) and the result (:meth:`on_result`),
    and any thread may ask it.
    """

    def __init__(self, activity: str, cancel: Callable[[], Any],
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Follow a goal of ``activity``; ``cancel`` asks the action server to cancel it."""
        self.activity = activity
        self._cancel = cancel
        self._clock = clock
        self._started = clock()
        self._changed = threading.Condition()
        self._feedback = TaskFeedback(state='', elapsed=0.0)
        self._result: Optional[TaskResult] = None

    # -- what the action server said --------------------------------------------------------

    def on_feedback(self, message: Any) -> None:
        """Take a feedback message of the goal."""
        with self._changed:
            if self._result is None:
                self._feedback = feedback_of(message, self._clock() - self._started)
                self._changed.notify_all()

    def on_result(self, outcome: int, message: str, totals: Any = None) -> None:
        """Take the goal's result: its outcome code and text (and its state and counts)."""
        with self._changed:
            feedback = self._feedback
            if totals is not None:
                feedback = TaskFeedback(
                    state=feedback.state, elapsed=self._clock() - self._started,
                    visited=int(getattr(totals, 'visited', feedback.visited)),
                    unreachable=int(getattr(totals, 'unreachable', feedback.unreachable)),
                    total=int(getattr(totals, 'total', feedback.total)),
                    rounds=int(getattr(totals, 'rounds', feedback.rounds)),
                    goals=int(getattr(totals, 'goals', feedback.goals)),
                    progress=feedback.progress)
            status = STATUS_OF.get(Outcome(outcome) if outcome in Outcome._value2member_map_
                                   else Outcome.FAILED, TaskStatus.FAILED)
            self._result = TaskResult(status, message, str(getattr(totals, 'state', '')),
                                      feedback)
            self._changed.notify_all()

    # -- what it tells ----------------------------------------------------------------------

    def is_done(self) -> bool:
        """Return whether the task has ended."""
        return self.result() is not None

    def feedback(self) -> TaskFeedback:
        """Return its progress now."""
        with self._changed:
            return self._feedback

    def result(self) -> Optional[TaskResult]:
        """Return how it ended, or None while it runs."""
        with self._changed:
            return self._result

    def cancel(self) -> Any:
        """Stop the activity as an operator's stop does (cancel the goal); return the answer."""
        return self._cancel()

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
                if self._result is None and predicate(self._feedback):
                    return self._feedback
                if self._result is not None:
                    return self._result
                remaining = deadline - self._clock()
                if remaining <= 0:
                    raise WaitTimeout(f'{self.activity} did not {what} within {timeout:g} s '
                                      f'({describe(self._feedback)})')
                self._changed.wait(remaining)


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
    if feedback.distance_remaining is not None:
        parts.append(f'{feedback.distance_remaining:.1f} m to go')
    parts.append(f'{feedback.elapsed:.1f} s')
    return ', '.join(parts)
