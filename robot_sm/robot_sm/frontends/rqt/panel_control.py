"""
The panel's part of the control of the robot: who holds it, Take control, and greyed controls.

:class:`ControlRow` shows who holds control (``robot_sm/control``) with a **Take control**
button: when another operator holds it, the first click asks ("Take from alice?") and a second
click within :data:`CONFIRM_SECONDS` takes it; a click on the holder's own panel does nothing
harmful. While another operator holds control, every control that needs it is greyed with a
tooltip naming the holder; the Software Stop never is. While the panel holds control it keeps
it alive every :data:`KEEP_ALIVE` seconds (its control goes stale :data:`STALE_AFTER` seconds
after the panel is closed or frozen). Qt is touched on the GUI thread only.
"""

import time
from typing import Any, Callable, List, Optional

from robot_sm.client.control_calls import control_info, ControlInfo
from robot_sm.frontends.rqt.panel_groups import named
from robot_sm.frontends.rqt.qt import QtCore, QtWidgets

#: Seconds within which a second click of Take control takes it from another operator.
CONFIRM_SECONDS = 3.0
#: Seconds between two keep-alives while the panel holds control, and the silence after which
#: its control is stale.
KEEP_ALIVE = 2.0
STALE_AFTER = 3 * KEEP_ALIVE


def since(seconds: float) -> str:
    """Return a wall-clock time as the panel shows it."""
    return time.strftime('%H:%M:%S', time.localtime(seconds))


class ControlRow(QtWidgets.QWidget):
    """The control line: who holds control, Take control and Give up."""

    def __init__(self) -> None:
        super().__init__()
        row = QtWidgets.QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.label = named(QtWidgets.QLabel('Control: (waiting for the suite)'), 'control_label')
        self.label.setWordWrap(True)
        self.take_button = named(QtWidgets.QPushButton('Take control'), 'take_control_button')
        self.give_up_button = named(QtWidgets.QPushButton('Give up'), 'give_up_button')
        row.addWidget(self.label, 1)
        row.addWidget(self.take_button)
        row.addWidget(self.give_up_button)


class PanelControl:
    """What the panel does about control: the row, the greyed controls, the keep-alive."""

    def __init__(self, row: ControlRow, always: List[Any], conditional: List[Any],
                 request: Callable[..., None], client: Callable[[], Any]) -> None:
        """
        Show control in ``row``; grey the controls while another operator holds control.

        ``always`` are enabled again when the panel may operate; ``conditional`` are left as the
        panel's refresh, which runs first, set them (it enables them only when they apply).
        ``request(description, function, *args)`` runs a suite call off the GUI thread;
        ``client()`` is the panel's client now (the robot shown may change).
        """
        self.row = row
        self._always = always
        self._conditional = conditional
        self._request = request
        self._client = client
        self.info: Optional[ControlInfo] = None
        self._armed_at: Optional[float] = None
        row.take_button.clicked.connect(self._on_take)
        row.give_up_button.clicked.connect(
            lambda: self._request('give up control', self._client().release_control))
        self._keep_alive = QtCore.QTimer(row)
        self._keep_alive.timeout.connect(self._keep)
        self._keep_alive.start(int(KEEP_ALIVE * 1000))

    def _on_take(self) -> None:
        info = self.info
        now = time.monotonic()
        if info is not None and info.held and not info.mine and not info.stale and (
                self._armed_at is None or now - self._armed_at > CONFIRM_SECONDS):
            self._armed_at = now  # the first click asks, the second takes
            self.row.take_button.setText(f'Take from {info.holder}?')
            return
        self._armed_at = None
        self.row.take_button.setText('Take control')
        self._request('take control', self._client().take_control, STALE_AFTER)

    def _keep(self) -> None:
        if self.info is not None and self.info.mine:
            self._request('', self._client().keep_control, STALE_AFTER)

    def show(self, msg: Any, operator: str) -> None:
        """Show ``robot_sm/control`` (None: not heard yet) as seen by ``operator``."""
        if msg is None:
            return
        info = self.info = control_info(msg, operator)
        if self._armed_at is not None and time.monotonic() - self._armed_at > CONFIRM_SECONDS:
            self._armed_at = None
            self.row.take_button.setText('Take control')
        if not info.held:
            text = 'Control: free (the first command takes it)'
        elif info.mine:
            text = 'Control: this panel holds it'
        else:
            stale = ' (stale: take it freely)' if info.stale else ''
            text = f'Control: held by {info.holder} since {since(info.since)}{stale}'
        if info.taken_from == operator and not info.mine:
            text += f'; taken from this panel at {since(info.taken_at)}'
        self.row.label.setText(text)
        self.row.give_up_button.setEnabled(info.mine)
        blocked = info.held and not info.mine
        tip = f'{info.holder} holds control: Take control first' if blocked else ''
        for widget in self._always + self._conditional:
            if blocked:
                widget.setEnabled(False)
            elif widget in self._always:
                widget.setEnabled(True)
            if blocked or widget.toolTip().endswith('holds control: Take control first'):
                widget.setToolTip(tip)

    def stop(self) -> None:
        """Stop the keep-alive."""
        self._keep_alive.stop()
