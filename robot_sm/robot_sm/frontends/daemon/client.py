"""
The thin client: how ``robot-sm`` has its daemon do a command, without rclpy or its own parser.

:func:`ask_daemon` sends the command line as it is; the daemon parses it with ``robot-sm``'s own
parser and either takes the command or says that it is not one for it (``up``, ``connect``,
``record``, ``daemon``, ``--watch``, ``--no-daemon``, ``--help``, a usage error: those are for
``robot-sm`` itself, which prints usage and help at its terminal's width). A command the daemon
takes costs a Python start, this module and one exchange of lines on a local socket
(:mod:`.protocol`).

It never leaves a command undone and never waits on a daemon that does not work: without a
daemon the command runs in its own process as before and then starts one in the background
(:data:`MISSING`: the first command is no slower than without a daemon); a daemon that does not
take the request within :data:`ACCEPT_TIMEOUT`, or refuses it, is passed by with a note on
stderr; one that goes quiet (no line for :data:`SILENCE_TIMEOUT`) or ends after it took the
command is passed by too for a command that may be done twice, and otherwise reported (exit 2):
the command may have been done.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from typing import TYPE_CHECKING

from robot_sm.frontends.daemon.protocol import (
    bypassed,
    control_request,
    DaemonUnusable,
    encode,
    environment,
    KEEPALIVE,
    LineReader,
    lock_path,
    log_path,
    output_of,
    ProtocolError,
    run_request,
    socket_path,
)

if TYPE_CHECKING:  # the thin path does without the typing module
    import pathlib
    from typing import Any, Dict, List, Optional, Union

#: Seconds a daemon has to take a request; one that does not is taken for hung.
ACCEPT_TIMEOUT = 1.0
#: Seconds without a line from a daemon at work after which it is taken for hung.
SILENCE_TIMEOUT = 6 * KEEPALIVE
EXIT_UNAVAILABLE = 2
#: What :func:`ask_daemon` says when the daemon did not do the command: none runs (start one
#: once the command is done), it is not one for the daemon, the daemon was passed by.
MISSING, NOT_FOR_THE_DAEMON, PASSED_BY = 'missing', 'not for the daemon', 'passed by'


def note(text: str) -> None:
    """Print ``robot-sm: TEXT`` on stderr."""
    print(f'robot-sm: {text}', file=sys.stderr)


def _next(reader: LineReader, deadline: float) -> Optional[Dict[str, Any]]:
    """Return the next message, or None once the daemon has closed the connection."""
    line = reader.read(deadline)
    if line is None:
        return None
    try:
        message = json.loads(line)
    except ValueError:
        raise ProtocolError(f'not JSON: {line[:80]!r}') from None
    if not isinstance(message, dict):
        raise ProtocolError(f'not an object: {line[:80]!r}')
    return message


def connect(path: pathlib.Path, timeout: float = ACCEPT_TIMEOUT) -> socket.socket:
    """Connect to the daemon's socket at ``path``."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.settimeout(timeout)
        connection.connect(os.fspath(path))
    except BaseException:
        connection.close()
        raise
    return connection


def start_daemon(path: pathlib.Path, prepare: str) -> int:
    """Start the daemon of ``path`` in the background (it prepares ``prepare``); return its pid."""
    import subprocess
    with open(log_path(path), 'ab') as log:
        process = subprocess.Popen(
            [sys.executable, '-m', 'robot_sm.frontends.daemon.server', '--socket', str(path),
             '--prepare', prepare],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd='/', start_new_session=True)
    return process.pid


def ask_daemon(argv: List[str]) -> Union[int, str]:
    """
    Have the daemon do the command line ``argv``; print its output, return its exit code.

    Returns :data:`MISSING`, :data:`NOT_FOR_THE_DAEMON` or :data:`PASSED_BY` (with a note on
    stderr) when this process is to do the command itself (see the module).
    """
    if bypassed() or '--no-daemon' in argv or '_ARGCOMPLETE' in os.environ:
        return NOT_FOR_THE_DAEMON
    try:
        caller = environment()
        path = socket_path(caller)
    except DaemonUnusable as why:
        note(f'not using the daemon: {why}')
        return PASSED_BY
    try:
        connection = connect(path)
    except (FileNotFoundError, ConnectionRefusedError):
        return MISSING
    except OSError as error:
        note(f'the daemon does not answer ({error}): doing the command in this process')
        return PASSED_BY
    with connection:
        return _exchange(connection, run_request(argv, caller))


def _exchange(connection: socket.socket, request: Dict[str, Any]) -> Union[int, str]:
    reader = LineReader(connection)
    try:
        try:
            connection.sendall(encode(request))
        except BrokenPipeError:
            pass  # a daemon that refuses a caller says why, then hangs up: read why
        message = _next(reader, time.monotonic() + ACCEPT_TIMEOUT)
    except (OSError, ProtocolError) as error:
        why = 'it did not take it within 1 s' if isinstance(error, socket.timeout) else str(error)
        note(f'the daemon did not take the command ({why}): doing it in this process')
        return PASSED_BY
    if message is not None and 'not_for_the_daemon' in message:
        return NOT_FOR_THE_DAEMON
    if message is None or not message.get('accepted'):
        why = 'it closed the connection' if message is None else message.get('error', message)
        note(f'the daemon did not take the command ({why}): doing it in this process')
        return PASSED_BY
    return _answer(reader, bool(message.get('repeatable')), float(message.get('budget', 60.0)))


def _answer(reader: LineReader, repeatable: bool, budget: float) -> Union[int, str]:
    """Wait for the answer to a command the daemon took; write it and return its exit code."""
    deadline = time.monotonic() + budget
    while True:
        try:
            message = _next(reader, min(deadline, time.monotonic() + SILENCE_TIMEOUT))
        except socket.timeout:
            return _lost('it went quiet', repeatable)
        except (OSError, ProtocolError) as error:
            return _lost(str(error), repeatable)
        if message is None:
            return _lost('it closed the connection', repeatable)
        if 'error' in message:
            return _lost(str(message['error']), repeatable)
        if 'exit' in message:
            try:
                pieces = output_of(message)
            except ProtocolError as error:
                return _lost(str(error), repeatable)
            for stream, text in pieces:
                (sys.stdout if stream == 1 else sys.stderr).write(text)
                (sys.stdout if stream == 1 else sys.stderr).flush()
            return int(message['exit'])


def _lost(why: str, repeatable: bool) -> Union[int, str]:
    if repeatable:
        note(f'the daemon did not answer ({why}): doing the command in this process')
        return PASSED_BY
    note(f'the daemon did not answer ({why}); the command may have been done: check before '
         'doing it again')
    return EXIT_UNAVAILABLE


def running_pid(path: pathlib.Path) -> Optional[int]:
    """Return the pid of the daemon that holds the lock of ``path``, or None if none does."""
    try:
        lock = open(lock_path(path), 'r+')
    except FileNotFoundError:
        return None
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            text = lock.read().strip()
            return int(text) if text.isdigit() else 0
        fcntl.flock(lock, fcntl.LOCK_UN)
    return None


def ask(path: pathlib.Path, control: str, timeout: float = 2.0) -> Optional[Dict[str, Any]]:
    """Send ``status`` or ``stop`` to the daemon of ``path``; return its answer, None if none."""
    try:
        with connect(path, timeout) as connection:
            connection.sendall(encode(control_request(control)))
            return _next(LineReader(connection), time.monotonic() + timeout)
    except (OSError, ProtocolError):
        return None
