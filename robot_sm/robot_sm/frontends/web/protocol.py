"""
The web console's WebSocket protocol: what a page may send, checked before anything is done.

A page sends JSON objects, one per text message:

- ``{"type": "ping", "seq": N}``: the page is alive; answered ``{"type": "pong", "seq": N}``.
  An operator page's pings are its operator heartbeat.
- ``{"type": "call", "id": N, "action": NAME, "args": {...}}``: one control (:data:`ACTIONS`),
  answered ``{"type": "result", "id": N, "action": NAME, "success": ..., "message": ...}`` with
  the suite's own answer.
- ``{"type": "drive", "seq": N, "linear": V, "angular": W}``: the velocity the page's joystick
  asks for now (m/s forward, rad/s to the left), 20 times a second while it drives and a zero
  when it stops (:mod:`~robot_sm.frontends.web.drive`); not answered.

Anything else (not JSON, not an object, an unknown type or action, a missing, unknown or
ill-typed argument, a number that is not finite) raises :class:`ProtocolError`, which the server
answers with ``{"type": "error", "id": N, "message": ...}``; nothing is done. Pure: no aiohttp,
no rclpy.
"""

from dataclasses import dataclass, field
import json
import math
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Union

from robot_sm.contract import FOLLOWING_MODES, MODES
from robot_sm.frontends.web.drive import MAX_DRIVE

#: The longest text argument (a routine name, a namespace).
MAX_TEXT = 128
#: The largest waypoint index or id accepted.
MAX_INDEX = 2 ** 31 - 1


class ProtocolError(ValueError):
    """A message a page sent cannot be used; the message says why, ``call_id`` which call."""

    def __init__(self, message: str, call_id: Optional[int] = None) -> None:
        super().__init__(message)
        self.call_id = call_id


@dataclass(frozen=True)
class Ping:
    """The page is alive (and, for an operator page, present)."""

    seq: int


@dataclass(frozen=True)
class Drive:
    """The velocity the page's joystick asks for: m/s forward, rad/s to the left."""

    seq: int
    linear: float
    angular: float


@dataclass(frozen=True)
class Call:
    """One control: ``action`` with checked ``args``."""

    call_id: int
    action: str
    args: Dict[str, Any] = field(default_factory=dict)


Message = Union[Ping, Drive, Call]
#: Checks one argument's value; returns it (normalised) or raises ValueError saying why.
Check = Callable[[Any], Any]


def number(value: Any) -> float:
    """Return ``value`` if it is finite: a JSON int or float, not a boolean."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f'must be a number (got {type(value).__name__})')
    if not math.isfinite(value):
        raise ValueError('must be finite')
    return float(value)


def index(value: Any) -> int:
    """Return a whole number within -1..MAX_INDEX (-1: the end of the list)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f'must be a whole number (got {type(value).__name__})')
    if not -1 <= value <= MAX_INDEX:
        raise ValueError(f'must be within -1..{MAX_INDEX} (got {value})')
    return value


def flag(value: Any) -> bool:
    """Return a boolean."""
    if not isinstance(value, bool):
        raise ValueError(f'must be true or false (got {type(value).__name__})')
    return value


def text(value: Any) -> str:
    """Return a short single-line text."""
    if not isinstance(value, str):
        raise ValueError(f'must be text (got {type(value).__name__})')
    if len(value) > MAX_TEXT or not value.isprintable():
        raise ValueError(f'must be printable text of at most {MAX_TEXT} characters')
    return value


def one_of(*choices: str) -> Check:
    """Return a check that accepts one of ``choices``."""
    def check(value: Any) -> str:
        if value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)} (got {value!r:.40})")
        return str(value)
    return check


#: Per action, its arguments: name -> (check, default); a default of ``...`` is required.
ACTIONS: Dict[str, Dict[str, Tuple[Check, Any]]] = {
    'stop': {},
    'release': {},
    'mode': {'mode': (one_of(*MODES), ...)},
    'waypoint_add': {'x': (number, ...), 'y': (number, ...), 'yaw': (number, 0.0),
                     'routine': (text, ''), 'position': (index, -1)},
    'waypoint_move': {'id': (index, ...), 'x': (number, ...), 'y': (number, ...),
                      'yaw': (number, None)},
    'waypoint_remove': {'id': (index, ...)},
    'waypoint_routine': {'id': (index, ...), 'routine': (text, ...)},
    'waypoints_reset': {},
    'follow_start': {'mode': (one_of(*FOLLOWING_MODES), ...),
                     'reverse': (flag, False)},
    'follow_stop': {},
    'explore_start': {'interrupt': (flag, False)},
    'explore_stop': {},
    'goal': {'x': (number, ...), 'y': (number, ...), 'yaw': (number, 0.0)},
    'goal_cancel': {},
    'reverse': {'on': (flag, ...)},
    'pause': {},
    'continue': {},
    'take_control': {},
    'give_up_control': {},
    'select_robot': {'namespace': (text, ...)},
}
#: What a read-only page may ask: to look at another robot.
READ_ONLY_ACTIONS = frozenset({'select_robot'})


def checked_args(action: str, args: Any, call_id: int) -> Dict[str, Any]:
    """Return ``args`` of ``action`` checked and completed with defaults."""
    if not isinstance(args, dict):
        raise ProtocolError('args: must be an object', call_id)
    specs = ACTIONS[action]
    unknown = sorted(set(args) - set(specs))
    if unknown:
        takes = ', '.join(specs) or 'none'
        raise ProtocolError(f'{action}: unknown argument {unknown[0]!r:.40} (takes {takes})',
                            call_id)
    checked = {}
    for name, (check, default) in specs.items():
        if name not in args:
            if default is ...:
                raise ProtocolError(f'{action}: argument {name!r} is missing', call_id)
            checked[name] = default
            continue
        try:
            checked[name] = check(args[name])
        except ValueError as error:
            raise ProtocolError(f'{action}: {name} {error}', call_id) from None
    return checked


def parse(message: str) -> Message:
    """
    Return the message a page sent, checked.

    :raises ProtocolError: if it is not a message of this protocol (see the module's summary).
    """
    try:
        document = json.loads(message, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise ProtocolError('not a JSON message') from None
    if not isinstance(document, dict):
        raise ProtocolError('a message must be a JSON object')
    kind = document.get('type')
    if kind == 'ping':
        seq = document.get('seq', 0)
        if not _whole(seq):
            raise ProtocolError('a ping needs a whole number seq')
        return Ping(seq)
    if kind == 'drive':
        return _drive(document)
    if kind != 'call':
        raise ProtocolError(f'unknown message type {kind!r:.40} (use ping, drive or call)')
    call_id = document.get('id')
    if not _whole(call_id):
        raise ProtocolError('a call needs a whole number id')
    assert isinstance(call_id, int)
    action = document.get('action')
    if action not in ACTIONS:
        raise ProtocolError(f"unknown action {action!r:.40} (use one of {', '.join(ACTIONS)})",
                            call_id)
    return Call(call_id, action, checked_args(action, document.get('args', {}), call_id))


def _drive(document: Dict[str, Any]) -> Drive:
    seq = document.get('seq', 0)
    if not _whole(seq):
        raise ProtocolError('a drive needs a whole number seq')
    unknown = sorted(set(document) - {'type', 'seq', 'linear', 'angular'})
    if unknown:
        raise ProtocolError(f'drive: unknown field {unknown[0]!r:.40} (takes seq, linear, '
                            'angular)')
    speeds = []
    for name in ('linear', 'angular'):
        try:
            value = number(document.get(name))
        except ValueError as error:
            raise ProtocolError(f'drive: {name} {error}') from None
        if abs(value) > MAX_DRIVE:
            raise ProtocolError(f'drive: {name} must be within -{MAX_DRIVE:g}..{MAX_DRIVE:g}')
        speeds.append(value)
    return Drive(seq, speeds[0], speeds[1])


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_INDEX


def _no_constant(name: str) -> None:
    raise ValueError(f'{name} is not JSON')


def reply(message_type: str, **fields: Any) -> str:
    """Return a message to a page as JSON text."""
    return json.dumps({'type': message_type, **fields}, allow_nan=False,
                      separators=(',', ':'))


def describe(call: Call) -> str:
    """Return a short description of ``call`` for the log."""
    args: Mapping[str, Any] = call.args
    return call.action + (' ' + ' '.join(f'{k}={v!r}' for k, v in args.items()) if args else '')
