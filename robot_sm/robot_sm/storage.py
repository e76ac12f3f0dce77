"""
The files the suite keeps on disk: where they live by default, and how they are written.

Each robot gets a folder of its own under ``$ROS_HOME/robot_sm/`` (``~/.ros`` when ROS_HOME is
not set): the root namespace directly there, namespace ``/robot1`` in ``robot_sm/robot1/``, so
several robots on one machine never share a file.

A file is written atomically: to a temporary file in the same directory, flushed to disk (fsync),
renamed over the old file, and the directory fsynced, so after a crash or a power loss it holds
the old content or the new one, never a mix. A file that cannot be read is never overwritten: it
is renamed to ``<name>.corrupt-<UTC time>`` and kept for an operator to look at.
"""

import os
import pathlib
import tempfile
import time
from typing import Union

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
