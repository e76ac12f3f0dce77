"""
The audit log: every operator command, control change and STOP, as JSON lines under ROS_HOME.

The gateway appends one :class:`Record` per line to ``audit.jsonl`` (in the robot's folder of
``$ROS_HOME/robot_sm/``) and flushes it before it answers, so that a suite killed at any moment
keeps every entry it acknowledged. When the file grows past ``max_bytes`` it is rotated
(``audit.jsonl.1`` ... ``audit.jsonl.<files - 1>``, oldest dropped), so the log never holds
more than ``max_bytes * files`` bytes. :func:`read_records` reads the files back, oldest first,
skipping lines it cannot read (a line cut by a power loss). Pure: no rclpy.
"""

from dataclasses import asdict, dataclass, field
import json
import os
import pathlib
from typing import Any, Dict, Iterator, List, Optional, TextIO

#: What an entry records.
KINDS = ('command', 'control', 'stop', 'raw')


@dataclass(frozen=True)
class Record:
    """One entry: when, who (name, surface, address), what, and the suite's answer."""

    time: float
    kind: str
    operator: str
    surface: str = ''
    address: str = ''
    command: str = ''
    arguments: Dict[str, Any] = field(default_factory=dict)
    success: bool = True
    code: str = 'done'
    message: str = ''

    def line(self) -> str:
        """Return the record as one line of JSON (no newline)."""
        return json.dumps(asdict(self), separators=(',', ':'), allow_nan=False, default=str)

    @classmethod
    def from_line(cls, line: str) -> 'Record':
        """
        Return the record of a line written by :meth:`line`.

        :raises ValueError: if the line is not such a record.
        """
        document = json.loads(line)
        if not isinstance(document, dict):
            raise ValueError('not an object')
        return cls(**{name: document[name] for name in cls.__dataclass_fields__
                      if name in document})


class AuditLog:
    """The audit file of one robot, appended line by line and rotated by size."""

    def __init__(self, path: str, max_bytes: int = 10 * 1024 * 1024, files: int = 5) -> None:
        """Append to ``path`` (folders made as needed); rotate past ``max_bytes``."""
        self.path = pathlib.Path(os.path.expanduser(path))
        self.max_bytes = max_bytes
        self.files = max(1, files)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: Optional[TextIO] = None

    def append(self, record: Record) -> None:
        """
        Append ``record`` and flush it to the operating system (it survives a killed process).

        :raises OSError: if it cannot be written.
        """
        text = record.line() + '\n'
        handle = self._open()
        if handle.tell() and handle.tell() + len(text) > self.max_bytes:
            self._rotate()
            handle = self._open()
        handle.write(text)
        handle.flush()

    def _open(self) -> TextIO:
        if self._file is None:
            self._file = open(self.path, 'a', encoding='utf-8')
        return self._file

    def _rotate(self) -> None:
        """Shift ``audit.jsonl`` to ``.1``, ``.1`` to ``.2`` ...; drop the oldest."""
        self.close()
        for number in range(self.files - 1, 0, -1):
            older = self._numbered(number - 1)
            if older.exists():
                older.replace(self._numbered(number))
        if self.files == 1:
            self.path.unlink(missing_ok=True)

    def _numbered(self, number: int) -> pathlib.Path:
        return self.path if number == 0 else self.path.with_name(f'{self.path.name}.{number}')

    def close(self) -> None:
        """Close the file (the next append opens it again)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def paths(self) -> List[pathlib.Path]:
        """Return the log's files, oldest first."""
        return [path for path in (self._numbered(n) for n in range(self.files - 1, -1, -1))
                if path.exists()]


def read_records(paths: List[pathlib.Path]) -> Iterator[Record]:
    """Yield the records of ``paths`` (oldest file first), skipping unreadable lines."""
    for path in paths:
        try:
            lines = path.read_text(encoding='utf-8', errors='replace').splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                yield Record.from_line(line)
            except (ValueError, TypeError):
                continue


def selected(records: List[Record], since: float = 0.0, operator: str = '',
             limit: int = 0) -> List[Record]:
    """Return the records at or after ``since`` (by ``operator`` if given), the last ``limit``."""
    chosen = [r for r in records if r.time >= since and (not operator or r.operator == operator)]
    return chosen[-limit:] if limit else chosen
