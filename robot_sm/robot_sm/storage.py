"""
The files the suite keeps on disk: where they live by default, and how they are written.

Each robot gets a folder of its own under ``$ROS_HOME/robot_sm/`` (``~/.ros`` when ROS_HOME is
not set): the root namespace directly there, namespace ``/robot1`` in ``robot_sm/robot1/``, so
several robots on one machine never share a file.

A file is written atomically: to a temporary file in the same directory, flushed to disk (fsync),
renamed over the old file, and the directory fsynced, so after a crash or a power loss it holds
the old content or the new one, never a mix. A file that cannot be read is never overwritten: it
is renamed to ``<name>.corrupt-<UTC time>`` and kept for an operator to look at.

A file that must be written without making its caller wait (the mux's e-stop latch: stopping
the robot must not wait for an fsync) is handed to a :class:`BackgroundWriter`, which saves the
newest record on a thread of its own, skipping any that a newer one replaced before its turn.
"""

from dataclasses import dataclass
import os
import pathlib
import tempfile
import threading
import time
from typing import Any, Callable, Generic, Optional, Type, TypeVar, Union

import yaml

PathLike = Union[str, 'os.PathLike[str]']


class PersistenceError(OSError):
    """A corrupt file could not be moved aside, so starting would risk overwriting it."""


def ros_home() -> pathlib.Path:
    """Return ``$ROS_HOME``, or ``~/.ros`` when it is not set."""
    home = os.environ.get('ROS_HOME')
    return pathlib.Path(home) if home else pathlib.Path.home() / '.ros'


def default_file(namespace: str, name: str) -> str:
    """
    Return where a node in ``namespace`` keeps the file ``name`` by default.

    ``$ROS_HOME/robot_sm/<name>`` in the root namespace, ``$ROS_HOME/robot_sm/robot1/<name>``
    in ``/robot1`` (nested namespaces give nested folders).
    """
    parts = [part for part in namespace.split('/') if part]
    return str(ros_home().joinpath('robot_sm', *parts, name))


def write_atomically(path: PathLike, text: str) -> None:
    """
    Replace the file at ``path`` with ``text``: temporary file, fsync, rename, directory fsync.

    :raises OSError: if it cannot be written; the old file is then unchanged.
    """
    target = pathlib.Path(path)
    directory = target.parent
    handle, temporary = tempfile.mkstemp(prefix=f'.{target.name}.', suffix='.tmp',
                                         dir=directory)
    try:
        with os.fdopen(handle, 'w', encoding='utf-8') as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    directory_handle = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(directory_handle)
    finally:
        os.close(directory_handle)


def move_aside(path: PathLike, now: float, problem: str) -> pathlib.Path:
    """
    Rename a file that cannot be used to ``<name>.corrupt-<UTC time of now>``; return the new path.

    ``now`` is wall-clock seconds since the epoch; an existing file of that name is never
    replaced (``-1``, ``-2``, ... are appended).

    :raises PersistenceError: if it cannot be renamed; the message says ``problem`` and why.
    """
    source = pathlib.Path(path)
    stamp = time.strftime('%Y%m%dT%H%M%SZ', time.gmtime(now))
    target = source.with_name(f'{source.name}.corrupt-{stamp}')
    counter = 1
    while target.exists():
        target = source.with_name(f'{source.name}.corrupt-{stamp}-{counter}')
        counter += 1
    try:
        os.rename(source, target)
    except OSError as error:
        raise PersistenceError(
            f'{source} {problem} and cannot be moved aside ({error}); fix or remove it') from error
    return target


ContentT = TypeVar('ContentT')


@dataclass(frozen=True)
class Reading(Generic[ContentT]):
    """What :meth:`KeptFile.read` found: the content (None: no file), or why it is unusable."""

    content: Optional[ContentT] = None
    #: What is wrong with the file ('' if nothing): ``cannot be read (...)``, ``is not ...``.
    problem: str = ''
    #: Where the unusable file was moved to.
    moved_to: Optional[pathlib.Path] = None


class KeptFile:
    """A file the suite keeps: its folder made, read back (or moved aside), written atomically."""

    def __init__(self, path: PathLike) -> None:
        self.path = pathlib.Path(path)

    def prepare(self) -> None:
        """
        Create the file's directory if needed.

        :raises OSError: if it cannot be created.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def read(self, now: float, parse: Callable[[Any], ContentT], kind: str,
             format_error: Type[Exception]) -> Reading[ContentT]:
        """
        Return what ``parse`` makes of the file's YAML document; no content if there is no file.

        A file that cannot be read, is not YAML, or that ``parse`` refuses with ``format_error``
        (it is not ``kind``) is moved aside (:func:`move_aside`; ``now``: wall-clock seconds).

        :raises PersistenceError: if a bad file cannot be moved aside.
        """
        try:
            text = self.path.read_text(encoding='utf-8')
        except FileNotFoundError:
            return Reading()
        except (OSError, UnicodeDecodeError) as error:
            problem = f'cannot be read ({error})'
        else:
            try:
                return Reading(parse(text))
            except yaml.YAMLError as error:
                problem = 'is not valid YAML (' + ' '.join(str(error).split()) + ')'
            except format_error as error:
                problem = f'is not {kind} ({error})'
        return Reading(problem=problem, moved_to=move_aside(self.path, now, problem))

    def write(self, text: str) -> None:
        """
        Write ``text`` atomically (:func:`write_atomically`).

        :raises OSError: if the file cannot be written; the old file is then unchanged.
        """
        write_atomically(self.path, text)


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
