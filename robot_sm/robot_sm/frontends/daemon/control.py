"""
``robot-sm daemon start | stop | status``: the daemon by hand.

``start`` starts the daemon of the caller's environment (if none runs) and waits until it
answers; ``status`` shows its pid, socket, uptime and what it serves (exit 1 when none runs, 2
when one runs but does not answer); ``stop`` asks it to end and, if it does not answer, ends it
with SIGTERM, then SIGKILL. With ``--all``, ``status`` and ``stop`` are about every daemon of the
user, whatever its environment.
"""

import argparse
import functools
import os
import pathlib
import signal
import time
from typing import Any, Callable, Dict, List

from robot_sm.frontends.cli_verbs import Emit, EXIT_OK, EXIT_REFUSED, EXIT_UNAVAILABLE
from robot_sm.frontends.daemon.client import ask, note, running_pid, start_daemon
from robot_sm.frontends.daemon.protocol import (
    DaemonUnusable,
    environment,
    log_path,
    socket_directory,
    socket_path,
)


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
            note(f'no daemon here: {why}')
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
        note(f'the daemon at {path} does not answer (see {log_path(path)})')
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
