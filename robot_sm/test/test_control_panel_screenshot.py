"""
The control panel operating the simulated robot: the whole suite, the simulation, real clicks.

The operator selects Autonomy and starts waypoint following from the panel; the robot drives to
the first waypoint, finds the second unreachable and sets off for the third. The test then saves
a picture of the panel to ``test-output/control_panel.png`` (next to ``test/``), showing what it
showed at that moment.
"""

import importlib
import os
import pathlib
from typing import Any, List

from operator_suite import StartSuite, WAIT
import pytest
from robot_sm.bringup.parameter_files import shipped_parameter_files
from robot_sm.client import SuiteClient
from robot_sm.testing import wait_until

os.environ.setdefault('QT_QPA_PLATFORM', 'offscreen')
qt = pytest.importorskip('robot_sm.frontends.rqt.qt')
QtCore, QtGui, QtWidgets = qt.QtCore, qt.QtGui, qt.QtWidgets
QTest = importlib.import_module(QtCore.__name__.rpartition('.')[0] + '.QtTest').QTest

OUTPUT = pathlib.Path(__file__).resolve().parents[1] / 'test-output'
#: Waypoints in the office world, from the robot's start at (1, 1): near, outside the map (no
#: way there), and two across the office, the first with the Wait routine.
WAYPOINTS = [(1.7, 1.0, ''), (-4.0, -4.0, ''), (4.0, 4.6, 'Wait'), (6.6, 1.4, '')]


def statuses(table: Any) -> List[str]:
    return [table.item(row, 5).text() for row in range(table.rowCount())
            if table.item(row, 5) is not None]


def test_panel_operating_the_simulated_robot_is_saved_as_a_picture(
        start_suite: StartSuite) -> None:
    from robot_sm.frontends.rqt.control_panel import ControlPanel, PanelBackend
    from robot_sm.frontends.rqt.panel_backend import panel_operator
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    # The suite and the simulation with the shipped parameter files, as the demo runs them.
    suite = start_suite(world='office', parameter_files=shipped_parameter_files(sim=True),
                        parameters={'state_interface': {'Navigation.max_linear_speed': 0.45}})
    suite.client = suite.client.with_operator(panel_operator())  # one person, at the panel
    for x, y, routine in WAYPOINTS:
        assert suite.client.add_waypoint(x, y, routine=routine).success

    client = SuiteClient(namespace=suite.namespace, timeout=5.0, context=suite.context)
    panel = ControlPanel(PanelBackend(client), refresh_hz=20.0)
    try:
        panel.resize(560, 700)
        panel.show()
        assert QTest.qWaitForWindowExposed(panel, 5000)

        def until(predicate: Any, timeout: float = WAIT) -> None:
            def step() -> bool:
                app.processEvents()
                return predicate()
            assert wait_until(step, timeout, interval=0.02), \
                f'{panel.state_label.text()}; {statuses(panel.table)}; {panel.info_label.text()}'

        until(lambda: panel.state_label.text() == 'Current state: Idle'
              and len(statuses(panel.table)) == len(WAYPOINTS) and panel.routine_box.count() > 1)
        QTest.mouseClick(panel.mode_buttons['autonomy'], QtCore.Qt.LeftButton,
                         QtCore.Qt.NoModifier, QtCore.QPoint(8, 8))
        suite.client.wait_for_mode('autonomy')
        QTest.mouseClick(panel.following_button, QtCore.Qt.LeftButton)
        suite.wait_state('W: Navigation')

        # The first waypoint is reached, the second cannot be, the robot drives to the third.
        until(lambda: statuses(panel.table) == ['visited', 'unreachable', 'pending', 'pending']
              and panel.state_label.text() == 'Current state: W: Navigation', timeout=30.0)
        until(lambda: panel.input_label.text() == 'Input: autonomy')  # the mux's choice
        assert panel.mode_buttons['autonomy'].isChecked()
        assert panel.following_button.text() == 'Stop'
        assert panel.info_label.text() == 'waypoint following: Waypoint following started'
        app.processEvents()

        OUTPUT.mkdir(exist_ok=True)
        path = OUTPUT / 'control_panel.png'
        picture = panel.grab()
        assert picture.save(str(path), 'PNG'), f'cannot write {path}'
    finally:
        panel.shutdown()
        panel.close()
        app.processEvents()
        client.close()
        panel.backend.close(wait=True)

    image = QtGui.QImage(str(path))
    assert (image.width(), image.height()) == (picture.width(), picture.height())
    # Text, frames and the coloured statuses: far more than a blank window's few colours.
    colours = {image.pixel(x, y) for x in range(0, image.width(), 3)
               for y in range(0, image.height(), 3)}
    assert len(colours) > 50
