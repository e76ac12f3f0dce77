"""
``robot-sm connect``: be the robot's operator from this terminal until Ctrl-C.

While it runs it publishes the operator heartbeat (:mod:`robot_sm.frontends.presence`)
and shows whether the robot hears it, with the state, the mode and the e-stop from the suite's
latched topics. On a terminal the screen is redrawn five times a second; otherwise (a pipe, a
log) one line is printed per change, or one JSON object with ``--json``. Nothing here waits on a
service: the display stays live when the link is gone.
"""

import json
import sys
import time
from typing import Any, Dict, NamedTuple, Optional, TextIO

from robot_sm.client import MODE_NAMES, SuiteClient
from robot_sm.frontends.presence import HEARTBEAT_RATE, OperatorPresence, RATE_LIMITS
from robot_sm.frontends.presence_monitor import Presence
from robot_sm_msgs.msg import OperationMode
from std_msgs.msg import String

#: Seconds between looks at the presence and the suite's topics.
POLL = 0.05
#: Seconds between redraws of a terminal screen.
REDRAW = 0.2


class View(NamedTuple):
    """What the operator is shown."""

    presence: Presence
    presence_text: str
    state: Optional[str]
    mode: Optional[str]
    emergency_stop: Optional[bool]

    def changed_from(self, other: Optional['View']) -> bool:
        """Return whether anything but the wording of the presence differs from ``other``."""
        return other is None or self._replace(presence_text='') != other._replace(
            presence_text='')

    def line(self) -> str:
        """Return the view as one line."""
        estop = {None: '?', True: 'ENGAGED', False: 'released'}[self.emergency_stop]
        return (f'{self.presence_text} | state {self.state or "?"} | mode {self.mode or "?"} | '
                f'e-stop {estop}')

    def screen(self, header: str) -> str:
        """Return the view as a screen."""
        known = '' if self.presence is Presence.SEEN else '    (last known)'
        estop = '?'
        if self.emergency_stop is not None:
            estop = ('ENGAGED: release with `robot-sm estop off`, then select a mode'
                     if self.emergency_stop else 'released')
        return '\n'.join([
            header,
            f'operator   {self.presence_text}',
            f'state      {self.state or "?"}{known}',
            f'mode       {self.mode or "?"}{known}',
            f'e-stop     {estop}',
        ])

    def as_dict(self) -> Dict[str, Any]:
        """Return the view for ``--json``."""
        return {'presence': self.presence.value, 'text': self.presence_text,
                'state': self.state, 'mode': self.mode, 'emergency_stop': self.emergency_stop}


def look(suite: SuiteClient, presence: OperatorPresence) -> View:
    """Return what the operator is shown now (never waits)."""
    report = presence.report()
    state = suite.latched(String, 'robot_sm/state_info', wait=False)
    mode = suite.latched(OperationMode, 'robot_sm/operation_mode', wait=False)
    return View(report.presence, report.text, None if state is None else state.data,
                None if mode is None else MODE_NAMES.get(mode.mode, str(mode.mode)),
                None if mode is None else bool(mode.emergency_stop))


def connect(namespace: str, rate: Optional[float] = None, as_json: bool = False,
            out: TextIO = sys.stdout) -> int:
    """
    Publish the heartbeat and show the presence until Ctrl-C; return the exit code.

    ``rate`` is the heartbeat's rate (default
    :data:`~robot_sm.frontends.presence.HEARTBEAT_RATE`); one out of bounds gives exit code
    2 and one line on stderr.
    """
    rate = HEARTBEAT_RATE if rate is None else rate
    low, high = RATE_LIMITS
    if not low <= rate <= high:
        print(f'robot-sm connect: --rate must be within {low:g}..{high:g} Hz (got {rate:g})',
              file=sys.stderr)
        return 2
    with SuiteClient(namespace=namespace) as suite:
        presence = OperatorPresence(suite.node, rate)
        try:
            header = (f'robot-sm connect: heartbeat on {presence.heartbeat_topic} at {rate:g} '
                      'Hz; Ctrl-C disconnects (a robot that watches it then stops)')
            terminal = out.isatty() and not as_json
            if not as_json:
                out.write(header + '\n')
                out.flush()
            shown: Optional[View] = None
            drawn = 0.0
            while True:
                view = look(suite, presence)
                now = time.monotonic()
                if terminal:
                    if now - drawn >= REDRAW:
                        out.write('\x1b[2J\x1b[H' + view.screen(header) + '\n')
                        out.flush()
                        drawn = now
                elif view.changed_from(shown):
                    out.write((json.dumps(view.as_dict()) if as_json else view.line()) + '\n')
                    out.flush()
                    shown = view
                time.sleep(POLL)
        finally:
            presence.close()
