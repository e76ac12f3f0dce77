"""
What the web console's driving tests share: the operators' stream, and a thumb, keys and a pad.

:class:`DriveRobot` is :class:`web_console_rig.Robot` with a recorder of the operators' own stream
(``robot_sm/operator_cmd_vel``, what the console publishes for the pages that drive) and the
robot's pose; :class:`Driver` is the operator at the page with a thumb on the joystick (the mouse
held down, moved, let go, each step its own action so the test looks in between), a gamepad (the
page's ``navigator.getGamepads`` replaced by a script's pad) and a page hidden or frozen.
"""

import math
import pathlib
from typing import Any, List, Tuple

from robot_sm import qos
from robot_sm.contract import OPERATOR_CMD_VEL
from robot_sm.testing import Recorder
from robot_sm_msgs.msg import OperatorTwist
from web_console_rig import Operator, Robot

#: A pad with its enable button (4, LB) and its left stick, as the Gamepad API gives them.
GAMEPAD = """
window.testPad = {id: 'test pad', connected: true, mapping: 'standard', axes: [0, 0, 0, 0],
                  buttons: Array.from({length: 17}, () => ({pressed: false, value: 0}))};
navigator.getGamepads = () => [window.testPad];
"""
#: The page hidden as a phone that locks hides it (the browser's own event, dispatched).
HIDDEN = """
Object.defineProperty(document, 'visibilityState', {value: arguments[0], configurable: true});
document.dispatchEvent(new Event('visibilitychange'));
"""

#: The page's news (the console's ``update`` messages) held back while ``window.heldUpdates`` is
#: a list, then given to the page in order by ``window.releaseUpdates()``: a page that hears of a
#: change late, as a loaded phone does. Its pongs still come: its link stays up.
HOLD_UPDATES = """
window.heldUpdates = null;
const NativeWebSocket = window.WebSocket;
window.WebSocket = class extends NativeWebSocket {
  set onmessage(handler) {
    super.onmessage = handler === null ? null : (event) => {
      if (window.heldUpdates !== null && typeof event.data === 'string'
          && JSON.parse(event.data).type === 'update') {
        window.heldUpdates.push(() => handler(event));
        return;
      }
      handler(event);
    };
  }
};
window.releaseUpdates = () => {
  const held = window.heldUpdates || [];
  window.heldUpdates = null;
  held.forEach((deliver) => deliver());
};
"""


class DriveRobot(Robot):
    """The suite and the console, with what the console publishes for the pages that drive."""

    def __init__(self, folder: pathlib.Path) -> None:  # noqa: D107 - Robot's, and the stream
        super().__init__(folder, 'web_drive', recorder=True)  # the incidents list's test
        self.stream: Recorder[OperatorTwist] = self.ros.record(OperatorTwist, OPERATOR_CMD_VEL,
                                                               qos.COMMAND_IN)

    def where(self) -> Tuple[float, float, float]:
        result = self.client.robot_pose()
        assert result.success, result.message
        x, y, yaw = result.data
        return x, y, yaw

    def zero_after(self, mark: float) -> float:
        """Return the seconds from ``mark`` to the first zero on ``cmd_vel`` after it."""
        self.cmd_vel.wait_for(lambda m: m.linear.x == 0.0 and m.angular.z == 0.0, after=mark)
        return min(stamp for stamp, m in self.cmd_vel.stamped
                   if stamp >= mark and m.linear.x == 0.0 and m.angular.z == 0.0) - mark

    def streamed(self, after: float) -> List[Tuple[float, float]]:
        """Return the velocities the console published for the pages since ``after``."""
        return [(m.twist.linear.x, m.twist.angular.z) for m in self.stream.since(after)]

    def moved_after_zero(self, after: float) -> List[Tuple[float, float]]:
        """Return what the console published after its first zero since ``after`` but zeros."""
        sent = self.streamed(after)
        first = sent.index((0.0, 0.0)) if (0.0, 0.0) in sent else len(sent)
        return [v for v in sent[first:] if v != (0.0, 0.0)]


class Driver(Operator):
    """The operator at the page, driving."""

    def script(self, code: str, *args: Any) -> Any:
        return self.driver.execute_script(code, *args)

    def prepare_tab(self) -> None:
        """Let the test hold the page's news back (:data:`HOLD_UPDATES`)."""
        self.driver.execute_cdp_cmd('Page.addScriptToEvaluateOnNewDocument',
                                    {'source': HOLD_UPDATES})

    def pad_state(self) -> str:
        return str(self.element('joystick').get_attribute('data-state'))

    def hold(self, right: int, back: int) -> None:
        """Press the joystick's middle and move the thumb by (right, back) CSS pixels; hold."""
        self.actions().move_to_element(self.element('joystick')).click_and_hold() \
            .move_by_offset(right, back).perform()

    def let_go(self) -> None:
        self.actions().release().perform()

    def fake_gamepad(self) -> None:
        self.script(GAMEPAD)

    def gamepad(self, forward: float, enable: bool) -> None:
        """Tilt the pad's left stick forward (-1..1) and hold or let go its enable button."""
        self.script('window.testPad.axes[1] = arguments[0];'
                    'window.testPad.buttons[4] = {pressed: arguments[1], '
                    'value: arguments[1] ? 1 : 0};', -forward, enable)

    def visibility(self, state: str) -> None:
        self.script(HIDDEN, state)

    def held_by_other(self) -> bool:
        return bool(self.script("return document.body.classList.contains('held-by-other')"))

    def ready(self) -> None:
        """
        Release the e-stop if it is engaged (no page beat before this one opened).

        Takes control first if another operator held it and went stale (a closed page's goes
        stale 3 s after it closed).
        """
        self.until(lambda: self.text('control-line') != 'Control: not known yet', 'no control')
        if self.held_by_other():
            self.until(lambda: 'stale' in self.text('control-line'), 'control is held')
            self.click('take-control')  # a stale holder's: taken without asking
            self.until(lambda: not self.held_by_other(), 'control was not taken')
        self.release_if_engaged()
        self.until(lambda: self.pad_state() == 'ready', 'the joystick is not ready')


def heading_share(start: Tuple[float, float, float], end: Tuple[float, float, float]) -> float:
    """Return how much of the way from ``start`` to ``end`` went along the start's heading."""
    dx, dy = end[0] - start[0], end[1] - start[1]
    way = math.hypot(dx, dy)
    return (dx * math.cos(start[2]) + dy * math.sin(start[2])) / way if way > 0 else 0.0
