"""
The robot_sm control panel: every control of RSM's panel, as a plain Qt widget.

Threading rules (RSM's panel broke them): Qt is touched only on the GUI thread. Service calls run
on a worker thread of :class:`PanelBackend` and their results come back through a queued Qt
signal; the suite's latched topics are read from a snapshot the panel polls with a QTimer, so a
ROS callback never touches a widget. Closing the panel never shuts ROS down.

Start and mode are applied together: the exploration and waypoint-following Start buttons send the
selected mode first and the start request after it (and undo the mode if the start is refused),
so the state machine never starts in the previous mode.

While the panel is open it is the robot's operator: it publishes the operator heartbeat
(:mod:`robot_sm.operator_station.presence`) from the GUI thread, so that a panel that freezes
stops beating too, and its top line shows whether the robot hears it.

Given a :class:`robot_sm.fleet.FleetClient`, the panel has a robot selector: the robots the fleet
finds, by namespace. Choosing one connects the panel to that robot (a client of its own in the
fleet's context); the heartbeat then goes to the robot shown, as if the panel had been closed
for the robot left and opened for the one chosen.
"""

from concurrent.futures import Future, ThreadPoolExecutor
import math
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

from robot_sm.api import (
    FleetClient,
    FOLLOWING_MODE_NAMES,
    MODE_NAMES,
    Result,
    SuiteClient,
    SuiteUnavailable,
    waypoint_infos,
    WaypointInfo,
)
from robot_sm.nodes.waypoint_markers import colour_of
from robot_sm.operator_station.presence import HEARTBEAT_RATE, OperatorPresence
from robot_sm.operator_station.presence_monitor import Presence
from robot_sm.qos import STATE
from robot_sm.rqt.qt import QtCore, QtGui, QtWidgets, Signal
from robot_sm_msgs.msg import OperationMode, WaypointArray
from std_msgs.msg import Bool, String

#: The latched topics the panel shows, by key.
TOPICS = {
    'state': (String, 'robot_sm/state_info'),
    'operation_mode': (OperationMode, 'robot_sm/operation_mode'),
    'waypoints': (WaypointArray, 'robot_sm/waypoints'),
    'reverse_mode': (Bool, 'robot_sm/reverse_mode'),
    'exploration_mode': (Bool, 'robot_sm/exploration_mode'),
}
FOLLOWING_MODES = ['single', 'roundtrip', 'patrol']
#: How often the robot selector looks for robots coming and going.
ROBOTS_REFRESH_HZ = 1.0
NO_ROUTINE = 'None'
#: The presence line's colours: green while the robot hears the panel, red when it does not.
PRESENCE_STYLES = {
    Presence.SEEN: 'background-color: #5cb85c; color: white;',
    Presence.NOT_HEARD: 'background-color: #d9534f; color: white;',
    Presence.LINK_LOST: 'background-color: #d9534f; color: white;',
    Presence.NOT_WATCHED: 'background-color: #f0ad4e; color: black;',
    Presence.WAITING: '',
}


class PanelBackend:
    """Run suite calls off the GUI thread and keep the latest state of the suite's topics."""

    def __init__(self, client: SuiteClient) -> None:
        self.client = client
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix='robot_sm_panel')
        self._lock = threading.Lock()
        self._latest: Dict[str, Any] = dict.fromkeys(TOPICS)
        for key, (msg_type, topic) in TOPICS.items():
            client.node.create_subscription(
                msg_type, topic, lambda msg, key=key: self._store(key, msg), STATE)
        #: The operator heartbeat; the panel beats it from its GUI thread.
        self.presence = OperatorPresence(client.node, rate=None)

    def _store(self, key: str, msg: Any) -> None:
        with self._lock:
            self._latest[key] = msg

    def snapshot(self) -> Dict[str, Any]:
        """Return the newest message of every topic (None where nothing arrived yet)."""
        with self._lock:
            return dict(self._latest)

    def submit(self, function: Callable[..., Result], *args: Any) -> 'Future[Result]':
        """Run ``function(*args)`` on the worker thread; the future holds its Result."""
        def run() -> Result:
            try:
                return function(*args)
            except SuiteUnavailable as error:
                return Result(False, str(error))
            except Exception as error:  # noqa: B902 - a click must never fail silently
                return Result(False, f'{type(error).__name__}: {error}')
        return self._worker.submit(run)

    def close(self, wait: bool = False) -> None:
        """
        Stop the worker: calls not started yet are dropped.

        A call in progress ends when it is answered, times out or the client is closed;
        ``wait`` waits for that.
        """
        self._worker.shutdown(wait=wait, cancel_futures=True)
        self.presence.close()


def waypoint_rows(array: Optional[WaypointArray]) -> List[WaypointInfo]:
    """Return the waypoints of ``array`` as rows for the table."""
    return [] if array is None else waypoint_infos(array)


class ControlPanel(QtWidgets.QWidget):
    """The control panel widget; ``backend`` talks to the suite, ``fleet`` lists the robots."""

    #: Emitted (on any thread) when a call finishes: (description, Result).
    call_finished = Signal(object, object)

    def __init__(self, backend: PanelBackend, parent: Optional[Any] = None,
                 refresh_hz: float = 5.0, fleet: Optional[FleetClient] = None) -> None:
        super().__init__(parent)
        self.backend = backend
        self.fleet = fleet
        #: The client the panel made when a robot was chosen (the first one is the caller's).
        self._own_client: Optional[SuiteClient] = None
        self.setObjectName('RobotSmControlPanel')
        self.setWindowTitle('robot_sm control')
        self._routines: List[str] = []
        self._shown_rows: List[Tuple[Any, ...]] = []
        self._closed = False
        self._exploring = False
        self._following = False
        self._shown_exploration_mode: Optional[bool] = None
        self._shown_following_mode: Optional[int] = None
        self.call_finished.connect(self._on_call_finished)
        self._build()
        self._timer = QtCore.QTimer(self)
        self._timer.timeout.connect(self.refresh)
        self._timer.start(int(1000 / refresh_hz))
        self._heartbeat = QtCore.QTimer(self)
        self._heartbeat.timeout.connect(lambda: self.backend.presence.beat())
        self._heartbeat.start(int(1000 / HEARTBEAT_RATE))
        self.backend.presence.beat()
        self.request('routines', self.backend.client.routines)
        self._robots_timer = QtCore.QTimer(self)
        if fleet is not None:
            self._robots_timer.timeout.connect(self.refresh_robots)
            self._robots_timer.start(int(1000 / ROBOTS_REFRESH_HZ))
            self.refresh_robots()

    # ---- layout -------------------------------------------------------------------------------

    def _build(self) -> None:
        layout = QtWidgets.QVBoxLayout(self)
        robot_row = QtWidgets.QHBoxLayout()
        robot_row.addWidget(QtWidgets.QLabel('Robot:'))
        self.robot_selector = QtWidgets.QComboBox()
        self.robot_selector.setObjectName('robot_selector')
        self.robot_selector.addItem(self.namespace)
        self.robot_selector.setEnabled(self.fleet is not None)
        self.robot_selector.activated.connect(
            lambda index: self.select_robot(self.robot_selector.itemText(index)))
        robot_row.addWidget(self.robot_selector, 1)
        layout.addLayout(robot_row)
        self.presence_label = QtWidgets.QLabel('Operator: waiting for the robot')
        self.presence_label.setObjectName('presence_label')
        self.presence_label.setWordWrap(True)
        layout.addWidget(self.presence_label)

        control = QtWidgets.QGroupBox('Control')
        grid = QtWidgets.QGridLayout(control)
        self.estop_button = QtWidgets.QPushButton('Software Stop')
        self.estop_button.setObjectName('estop_button')
        self.estop_button.setCheckable(True)
        self.estop_button.clicked.connect(self._on_estop_clicked)
        grid.addWidget(self.estop_button, 0, 0, 1, 3)
        self.mode_buttons: Dict[str, QtWidgets.QRadioButton] = {}
        for column, (mode, label) in enumerate((('autonomy', 'Autonomy'),
                                                ('stopped', 'Stopped'),
                                                ('teleop', 'Teleoperation'))):
            button = QtWidgets.QRadioButton(label)
            button.setObjectName(f'mode_{mode}')
            button.clicked.connect(lambda _=False, mode=mode: self._on_mode_clicked(mode))
            self.mode_buttons[mode] = button
            grid.addWidget(button, 1, column)
        self.state_label = QtWidgets.QLabel('Current state: (waiting for the suite)')
        self.state_label.setObjectName('state_label')
        grid.addWidget(self.state_label, 2, 0, 1, 3)
        layout.addWidget(control)

        exploration = QtWidgets.QGroupBox('Exploration')
        row = QtWidgets.QHBoxLayout(exploration)
        self.exploration_button = QtWidgets.QPushButton('Start')
        self.exploration_button.setObjectName('exploration_button')
        self.exploration_button.clicked.connect(self._on_exploration_clicked)
        self.exploration_mode = QtWidgets.QComboBox()
        self.exploration_mode.setObjectName('exploration_mode')
        self.exploration_mode.addItems(['Finish', 'Interrupt'])
        self.exploration_mode.setCurrentIndex(1)
        row.addWidget(self.exploration_button)
        row.addWidget(self.exploration_mode)
        layout.addWidget(exploration)

        following = QtWidgets.QGroupBox('Waypoint Following')
        grid = QtWidgets.QGridLayout(following)
        self.following_button = QtWidgets.QPushButton('Start')
        self.following_button.setObjectName('following_button')
        self.following_button.clicked.connect(self._on_following_clicked)
        self.reset_button = QtWidgets.QPushButton('Reset')
        self.reset_button.setObjectName('reset_button')
        self.reset_button.clicked.connect(
            lambda: self.request('reset waypoints', self.backend.client.reset_waypoints))
        self.following_mode = QtWidgets.QComboBox()
        self.following_mode.setObjectName('following_mode')
        self.following_mode.addItems([mode.capitalize() for mode in FOLLOWING_MODES])
        self.set_waypoint_button = QtWidgets.QPushButton('Set Waypoint')
        self.set_waypoint_button.setObjectName('set_waypoint_button')
        self.set_waypoint_button.clicked.connect(self._on_set_waypoint_clicked)
        self.routine_box = QtWidgets.QComboBox()
        self.routine_box.setObjectName('routine_box')
        self.routine_box.addItem(NO_ROUTINE)
        grid.addWidget(self.following_button, 0, 0)
        grid.addWidget(self.reset_button, 0, 1)
        grid.addWidget(self.following_mode, 0, 2)
        grid.addWidget(self.set_waypoint_button, 1, 0)
        grid.addWidget(self.routine_box, 1, 1, 1, 2)
        layout.addWidget(following)

        movement = QtWidgets.QGroupBox('Movement')
        row = QtWidgets.QHBoxLayout(movement)
        self.reverse_box = QtWidgets.QCheckBox('Reverse Driving')
        self.reverse_box.setObjectName('reverse_box')
        self.reverse_box.clicked.connect(self._on_reverse_clicked)
        self.stop_goal_button = QtWidgets.QPushButton('Stop 2D Nav Goal')
        self.stop_goal_button.setObjectName('stop_goal_button')
        self.stop_goal_button.clicked.connect(
            lambda: self.request('stop goal', self.backend.client.cancel_goal))
        row.addWidget(self.reverse_box)
        row.addWidget(self.stop_goal_button)
        layout.addWidget(movement)

        table_box = QtWidgets.QGroupBox('Waypoints')
        column = QtWidgets.QVBoxLayout(table_box)
        self.table = QtWidgets.QTableWidget(0, 6)
        self.table.setObjectName('waypoint_table')
        self.table.setHorizontalHeaderLabels(['#', 'x', 'y', 'yaw', 'routine', 'status'])
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        for section in range(6):  # the routine column takes the space left
            header.setSectionResizeMode(section, QtWidgets.QHeaderView.Stretch if section == 4
                                        else QtWidgets.QHeaderView.ResizeToContents)
        column.addWidget(self.table)
        buttons = QtWidgets.QHBoxLayout()
        self.delete_button = QtWidgets.QPushButton('Delete')
        self.delete_button.setObjectName('delete_button')
        self.delete_button.clicked.connect(self._on_delete_clicked)
        self.up_button = QtWidgets.QPushButton('Up')
        self.up_button.setObjectName('up_button')
        self.up_button.clicked.connect(lambda: self._on_reorder_clicked(-1))
        self.down_button = QtWidgets.QPushButton('Down')
        self.down_button.setObjectName('down_button')
        self.down_button.clicked.connect(lambda: self._on_reorder_clicked(+1))
        for button in (self.delete_button, self.up_button, self.down_button):
            buttons.addWidget(button)
        column.addLayout(buttons)
        layout.addWidget(table_box)

        self.info_label = QtWidgets.QLabel('')
        self.info_label.setObjectName('info_label')
        self.info_label.setWordWrap(True)
        layout.addWidget(self.info_label)

    # ---- robots -------------------------------------------------------------------------------

    @property
    def namespace(self) -> str:
        """Return the namespace of the robot the panel shows."""
        return str(self.backend.client.node.get_namespace())

    def refresh_robots(self) -> None:
        """List the robots the fleet finds now, and the one shown (GUI thread only)."""
        if self.fleet is None:
            return
        robots = sorted(set(self.fleet.robots()) | {self.namespace})
        listed = [self.robot_selector.itemText(i) for i in range(self.robot_selector.count())]
        if robots != listed:
            self.robot_selector.clear()
            self.robot_selector.addItems(robots)
        self.robot_selector.setCurrentIndex(robots.index(self.namespace))

    def select_robot(self, namespace: str) -> None:
        """Show and operate the robot in ``namespace`` (GUI thread only)."""
        if self.fleet is None or namespace == self.namespace:
            return
        old_backend, old_client = self.backend, self._own_client
        self._own_client = SuiteClient(namespace=namespace, timeout=old_backend.client.timeout,
                                       context=self.fleet.context)
        self.backend = PanelBackend(self._own_client)
        old_backend.close()
        if old_client is not None:
            old_client.close()
        self._shown_rows = []
        self._shown_exploration_mode = None
        self._shown_following_mode = None
        self.state_label.setText('Current state: (waiting for the suite)')
        self.info_label.setText('')
        self.table.setRowCount(0)
        self.backend.presence.beat()
        self.request('routines', self.backend.client.routines)
        self.refresh_robots()

    # ---- calls --------------------------------------------------------------------------------

    def request(self, description: str, function: Callable[..., Result], *args: Any) -> None:
        """Run a suite call in the background; its result is shown when it arrives."""
        backend = self.backend
        future = backend.submit(function, *args)
        future.add_done_callback(lambda done: self._call_done(description, done, backend))

    def _call_done(self, description: str, done: 'Future[Result]',
                   backend: PanelBackend) -> None:
        """Hand a finished call to the GUI thread (runs on the worker thread)."""
        # The answer of a robot no longer shown is not shown either.
        if not self._closed and not done.cancelled() and backend is self.backend:
            self.call_finished.emit(description, done.result())

    def _on_call_finished(self, description: str, result: Result) -> None:
        if description == 'routines':
            if result.success:
                self._set_routines(list(result.data or []))
            return
        if result.success:
            self.info_label.setText(f'{description}: {result.message}')
        else:
            self.info_label.setText(f'Call unsuccessful: {result.message}')
        self.refresh()

    def _set_routines(self, routines: List[str]) -> None:
        self._routines = routines
        current = self.routine_box.currentText()
        self.routine_box.clear()
        self.routine_box.addItems([NO_ROUTINE] + routines)
        index = self.routine_box.findText(current)
        self.routine_box.setCurrentIndex(max(0, index))
        self._shown_rows = []  # rebuild the table's routine boxes

    def _selected_routine(self) -> str:
        text = self.routine_box.currentText()
        return '' if text == NO_ROUTINE else text

    def _on_estop_clicked(self, checked: bool) -> None:
        self.request('software stop', self.backend.client.set_emergency_stop, checked)

    def _on_mode_clicked(self, mode: str) -> None:
        self.request(f'mode {mode}', self.backend.client.set_mode, mode)

    def _on_exploration_clicked(self) -> None:
        if self._exploring:
            self.request('exploration', self.backend.client.stop_exploration)
        else:
            interrupt = self.exploration_mode.currentIndex() == 1
            self.request('exploration', self.backend.client.start_exploration, interrupt)

    def _on_following_clicked(self) -> None:
        if self._following:
            self.request('waypoint following', self.backend.client.stop_waypoint_following)
        else:
            mode = FOLLOWING_MODES[self.following_mode.currentIndex()]
            self.request('waypoint following', self.backend.client.start_waypoint_following,
                         mode, False)

    def _on_set_waypoint_clicked(self) -> None:
        self.request('set waypoint', self.backend.client.add_waypoint_here,
                     self._selected_routine())

    def _on_reverse_clicked(self, checked: bool) -> None:
        self.request('reverse driving', self.backend.client.set_reverse, checked)

    def _selected_row(self) -> Optional[int]:
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else None

    def _on_delete_clicked(self) -> None:
        row = self._selected_row()
        if row is not None:
            self.request('delete waypoint', self.backend.client.remove_waypoint, row)

    def _on_reorder_clicked(self, step: int) -> None:
        row = self._selected_row()
        waypoints = waypoint_rows(self.backend.snapshot()['waypoints'])
        if row is None or not 0 <= row + step < len(waypoints):
            return
        waypoint = waypoints[row]
        client = self.backend.client

        def move() -> Result:
            removed = client.remove_waypoint(row)
            if not removed.success:
                return removed
            return client.add_waypoint(waypoint.x, waypoint.y, waypoint.yaw, waypoint.routine,
                                       row + step)

        self.request('reorder waypoint', move)
        self.table.selectRow(row + step)

    def _on_table_routine_changed(self, row: int, text: str) -> None:
        routine = '' if text == NO_ROUTINE else text
        self.request('set routine', self.backend.client.set_routine, row, routine)

    # ---- display ------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Show the suite's latest state (GUI thread only)."""
        presence = self.backend.presence.report()
        self.presence_label.setText(f'Operator: {presence.text}')
        self.presence_label.setStyleSheet(PRESENCE_STYLES[presence.presence])
        latest = self.backend.snapshot()
        state = latest['state']
        if state is not None:
            name = state.data
            self.state_label.setText(f'Current state: {name}')
            self._exploring = name.startswith('E:')
            self._following = name.startswith('W:')
            self.exploration_button.setText('Stop' if self._exploring else 'Start')
            self.following_button.setText('Stop' if self._following else 'Start')
            self.exploration_mode.setEnabled(not self._exploring)
            self.following_mode.setEnabled(not self._following)
            self.reset_button.setEnabled(not self._following)
        mode = latest['operation_mode']
        if mode is not None:
            engaged = bool(mode.emergency_stop)
            self.estop_button.setChecked(engaged)
            self.estop_button.setText('Release Software Stop' if engaged else 'Software Stop')
            self.estop_button.setStyleSheet('background-color: #d9534f; color: white;'
                                            if engaged else '')
            for name, button in self.mode_buttons.items():
                # A mode request never releases the e-stop: the mux refuses every one.
                button.setEnabled(not engaged)
                button.setToolTip('Release the Software Stop first' if engaged else '')
                button.setChecked(MODE_NAMES.get(mode.mode) == name)
        reverse = latest['reverse_mode']
        if reverse is not None:
            self.reverse_box.setChecked(bool(reverse.data))
        # The mode boxes follow the suite when its mode changes, and otherwise keep what the
        # operator chose for the next start.
        exploration = latest['exploration_mode']
        if exploration is not None and exploration.data != self._shown_exploration_mode:
            self._shown_exploration_mode = exploration.data
            self.exploration_mode.setCurrentIndex(1 if exploration.data else 0)
        array = latest['waypoints']
        if array is not None and array.mode != self._shown_following_mode:
            self._shown_following_mode = array.mode
            self.following_mode.setCurrentIndex(
                FOLLOWING_MODES.index(FOLLOWING_MODE_NAMES.get(array.mode, 'single')))
        self._show_waypoints(waypoint_rows(array))

    def _show_waypoints(self, waypoints: List[WaypointInfo]) -> None:
        rows = [(w.waypoint_id, round(w.x, 3), round(w.y, 3), round(w.yaw, 3), w.routine,
                 w.status) for w in waypoints]
        if rows == self._shown_rows:
            return
        self._shown_rows = rows
        selected = self._selected_row()
        self.table.setRowCount(len(waypoints))
        for row, waypoint in enumerate(waypoints):
            cells = [str(row), f'{waypoint.x:.2f}', f'{waypoint.y:.2f}',
                     f'{math.degrees(waypoint.yaw):.0f}°', None, waypoint.status]
            for column, text in enumerate(cells):
                if text is not None:
                    self.table.setItem(row, column, QtWidgets.QTableWidgetItem(text))
            # The status in the colour RViz draws the waypoint's flag in.
            colour = colour_of(waypoint.visited, waypoint.unreachable)
            self.table.item(row, 5).setForeground(
                QtGui.QBrush(QtGui.QColor.fromRgbF(colour.r, colour.g, colour.b)))
            box = QtWidgets.QComboBox()
            box.addItems([NO_ROUTINE] + sorted(set(self._routines) | ({waypoint.routine} - {''})))
            box.setCurrentText(waypoint.routine or NO_ROUTINE)
            box.currentTextChanged.connect(
                lambda text, row=row: self._on_table_routine_changed(row, text))
            self.table.setCellWidget(row, 4, box)
        if selected is not None and selected < len(waypoints):
            self.table.selectRow(selected)

    def shutdown(self) -> None:
        """Stop refreshing and release the backend (ROS itself keeps running)."""
        self._closed = True
        self._timer.stop()
        self._heartbeat.stop()
        self._robots_timer.stop()
        self.backend.close()
        if self._own_client is not None:
            self._own_client.close()


def main() -> int:
    """Run the panel in a window of its own (outside rqt)."""
    import argparse
    import signal
    import sys
    parser = argparse.ArgumentParser(description='robot_sm control panel')
    parser.add_argument('--namespace', '-n', default='')
    args, qt_args = parser.parse_known_args()
    app = QtWidgets.QApplication([sys.argv[0], *qt_args])
    fleet = FleetClient(timeout=3.0)
    client = SuiteClient(namespace=args.namespace, timeout=3.0, context=fleet.context)
    panel = ControlPanel(PanelBackend(client), fleet=fleet)
    panel.show()
    # Ctrl-C closes the window. Python runs signal handlers only between bytecodes, so a timer
    # hands control to the interpreter now and then while Qt's event loop waits.
    signal.signal(signal.SIGINT, lambda *_: app.quit())
    wake = QtCore.QTimer()
    wake.timeout.connect(lambda: None)
    wake.start(200)
    try:
        return int(app.exec() if hasattr(app, 'exec') else app.exec_())
    finally:
        panel.shutdown()
        client.close()
        fleet.close()


if __name__ == '__main__':
    raise SystemExit(main())
