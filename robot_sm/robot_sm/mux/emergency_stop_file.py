"""
The e-stop latch on disk: whether the e-stop is engaged, why, and since when.

The mux writes it on every engage and release (atomically, see :mod:`robot_sm.storage`) and
reads it at start, so an engaged e-stop survives a crash of the mux, a restart of the suite and a
power loss. A file that cannot be read, or does not hold a latch, is moved aside
(``<name>.corrupt-<UTC time>``) and the mux starts with the e-stop engaged: when in doubt, stop.

The format::

    format: robot_sm/emergency_stop
    version: 1
    engaged: true
    reason: emergency_stop service
    time: '2026-11-23T10:17:05.120Z'    # UTC, when it was engaged or released
"""

from dataclasses import dataclass
import time
from typing import Any, Dict

from robot_sm.storage import KeptFile
import yaml

FORMAT = 'robot_sm/emergency_stop'
VERSION = 1
_KEYS = {'format', 'version', 'engaged', 'reason', 'time'}


class LatchFormatError(ValueError):
    """The file's content is not an e-stop latch; the message says what is wrong."""


@dataclass(frozen=True)
class Latch:
    """One record of the latch: engaged or released, why, and when (UTC, ISO 8601)."""

    engaged: bool
    reason: str
    time: str


@dataclass(frozen=True)
class LatchLoad:
    """What the mux starts with: an empty reason means released."""

    emergency_stop_reason: str = ''
    problem: str = ''


def utc_time(seconds: float) -> str:
    """Return wall-clock ``seconds`` since the epoch as ``YYYY-MM-DDTHH:MM:SS.mmmZ``."""
    whole = int(seconds)
    return (time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(whole))
            + f'.{int((seconds - whole) * 1000):03d}Z')


def to_document(latch: Latch) -> Dict[str, Any]:
    """Return the YAML document of ``latch``."""
    return {'format': FORMAT, 'version': VERSION, 'engaged': latch.engaged,
            'reason': latch.reason, 'time': latch.time}


def from_document(document: Any) -> Latch:
    """
    Return the latch a YAML document describes.

    :raises LatchFormatError: naming the first thing that is wrong.
    """
    if not isinstance(document, dict):
        raise LatchFormatError(f'it must hold a mapping (got {type(document).__name__})')
    unknown = set(map(str, document)) - _KEYS
    if unknown:
        raise LatchFormatError(f'unknown keys {sorted(unknown)}')
    if document.get('format') != FORMAT or document.get('version') != VERSION:
        raise LatchFormatError(f'format must be {FORMAT} version {VERSION}')
    engaged, reason, when = document.get('engaged'), document.get('reason', ''), \
        document.get('time', '')
    if not isinstance(engaged, bool):
        raise LatchFormatError('engaged must be true or false')
    if not isinstance(reason, str) or not isinstance(when, str):
        raise LatchFormatError('reason and time must be strings')
    return Latch(engaged, reason, when)


class EmergencyStopFile(KeptFile):
    """The file the latch is kept in."""

    def load(self, now: float) -> LatchLoad:
        """
        Return the state to start in; released if there is no file yet.

        A file that cannot be read or is not a latch is renamed to
        ``<name>.corrupt-<UTC time of now>`` (``now``: wall-clock seconds) and the result is
        engaged, saying why.

        :raises robot_sm.storage.PersistenceError: if a bad file cannot be moved aside.
        """
        reading = self.read(now, lambda text: from_document(yaml.safe_load(text)),
                            'an emergency stop latch', LatchFormatError)
        if reading.problem:
            problem = f'{self.path} {reading.problem}; moved it to {reading.moved_to}'
            return LatchLoad(f'{problem}: engaged to be safe', problem)
        latch = reading.content
        if latch is None or not latch.engaged:
            return LatchLoad()
        return LatchLoad(f'latched in {self.path} since {latch.time or "?"}: '
                         f'{latch.reason or "no reason given"}')

    def save(self, latch: Latch) -> None:
        """
        Write ``latch`` atomically.

        :raises OSError: if the file cannot be written; the old file is then unchanged.
        """
        self.write(yaml.safe_dump(to_document(latch), sort_keys=False))
