"""
Which daemon serves a caller, where its socket is, and the lines on the socket (no rclpy here).

**One daemon per environment.** What a command reaches is decided by the caller's environment:
the ROS domain, discovery (``ROS_AUTOMATIC_DISCOVERY_RANGE``, ``ROS_STATIC_PEERS``,
``ROS_DISCOVERY_SERVER``, ``ROS_SUPER_CLIENT``), the middleware and its settings
(``RMW_IMPLEMENTATION``, ``FASTRTPS_DEFAULT_PROFILES_FILE``, ...), the network namespace, and the
code that answers (the interpreter, the paths it imports from, the robot_sm modules as they are on
disk). Many of these are read once per process by the middleware, so a daemon serves exactly one
:func:`environment`: its socket is named by a hash of it (:func:`socket_path`), and it refuses a
request that names another. Changing any of them (``export ROS_DOMAIN_ID=7``) leads to another
daemon; the namespace is a request's own (one client per namespace in one daemon).

**Who may use it.** The socket lives in a folder only the user can open:
``$XDG_RUNTIME_DIR/robot_sm`` or, without it, ``robot_sm-UID`` under the temporary folder, made
with mode 0700 and used only if it is the user's and nobody else's (:func:`socket_directory`);
the daemon also checks the peer's uid on every connection (``SO_PEERCRED``).

**The lines.** Each message is one line of JSON. A request: ``{"robot_sm_daemon": 1, "argv":
[...], "environment": {...}}`` (a command line to run) or ``{"robot_sm_daemon": 1, "control":
"status" | "stop"}``. The daemon parses the command line and answers at once either
``{"not_for_the_daemon": true}`` (a command that runs in its own process, help, a usage error)
or ``{"accepted": true, "repeatable": BOOL, "budget": SECONDS}``; then ``{"alive": true}`` every
:data:`KEEPALIVE` seconds while it works, and ``{"exit": CODE, "output": [[1 or 2, TEXT],
...]}``: what the command wrote to stdout (1) and stderr (2), in order. A request it cannot take
(malformed, longer than :data:`MAX_REQUEST` bytes, another environment, another user) gets
``{"error": TEXT}`` and changes nothing.
"""

from __future__ import annotations

import json
import os
import pathlib
import socket
import stat
import sys
import time
from typing import TYPE_CHECKING
import zlib

import robot_sm

if TYPE_CHECKING:  # the thin path does without the typing module
    from typing import Any, Dict, List, Optional, Tuple

PROTOCOL = 1
#: Bytes a request line may have (a command line and the environment fit in far fewer).
MAX_REQUEST = 64 * 1024
#: Seconds between the daemon's ``alive`` lines while it works on a request.
KEEPALIVE = 0.5
#: Names the operator of the caller's commands (``--operator`` wins over it).
OPERATOR = 'ROBOT_SM_OPERATOR'
#: Set (to anything but '' or 0) to bypass the daemon, as ``--no-daemon`` does.
NO_DAEMON = 'ROBOT_SM_NO_DAEMON'
#: Seconds without a request after which the daemon exits.
IDLE_TIMEOUT_VARIABLE = 'ROBOT_SM_DAEMON_IDLE_TIMEOUT'
#: The default of :data:`IDLE_TIMEOUT_VARIABLE`: two hours, as ros2cli's daemon
#: (``_ros2_daemon --timeout``, default ``2 * 60 * 60``).
IDLE_TIMEOUT = 2 * 60 * 60.0
#: Variables that decide what a command reaches: by prefix, and by name.
ENVIRONMENT_PREFIXES = ('ROS_', 'RMW_', 'RCL_', 'FASTRTPS_', 'FASTDDS_', 'CYCLONEDDS_', 'ZENOH_',
                        'AMENT_')
ENVIRONMENT_NAMES = ('PYTHONPATH', 'LD_LIBRARY_PATH')
#: The longest path of a Unix socket (``sun_path`` holds 108 bytes with the terminating zero).
MAX_SOCKET_PATH = 107


class DaemonUnusable(RuntimeError):
    """The daemon cannot be used here; the message says why."""


class ProtocolError(ValueError):
    """A line on the socket is not what the protocol says; the message says what is wrong."""


def bypassed() -> bool:
    """Return whether :data:`NO_DAEMON` asks to bypass the daemon."""
    return os.environ.get(NO_DAEMON, '') not in ('', '0')


def idle_timeout() -> float:
    """Return the daemon's idle time (:data:`IDLE_TIMEOUT_VARIABLE`, else :data:`IDLE_TIMEOUT`)."""
    text = os.environ.get(IDLE_TIMEOUT_VARIABLE, '')
    try:
        value = float(text)
    except ValueError:
        return IDLE_TIMEOUT
    return value if value > 0 else IDLE_TIMEOUT


def _checksum(text: str) -> str:
    """Return 64 bits of checksum of ``text`` in hex (zlib's: hashlib's import costs more)."""
    data = text.encode()
    return f'{zlib.crc32(data):08x}{zlib.adler32(data):08x}'


def code_stamp() -> str:
    """Return a checksum of the robot_sm modules as they are on disk (name, size, modification)."""
    files: List[str] = []

    def add(folder: str) -> None:
        for entry in sorted(os.scandir(folder), key=lambda entry: entry.name):
            if entry.is_dir() and entry.name != '__pycache__':
                add(entry.path)
            elif entry.name.endswith('.py'):
                info = entry.stat()
                files.append(f'{entry.path}:{info.st_size}:{info.st_mtime_ns}')

    add(os.path.dirname(robot_sm.__file__))
    return _checksum(';'.join(files))


def _network_namespace() -> str:
    try:
        info = os.stat('/proc/self/ns/net')
    except OSError:
        return ''
    return f'{info.st_dev}:{info.st_ino}'


def environment() -> Dict[str, str]:
    """Return what decides what a command reaches and which code answers it (see the module)."""
    found = {name: value for name, value in os.environ.items()
             if name.startswith(ENVIRONMENT_PREFIXES) or name in ENVIRONMENT_NAMES}
    if 'LD_LIBRARY_PATH' in found:  # some launchers build it from a set: in any order
        found['LD_LIBRARY_PATH'] = os.pathsep.join(sorted(set(
            found['LD_LIBRARY_PATH'].split(os.pathsep))))
    found.update({'python': os.path.realpath(sys.executable), 'prefix': sys.prefix,
                  'code': code_stamp(),
                  'network namespace': _network_namespace(), 'uid': str(os.getuid())})
    return found


def differences(mine: Dict[str, str], theirs: Dict[str, str]) -> List[str]:
    """Return the names whose values differ between two environments, sorted."""
    return sorted(name for name in set(mine) | set(theirs) if mine.get(name) != theirs.get(name))


def socket_directory() -> pathlib.Path:
    """
    Return the folder of the daemons' sockets, made if missing (see the module).

    :raises DaemonUnusable: if it is not a folder that only this user can open.
    """
    runtime = os.environ.get('XDG_RUNTIME_DIR', '')
    if os.path.isabs(runtime):
        folder = pathlib.Path(runtime) / 'robot_sm'
    else:
        import tempfile
        folder = pathlib.Path(tempfile.gettempdir()) / f'robot_sm-{os.getuid()}'
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError as error:
        raise DaemonUnusable(f'cannot make {folder}: {error.strerror}') from None
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise DaemonUnusable(f'{folder} is not a folder that only this user can open')
    return folder


def environment_key(environment: Dict[str, str]) -> str:
    """Return the short hash that names the daemon of ``environment``."""
    return _checksum(json.dumps(environment, sort_keys=True))


def socket_path(environment: Dict[str, str]) -> pathlib.Path:
    """
    Return the socket of the daemon that serves ``environment``.

    :raises DaemonUnusable: if the socket folder cannot be used, or the path is too long.
    """
    path = socket_directory() / f'daemon-{environment_key(environment)}.sock'
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise DaemonUnusable(f'the socket path {path} is longer than {MAX_SOCKET_PATH} bytes')
    return path


def lock_path(path: pathlib.Path) -> pathlib.Path:
    """Return the lock file the daemon of the socket ``path`` holds while it runs (its pid)."""
    return path.with_suffix('.lock')


def log_path(path: pathlib.Path) -> pathlib.Path:
    """Return the file the daemon of the socket ``path`` writes what goes wrong to."""
    return path.with_suffix('.log')


# ---- the lines ----------------------------------------------------------------------------------


def encode(message: Dict[str, Any]) -> bytes:
    """Return ``message`` as one line."""
    return json.dumps(message, separators=(',', ':')).encode() + b'\n'


def run_request(argv: List[str], environment: Dict[str, str]) -> Dict[str, Any]:
    """
    Return the request to run the command line ``argv`` in ``environment``.

    The caller's ``ROBOT_SM_OPERATOR`` travels with it (``operator``): it names who gives the
    command, not what the command reaches.
    """
    return {'robot_sm_daemon': PROTOCOL, 'argv': argv, 'environment': environment,
            'operator': os.environ.get(OPERATOR, '')}


def control_request(control: str) -> Dict[str, Any]:
    """Return the request ``status`` or ``stop``."""
    return {'robot_sm_daemon': PROTOCOL, 'control': control}


def parse_request(line: bytes) -> Dict[str, Any]:
    """
    Return the request on ``line``, checked.

    :raises ProtocolError: if it is not a request of this protocol.
    """
    try:
        request = json.loads(line)
    except (UnicodeDecodeError, ValueError) as error:
        raise ProtocolError(f'malformed request: not JSON ({error})') from None
    if not isinstance(request, dict) or request.get('robot_sm_daemon') != PROTOCOL:
        raise ProtocolError(f'malformed request: not a robot_sm_daemon {PROTOCOL} request')
    if 'control' in request:
        if request['control'] not in ('status', 'stop'):
            raise ProtocolError(f"malformed request: unknown control {request['control']!r}")
        return request
    argv, environment = request.get('argv'), request.get('environment')
    if not (isinstance(argv, list) and all(isinstance(word, str) for word in argv)):
        raise ProtocolError('malformed request: argv must be a list of strings')
    if not (isinstance(environment, dict) and all(
            isinstance(key, str) and isinstance(value, str)
            for key, value in environment.items())):
        raise ProtocolError('malformed request: environment must map strings to strings')
    if not isinstance(request.get('operator', ''), str):
        raise ProtocolError('malformed request: operator must be a string')
    return request


class LineReader:
    """The lines arriving on a socket, each at most ``limit`` bytes, each by a deadline."""

    def __init__(self, connection: socket.socket, limit: int = 1 << 30) -> None:
        self._connection = connection
        self._limit = limit
        self._buffer = b''

    def read(self, deadline: float) -> Optional[bytes]:
        """
        Return the next line (without its newline), or None once the other end has closed.

        :raises socket.timeout: if no whole line has come by ``deadline`` (monotonic).
        :raises ProtocolError: if the line is longer than the limit.
        """
        while b'\n' not in self._buffer:
            if len(self._buffer) > self._limit:
                raise ProtocolError(f'request longer than {self._limit} bytes')
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise socket.timeout('no whole line in time')
            self._connection.settimeout(remaining)
            chunk = self._connection.recv(65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b'\n')
        if len(line) > self._limit:
            raise ProtocolError(f'request longer than {self._limit} bytes')
        return line


def output_of(answer: Dict[str, Any]) -> List[Tuple[int, str]]:
    """Return the (stream, text) pieces of an answer, checked."""
    pieces = answer.get('output', [])
    if not isinstance(pieces, list) or not all(
            isinstance(piece, list) and len(piece) == 2 and piece[0] in (1, 2)
            and isinstance(piece[1], str) for piece in pieces):
        raise ProtocolError('malformed answer: output must be a list of [1 or 2, text]')
    return [(int(stream), text) for stream, text in pieces]
