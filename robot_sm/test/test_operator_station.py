"""
The operator station: presence as the operator sees it, ``robot-sm connect``, the panel.

``robot-sm connect`` and the rqt panel publish the operator heartbeat; a mux that watches it
(``config/remote.yaml``, ``robot-sm up --remote``) answers every beat on
``robot_sm/operator_present`` and engages its e-stop when the heartbeat falls silent.
"""

import os
import pathlib
import subprocess
import time
from typing import Any, List

from operator_suite import cli_command
import pytest
from rcl_interfaces.srv import GetParameters
from robot_sm import qos
from robot_sm.client import SuiteClient
from robot_sm.frontends.presence_monitor import Presence, PresenceMonitor
from robot_sm.nodes.robot_control_mux import RobotControlMux
from robot_sm.testing import RosHarness, wait_until
from robot_sm_msgs.msg import OperationMode
from std_msgs.msg import Bool
from std_srvs.srv import SetBool

WAIT = 10.0
#: Start-up of the whole suite on a loaded 2-core machine.
START = 30.0
HEARTBEAT = {'heartbeat_topic': 'robot_sm/operator_heartbeat', 'heartbeat_timeout': 0.5}


def robot_sm(*args: str, namespace: str = '') -> List[str]:
    """Return the command line of ``robot-sm --namespace NAMESPACE args...``."""
    return [*cli_command(), '--namespace', namespace, *args]


# -- what the indicator shows (no ROS) ----------------------------------------------------------


def test_presence_waits_for_the_robot_then_follows_its_answers() -> None:
    monitor = PresenceMonitor(link_timeout=1.0)
    assert monitor.report(10.0).presence is Presence.WAITING
    monitor.answer(True, 10.0)
    report = monitor.report(10.9)
    assert report.seen and report.text == 'connected: the robot hears your heartbeat'
    lost = monitor.report(11.2)
    assert lost.presence is Presence.LINK_LOST
    assert 'no answer from the robot for 1.2 s' in lost.text
    monitor.answer(False, 11.3)  # the robot says the heartbeat is silent
    assert monitor.report(11.4).presence is Presence.NOT_HEARD
    monitor.answer(True, 12.0)
    assert monitor.report(12.0).seen


def test_a_robot_that_watches_no_heartbeat_is_named_as_such() -> None:
    report = PresenceMonitor().report(0.0, watched=False)
    assert report.presence is Presence.NOT_WATCHED
    assert 'it will NOT stop if this link is lost' in report.text


def test_the_link_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError, match='link_timeout'):
        PresenceMonitor(link_timeout=0.0)


# -- robot-sm connect ---------------------------------------------------------------------------


def test_connect_is_heard_by_the_robot_and_closing_it_stops_the_robot(ros: RosHarness) -> None:
    modes = ros.record(OperationMode, 'robot_sm/operation_mode', qos.STATE)
    ros.start_node(RobotControlMux, HEARTBEAT)
    # Nobody beats yet: the watchdog, armed at the start, engages the e-stop.
    modes.wait_for(lambda m: m.emergency_stop, timeout=WAIT)
    connect = ros.start_process(robot_sm('connect', namespace=ros.namespace))
    assert wait_until(lambda: 'connected: the robot hears your heartbeat' in connect.output,
                      WAIT), connect.output
    assert wait_until(lambda: 'e-stop ENGAGED' in connect.output, WAIT), connect.output
    # Heard: the operator may release.
    answer = ros.call(SetBool, 'robot_sm/emergency_stop', SetBool.Request(data=False))
    assert answer.success, answer.message
    assert wait_until(lambda: 'e-stop released' in connect.output, WAIT), connect.output
    closed = time.monotonic()
    assert connect.stop() == 0, connect.output
    modes.wait_for(lambda m: m.emergency_stop, after=closed, timeout=WAIT)


def test_connect_names_a_robot_that_watches_no_heartbeat(ros: RosHarness) -> None:
    ros.start_node(RobotControlMux)
    connect = ros.start_process(robot_sm('connect', namespace=ros.namespace))
    assert wait_until(lambda: 'watches no operator heartbeat' in connect.output, WAIT), \
        connect.output


def test_connect_refuses_a_heartbeat_rate_out_of_bounds() -> None:
    result = subprocess.run(robot_sm('connect', '--rate', '0'), capture_output=True, text=True,
                            timeout=60.0)
    assert result.returncode == 2
    assert result.stderr.strip() == 'robot-sm connect: --rate must be within 1..100 Hz (got 0)'


# -- robot-sm up --remote -----------------------------------------------------------------------


def test_up_remote_watches_the_operator_heartbeat(ros: RosHarness,
                                                  tmp_path: pathlib.Path) -> None:
    modes = ros.record(OperationMode, 'robot_sm/operation_mode', qos.STATE)
    up = ros.start_process(robot_sm('up', '--remote', namespace=ros.namespace),
                           env={'ROS_HOME': str(tmp_path)})
    try:
        # No operator: the robot stops and says why.
        modes.wait_for(lambda m: m.emergency_stop, timeout=START)
        values = ros.call(GetParameters, 'robot_control_mux/get_parameters',
                          GetParameters.Request(names=['heartbeat_topic'])).values
    except TimeoutError as error:
        raise AssertionError(f'{error}; robot-sm up printed:\n{up.output}') from error
    assert values[0].string_value == 'robot_sm/operator_heartbeat'
    assert wait_until(lambda: 'heartbeat silent' in up.output, WAIT), up.output


# -- the rqt panel ------------------------------------------------------------------------------


@pytest.fixture(scope='module')
def app() -> Any:
    os.environ.setdefault('QT_QPA_PLATFORM', 'offscreen')
    qt = pytest.importorskip('robot_sm.frontends.rqt.qt')
    return qt.QtWidgets.QApplication.instance() or qt.QtWidgets.QApplication([])


def test_the_panel_beats_while_it_runs_and_shows_the_robot_hears_it(app: Any,
                                                                    ros: RosHarness) -> None:
    from robot_sm.frontends.rqt.control_panel import ControlPanel, PanelBackend

    def process_until(predicate: Any) -> bool:
        def step() -> bool:
            app.processEvents()
            return predicate()
        return wait_until(step, WAIT, interval=0.01)

    modes = ros.record(OperationMode, 'robot_sm/operation_mode', qos.STATE)
    present = ros.record(Bool, 'robot_sm/operator_present', qos.STATE)
    ros.start_node(RobotControlMux, HEARTBEAT)
    modes.wait_for(lambda m: m.emergency_stop, timeout=WAIT)  # nobody beats yet
    client = SuiteClient(namespace=ros.namespace, timeout=3.0, context=ros.context)
    panel = ControlPanel(PanelBackend(client), refresh_hz=20.0)
    try:
        panel.show()
        label = panel.presence_label
        assert process_until(lambda: 'connected: the robot hears' in label.text()), label.text()
        assert '#5cb85c' in label.styleSheet()  # green
        # Heard, so the Software Stop the watchdog engaged can be released from the panel.
        assert process_until(lambda: panel.estop_button.isChecked())
        panel.estop_button.click()
        assert process_until(lambda: not panel.estop_button.isChecked())
        # A panel that freezes (its Qt events are not processed) stops beating: the robot stops.
        frozen = time.monotonic()
        modes.wait_for(lambda m: m.emergency_stop, after=frozen, timeout=WAIT)
        present.wait_for(lambda m: not m.data, after=frozen, timeout=WAIT)
        # Back: heard again, and the stop is shown as engaged.
        assert process_until(lambda: panel.estop_button.isChecked()
                             and 'connected: the robot hears' in label.text()), label.text()
    finally:
        panel.shutdown()
        panel.close()
        client.close()
