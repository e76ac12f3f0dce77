"""
Quote a value back to whoever sent it, cut to a length a person can read.

Refusals name the offending value (``routine: unknown routine 'Wiat'``). A value can be as long
as a message allows, and a megabyte quoted back is neither readable nor cheap to log, so every
place that quotes a request or parameter value uses :func:`quoted`.
"""

from typing import Any

#: Characters of a value's ``repr`` quoted at most.
QUOTE_LIMIT = 80


def quoted(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """
    Return ``repr(value)``, or its first ``limit`` characters and how long it was.

    >>> quoted('Wait')
    "'Wait'"
    >>> quoted('x' * 1000, limit=10)
    "'xxxxxxxxx... (1002 characters)"
    """
    text = repr(value)
    if len(text) <= limit:
        return text
    return f'{text[:limit]}... ({len(text)} characters)'
