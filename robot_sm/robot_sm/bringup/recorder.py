"""
Every message of a topic with its arrival time, and waits on what arrives: :class:`Recorder`.

What :class:`~robot_sm.bringup.running_suite.RunningSuite` records the suite's topics into, for
the demo, the benchmarks and the tests (``robot_sm.testing`` re-exports it). Pure Python: a
subscription's callback is the recorder itself.
"""

import threading
import time
from typing import Callable, Generic, List, Optional, Tuple, TypeVar

MsgT = TypeVar('MsgT')


#: Seconds a wait for what will happen (a message, a service's answer) allows by default: a limit
#: for a failing test, never a bound on a figure (those use ``testing.SCHEDULING_SLACK``).
#: Discovery of a new participant and a fresh process take seconds on a loaded 2-core machine.
DEFAULT_TIMEOUT = 10.0


def wait_until(predicate: Callable[[], bool], timeout: float, interval: float = 0.005) -> bool:
    """Poll ``predicate`` until it is true or ``timeout`` seconds pass; return its last value."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


class Recorder(Generic[MsgT]):
    """Messages received on one topic, each with its monotonic arrival time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: List[Tuple[float, MsgT]] = []

    def __call__(self, msg: MsgT) -> None:
        with self._lock:
            self._items.append((time.monotonic(), msg))

    @property
    def messages(self) -> List[MsgT]:
        """All messages received so far, oldest first."""
        with self._lock:
            return [msg for _, msg in self._items]

    @property
    def stamped(self) -> List[Tuple[float, MsgT]]:
        """All ``(arrival time, message)`` pairs received so far, oldest first."""
        with self._lock:
            return list(self._items)

    @property
    def last(self) -> Optional[MsgT]:
        """Return the newest message, or None."""
        with self._lock:
            return self._items[-1][1] if self._items else None

    def clear(self) -> None:
        """Forget what was received."""
        with self._lock:
            self._items.clear()

    def since(self, t: float) -> List[MsgT]:
        """Messages that arrived at or after monotonic time ``t``."""
        with self._lock:
            return [msg for stamp, msg in self._items if stamp >= t]

    def wait_for(
        self,
        predicate: Callable[[MsgT], bool] = lambda _: True,
        timeout: float = DEFAULT_TIMEOUT,
        after: float = 0.0,
    ) -> MsgT:
        """
        Return the first message arriving at or after ``after`` that satisfies ``predicate``.

        :raises TimeoutError: if none arrives within ``timeout`` seconds.
        """
        found: List[MsgT] = []

        def check() -> bool:
            with self._lock:
                for stamp, msg in self._items:
                    if stamp >= after and predicate(msg):
                        found.append(msg)
                        return True
            return False

        if not wait_until(check, timeout):
            raise TimeoutError(f'no matching message within {timeout} s')
        return found[0]

    def wait_last(self, predicate: Callable[[MsgT], bool],
                  timeout: float = DEFAULT_TIMEOUT) -> MsgT:
        """
        Wait until the newest message satisfies ``predicate``; return it.

        :raises TimeoutError: if it does not within ``timeout`` seconds (naming the newest).
        """
        found: List[MsgT] = []

        def check() -> bool:
            last = self.last
            if last is not None and predicate(last):
                found.append(last)
            return bool(found)

        if not wait_until(check, timeout):
            raise TimeoutError(f'the newest message is {self.last}, after {timeout} s')
        return found[0]
