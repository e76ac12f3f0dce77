"""Service calls that states start and poll: a call never blocks the tick."""

import threading
from typing import Any, Callable, Generic, Optional, TypeVar

#: What a call is answered with: a response message for plugins' own services, a core value
#: (:mod:`robot_sm.statemachine.suite_port`) for the suite's.
T = TypeVar('T')


class PendingCall(Generic[T]):
    """
    A service call in flight, answered later or timed out.

    The node completes it from its executor (:meth:`complete` or :meth:`fail_with`); states poll
    :meth:`done` on their ticks. ``clock`` and ``deadline`` are in the same seconds as the
    state machine's time, so a call that is never answered ends as failed at the deadline.
    """

    def __init__(self, service: str, clock: Callable[[], float], timeout: float) -> None:
        self.service = service
        self._clock = clock
        self._deadline = clock() + timeout
        self._timeout = timeout
        self._lock = threading.Lock()
        self._finished = False
        self._response: Optional[T] = None
        self._error: Optional[str] = None

    def complete(self, response: T) -> None:
        """Record the answer (from the executor's thread)."""
        with self._lock:
            if not self._finished:
                self._finished, self._response = True, response

    def fail_with(self, reason: str) -> None:
        """Record that the call could not be made or answered."""
        with self._lock:
            if not self._finished:
                self._finished, self._error = True, reason

    def done(self) -> bool:
        """Return True once answered, failed or past its deadline."""
        with self._lock:
            if not self._finished and self._clock() >= self._deadline:
                self._finished = True
                self._error = f'no answer within {self._timeout:g} s'
            return self._finished

    @property
    def ok(self) -> bool:
        """Return True if the call was answered (whatever the answer says)."""
        return self.done() and self._error is None

    @property
    def succeeded(self) -> bool:
        """Return True if answered with ``success`` true (or a response without ``success``)."""
        return self.ok and bool(getattr(self._response, 'success', True))

    @property
    def response(self) -> Optional[T]:
        """Return the answer; None while pending or after a failure."""
        return self._response

    def describe(self) -> str:
        """Return a line for logs: the error, or the answer's message."""
        if not self.done():
            return f'{self.service}: pending'
        if self._error is not None:
            return f'{self.service}: {self._error}'
        message = getattr(self._response, 'message', '')
        return f'{self.service}: {message}' if message else self.service


class PendingGoal(PendingCall[Any]):
    """
    An action goal in flight: the deadline covers its acceptance, then it runs until its result.

    The node calls :meth:`accept` when the server accepts it, then :meth:`complete` with a
    response whose ``success`` says whether the goal succeeded and whose ``message`` names the
    final status. :meth:`cancel` asks the server to cancel it.
    """

    def __init__(self, action: str, clock: Callable[[], float], timeout: float) -> None:
        super().__init__(action, clock, timeout)
        self._cancel: Optional[Callable[[], Any]] = None
        #: The newest feedback message of the goal; None before the first.
        self.feedback: Any = None

    def accept(self, cancel: Callable[[], Any]) -> None:
        """Record the acceptance; the goal may now take as long as it needs."""
        with self._lock:
            self._deadline = float('inf')
            self._cancel = cancel

    @property
    def accepted(self) -> bool:
        """Return True once the server accepted the goal."""
        return self._cancel is not None

    def cancel(self) -> None:
        """Ask the server to cancel the goal if it still runs."""
        if self._cancel is not None and not self.done():
            self._cancel()
