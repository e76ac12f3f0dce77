"""
The thin client: how ``robot-sm`` has its daemon do a command, and ``robot-sm daemon ...``.

Nothing here imports rclpy: a command the daemon does costs a Python start, the parsing of its
command line and one exchange of lines on a local socket (:mod:`.protocol`).

:func:`run_through_daemon` never leaves a command undone and never waits on a daemon that does
not work: without a daemon it starts one in the background and the command runs in its own
process as before (the first command is no slower than without a daemon); a daemon that does not
take the request within :data:`ACCEPT_TIMEOUT`, or refuses it, is passed by with a note on
stderr; one that goes quiet (no line for :data:`SILENCE_TIMEOUT`) or ends after it took the
request is passed by too for a command that may be done twice, and otherwise reported (exit 2):
the command may have been done.
"""

import argparse
import fcntl
import functools
import os
import pathlib
import socket
import sys
import time
from typing import Any, Callable, Dict, List, Optional

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
    socket_directory,
    socket_path,
)

__all__ = ['bypassed', 'run_through_daemon', 'start', 'status', 'stop']

#: Seconds a daemon has to take a request; one that does not is taken for hung.
ACCEPT_TIMEOUT = 1.0
#: Seconds without a line from a daemon at work after which it is taken for hung.
SILENCE_TIMEOUT = 6 * KEEPALIVE
EXIT_OK, EXIT_REFUSED, EXIT_UNAVAILABLE = 0, 1, 2

#: Prints an answer: the data as JSON with ``--json``, else the text.
Emit = Callable[[Any, str], None]


def _note(text: str) -> None:
    print(f'robot-sm: {text}', file=sys.stderr)


def _next(reader: LineReader, deadline: float) -> Optional[Dict[str, Any]]:
    """Return the next message, or None once the daemon has closed the connection."""
    import json
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


def _connect(path: pathlib.Path, timeout: float = ACCEPT_TIMEOUT) -> socket.socket:
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


def run_through_daemon(argv: List[str], repeatable: bool, prepare: str,
                       budget: float) -> Optional[int]:
    """
    Have the daemon run the command line ``argv``; print its output, return its exit code.

    Returns None when this process is to do the command itself (see the module). ``repeatable``:
    whether doing the command twice does what doing it once does; ``prepare``: what a daemon
    started now prepares (``suite:NAMESPACE`` or ``fleet:NAMESPACE``); ``budget``: seconds the
    command may take at most.
    """
    try:
        caller = environment()
        path = socket_path(caller)
    except DaemonUnusable as why:
        _note(f'not using the daemon: {why}')
        return None
    try:
        connection = _connect(path)
    except (FileNotFoundError, ConnectionRefusedError):
        start_daemon(path, prepare)  # for the next command: this one does its own work
        return None
    except OSError as error:
        _note(f'the daemon does not answer ({error}): doing the command in this process')
        return None
    with connection:
        return _exchange(connection, run_request(argv, caller), repeatable, budget)


def _exchange(connection: socket.socket, request: Dict[str, Any], repeatable: bool,
              budget: float) -> Optional[int]:
    reader = LineReader(connection)
    try:
        connection.sendall(encode(request))
        message = _next(reader, time.monotonic() + ACCEPT_TIMEOUT)
    except (OSError, ProtocolError) as error:
        why = 'it did not take it within 1 s' if isinstance(error, socket.timeout) else str(error)
        _note(f'the daemon did not take the command ({why}): doing it in this process')
        return None
    if message is None or not message.get('accepted'):
        why = 'it closed the connection' if message is None else message.get('error', message)
        _note(f'the daemon did not take the command ({why}): doing it in this process')
        return None
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
                _write(output_of(message))
            except ProtocolError as error:
                return _lost(str(error), repeatable)
            return int(message['exit'])


def _lost(why: str, repeatable: bool) -> Optional[int]:
    if repeatable:
        _note(f'the daemon did not answer ({why}): doing the command in this process')
        return None
    _note(f'the daemon did not answer ({why}); the command may have been done: check before '
          'doing it again')
    return EXIT_UNAVAILABLE


def _write(pieces: List[Any]) -> None:
    """Write what the command printed, in its order, to this process's stdout and stderr."""
    for stream, text in pieces:
        (sys.stdout if stream == 1 else sys.stderr).write(text)
        (sys.stdout if stream == 1 else sys.stderr).flush()


# ---- robot-sm daemon start | stop | status ------------------------------------------------------


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
        with _connect(path, timeout) as connection:
            connection.sendall(encode(control_request(control)))
            return _next(LineReader(connection), time.monotonic() + timeout)
    except (OSError, ProtocolError):
        return None


def _paths(args: argparse.Namespace) -> List[pathlib.Path]:
    """Return the socket of this environment's daemon, or (``--all``) of every daemon here."""
    if getattr(args, 'all', False):
        locks = socket_directory().glob('daemon-*.lock')
        return sorted(lock.with_suffix('.sock') for lock in locks)
    return [socket_path(environment())]


def _described(path: pathlib.Path, answer: Dict[str, Any]) -> str:
    served = ', '.join([f'suite {n}' for n in answer['suites']]
                       + [f'fleet {n}' for n in answer['fleets']]) or 'nothing yet'
    return (f"running (pid {answer['pid']}, up {answer['uptime']:.0f} s, last request "
            f"{answer['idle']:.0f} s ago, exits after {answer['idle_timeout']:g} s without one; "
            f'serves {served}) at {path}')


def _with_sockets(verb: Callable[[argparse.Namespace, Emit, List[pathlib.Path]], int]
                  ) -> Callable[[argparse.Namespace, Emit], int]:
    """Give a ``daemon`` verb the sockets it is about (:func:`_paths`), or say there are none."""
    @functools.wraps(verb)
    def with_sockets(args: argparse.Namespace, emit: Emit) -> int:
        try:
            paths = _paths(args)
        except DaemonUnusable as why:
            _note(f'no daemon here: {why}')
            return EXIT_UNAVAILABLE
        return verb(args, emit, paths)

    return with_sockets


@_with_sockets
def start(args: argparse.Namespace, emit: Emit, paths: List[pathlib.Path]) -> int:
    """Start the daemon of this environment if it is not running; wait until it answers."""
    [path] = paths
    answer = ask(path, 'status')
    if answer is None and running_pid(path) is None:
        start_daemon(path, f'suite:{args.namespace}')
        deadline = time.monotonic() + max(args.timeout, 10.0)
        while answer is None and time.monotonic() < deadline:
            time.sleep(0.05)
            answer = ask(path, 'status')
    if answer is None:
        _note(f'the daemon at {path} does not answer (see {log_path(path)})')
        return EXIT_UNAVAILABLE
    emit(answer, _described(path, answer))
    return EXIT_OK


@_with_sockets
def status(args: argparse.Namespace, emit: Emit, paths: List[pathlib.Path]) -> int:
    """Show whether the daemon runs, its pid, socket and what it serves (exit 1: not running)."""
    codes, shown, lines = {EXIT_REFUSED}, [], []
    for path in paths:
        answer, pid = ask(path, 'status'), running_pid(path)
        if answer is not None:
            codes.add(EXIT_OK)
            lines.append(_described(path, answer))
        elif pid is not None:
            codes.add(EXIT_UNAVAILABLE)
            answer = {'running': True, 'pid': pid, 'answering': False}
            lines.append(f'running but not answering (pid {pid}) at {path}')
        elif not getattr(args, 'all', False):
            answer = {'running': False}
            lines.append(f'not running (socket {path})')
        if answer is not None:
            shown.append({**answer, 'socket': str(path)})
    emit(shown if getattr(args, 'all', False) else shown[0], '\n'.join(lines) or 'none running')
    # 0 if one answers, else 2 if one runs but does not answer, else 1: none runs.
    return next(code for code in (EXIT_OK, EXIT_UNAVAILABLE, EXIT_REFUSED) if code in codes)


@_with_sockets
def stop(args: argparse.Namespace, emit: Emit, paths: List[pathlib.Path]) -> int:
    """Stop the daemon (one that does not answer: SIGTERM, then SIGKILL); wait until it ended."""
    stopped = []
    for path in paths:
        pid = running_pid(path)
        if pid is None:
            continue
        if ask(path, 'stop') is None or not _ended(path, 5.0):
            _end_by_signal(path, pid)
        stopped.append({'pid': pid, 'socket': str(path)})
    emit(stopped, '\n'.join(f"stopped (pid {s['pid']}) at {s['socket']}" for s in stopped)
         or 'not running')
    return EXIT_OK


def _ended(path: pathlib.Path, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while running_pid(path) is not None:
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


def _end_by_signal(path: pathlib.Path, pid: int) -> None:
    """End a daemon that does not answer: SIGTERM, then SIGKILL (only a robot-sm daemon)."""
    import signal
    try:
        command = pathlib.Path(f'/proc/{pid}/cmdline').read_bytes().split(b'\0')
    except OSError:
        return
    if b'robot_sm.frontends.daemon.server' not in command:
        return
    for signal_number in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, signal_number)
        except ProcessLookupError:
            return
        if _ended(path, 3.0):
            return
