"""
The event timeline of one robot: what happened, newest last, each event numbered.

An event is a small dictionary the page shows as one line: ``kind`` (:data:`KINDS`), ``level``
(:data:`LEVELS`), ``time`` (seconds since 1970), ``text``, and, where it applies, ``by`` (who:
an operator, or the node that logged it) and ``from`` / ``to`` (the roles of a transition, for
the cycle diagram). They come from:

- the audit log (``robot_sm/audit``): every operator's commands, with the operator's name
  (:func:`audit_event`);
- the suite's warnings and errors (``/rosout`` of its nodes in the namespace; :func:`log_event`);
- the typed state (``robot_sm/state``): transitions, how activities ended, pauses
  (:class:`StateEvents`);
- the mux: e-stop engagements with their cause (``robot_sm/emergency_stop_cause``) and releases
  (:class:`EstopEvents`).

:class:`EventLog` numbers them and keeps the newest :data:`CAPACITY` for the pages that open
later. Messages are read by their fields only. Pure: no rclpy, time as an argument.
"""

import collections
import json
import secrets
from typing import Any, Callable, Deque, Dict, List, Optional

from robot_sm.contract import Code, Outcome

#: What an event is about: an operator's action, a log line, the state, the e-stop.
KINDS = ('operator', 'log', 'state', 'estop')
#: How much it matters, least first.
LEVELS = ('info', 'warn', 'error')
#: Events a robot's log keeps for pages that open later.
CAPACITY = 500
#: The longest text of an event (a longer log line is cut, saying so).
MAX_TEXT = 600
#: rcl_interfaces/Log levels: WARN and above are shown.
LOG_WARN, LOG_ERROR = 30, 40
#: Outcomes that are worth a warning, and those that are errors.
WARN_OUTCOMES = frozenset({Outcome.REFUSED, Outcome.STOPPED_BY_EMERGENCY_STOP})
ERROR_OUTCOMES = frozenset({Outcome.FAILED})
Event = Dict[str, Any]


def stamp_seconds(stamp: Any, fallback: float) -> float:
    """Return a builtin_interfaces/Time in seconds, or ``fallback`` when it is zero."""
    seconds = float(stamp.sec) + float(stamp.nanosec) * 1e-9
    return round(seconds, 3) if seconds > 0.0 else round(fallback, 3)


def cut(text: str, limit: int = MAX_TEXT) -> str:
    """Return ``text``, cut to ``limit`` characters (saying so)."""
    return text if len(text) <= limit else text[:limit - 12] + ' … (cut)'


def event(kind: str, level: str, time: float, text: str, **fields: Any) -> Event:
    """Return a new event with these fields (see the module's summary)."""
    return {'kind': kind, 'level': level, 'time': round(time, 3), 'text': cut(text), **fields}


class EventLog:
    """A robot's events, each numbered, the newest :data:`CAPACITY` kept."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        """Keep ``capacity`` events; a log made later has another :attr:`epoch`."""
        #: Tells the logs of one robot apart (the console restarted, the robot shown again).
        self.epoch = secrets.token_hex(4)
        self.last_seq = 0
        self._events: Deque[Event] = collections.deque(maxlen=capacity)

    def add(self, new: Event) -> Event:
        """Keep ``new`` with the next number; return it numbered."""
        self.last_seq += 1
        numbered = {**new, 'seq': self.last_seq}
        self._events.append(numbered)
        return numbered

    def since(self, seq: int) -> List[Event]:
        """Return the events kept after number ``seq``, oldest first."""
        return [kept for kept in self._events if kept['seq'] > seq]


def operator_label(name: str, surface: str) -> str:
    """Return who gave a command: ``alice (cli)``, or ``raw ROS`` without a name."""
    if not name:
        return f'raw ROS ({surface})' if surface else 'raw ROS'
    return f'{name} ({surface})' if surface else name


def _arguments(text: str) -> str:
    try:
        arguments = json.loads(text) if text else {}
    except ValueError:
        return f' {text}'
    if not isinstance(arguments, dict) or not arguments:
        return ''
    return ' ' + ', '.join(f'{key} {value}' for key, value in arguments.items())


def audit_event(msg: Any, now: float) -> Event:
    """Return the event of a robot_sm_msgs/AuditEntry: an operator's command and its answer."""
    code = Code(msg.code).name.lower() if msg.code in Code._value2member_map_ else str(msg.code)
    answer = str(msg.message) or code
    text = f'{msg.command}{_arguments(str(msg.arguments))}: {answer}'
    return event('operator', 'info' if msg.success else 'warn', stamp_seconds(msg.stamp, now),
                 text, by=operator_label(str(msg.by.name), str(msg.by.surface)),
                 address=str(msg.by.address), success=bool(msg.success), code=code)


def log_node(logger: str, namespace: str) -> Optional[str]:
    """
    Return the node a logger name of ``namespace`` belongs to, or None if it is elsewhere.

    A node ``state_interface`` in ``/robot1`` logs as ``robot1.state_interface`` (its child
    loggers as ``robot1.state_interface.something``); in ``/`` as ``state_interface``.
    """
    prefix = namespace.strip('/').replace('/', '.')
    if prefix:
        if not logger.startswith(prefix + '.'):
            return None
        logger = logger[len(prefix) + 1:]
    return logger.split('.', 1)[0] or None


def log_event(msg: Any, namespace: str, is_suite_node: Callable[[str], bool],
              now: float) -> Optional[Event]:
    """Return the event of a rcl_interfaces/Log line, or None (below WARN, or not the suite's)."""
    if int(msg.level) < LOG_WARN:
        return None
    node = log_node(str(msg.name), namespace)
    if node is None or not is_suite_node(node):
        return None
    level = 'error' if int(msg.level) >= LOG_ERROR else 'warn'
    return event('log', level, stamp_seconds(msg.stamp, now), str(msg.msg), by=node)


class StateEvents:
    """The typed state's transitions, the ends of activities and pauses, as events."""

    def __init__(self) -> None:
        self._shown: Optional[Dict[str, Any]] = None

    def take(self, state: Dict[str, Any], now: float) -> List[Event]:
        """Return the events of a new state (a :func:`views.state_view` dictionary)."""
        before, self._shown = self._shown, state
        found: List[Event] = []
        time = state.get('time') or now
        if before is None or before['last_activity_id'] != state['last_activity_id']:
            ended = self._ended(state, time)
            if ended is not None and (before is not None or state['last_activity_id']):
                found.append(ended)
        now_shown = (state['state'], state['role'])
        if before is None or (before['state'], before['role']) != now_shown:
            source = before['state'] if before is not None else ''
            text = f"{source} → {state['state']}" if source else f"state {state['state']}"
            found.append(event('state', 'info', time, text,
                               **{'from': before['role'] if before is not None else '',
                                  'to': state['role']}))
        if before is not None and before['paused'] != state['paused']:
            text = (f"paused: {state['resumable'] or 'the activity'}" if state['paused']
                    else 'continued')
            found.append(event('state', 'info', time, text))
        return found

    @staticmethod
    def _ended(state: Dict[str, Any], time: float) -> Optional[Event]:
        code = state['outcome_code']
        if not code or code == 'none':
            return None
        outcome = Outcome[code.upper()]
        level = ('error' if outcome in ERROR_OUTCOMES
                 else 'warn' if outcome in WARN_OUTCOMES else 'info')
        return event('state', level, time, state['outcome'], outcome=code)


class EstopEvents:
    """
    E-stop engagements with their cause, and releases, from the mux's mode and cause.

    The mux publishes the cause (``robot_sm/emergency_stop_cause``, '' while released) and then
    its mode, on two topics: they may come in either order, and a mode published before the
    cause (the mux republishes it every second) may come after it. An engagement takes a cause
    that came just before it, even across such a late "released", or waits for one that comes
    after it, ``wait`` seconds at most (then its cause is told as not reported). A release
    forgets the cause.
    """

    def __init__(self, wait: float = 2.5) -> None:
        self.wait = wait
        self._engaged: Optional[bool] = None
        self._pending: Optional[float] = None
        self._reason = ''

    def mode(self, engaged: bool, now: float) -> List[Event]:
        """Take the mux's e-stop flag; return the events it makes."""
        before, self._engaged = self._engaged, engaged
        found: List[Event] = []
        if engaged and before is not True:
            self._pending = now
            if self._reason:
                found.append(self._engagement(self._reason, now))
        elif not engaged and before is True:
            found += self.due(float('inf'))
            found.append(event('estop', 'info', now, 'e-stop released'))
            self._reason = ''
        return found

    def reason(self, reason: str, now: float) -> List[Event]:
        """Take the cause the mux gave ('' while released)."""
        if not reason:
            self._reason = ''
            return []
        self._reason = reason
        if self._pending is None:
            return []
        return [self._engagement(reason, self._pending)]

    def due(self, now: float) -> List[Event]:
        """Return an engagement whose reason did not come within ``wait`` seconds."""
        if self._pending is None or now - self._pending < self.wait:
            return []
        return [self._engagement('', self._pending)]

    def _engagement(self, reason: str, time: float) -> Event:
        self._pending = None
        cause = reason or 'engaged; the mux reported no cause'
        return event('estop', 'warn', time, f'e-stop: {cause}', cause=reason)
