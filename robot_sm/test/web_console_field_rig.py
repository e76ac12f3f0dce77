"""
What the web console's field tests share: the suite with the arm under teleop, and a field phone.

:class:`FieldRobot` runs ``robot-sm up --sim --remote --teleop`` and ``robot-sm web`` as child
processes, as :class:`web_console_rig.Robot` does, and records the typed state the suite
publishes; :class:`FieldOperator` adds what the field tests do on the page: read the cycle
diagram, the timeline and the arm panel, look for what a phone's first screen cuts off.
"""

import pathlib
from typing import Any, Dict, List, Tuple

from robot_sm import qos
from robot_sm.contract import STATE
from robot_sm.testing import Recorder
from robot_sm_msgs.msg import StateInfo
from web_console_rig import Operator, Robot

#: What a page shows cut: every element shown whose box leaves the viewport at a side, or whose
#: text does not fit its box (cut short, or clamped to fewer lines), with its id or class. Those
#: marked ``openable`` are listed apart: a tap shows them whole. The drawing, the map, choices
#: and scrolled lists are left out: they are meant to be larger than their box.
CUT = """
const cut = [], openable = [];
for (const el of document.querySelectorAll('body *')) {
  if (el.closest('svg, canvas, select, .scroller, .timeline, [hidden]')) continue;
  const style = getComputedStyle(el);
  const r = el.getBoundingClientRect();
  if (style.display === 'none' || style.visibility === 'hidden' || r.width === 0) continue;
  const name = el.id || el.className || el.tagName;
  if (r.left < -0.5 || r.right > window.innerWidth + 0.5) cut.push('outside: ' + name);
  const clips = style.overflowX !== 'visible' || style.overflowY !== 'visible';
  const over = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
  if (clips && over && el.textContent.trim()) {
    (el.classList.contains('openable') || el.closest('.openable') ? openable : cut).push(name);
  }
}
return [cut, openable];
"""


class FieldRobot(Robot):
    """The suite with the simulated arm under teleop, the console, and the typed state."""

    def __init__(self, folder: pathlib.Path) -> None:  # noqa: D107 - Robot's, with teleop
        super().__init__(folder, 'web_field', suite=['--teleop'], fleet=False)
        self.states: Recorder[StateInfo] = self.ros.record(StateInfo, STATE,
                                                           qos.STATE_CHANGES)

    def roles(self, since: int = 0) -> List[str]:
        """Return the roles of the states the suite went through, each change once."""
        found: List[str] = []
        for msg in self.states.messages[since:]:
            if not found or found[-1] != msg.role:
                found.append(msg.role)
        return found


class FieldOperator(Operator):
    """The browser on the console's page, and what the field tests read of it."""

    def script(self, code: str) -> Any:
        return self.driver.execute_script(code)

    def cut(self) -> Tuple[List[str], List[str]]:
        """Return what the page shows cut, and what is cut but opens whole on a tap."""
        found = self.script(CUT)
        return list(found[0]), list(found[1])

    def box(self, name: str) -> Dict[str, float]:
        return dict(self.script(
            f"const r = document.getElementById('{name}').getBoundingClientRect();"
            'return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, '
            'height: r.height, width: r.width};'))

    def reachable(self, name: str) -> bool:
        """Return whether ``name`` is on the first screen and nothing covers its middle."""
        return bool(self.script(
            f"const e = document.getElementById('{name}'), r = e.getBoundingClientRect();"
            'if (r.top < 0 || r.bottom > window.innerHeight || r.width === 0) return false;'
            'const hit = document.elementFromPoint((r.left + r.right) / 2, '
            '(r.top + r.bottom) / 2);'
            'return hit !== null && (hit === e || e.contains(hit));'))

    def trail(self) -> List[str]:
        """Return the roles the cycle diagram highlighted, in order (the page's record)."""
        trail = self.element('cycle').get_attribute('data-trail') or ''
        return [role for role in trail.split(',') if role]

    def traced(self) -> List[Tuple[str, str]]:
        """Return the arrows traced as the last transitions: (from, to)."""
        return [(e.get_attribute('data-from'), e.get_attribute('data-to')) for e in
                self.driver.find_elements('css selector', '#cycle g.edge.traced')]

    def events(self, kind: str) -> List[str]:
        """Return the texts of the timeline's rows of ``kind`` shown, newest first."""
        return [row.text for row in self.driver.find_elements(
            'css selector', f'#timeline li[data-kind="{kind}"]') if row.is_displayed()]
