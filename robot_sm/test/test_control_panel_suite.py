"""
The control panel against the running suite, offscreen, driven by real mouse and key events.

Every control is clicked as an operator would click it; the test then checks what the suite did
(over DDS, from the probe) and that the panel shows what the suite reports, including changes
made by someone else from the command line. Qt is touched only on this (the GUI) thread.
"""

import importlib
import os
import time
from typing import Any, Callable, Iterator, List, Optional

from operator_suite import describe, run_cli, run_cli_together, start_robot, StartSuite, WAIT
import pytest
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.client import FleetClient, SuiteClient
from robot_sm.testing import RosHarness, wait_until
from robot_sm_msgs.msg import OperationMode, WaypointArray
from robot_sm_msgs.srv import WaypointVisited
from std_msgs.msg import Bool

os.environ.setdefault('QT_QPA_PLATFORM', 'offscreen')
qt = pytest.importorskip('robot_sm.frontends.rqt.qt')
QtCore, QtWidgets = qt.QtCore, qt.QtWidgets
# QTest of the same binding as the panel's widgets (PySide6 here, PyQt on a ROS install).
QTest = importlib.import_module(QtCore.__name__.rpartition('.')[0] + '.QtTest').QTest
Qt = QtCore.Qt


@pytest.fixture(scope='module')
def app() -> Any:
    return QtWidgets.QApplication.instance() or QtWidgets.QApplication([])


@pytest.fixture
def qt_warnings(app: Any) -> Iterator[List[str]]:
    """Collect Qt's warnings (threading mistakes are reported as warnings)."""
    messages: List[str] = []

    def handler(kind: Any, context: Any, message: str) -> None:
        messages.append(str(message))

    previous = QtCore.qInstallMessageHandler(handler)
    yield messages
    QtCore.qInstallMessageHandler(previous)


class Operator:
    """A panel on the screen and the hands that use it."""

    def __init__(self, app: Any, suite: RunningSuite,
                 fleet: Optional[FleetClient] = None) -> None:
        from robot_sm.frontends.rqt.control_panel import ControlPanel, PanelBackend
        from robot_sm.frontends.rqt.panel_backend import panel_operator
        self.app = app
        # What the test does through the suite's client, the panel's operator does.
        suite.client = suite.client.with_operator(panel_operator())
        self.suite = suite
        self.client = SuiteClient(namespace=suite.namespace, timeout=5.0, context=suite.context)
        self.panel = ControlPanel(PanelBackend(self.client), refresh_hz=20.0, fleet=fleet)
        self.panel.resize(520, 720)
        self.panel.show()
        assert QTest.qWaitForWindowExposed(self.panel, 5000)
        self.until(lambda: self.panel.state_label.text() == 'Current state: Idle')

    def until(self, predicate: Callable[[], bool], timeout: float = WAIT) -> None:
        """Let the GUI thread run until ``predicate`` holds."""
        def step() -> bool:
            self.app.processEvents()
            return predicate()
        assert wait_until(step, timeout, interval=0.01), \
            f'panel: {self.panel.state_label.text()!r}, {self.panel.info_label.text()!r}'

    def idle(self, seconds: float) -> None:
        """Let the GUI thread run for ``seconds`` (the panel refreshes meanwhile)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.app.processEvents()
            time.sleep(0.01)

    def click(self, widget: Any) -> None:
        """Click ``widget`` with the left mouse button where its label or indicator is."""
        assert widget.isVisible() and widget.isEnabled(), widget.objectName()
        if isinstance(widget, (QtWidgets.QCheckBox, QtWidgets.QRadioButton)):
            point = QtCore.QPoint(8, widget.height() // 2)  # the indicator
        else:
            point = widget.rect().center()
        QTest.mouseClick(widget, Qt.LeftButton, Qt.NoModifier, point)

    def choose(self, combo: Any, text: str) -> None:
        """Select ``text`` in ``combo`` with the arrow keys, as from the keyboard."""
        target = combo.findText(text)
        assert target >= 0, f'{text!r} is not in {combo.objectName()}'
        combo.setFocus()
        while combo.currentIndex() != target:
            QTest.keyClick(combo, Qt.Key_Down if combo.currentIndex() < target else Qt.Key_Up)
        self.app.processEvents()

    def table_texts(self) -> List[List[str]]:
        """Return the waypoint table's cells (the routine column from its combo box)."""
        table = self.panel.table
        rows = []
        for row in range(table.rowCount()):
            cells = []
            for column in range(table.columnCount()):
                widget = table.cellWidget(row, column)
                item = table.item(row, column)
                cells.append(widget.currentText() if widget is not None
                             else item.text() if item is not None else '')
            rows.append(cells)
        return rows

    def close(self) -> None:
        self.panel.shutdown()
        self.panel.close()
        self.app.processEvents()
        self.client.close()
        self.panel.backend.close(wait=True)


@pytest.fixture
def operator(app: Any, start_scripted: StartSuite, request: Any) -> Iterator[Operator]:
    hands = Operator(app, start_scripted(getattr(request, 'param', None)))
    try:
        yield hands
    finally:
        hands.close()


def routes(array: WaypointArray) -> List[tuple]:
    return [(w.pose.position.x, w.pose.position.y, w.routine) for w in array.waypoints]


def test_software_stop_and_mode_buttons_drive_the_mux_and_show_its_state(
        operator: Operator, qt_warnings: List[str]) -> None:
    panel, suite = operator.panel, operator.suite
    operator.until(lambda: panel.mode_buttons['stopped'].isChecked())

    operator.click(panel.mode_buttons['autonomy'])
    suite.client.wait_for_mode('autonomy')
    operator.until(lambda: panel.mode_buttons['autonomy'].isChecked())

    operator.click(panel.mode_buttons['teleop'])
    suite.modes.wait_for(lambda m: m.mode == OperationMode.TELEOPERATION, timeout=WAIT)
    suite.wait_state('Teleoperation')
    # Nobody drives: the mux falls back to STOPPED after its idle time, and the panel shows
    # what the mux reports, not what was clicked.
    suite.client.wait_for_mode('stopped')
    operator.until(lambda: panel.mode_buttons['stopped'].isChecked()
                   and panel.state_label.text() == 'Current state: Idle')

    operator.click(panel.estop_button)
    suite.client.wait_for_mode(emergency_stop=True)
    # The call ran on a worker thread; no widget changes until the GUI thread handles events.
    assert panel.estop_button.text() == 'Software Stop'
    operator.until(lambda: panel.estop_button.text() == 'Release Software Stop'
                   and panel.state_label.text() == 'Current state: Emergency Stop')
    assert panel.estop_button.isChecked()
    # A mode request never releases the e-stop: no mode can be clicked until it is released.
    assert not any(button.isEnabled() for button in panel.mode_buttons.values())

    operator.click(panel.estop_button)
    assert suite.client.wait_for_mode(emergency_stop=False).mode == 'stopped'
    operator.until(lambda: panel.estop_button.text() == 'Software Stop'
                   and panel.state_label.text() == 'Current state: Idle')
    assert not panel.estop_button.isChecked()
    assert panel.mode_buttons['autonomy'].isEnabled()

    operator.click(panel.mode_buttons['autonomy'])
    suite.client.wait_for_mode('autonomy')
    operator.click(panel.mode_buttons['stopped'])
    suite.client.wait_for_mode('stopped')
    assert not [m for m in qt_warnings if 'thread' in m.lower()], qt_warnings


def test_the_panel_shows_changes_made_from_the_command_line(operator: Operator) -> None:
    panel, namespace = operator.panel, operator.suite.namespace
    alice = {'ROBOT_SM_OPERATOR': 'alice'}
    assert run_cli(namespace, 'estop', 'on', env=alice).returncode == 0  # needs no control
    results = run_cli_together(namespace, ['reverse', 'on'],
                               ['waypoint', 'add', '1.5', '-2', '--routine', 'Wait'], env=alice)
    for result in results:
        assert result.returncode == 0, describe(result)
    row = ['0', '1.50', '-2.00', '0°', 'Wait', 'pending']
    operator.until(lambda: panel.estop_button.isChecked()
                   and panel.state_label.text() == 'Current state: Emergency Stop'
                   and panel.reverse_box.isChecked() and operator.table_texts() == [row])
    assert not panel.mode_buttons['autonomy'].isEnabled()
    # alice holds control: the panel's controls are greyed with her name, STOP is not.
    operator.until(lambda: panel.control_row.label.text().startswith('Control: held by alice'))
    assert not panel.following_button.isEnabled()
    assert 'alice holds control' in panel.following_button.toolTip()
    assert panel.estop_button.isEnabled()
    # Taking it from her asks first: the first click arms, the second takes.
    operator.click(panel.control_row.take_button)
    assert panel.control_row.take_button.text() == 'Take from alice?'
    operator.click(panel.control_row.take_button)
    operator.until(lambda: panel.control_row.label.text() == 'Control: this panel holds it')
    # Under the e-stop the suite refuses to start; the panel says so.
    operator.click(panel.following_button)
    operator.until(lambda: panel.info_label.text() == 'Call unsuccessful: Emergency Stop')
    # alice's next command is refused, and tells her who took control.
    refused = run_cli(namespace, 'estop', 'off', env=alice)
    assert refused.returncode == 1, describe(refused)
    assert 'control was taken from you by' in refused.stdout, describe(refused)
    operator.click(panel.estop_button)  # the panel releases it
    operator.until(lambda: not panel.estop_button.isChecked()
                   and panel.state_label.text() == 'Current state: Idle')
    assert panel.mode_buttons['autonomy'].isEnabled()


def test_exploration_start_applies_finish_or_interrupt_and_stop(operator: Operator) -> None:
    panel, suite = operator.panel, operator.suite
    # The panel shows the suite's exploration mode (interrupt) once it has heard of it.
    operator.until(lambda: panel.backend.snapshot()['exploration_mode'] is not None)
    panel.refresh()
    assert panel.exploration_mode.currentText() == 'Interrupt'
    operator.choose(panel.exploration_mode, 'Finish')
    # The choice stays until Start is clicked: refreshing the panel does not overwrite it.
    operator.idle(0.3)
    assert panel.exploration_mode.currentText() == 'Finish'

    exploration = suite.record(Bool, 'robot_sm/exploration_mode')
    operator.click(panel.exploration_button)
    exploration.wait_for(lambda m: m.data is False, timeout=WAIT)
    suite.wait_state(lambda name: name.startswith('E: '))
    operator.until(lambda: panel.exploration_button.text() == 'Stop'
                   and not panel.exploration_mode.isEnabled()
                   and panel.info_label.text() != '')  # the answer may follow the state
    assert panel.info_label.text() == \
        'exploration: Exploration started (the mux was STOPPED: AUTONOMOUS selected)'

    operator.click(panel.exploration_button)
    operator.until(lambda: panel.state_label.text() == 'Current state: Idle'
                   and panel.exploration_button.text() == 'Start'
                   and panel.exploration_mode.isEnabled())
    assert suite.state == 'Idle'


@pytest.mark.parametrize('operator', [{'ScriptedNavigation.drive_ticks': 200}],
                         indirect=True)
def test_waypoint_following_set_waypoint_start_stop_and_reset(ros: RosHarness,
                                                              operator: Operator) -> None:
    panel, suite = operator.panel, operator.suite
    operator.until(lambda: panel.routine_box.count() == 3)  # None, Wait, Scripted
    start_robot(ros, suite, 0.75, 1.25)
    operator.choose(panel.routine_box, 'Wait')
    operator.click(panel.set_waypoint_button)
    suite.lists.wait_last(lambda a: routes(a) == [(0.75, 1.25, 'Wait')], WAIT)
    operator.until(lambda: operator.table_texts() == [['0', '0.75', '1.25', '0°', 'Wait',
                                                       'pending']])
    assert suite.client.add_waypoint(2.0, 1.0).success

    operator.choose(panel.following_mode, 'Roundtrip')
    operator.click(panel.following_button)
    suite.wait_state('W: Navigation')
    listed = suite.client.waypoints().data
    assert (listed['mode'], listed['reverse']) == ('roundtrip', False)
    operator.until(lambda: panel.following_button.text() == 'Stop'
                   and not panel.reset_button.isEnabled()
                   and not panel.following_mode.isEnabled())

    operator.click(panel.following_button)
    operator.until(lambda: panel.state_label.text() == 'Current state: Idle'
                   and panel.following_button.text() == 'Start'
                   and panel.reset_button.isEnabled())

    assert suite.client.call(WaypointVisited, 'robot_sm/waypoint_visited',
                             WaypointVisited.Request(position=1)).success
    operator.until(lambda: [row[5] for row in operator.table_texts()] == ['pending', 'visited'])
    operator.click(panel.reset_button)
    suite.lists.wait_last(lambda a: not any(w.visited for w in a.waypoints), WAIT)
    operator.until(lambda: [row[5] for row in operator.table_texts()] == ['pending', 'pending'])


@pytest.mark.parametrize('operator', [{'ScriptedNavigation.drive_ticks': 200}],
                         indirect=True)
def test_reverse_driving_and_stop_2d_nav_goal(operator: Operator) -> None:
    panel, suite = operator.panel, operator.suite
    reverse = suite.record(Bool, 'robot_sm/reverse_mode')
    operator.click(panel.reverse_box)
    reverse.wait_for(lambda m: m.data is True, timeout=WAIT)
    operator.until(lambda: panel.reverse_box.isChecked()
                   and panel.info_label.text().startswith('reverse driving:'))
    operator.click(panel.reverse_box)
    reverse.wait_last(lambda m: m.data is False, WAIT)
    operator.until(lambda: not panel.reverse_box.isChecked())

    assert suite.client.send_goal(2.0, 0.0).success
    operator.until(lambda: panel.state_label.text() == 'Current state: G: Navigation')
    # The test's own view must have seen it too, or its older 'Idle' would satisfy the wait
    # below while the stop is still pending (a second stop then still finds the goal).
    suite.client.wait_for_state('G: Navigation')
    operator.click(panel.stop_goal_button)
    suite.client.wait_for_state('Idle')
    operator.until(lambda: panel.info_label.text() == 'stop goal: Simple goal stopped')
    operator.click(panel.stop_goal_button)
    operator.until(lambda: panel.info_label.text()
                   == 'Call unsuccessful: No simple goal running (Idle)')


def test_waypoint_table_edits_routines_reorders_and_deletes(operator: Operator) -> None:
    panel, suite = operator.panel, operator.suite
    for x in (1.0, 2.0, 3.0):
        assert suite.client.add_waypoint(x, 0.0).success
    operator.until(lambda: len(operator.table_texts()) == 3)

    routine_box = panel.table.cellWidget(2, 4)
    operator.choose(routine_box, 'Wait')
    suite.lists.wait_last(lambda a: [w.routine for w in a.waypoints] == ['', '', 'Wait'], WAIT)

    def select(row: int) -> None:
        rect = panel.table.visualItemRect(panel.table.item(row, 0))
        QTest.mouseClick(panel.table.viewport(), Qt.LeftButton, Qt.NoModifier, rect.center())
        assert panel.table.selectionModel().selectedRows()[0].row() == row

    select(2)
    operator.click(panel.up_button)
    suite.lists.wait_last(lambda a: routes(a) == [(1.0, 0.0, ''), (3.0, 0.0, 'Wait'),
                                                  (2.0, 0.0, '')], WAIT)
    operator.until(lambda: [row[1] for row in operator.table_texts()] == ['1.00', '3.00',
                                                                          '2.00'])
    select(0)
    operator.click(panel.down_button)
    suite.lists.wait_last(lambda a: routes(a) == [(3.0, 0.0, 'Wait'), (1.0, 0.0, ''),
                                                  (2.0, 0.0, '')], WAIT)
    select(2)
    operator.click(panel.delete_button)
    suite.lists.wait_last(lambda a: routes(a) == [(3.0, 0.0, 'Wait'), (1.0, 0.0, '')], WAIT)
    operator.until(lambda: [row[1:5] for row in operator.table_texts()] == [
        ['3.00', '0.00', '0°', 'Wait'], ['1.00', '0.00', '0°', 'None']])


def test_the_robot_selector_lists_the_fleet_and_switches_the_panel_between_robots(
        app: Any, ros: RosHarness, start_scripted: StartSuite,
        qt_warnings: List[str]) -> None:
    robots = [start_scripted(namespace=f'{ros.namespace}/{name}')
              for name in ('robot1', 'robot2', 'robot3')]
    namespaces = [robot.namespace for robot in robots]
    assert robots[1].client.add_waypoint(1.5, -2.0).success
    with FleetClient(within=ros.namespace, timeout=WAIT, context=ros.context) as fleet:
        operator = Operator(app, robots[0], fleet)
        try:
            panel = operator.panel
            selector = panel.robot_selector

            def listed() -> List[str]:
                return [selector.itemText(i) for i in range(selector.count())]

            operator.until(lambda: listed() == namespaces
                           and selector.currentText() == namespaces[0])
            assert operator.table_texts() == []

            operator.choose(selector, namespaces[1])
            operator.until(lambda: operator.table_texts()
                           == [['0', '1.50', '-2.00', '0°', 'None', 'pending']]
                           and panel.state_label.text() == 'Current state: Idle')
            # The panel now operates robot2, and robot2 only.
            operator.click(panel.estop_button)
            robots[1].client.wait_for_mode(emergency_stop=True)
            operator.until(lambda: panel.estop_button.text() == 'Release Software Stop')
            for other in (robots[0], robots[2]):
                assert other.client.wait_for_mode(timeout=0.0) == ('stopped', False)

            operator.choose(selector, namespaces[0])
            operator.until(lambda: panel.estop_button.text() == 'Software Stop'
                           and operator.table_texts() == [])
            # A robot whose suite stops leaves the list; the one shown stays.
            robots[2].close()
            operator.until(lambda: listed() == namespaces[:2])
            assert selector.currentText() == namespaces[0]
            assert not [m for m in qt_warnings if 'thread' in m.lower()], qt_warnings
        finally:
            operator.close()
