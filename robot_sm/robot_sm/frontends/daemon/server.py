"""
The daemon process: ``python -m robot_sm.frontends.daemon.server --socket PATH``.

Started by the first ``robot-sm`` command that finds none (or by ``robot-sm daemon start``), in a
session of its own, with the caller's environment. It holds the lock file beside its socket for
as long as it runs (a second daemon for the same socket sees it and ends at once) and writes its
pid there. It accepts connections at once, so that a command never waits for the daemon's own
start-up beyond its ROS context; each connection is served on a thread of its own, so that a
long command never holds up an e-stop.

A connection from another uid (``SO_PEERCRED``), a request that is not one line of the protocol
within :data:`REQUEST_TIMEOUT`, longer than :data:`~.protocol.MAX_REQUEST` bytes, or from another
environment gets an error line and changes nothing. A command line is parsed by ``robot-sm``'s
own parser (one that is not for the daemon is sent back at once) and run by
:func:`robot_sm.frontends.cli.run` with the clients the daemon keeps
(:class:`~.held_clients.HeldClients`), its output captured (:mod:`.capture`).

The daemon ends after :func:`~.protocol.idle_timeout` seconds without a request, on ``robot-sm
daemon stop``, on SIGTERM or SIGINT, when its socket is removed, and when robot_sm's modules
change on disk (:data:`CODE_CHECK`); it removes its socket.
"""

import argparse
import fcntl
import os
import pathlib
import signal
import socket
import struct
import sys
import threading
import time
import traceback
from typing import Any, Dict, IO, List, Optional, Set, Tuple

from robot_sm.frontends.daemon import capture
from robot_sm.frontends.daemon.protocol import (
    code_stamp,
    differences,
    encode,
    environment,
    idle_timeout,
    KEEPALIVE,
    LineReader,
    lock_path,
    log_path,
    MAX_REQUEST,
    parse_request,
    ProtocolError,
)

#: Seconds a client has to send its whole request line.
REQUEST_TIMEOUT = 5.0
#: Seconds the commands still running when the daemon ends have to finish.
FINISH_TIMEOUT = 10.0
#: Seconds between two looks at robot_sm's modules on disk: once they changed, new commands
#: go to a new daemon (their environment names the code), and this one ends.
CODE_CHECK = 10.0


def _peer_uid(connection: socket.socket) -> int:
    """Return the uid of the process at the other end of a Unix socket (``SO_PEERCRED``)."""
    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                        struct.calcsize('3i'))
    return int(struct.unpack('3i', credentials)[1])


class _Peer:
    """One connection; lines may be sent to it from two threads (the answer, the keepalive)."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self._lock = threading.Lock()

    def send(self, message: Dict[str, Any]) -> bool:
        """Send one line; return False if the peer has gone."""
        with self._lock:
            try:
                self.connection.sendall(encode(message))
            except OSError:
                return False
        return True


class Daemon:
    """What one daemon process does (see the module)."""

    def __init__(self, path: pathlib.Path, listener: socket.socket, idle: float) -> None:
        """Serve on ``listener`` (bound at ``path``) until ``idle`` s pass without a request."""
        self.path = path
        self.idle = idle
        self.environment = environment()
        self.started = time.monotonic()
        self._listener = listener
        self._inode = os.stat(path).st_ino
        self._last_request = time.monotonic()
        self._next_code_check = time.monotonic() + CODE_CHECK
        self._requests = 0
        self._working: Set[_Peer] = set()
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._stopping = threading.Event()
        self._parse_lock = threading.Lock()
        self._parser: Optional[argparse.ArgumentParser] = None
        self.clients: Any = None

    def stop(self, *_: Any) -> None:
        """End the daemon (also a signal handler)."""
        self._stopping.set()

    def serve(self, prepare: str) -> int:
        """Serve until stopped or idle; return the exit code."""
        capture.install()
        from robot_sm.frontends import cli, cli_verbs
        self._parser = cli.build_parser()
        for name, target in (('accept', self._accept), ('keepalive', self._keep_alive)):
            threading.Thread(target=target, name=name, daemon=True).start()
        from robot_sm.frontends.daemon.held_clients import HeldClients
        self.clients = HeldClients()
        cli_verbs.CLIENTS = self.clients
        self._ready.set()
        if prepare:
            self.clients.prepare(prepare)
        while not self._stopping.wait(0.5):
            with self._lock:
                idle = not self._working and time.monotonic() - self._last_request > self.idle
            if idle or not self._socket_is_mine() or self._code_changed():
                self._stopping.set()
        self._listener.close()
        if self._socket_is_mine():
            self.path.unlink()
        deadline = time.monotonic() + FINISH_TIMEOUT
        while self._working and time.monotonic() < deadline:
            time.sleep(0.05)
        self.clients.close()
        return 0

    def _code_changed(self) -> bool:
        """Return whether robot_sm's modules changed on disk (looked at every CODE_CHECK s)."""
        now = time.monotonic()
        if now < self._next_code_check:
            return False
        self._next_code_check = now + CODE_CHECK
        return code_stamp() != self.environment['code']

    def _socket_is_mine(self) -> bool:
        try:
            return os.stat(self.path).st_ino == self._inode
        except OSError:
            return False

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._serve_connection, args=(connection,),
                             daemon=True).start()

    def _keep_alive(self) -> None:
        while not self._stopping.wait(KEEPALIVE):
            with self._lock:
                working = list(self._working)
            for peer in working:
                peer.send({'alive': True})

    def _serve_connection(self, connection: socket.socket) -> None:
        with connection:
            peer = _Peer(connection)
            if _peer_uid(connection) != os.getuid():
                peer.send({'error': f'refused: this daemon serves uid {os.getuid()} only'})
                return
            try:
                line = LineReader(connection, MAX_REQUEST).read(
                    time.monotonic() + REQUEST_TIMEOUT)
                if line is None:
                    return
                request = parse_request(line)
            except ProtocolError as error:
                peer.send({'error': str(error)})
                return
            except OSError:
                peer.send({'error': f'no whole request line within {REQUEST_TIMEOUT:g} s'})
                return
            if 'control' in request:
                peer.send(self._control(request['control']))
                return
            differ = differences(self.environment, request['environment'])
            if differ:
                peer.send({'error': 'this daemon serves another environment ('
                                    f"{', '.join(differ)} differ)"})
                return
            self._run(peer, request['argv'], request.get('operator', ''))

    def _control(self, control: str) -> Dict[str, Any]:
        if control == 'stop':
            self.stop()
            return {'stopping': True, 'pid': os.getpid()}
        with self._lock:
            idle = time.monotonic() - self._last_request
        served = self.clients.served() if self._ready.is_set() else {'suites': [], 'fleets': []}
        return {'running': True, 'pid': os.getpid(), 'uptime': time.monotonic() - self.started,
                'idle': idle, 'idle_timeout': self.idle, 'requests': self._requests, **served}

    def _run(self, peer: _Peer, argv: List[str], operator: str) -> None:
        args = self._parse(argv)
        if args is None:
            peer.send({'not_for_the_daemon': True})
            return
        if not getattr(args, 'operator', None):
            args.operator = operator  # the caller's ROBOT_SM_OPERATOR
        with self._lock:
            self._working.add(peer)
            self._last_request = time.monotonic()
            self._requests += 1
        try:
            if not peer.send({'accepted': True, 'repeatable': args.run_verb.repeatable,
                              'budget': 6 * args.timeout + 10.0}):
                return
            self._ready.wait()
            try:
                code, pieces = self._execute(args)
            except Exception as error:  # noqa: B902 - the client is told, the daemon goes on
                traceback.print_exc()
                peer.send({'error': f'the command failed in the daemon: {error!r}'})
                return
            peer.send({'exit': code, 'output': pieces})
        finally:
            with self._lock:
                self._working.discard(peer)
                self._last_request = time.monotonic()

    def _parse(self, argv: List[str]) -> Optional[argparse.Namespace]:
        """
        Return the command line parsed by robot-sm's parser, or None if it is not for the daemon.

        Usage errors and help are for robot-sm itself, which prints them at its terminal's
        width; so are the commands that run in their own process.
        """
        assert self._parser is not None
        with capture.captured(), self._parse_lock:
            try:
                args = self._parser.parse_args(argv)
            except SystemExit:
                return None
        return args if args.run_verb.for_daemon(args) else None

    def _execute(self, args: argparse.Namespace) -> Tuple[int, List[Tuple[int, str]]]:
        """Run a parsed command line as ``robot-sm`` does; return its exit code and output."""
        from robot_sm.frontends import cli
        with capture.captured() as pieces:
            return cli.run(args), pieces


def _take_lock(path: pathlib.Path) -> Optional[IO[str]]:
    """Take the lock of ``path`` and write this pid there; None if another daemon holds it."""
    lock = open(lock_path(path), 'a+')
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        return None
    lock.truncate(0)
    lock.write(f'{os.getpid()}\n')
    lock.flush()
    try:
        os.truncate(log_path(path), 0)  # the log of this daemon only
    except OSError:
        pass
    return lock


def _listen(path: pathlib.Path) -> socket.socket:
    """Listen at ``path`` (a socket left by a daemon that died is removed), for this user only."""
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o177)
    try:
        listener.bind(os.fspath(path))
    finally:
        os.umask(old_mask)
    listener.listen(64)
    return listener


def main(argv: Optional[List[str]] = None) -> int:
    """Run the daemon of a socket; return its exit code."""
    parser = argparse.ArgumentParser(prog='robot_sm.frontends.daemon.server',
                                     description='The robot-sm daemon (see robot-sm daemon).')
    parser.add_argument('--socket', required=True, type=pathlib.Path)
    parser.add_argument('--prepare', default='', metavar='suite:NS|fleet:NS',
                        help='the client to make at once')
    options = parser.parse_args(argv)
    lock = _take_lock(options.socket)
    if lock is None:
        return 0  # another daemon serves this socket
    with lock:
        daemon = Daemon(options.socket, _listen(options.socket), idle_timeout())
        for signal_number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signal_number, daemon.stop)
        return daemon.serve(options.prepare)


if __name__ == '__main__':
    sys.exit(main())
