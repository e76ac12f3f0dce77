"""The robot_control_mux node over real DDS: its e-stop latch file, the heartbeat, presence."""

import pathlib
import shutil
import time

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import Twist
from mux_node_rig import (
    AUTONOMOUS,
    is_zero,
    linear_x,
    Mux,
    mux_status,
    STOPPED,
    Stream,
    TICK,
    twist,
    WAIT,
)
from robot_sm import qos
from robot_sm.nodes.robot_control_mux import RobotControlMux
from robot_sm.testing import RosHarness, SCHEDULING_SLACK, wait_until
from robot_sm_msgs.msg import OperationMode
from robot_sm_msgs.srv import SetOperationMode
from std_msgs.msg import Bool


NOT_HEARD = ('the operator is not heard yet (heartbeat topic robot_sm/heartbeat): the mux stays '
             'STOPPED and refuses modes until the first heartbeat arrives')


def test_an_operator_never_heard_leaves_the_robot_stopped_and_says_why(ros: RosHarness) -> None:
    diagnostics = ros.record(DiagnosticArray, '/diagnostics')
    mux = Mux(ros, {'heartbeat_topic': 'robot_sm/heartbeat', 'heartbeat_timeout': 0.3})
    autonomy = Stream(ros, Twist, 'autonomy/cmd_vel', twist(0.3))
    teleoperation = Stream(ros, Twist, 'teleoperation/cmd_vel', twist(0.2))
    ros.wait_for_subscribers(autonomy.publisher)
    ros.wait_for_subscribers(teleoperation.publisher)
    started = time.monotonic()
    # Many heartbeat timeouts pass: no e-stop, and the mux says why it stays STOPPED.
    status = mux_status(diagnostics, mux, started + 1.0, lambda s: NOT_HEARD in s.message)
    assert status.level == bytes([0])
    for mode in (AUTONOMOUS, STOPPED):
        answer = mux.set_mode(mode)
        assert (answer.success, answer.message) == (False, NOT_HEARD)
    assert all(m.mode == STOPPED and not m.emergency_stop for m in mux.modes.messages)
    assert mux.cmd_since(started) and all(is_zero(m) for m in mux.cmd_since(started))
    assert ros.record(Bool, 'robot_sm/operator_present', qos.STATE).wait_for().data is False


def test_an_operator_heard_late_finds_no_estop(ros: RosHarness) -> None:
    # The operator's heartbeat was there before the mux: however long finding it takes, the mux
    # starts without an e-stop and takes a mode once it is heard.
    heartbeat = Stream(ros, Bool, 'robot_sm/heartbeat', Bool(data=False), rate=10.0)
    present = ros.record(Bool, 'robot_sm/operator_present', qos.STATE)
    mux = Mux(ros, {'heartbeat_topic': 'robot_sm/heartbeat', 'heartbeat_timeout': 0.3})
    present.wait_for(lambda m: m.data, timeout=WAIT)
    assert mux.set_mode(AUTONOMOUS).success
    mux.wait_mode(AUTONOMOUS)
    assert not any(m.emergency_stop for m in mux.modes.messages)
    heartbeat.switch(None)


def test_silence_after_the_first_heartbeat_engages_and_latches_the_estop(
        ros: RosHarness) -> None:
    mux = Mux(ros, {'heartbeat_topic': 'robot_sm/heartbeat', 'heartbeat_timeout': 0.3})
    heartbeat = Stream(ros, Bool, 'robot_sm/heartbeat', Bool(data=False))
    autonomy = Stream(ros, Twist, 'autonomy/cmd_vel', twist(0.3))
    ros.wait_for_subscribers(autonomy.publisher)
    # Modes are taken once the first heartbeat is heard.
    assert wait_until(lambda: mux.set_mode(AUTONOMOUS).success, WAIT, interval=0.1)
    mux.wait_cmd(linear_x(0.3), after=time.monotonic())

    last_beat = heartbeat.switch(None)
    engaged = mux.wait_mode(AUTONOMOUS, estop=True, after=last_beat)
    assert engaged - last_beat <= 0.3 + 2 * TICK + SCHEDULING_SLACK
    mux.wait_cmd(is_zero, after=last_beat + 0.3)
    refused = mux.estop(False)
    assert not refused.success and 'heartbeat' in refused.message

    heartbeat.switch(Bool(data=False))
    # Heard again, it stays latched until released.
    assert wait_until(lambda: mux.estop(False).success, WAIT, interval=0.1)
    mux.wait_mode(STOPPED, after=engaged)


def test_a_corrupt_latch_file_starts_engaged_and_is_kept_aside(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    latch = tmp_path / 'estop.yaml'
    latch.write_text('engaged: [')  # half written by hand, or a disk fault
    cmd_vel = ros.record(Twist, 'cmd_vel')
    modes = ros.record(OperationMode, 'robot_sm/operation_mode', qos.STATE)
    ros.start_node(RobotControlMux, {'emergency_stop_file': str(latch)})
    modes.wait_for(lambda m: m.emergency_stop, timeout=WAIT)
    kept = list(tmp_path.glob('estop.yaml.corrupt-*'))
    assert len(kept) == 1 and kept[0].read_text() == 'engaged: ['
    # The latch is written engaged again, so that the next start is engaged too.
    assert wait_until(lambda: latch.exists() and 'engaged: true' in latch.read_text(), WAIT)
    request = SetOperationMode.Request()
    request.operation_mode.mode = AUTONOMOUS
    assert not ros.call(SetOperationMode, 'robot_sm/set_operation_mode', request).success
    assert all(is_zero(m) for m in cmd_vel.messages)


def test_a_failed_latch_write_never_delays_the_stop_and_shows_in_diagnostics(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    folder = tmp_path / 'latch'
    diagnostics = ros.record(DiagnosticArray, '/diagnostics')
    mux = Mux(ros, {'emergency_stop_file': str(folder / 'estop.yaml')})
    autonomy = Stream(ros, Twist, 'autonomy/cmd_vel', twist(0.3))
    ros.wait_for_subscribers(autonomy.publisher)
    assert mux.set_mode(AUTONOMOUS).success
    mux.wait_cmd(linear_x(0.3), after=time.monotonic())
    shutil.rmtree(folder)  # the disk goes away under the running mux
    called = time.monotonic()
    assert mux.estop(True).success
    mux.wait_cmd(is_zero, after=called, timeout=1.0)
    status = mux_status(diagnostics, mux, called, lambda s: 'latch' in s.message)
    assert status.level == bytes([2])  # ERROR: the e-stop is engaged ...
    assert 'may not survive a restart' in status.message  # ... and the latch is not on disk
    values = {kv.key: kv.value for kv in status.values}
    assert 'No such file or directory' in values['emergency stop file error']


def test_an_empty_latch_file_parameter_keeps_nothing_on_disk(ros: RosHarness) -> None:
    mux = Mux(ros, {'emergency_stop_file': ''})
    assert mux.estop(True).success
    ros.stop_node(mux.node)
    modes = ros.record(OperationMode, 'robot_sm/operation_mode', qos.STATE)
    started = time.monotonic()
    ros.start_node(RobotControlMux, {'emergency_stop_file': ''})
    modes.wait_for(lambda m: m.mode == STOPPED and not m.emergency_stop, after=started,
                   timeout=WAIT)


def test_every_heartbeat_is_answered_and_its_silence_reported(ros: RosHarness) -> None:
    present = ros.record(Bool, 'robot_sm/operator_present', qos.STATE)
    Mux(ros, {'heartbeat_topic': 'robot_sm/operator_heartbeat', 'heartbeat_timeout': 0.3})
    present.wait_for(lambda m: not m.data)  # latched: nobody heard yet
    heartbeat = Stream(ros, Bool, 'robot_sm/operator_heartbeat', Bool(data=False), rate=10.0)
    start = time.monotonic()
    present.wait_for(lambda m: m.data, after=start)
    time.sleep(0.5)
    assert sum(m.data for m in present.since(start)) >= 3  # one answer per beat
    last_beat = heartbeat.switch(None)
    present.wait_for(lambda m: not m.data, after=last_beat)
    silent = next(t for t, m in present.stamped if t >= last_beat and not m.data)
    assert silent - last_beat <= 0.3 + 2 * TICK + SCHEDULING_SLACK


def test_no_presence_is_published_without_a_heartbeat_topic(ros: RosHarness) -> None:
    present = ros.record(Bool, 'robot_sm/operator_present', qos.STATE)
    Mux(ros)
    time.sleep(0.3)
    assert present.messages == []
    assert ros.probe.count_publishers(f'{ros.namespace}/robot_sm/operator_present') == 0
