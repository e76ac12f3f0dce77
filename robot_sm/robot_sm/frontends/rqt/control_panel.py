"""
The robot_sm control panel: every control of RSM's panel, as a plain Qt widget.

Qt is touched only on the GUI thread: calls to the suite run on the worker thread of its
:class:`~robot_sm.frontends.rqt.panel_backend.PanelBackend`, whose answers come back through a
queued Qt signal, and the suite's latched topics are read from a snapshot the panel polls with a
QTimer. Closing the panel never shuts ROS down. Its groups of widgets are built in
:mod:`~robot_sm.frontends.rqt.panel_groups`.

Start and mode are applied together: the exploration and waypoint-following Start buttons send the
selected mode first and the start request after it (and undo the mode if the start is refused),
so the state machine never starts in the previous mode.

While the panel is open it is the robot's operator: it publishes the operator heartbeat
(:mod:`robot_sm.frontends.presence`) from the GUI thread, so that a panel that freezes
stops beating too, and its top line shows whether the robot hears it.

Given a :class:`robot_sm.client.fleet.FleetClient`, the panel has a robot selector: the robots the
fleet finds, by namespace. Choosing one connects the panel to that robot (a client of its own in
the fleet's context); the heartbeat then goes to the robot shown, as if the panel had been closed
for the robot left and opened for the one chosen.
"""

from concurrent.futures import Future
from typing import Any, Callable, List, Optional

from robot_sm.client import (
    FleetClient,
    FOLLOWING_MODE_NAMES,
    held_because,
    MODE_NAMES,
    Result,
    SuiteClient,
)
from robot_sm.contract import Activity
from robot_sm.frontends.presence import HEARTBEAT_RATE
from robot_sm.frontends.presence_monitor import Presence
from robot_sm.frontends.rqt.panel_backend import PanelBackend, waypoint_rows
from robot_sm.frontends.rqt.panel_control import ControlRow, PanelControl
from robot_sm.frontends.rqt.panel_groups import (
    ControlGroup,
    ExplorationGroup,
    FOLLOWING_MODES,
    FollowingGroup,
    MovementGroup,
    named,
    NO_ROUTINE,
    WaypointTable,
)
from robot_sm.frontends.rqt.qt import QtCore, QtWidgets, Signal

__all__ = ['ControlPanel', 'PanelBackend']
#: The activities that can be paused.
PAUSABLE = (Activity.WAYPOINT_FOLLOWING, Activity.EXPLORATION, Activity.SIMPLE_GOAL)
#: How often the robot selector looks for robots coming and going.
ROBOTS_REFRESH_HZ = 1.0
#: The presence line's colours: green while the robot hears the panel, red when it does not.
PRESENCE_STYLES = {
    Presence.SEEN: 'background-color: #5cb85c; color: white;',
    Presence.NOT_HEARD: 'background-color: #d9534f; color: white;',
    Presence.LINK_LOST: 'background-color: #d9534f; color: white;',
    Presence.NOT_WATCHED: 'background-color: #f0ad4e; color: black;',
    Presence.WAITING: '',
}


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
        self._closed = False
        self._exploring = False
        self._following = False
        self._paused = False
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
        self.robot_selector = named(QtWidgets.QComboBox(), 'robot_selector')
        self.robot_selector.addItem(self.namespace)
        self.robot_selector.setEnabled(self.fleet is not None)
        self.robot_selector.activated.connect(
            lambda index: self.select_robot(self.robot_selector.itemText(index)))
        robot_row.addWidget(self.robot_selector, 1)
        layout.addLayout(robot_row)
        self.presence_label = named(QtWidgets.QLabel('Operator: waiting for the robot'),
                                    'presence_label')
        self.presence_label.setWordWrap(True)
        layout.addWidget(self.presence_label)
        self.control_row = ControlRow()
        layout.addWidget(self.control_row)
        control, exploration, following, movement = (
            ControlGroup(), ExplorationGroup(), FollowingGroup(), MovementGroup())
        self.waypoint_table = WaypointTable(self._on_table_routine_changed)
        for group in (control, exploration, following, movement, self.waypoint_table):
            layout.addWidget(group)
        self.estop_button, self.mode_buttons = control.estop_button, control.mode_buttons
        self.pause_button = control.pause_button
        self.state_label, self.input_label = control.state_label, control.input_label
        self.held_label = control.held_label
        self.exploration_button = exploration.exploration_button
        self.exploration_mode = exploration.exploration_mode
        self.following_button = following.following_button
        self.reset_button = following.reset_button
        self.following_mode, self.routine_box = following.following_mode, following.routine_box
        self.set_waypoint_button = following.set_waypoint_button
        self.reverse_box, self.stop_goal_button = movement.reverse_box, movement.stop_goal_button
        self.table = self.waypoint_table.table
        self.delete_button = self.waypoint_table.delete_button
        self.up_button = self.waypoint_table.up_button
        self.down_button = self.waypoint_table.down_button
        self.info_label = named(QtWidgets.QLabel(''), 'info_label')
        self.info_label.setWordWrap(True)
        layout.addWidget(self.info_label)
        self._connect()
        self.control = PanelControl(
            self.control_row,
            always=[self.following_button, self.exploration_button, self.set_waypoint_button,
                    self.reverse_box, self.stop_goal_button, self.delete_button,
                    self.up_button, self.down_button, self.routine_box],
            conditional=[*self.mode_buttons.values(), self.exploration_mode, self.pause_button,
                         self.following_mode, self.reset_button],
            request=self.request, client=lambda: self.backend.client)

    def _connect(self) -> None:
        """Connect every control to the call it makes."""
        self.estop_button.clicked.connect(self._on_estop_clicked)
        self.pause_button.clicked.connect(self._on_pause_clicked)
        for mode, button in self.mode_buttons.items():
            button.clicked.connect(lambda _=False, mode=mode: self._on_mode_clicked(mode))
        self.exploration_button.clicked.connect(self._on_exploration_clicked)
        self.following_button.clicked.connect(self._on_following_clicked)
        self.reset_button.clicked.connect(
            lambda: self.request('reset waypoints', self.backend.client.reset_waypoints))
        self.set_waypoint_button.clicked.connect(self._on_set_waypoint_clicked)
        self.reverse_box.clicked.connect(self._on_reverse_clicked)
        self.stop_goal_button.clicked.connect(
            lambda: self.request('stop goal', self.backend.client.cancel_goal))
        self.delete_button.clicked.connect(self._on_delete_clicked)
        self.up_button.clicked.connect(lambda: self._on_reorder_clicked(-1))
        self.down_button.clicked.connect(lambda: self._on_reorder_clicked(+1))

    # ---- robots, calls, display ---------------------------------------------------------------

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
        self.waypoint_table.forget()
        self._shown_exploration_mode = None
        self._shown_following_mode = None
        self.state_label.setText('Current state: (waiting for the suite)')
        self.info_label.setText('')
        self.backend.presence.beat()
        self.request('routines', self.backend.client.routines)
        self.refresh_robots()

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
        if not description:  # a keep-alive: nothing to tell
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

    def _selected_routine(self) -> str:
        text = self.routine_box.currentText()
        return '' if text == NO_ROUTINE else text

    def _on_estop_clicked(self, checked: bool) -> None:
        self.request('software stop', self.backend.client.set_emergency_stop, checked)

    def _on_pause_clicked(self) -> None:
        if self._paused:
            self.request('continue', self.backend.client.resume)
        else:
            self.request('pause', self.backend.client.pause)

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

    def _on_delete_clicked(self) -> None:
        row = self.waypoint_table.selected_row()
        if row is not None:
            self.request('delete waypoint', self.backend.client.remove_waypoint, row)

    def _on_reorder_clicked(self, step: int) -> None:
        row = self.waypoint_table.selected_row()
        waypoints = waypoint_rows(self.backend.snapshot()['waypoints'])
        if row is None or not 0 <= row + step < len(waypoints):
            return
        self.request('reorder waypoint', self.backend.client.reorder_waypoint, row, row + step,
                     waypoints[row].waypoint_id)
        self.table.selectRow(row + step)

    def _on_table_routine_changed(self, row: int, text: str) -> None:
        routine = '' if text == NO_ROUTINE else text
        self.request('set routine', self.backend.client.set_routine, row, routine)

    def refresh(self) -> None:
        """Show the suite's latest state (GUI thread only)."""
        presence = self.backend.presence.report()
        self.presence_label.setText(f'Operator: {presence.text}')
        self.presence_label.setStyleSheet(PRESENCE_STYLES[presence.presence])
        latest = self.backend.snapshot()
        state = latest['state']
        if state is not None:
            self.state_label.setText(f'Current state: {state.name}')
            self._exploring = state.activity == Activity.EXPLORATION
            self._following = state.activity == Activity.WAYPOINT_FOLLOWING
            self._paused = bool(state.paused)
            running = state.activity in PAUSABLE
            self.pause_button.setText('Continue' if self._paused else 'Pause')
            self.pause_button.setEnabled(self._paused or running)
            self.exploration_button.setText('Stop' if self._exploring else 'Start')
            self.following_button.setText('Stop' if self._following else 'Start')
            self.exploration_mode.setEnabled(not self._exploring)
            self.following_mode.setEnabled(not self._following)
            self.reset_button.setEnabled(not self._following)
        mode = latest['operation_mode']
        if mode is not None:
            held = held_because(MODE_NAMES.get(mode.mode), mode.emergency_stop)
            self.held_label.setText(f'Not moving: {held}' if held else '')
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
        selected = latest['selected_input']
        if selected is not None:
            self.input_label.setText(f'Input: {selected.data}')
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
        self.waypoint_table.show_waypoints(waypoint_rows(array), self._routines)
        self.control.show(latest['control'], str(self.backend.client.by.name))

    def shutdown(self) -> None:
        """Stop refreshing and release the backend (ROS itself keeps running)."""
        self._closed = True
        self.control.stop()
        self._timer.stop()
        self._heartbeat.stop()
        self._robots_timer.stop()
        self.backend.close()
        if self._own_client is not None:
            self._own_client.close()
