"""
What each request's command prints, kept apart while several run at once in the daemon.

The verbs print with ``print()`` to ``sys.stdout`` and ``sys.stderr``. :func:`install` puts a
stream in front of each that writes to the capture of the thread that writes, if it has one
(:func:`captured`), and to the daemon's own stream otherwise: requests run on threads of their
own, so that a long command never holds up an e-stop.
"""

import contextlib
import io
import sys
import threading
from typing import Iterator, List, TextIO, Tuple

_local = threading.local()


class _ThreadStream(io.TextIOBase):
    """A text stream that writes to the current thread's capture, else to ``fallback``."""

    def __init__(self, stream: int, fallback: TextIO) -> None:
        self._stream = stream
        self._fallback = fallback

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        pieces = getattr(_local, 'pieces', None)
        if pieces is None:
            return self._fallback.write(text)
        if pieces and pieces[-1][0] == self._stream:
            pieces[-1] = (self._stream, pieces[-1][1] + text)
        elif text:
            pieces.append((self._stream, text))
        return len(text)

    def flush(self) -> None:
        if getattr(_local, 'pieces', None) is None:
            self._fallback.flush()

    def isatty(self) -> bool:
        return False


def install() -> None:
    """Put the per-thread streams in front of ``sys.stdout`` and ``sys.stderr``."""
    if not isinstance(sys.stdout, _ThreadStream):
        sys.stdout = _ThreadStream(1, sys.stdout)
    if not isinstance(sys.stderr, _ThreadStream):
        sys.stderr = _ThreadStream(2, sys.stderr)


@contextlib.contextmanager
def captured() -> Iterator[List[Tuple[int, str]]]:
    """Capture what this thread prints, as (1 for stdout or 2 for stderr, text) in order."""
    pieces: List[Tuple[int, str]] = []
    _local.pieces = pieces
    try:
        yield pieces
    finally:
        _local.pieces = None
