"""
Write the newest record of a state to disk on a thread of its own, never making the caller wait.

The mux keeps its e-stop latch on disk, but stopping the robot must not wait for an fsync: the
caller hands over each new record and returns at once; the writer thread saves records in the
order given, skipping any that a newer one replaced before its turn, so the file always ends up
holding the newest. A failed write is reported through ``on_error`` (and kept in :attr:`error`)
and the next record is tried as usual.
"""

import threading
from typing import Callable, Generic, Optional, TypeVar

RecordT = TypeVar('RecordT')


class BackgroundWriter(Generic[RecordT]):
    """Save the newest record given to :meth:`write` with ``save`` on a background thread."""

    def __init__(self, save: Callable[[RecordT], None],
                 on_error: Callable[[str], None] = lambda message: None,
                 name: str = 'background-writer') -> None:
        """Start the thread; ``save`` raises OSError when a record cannot be written."""
        self._save = save
        self._on_error = on_error
        self._condition = threading.Condition()
        self._pending: Optional[RecordT] = None
        self._has_pending = False
        self._busy = False
        self._closed = False
        #: Why the last write failed; None after a write that succeeded.
        self.error: Optional[str] = None
        #: Records written successfully and writes that failed, since the start.
        self.written = 0
        self.failed = 0
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def write(self, record: RecordT) -> None:
        """Queue ``record`` for writing (it replaces one still waiting) and return at once."""
        with self._condition:
            self._pending, self._has_pending = record, True
            self._condition.notify_all()

    def flush(self, timeout: float) -> bool:
        """Wait until every record given so far is written (or failed); False on timeout."""
        with self._condition:
            return self._condition.wait_for(
                lambda: not self._has_pending and not self._busy, timeout)

    def close(self, timeout: float = 2.0) -> bool:
        """Write what is waiting, then stop the thread; return False if that took too long."""
        flushed = self.flush(timeout)
        with self._condition:
            self._closed = True
            self._condition.notify_all()
        self._thread.join(timeout)
        return flushed and not self._thread.is_alive()

    def _run(self) -> None:
        while True:
            with self._condition:
                self._condition.wait_for(lambda: self._has_pending or self._closed)
                if not self._has_pending:
                    return
                record = self._pending
                self._pending, self._has_pending, self._busy = None, False, True
            try:
                self._save(record)  # type: ignore[arg-type]  # set with _has_pending
            except OSError as error:
                message = f'{type(error).__name__}: {error}'
                with self._condition:
                    self.error, self.failed = message, self.failed + 1
                self._on_error(message)
            else:
                with self._condition:
                    self.error, self.written = None, self.written + 1
            finally:
                with self._condition:
                    self._busy = False
                    self._condition.notify_all()
