"""The control panel without a suite: it starts, stays responsive and says what failed."""

import os
import time

import pytest
from robot_sm.client import SuiteClient
from robot_sm.testing import RosHarness, wait_until

os.environ.setdefault('QT_QPA_PLATFORM', 'offscreen')
QtWidgets = pytest.importorskip('robot_sm.frontends.rqt.qt').QtWidgets


@pytest.fixture(scope='module')
def app() -> object:
    return QtWidgets.QApplication.instance() or QtWidgets.QApplication([])


def process_until(app: object, predicate, timeout: float) -> bool:
    def step() -> bool:
        app.processEvents()
        return predicate()
    return wait_until(step, timeout, interval=0.01)


def test_clicks_without_a_suite_report_the_missing_service(app: object,
                                                           ros: RosHarness) -> None:
    from robot_sm.frontends.rqt.control_panel import ControlPanel, PanelBackend
    client = SuiteClient(namespace=ros.namespace, timeout=0.3, context=ros.context)
    panel = ControlPanel(PanelBackend(client))
    try:
        panel.show()
        assert panel.state_label.text() == 'Current state: (waiting for the suite)'
        started = time.monotonic()
        panel.estop_button.click()
        # The click returns at once: the call runs off the GUI thread.
        assert time.monotonic() - started < 0.1
        assert process_until(app, lambda: 'unsuccessful' in panel.info_label.text(), 5.0)
        assert 'robot_sm/_mux/command is not available' in panel.info_label.text()
        panel.following_button.click()
        assert process_until(
            app, lambda: 'robot_sm/command is not available' in panel.info_label.text(), 5.0)
    finally:
        panel.shutdown()
        panel.close()
        client.close()
