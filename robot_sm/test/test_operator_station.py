"""
The operator station: presence as the operator sees it, ``robot-sm connect``, the panel.

``robot-sm connect`` and the rqt panel publish the operator heartbeat; a mux that watches it
(``config/remote.yaml``, ``robot-sm up --remote``) answers every beat on
``robot_sm/operator_present``, stays STOPPED refusing modes until the first beat, and engages its
e-stop when the heartbeat falls silent after it.
"""

import json
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
from robot_sm_msgs.srv import SetOperationMode
from std_msgs.msg import Bool

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
    # Nobody beats yet: the mux stays STOPPED and refuses modes (no e-stop to release later).
    request = SetOperationMode.Request(operation_mode=OperationMode(mode=OperationMode.STOPPED))
    refused = ros.call(SetOperationMode, 'robot_sm/set_operation_mode', request)
    assert not refused.success and 'the operator is not heard yet' in refused.message
    connect = ros.start_process(robot_sm('connect', namespace=ros.namespace))
    assert wait_until(lambda: 'connected: the robot hears your heartbeat' in connect.output,
                      WAIT), connect.output
    assert wait_until(lambda: 'e-stop released' in connect.output, WAIT), connect.output
    # Heard: modes are taken.
    assert ros.call(SetOperationMode, 'robot_sm/set_operation_mode', request).success
    assert not any(m.emergency_stop for m in modes.messages)
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


def status_json(namespace: str) -> Any:
    result = subprocess.run(robot_sm('--no-daemon', '--json', 'status', namespace=namespace),
                            capture_output=True, text=True, timeout=60.0)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def test_up_remote_without_an_operator_stays_still_and_says_why(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    modes = ros.record(OperationMode, 'robot_sm/operation_mode', qos.STATE)
    up = ros.start_process(robot_sm('up', '--remote', namespace=ros.namespace),
                           env={'ROS_HOME': str(tmp_path)})
    try:
        values = ros.call(GetParameters, 'robot_control_mux/get_parameters',
                          GetParameters.Request(names=['heartbeat_topic']), timeout=START).values
    except TimeoutError as error:
        raise AssertionError(f'{error}; robot-sm up printed:\n{up.output}') from error
    assert values[0].string_value == 'robot_sm/operator_heartbeat'
    assert wait_until(lambda: 'the operator is not heard yet (heartbeat topic '
                              'robot_sm/operator_heartbeat)' in up.output, WAIT), up.output
    # Longer than heartbeat_timeout (1 s) without an operator: no e-stop, and status says why.
    status = status_json(ros.namespace)
    assert (status['mode'], status['emergency_stop']) == ('stopped', False)
    assert status['held'].startswith('the operator is not heard yet'), status
    mode = subprocess.run(robot_sm('--no-daemon', 'mode', 'autonomy', namespace=ros.namespace),
                          capture_output=True, text=True, timeout=60.0)
    assert mode.returncode == 1 and 'the operator is not heard yet' in mode.stdout, mode
    assert not any(m.emergency_stop for m in modes.messages)
    assert 'heartbeat silent' not in up.output


def test_an_operator_up_before_the_robot_finds_no_estop_and_its_silence_latches_one(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    modes = ros.record(OperationMode, 'robot_sm/operation_mode', qos.STATE)
    connect = ros.start_process(robot_sm('connect', namespace=ros.namespace))
    up = ros.start_process(robot_sm('up', '--remote', namespace=ros.namespace),
                           env={'ROS_HOME': str(tmp_path)})
    assert wait_until(lambda: 'connected: the robot hears your heartbeat' in connect.output,
                      START), connect.output + up.output
    status = status_json(ros.namespace)
    assert (status['mode'], status['emergency_stop']) == ('stopped', False), status
    assert status['held'].startswith('the mux is STOPPED (as after every start'), status
    assert not any(m.emergency_stop for m in modes.messages), up.output
    # Once heard, the operator's silence engages the e-stop and latches it, as before.
    closed = time.monotonic()
    assert connect.stop() == 0, connect.output
    modes.wait_for(lambda m: m.emergency_stop, after=closed, timeout=WAIT)
    assert wait_until(lambda: 'heartbeat silent' in up.output, WAIT), up.output
    latch = tmp_path / 'robot_sm' / ros.namespace.strip('/') / 'emergency_stop.yaml'
    assert wait_until(lambda: latch.exists() and 'engaged: true' in latch.read_text(), WAIT)


def test_the_web_console_says_why_a_robot_whose_operator_never_appears_stays_still(
        ros: RosHarness) -> None:
    from robot_sm.frontends.web.bridge import RobotBridge
    sent: List[Any] = []
    ros.start_node(RobotControlMux, HEARTBEAT)
    # No page pings: the console beats for nobody, as for a read-only page.
    bridge = RobotBridge(ros.context, ros.namespace, lambda kind, value: sent.append(
        (kind, value)))
    try:
        assert wait_until(lambda: any(
            kind == 'mode' and value['held'].startswith('the operator is not heard yet')
            for kind, value in list(sent)), WAIT), sent
    finally:
        bridge.close()
    mode = [value for kind, value in sent if kind == 'mode'][-1]
    assert (mode['mode'], mode['emergency_stop']) == ('stopped', False)


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
    client = SuiteClient(namespace=ros.namespace, timeout=3.0, context=ros.context)
    panel = ControlPanel(PanelBackend(client), refresh_hz=20.0)
    try:
        panel.show()
        label = panel.presence_label
        assert process_until(lambda: 'connected: the robot hears' in label.text()), label.text()
        assert '#5cb85c' in label.styleSheet()  # green
        assert not panel.estop_button.isChecked()  # no e-stop before the panel was heard
        assert not any(m.emergency_stop for m in modes.messages)
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
