"""
The control panel's groups of widgets, each built by itself.

Control, exploration, waypoint following, movement and the waypoint table.

A group only lays out its widgets and names them (``setObjectName``, for tests and style
sheets); :class:`~robot_sm.frontends.rqt.control_panel.ControlPanel` connects them to the suite.
"""

import math
from typing import Callable, Dict, List, Optional

from robot_sm.client import WaypointInfo
from robot_sm.contract import FOLLOWING_MODES as FOLLOWING_MODE_NUMBERS, WAYPOINT_COLOURS
from robot_sm.contract import waypoint_status
from robot_sm.frontends.rqt.qt import QtGui, QtWidgets

#: The following modes in the order of the panel's box.
FOLLOWING_MODES = list(FOLLOWING_MODE_NUMBERS)
NO_ROUTINE = 'None'
#: The waypoint table's columns; the routine column takes the space left.
TABLE_COLUMNS = ['#', 'x', 'y', 'yaw', 'routine', 'status']
ROUTINE_COLUMN, STATUS_COLUMN = 4, 5


def named(widget: QtWidgets.QWidget, name: str) -> QtWidgets.QWidget:
    """Give ``widget`` its object name; return it."""
    widget.setObjectName(name)
    return widget


def in_a_row(group: QtWidgets.QGroupBox, *widgets: QtWidgets.QWidget) -> None:
    """Lay ``widgets`` out side by side in ``group``."""
    row = QtWidgets.QHBoxLayout(group)
    for widget in widgets:
        row.addWidget(widget)


class ControlGroup(QtWidgets.QGroupBox):
    """The Software Stop, the operation modes, the state and the input that drives."""

    def __init__(self) -> None:
        super().__init__('Control')
        grid = QtWidgets.QGridLayout(self)
        self.estop_button = named(QtWidgets.QPushButton('Software Stop'), 'estop_button')
        self.estop_button.setCheckable(True)
        grid.addWidget(self.estop_button, 0, 0, 1, 2)
        self.pause_button = named(QtWidgets.QPushButton('Pause'), 'pause_button')
        self.pause_button.setToolTip('Hold the running activity at its place (the robot stops); '
                                     'Continue resumes it where it was')
        grid.addWidget(self.pause_button, 0, 2)
        self.mode_buttons: Dict[str, QtWidgets.QRadioButton] = {}
        for column, (mode, label) in enumerate((('autonomy', 'Autonomy'),
                                                ('stopped', 'Stopped'),
                                                ('teleop', 'Teleoperation'))):
            self.mode_buttons[mode] = named(QtWidgets.QRadioButton(label), f'mode_{mode}')
            grid.addWidget(self.mode_buttons[mode], 1, column)
        self.state_label = named(QtWidgets.QLabel('Current state: (waiting for the suite)'),
                                 'state_label')
        grid.addWidget(self.state_label, 2, 0, 1, 2)
        self.input_label = named(QtWidgets.QLabel('Input: (waiting for the mux)'), 'input_label')
        self.input_label.setToolTip('The velocity input that drives the base (none: the mux '
                                    'outputs zero)')
        grid.addWidget(self.input_label, 2, 2)
        self.held_label = named(QtWidgets.QLabel(''), 'held_label')
        self.held_label.setWordWrap(True)
        self.held_label.setToolTip('Why the robot does not move on its own, and what to do')
        grid.addWidget(self.held_label, 3, 0, 1, 3)


class ExplorationGroup(QtWidgets.QGroupBox):
    """Start and stop exploring; finish or interrupt obsolete goals."""

    def __init__(self) -> None:
        super().__init__('Exploration')
        self.exploration_button = named(QtWidgets.QPushButton('Start'), 'exploration_button')
        self.exploration_mode = named(QtWidgets.QComboBox(), 'exploration_mode')
        self.exploration_mode.addItems(['Finish', 'Interrupt'])
        self.exploration_mode.setCurrentIndex(1)
        in_a_row(self, self.exploration_button, self.exploration_mode)


class FollowingGroup(QtWidgets.QGroupBox):
    """Start, stop and reset waypoint following, its mode, and a waypoint at the robot."""

    def __init__(self) -> None:
        super().__init__('Waypoint Following')
        grid = QtWidgets.QGridLayout(self)
        self.following_button = named(QtWidgets.QPushButton('Start'), 'following_button')
        self.reset_button = named(QtWidgets.QPushButton('Reset'), 'reset_button')
        self.following_mode = named(QtWidgets.QComboBox(), 'following_mode')
        self.following_mode.addItems([mode.capitalize() for mode in FOLLOWING_MODES])
        self.set_waypoint_button = named(QtWidgets.QPushButton('Set Waypoint'),
                                         'set_waypoint_button')
        self.routine_box = named(QtWidgets.QComboBox(), 'routine_box')
        self.routine_box.addItem(NO_ROUTINE)
        grid.addWidget(self.following_button, 0, 0)
        grid.addWidget(self.reset_button, 0, 1)
        grid.addWidget(self.following_mode, 0, 2)
        grid.addWidget(self.set_waypoint_button, 1, 0)
        grid.addWidget(self.routine_box, 1, 1, 1, 2)


class MovementGroup(QtWidgets.QGroupBox):
    """Reverse driving and the simple goal's stop."""

    def __init__(self) -> None:
        super().__init__('Movement')
        self.reverse_box = named(QtWidgets.QCheckBox('Reverse Driving'), 'reverse_box')
        self.stop_goal_button = named(QtWidgets.QPushButton('Stop 2D Nav Goal'),
                                      'stop_goal_button')
        in_a_row(self, self.reverse_box, self.stop_goal_button)


class WaypointTable(QtWidgets.QGroupBox):
    """The waypoint list with each waypoint's routine to choose, and delete / up / down."""

    def __init__(self, on_routine_changed: Callable[[int, str], None]) -> None:
        super().__init__('Waypoints')
        self._on_routine_changed = on_routine_changed
        self._shown: List[tuple] = []
        column = QtWidgets.QVBoxLayout(self)
        self.table = named(QtWidgets.QTableWidget(0, len(TABLE_COLUMNS)), 'waypoint_table')
        self.table.setHorizontalHeaderLabels(TABLE_COLUMNS)
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        for section in range(len(TABLE_COLUMNS)):
            header.setSectionResizeMode(
                section, QtWidgets.QHeaderView.Stretch if section == ROUTINE_COLUMN
                else QtWidgets.QHeaderView.ResizeToContents)
        column.addWidget(self.table)
        buttons = QtWidgets.QHBoxLayout()
        self.delete_button = named(QtWidgets.QPushButton('Delete'), 'delete_button')
        self.up_button = named(QtWidgets.QPushButton('Up'), 'up_button')
        self.down_button = named(QtWidgets.QPushButton('Down'), 'down_button')
        for button in (self.delete_button, self.up_button, self.down_button):
            buttons.addWidget(button)
        column.addLayout(buttons)

    def selected_row(self) -> Optional[int]:
        """Return the selected row, or None."""
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else None

    def forget(self) -> None:
        """Show nothing, and rebuild every row on the next :meth:`show`."""
        self._shown = []
        self.table.setRowCount(0)

    def show_waypoints(self, waypoints: List[WaypointInfo], routines: List[str]) -> None:
        """Show ``waypoints``, each with a box of ``routines``; unchanged rows stay as they are."""
        rows = [(w.waypoint_id, round(w.x, 3), round(w.y, 3), round(w.yaw, 3), w.routine,
                 w.status, tuple(routines)) for w in waypoints]
        if rows == self._shown:
            return
        self._shown = rows
        selected = self.selected_row()
        self.table.setRowCount(len(waypoints))
        for row, waypoint in enumerate(waypoints):
            self._show_row(row, waypoint, routines)
        if selected is not None and selected < len(waypoints):
            self.table.selectRow(selected)

    def _show_row(self, row: int, waypoint: WaypointInfo, routines: List[str]) -> None:
        cells = [str(row), f'{waypoint.x:.2f}', f'{waypoint.y:.2f}',
                 f'{math.degrees(waypoint.yaw):.0f}°', None, waypoint.status]
        for column, text in enumerate(cells):
            if text is not None:
                self.table.setItem(row, column, QtWidgets.QTableWidgetItem(text))
        # The status in the colour RViz draws the waypoint's flag in.
        r, g, b, _ = WAYPOINT_COLOURS[waypoint_status(waypoint.visited, waypoint.unreachable)]
        self.table.item(row, STATUS_COLUMN).setForeground(
            QtGui.QBrush(QtGui.QColor.fromRgbF(r, g, b)))
        box = QtWidgets.QComboBox()
        box.addItems([NO_ROUTINE] + sorted(set(routines) | ({waypoint.routine} - {''})))
        box.setCurrentText(waypoint.routine or NO_ROUTINE)
        box.currentTextChanged.connect(
            lambda text, row=row: self._on_routine_changed(row, text))
        self.table.setCellWidget(row, ROUTINE_COLUMN, box)
