"""The robot_control_mux node over real DDS: what arrives on cmd_vel and operation_mode."""

import math
import pathlib
import shutil
import threading
import time
from typing import Any, Dict, List, Optional

from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import Twist, TwistStamped, Vector3
import pytest
import rclpy
from rclpy.context import Context
from rclpy.node import Node
from robot_sm import qos
from robot_sm.nodes.robot_control_mux import RobotControlMux
from robot_sm.testing import (python_module_argv, Recorder, ros_args, RosHarness,
                              SCHEDULING_SLACK, wait_until)
from robot_sm_msgs.msg import OperationMode
from robot_sm_msgs.srv import SetOperationMode
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Joy
from std_msgs.msg import Bool
from std_srvs.srv import SetBool

STOPPED, AUTONOMOUS, TELEOPERATION = (OperationMode.STOPPED, OperationMode.AUTONOMOUS,
                                      OperationMode.TELEOPERATION)
TICK = 0.05  # default update_frequency 20 Hz
WAIT = 5.0


def twist(x: float = 0.0, yaw: float = 0.0) -> Twist:
    return Twist(linear=Vector3(x=x), angular=Vector3(z=yaw))


def is_zero(msg: Any) -> bool:
    t = msg.twist if isinstance(msg, TwistStamped) else msg
    return not any((t.linear.x, t.linear.y, t.linear.z, t.angular.x, t.angular.y, t.angular.z))


class Stream:
    """Publish a message at a fixed rate from the probe node; ``message = None`` pauses it."""

    def __init__(self, ros: RosHarness, msg_type: Any, topic: str, message: Any,
                 rate: float = 50.0) -> None:
        self._lock = threading.Lock()
        self._message = message
        self.last_sent = 0.0
        self.publisher = ros.publisher(msg_type, topic)
        ros.probe.create_timer(1.0 / rate, self._send)

    def _send(self) -> None:
        with self._lock:
            if self._message is not None:
                self.publisher.publish(self._message)
                self.last_sent = time.monotonic()

    def switch(self, message: Any) -> float:
        """Publish ``message`` from now on; return when the previous one was last sent."""
        with self._lock:
            self._message = message
            return self.last_sent


class Mux:
    """A mux node under test with recorders on its outputs."""

    def __init__(self, ros: RosHarness, parameters: Optional[Dict[str, Any]] = None,
                 output: Any = Twist) -> None:
        self.ros = ros
        self.cmd_vel: Recorder[Any] = ros.record(output, 'cmd_vel')
        self.node = ros.start_node(RobotControlMux, parameters=parameters)
        self.modes: Recorder[OperationMode] = ros.record(
            OperationMode, 'robot_sm/operation_mode', qos.STATE)
        # Started: STOPPED, with the e-stop engaged already if a heartbeat watchdog ran out
        # before this recorder matched (the topic keeps only its last message).
        self.modes.wait_for(lambda m: m.mode == STOPPED, timeout=WAIT)

    def wait_mode(self, mode: int, estop: bool = False, after: Optional[float] = None,
                  timeout: float = WAIT) -> float:
        """Wait for an operation_mode message; return its arrival time."""
        since = time.monotonic() - 0.5 if after is None else after
        self.modes.wait_for(lambda m: m.mode == mode and m.emergency_stop == estop,
                            timeout=timeout, after=since)
        return next(t for t, m in self.modes.stamped
                    if t >= since and m.mode == mode and m.emergency_stop == estop)

    def set_mode(self, mode: int, estop: bool = False) -> Any:
        request = SetOperationMode.Request()
        request.operation_mode = OperationMode(mode=mode, emergency_stop=estop)
        return self.ros.call(SetOperationMode, 'robot_sm/set_operation_mode', request)

    def estop(self, engage: bool) -> Any:
        return self.ros.call(SetBool, 'robot_sm/emergency_stop', SetBool.Request(data=engage))

    def wait_cmd(self, predicate: Any, after: float, timeout: float = WAIT) -> float:
        """Wait for a cmd_vel message matching ``predicate``; return its arrival time."""
        self.cmd_vel.wait_for(predicate, timeout=timeout, after=after)
        return next(t for t, m in self.cmd_vel.stamped if t >= after and predicate(m))

    def cmd_since(self, t: float) -> List[Any]:
        return self.cmd_vel.since(t)


def linear_x(value: float) -> Any:
    return lambda m: not isinstance(m, TwistStamped) and m.linear.x == pytest.approx(value)


def test_starts_stopped_then_forwards_autonomy_with_low_rate_mode_topic(ros: RosHarness) -> None:
    mux = Mux(ros)
    autonomy = Stream(ros, Twist, 'autonomy/cmd_vel', twist(0.3))
    ros.wait_for_subscribers(autonomy.publisher)
    time.sleep(0.4)
    assert mux.cmd_since(0.0) and all(is_zero(m) for m in mux.cmd_since(0.0))  # STOPPED

    answer = mux.set_mode(AUTONOMOUS)
    assert answer.success, answer.message
    start = time.monotonic()
    mux.wait_cmd(linear_x(0.3), after=start)
    mux.wait_mode(AUTONOMOUS, after=start - 0.5)

    window_start = time.monotonic()
    time.sleep(1.5)
    window = mux.cmd_since(window_start)
    assert all(m.linear.x == pytest.approx(0.3) for m in window)
    # Every 50 Hz input is forwarded at once, besides the 20 Hz ticks.
    assert len(window) >= 1.5 * 50 * 0.8
    # operation_mode is not published on every tick: only the 1 Hz keep-alive.
    assert len(mux.modes.since(window_start)) <= 3

    late = ros.record(OperationMode, 'robot_sm/operation_mode', qos.STATE)  # transient_local
    assert late.wait_for(timeout=WAIT).mode == AUTONOMOUS


def test_teleop_takes_over_and_times_out_in_wall_time(ros: RosHarness) -> None:
    mux = Mux(ros)
    autonomy = Stream(ros, Twist, 'autonomy/cmd_vel', twist(0.3))
    teleop = Stream(ros, Twist, 'teleoperation/cmd_vel', twist())  # a joystick at rest
    ros.wait_for_subscribers(autonomy.publisher)
    ros.wait_for_subscribers(teleop.publisher)
    assert mux.set_mode(AUTONOMOUS).success
    mux.wait_cmd(linear_x(0.3), after=time.monotonic())
    time.sleep(0.3)
    assert mux.modes.last.mode == AUTONOMOUS  # zeros on teleop do not take over

    start = time.monotonic()
    teleop.switch(twist(yaw=0.5))
    mux.wait_cmd(lambda m: m.angular.z == pytest.approx(0.5), after=start)
    mux.wait_mode(TELEOPERATION, after=start)
    time.sleep(0.7)  # longer than the idle timer: non-zero commands keep teleop alive
    assert mux.modes.last.mode == TELEOPERATION
    assert all(m.angular.z == pytest.approx(0.5) for m in mux.cmd_since(start + 0.2))

    last_nonzero = teleop.switch(twist())  # the operator lets go: zeros keep coming at 50 Hz
    stopped_at = mux.wait_mode(STOPPED, after=last_nonzero)
    delay = stopped_at - last_nonzero
    assert 0.5 - 2 * TICK <= delay <= 0.5 + 2 * TICK + SCHEDULING_SLACK, delay
    # Autonomy keeps streaming, but the mode is STOPPED: only zeros from now on.
    time.sleep(0.4)
    assert all(is_zero(m) for m in mux.cmd_since(stopped_at + 0.05))


def test_timeout_falls_back_to_previous_mode(ros: RosHarness) -> None:
    mux = Mux(ros, {'teleop_timeout_mode': 'previous'})
    autonomy = Stream(ros, Twist, 'autonomy/cmd_vel', twist(0.3))
    teleop = Stream(ros, Twist, 'teleoperation/cmd_vel', None)
    ros.wait_for_subscribers(autonomy.publisher)
    ros.wait_for_subscribers(teleop.publisher)
    assert mux.set_mode(AUTONOMOUS).success
    start = time.monotonic()
    teleop.switch(twist(yaw=-0.4))
    mux.wait_mode(TELEOPERATION, after=start)
    time.sleep(0.2)
    last_nonzero = teleop.switch(None)  # the teleop node dies
    back_at = mux.wait_mode(AUTONOMOUS, after=last_nonzero)
    assert 0.5 - 2 * TICK <= back_at - last_nonzero <= 0.5 + 2 * TICK + SCHEDULING_SLACK
    mux.wait_cmd(linear_x(0.3), after=back_at)


def test_emergency_stop_service_latches_refuses_and_release_stops(ros: RosHarness) -> None:
    mux = Mux(ros)
    autonomy = Stream(ros, Twist, 'autonomy/cmd_vel', twist(0.3))
    teleop = Stream(ros, Twist, 'teleoperation/cmd_vel', None)
    ros.wait_for_subscribers(autonomy.publisher)
    assert mux.set_mode(AUTONOMOUS).success
    mux.wait_cmd(linear_x(0.3), after=time.monotonic())

    called = time.monotonic()
    answer = mux.estop(True)
    answered = time.monotonic()
    assert answer.success, answer.message
    mux.wait_cmd(is_zero, after=called, timeout=1.0)
    mux.wait_mode(AUTONOMOUS, estop=True, after=called)

    refused = mux.set_mode(TELEOPERATION, estop=True)
    assert not refused.success and 'refused' in refused.message
    teleop.switch(twist(yaw=1.0))  # the operator tries to drive: nothing moves
    time.sleep(0.6)
    assert mux.modes.last.mode == AUTONOMOUS and mux.modes.last.emergency_stop
    assert all(is_zero(m) for m in mux.cmd_since(answered + 0.05))
    assert len(mux.cmd_since(answered + 0.05)) >= 0.5 / TICK * 0.8  # zero on every tick

    teleop.switch(None)
    released = mux.estop(False)
    release_time = time.monotonic()
    assert released.success and 'STOPPED' in released.message
    mux.wait_mode(STOPPED, after=answered)
    time.sleep(0.5)  # autonomy still streams: release never resumes motion
    assert all(is_zero(m) for m in mux.cmd_since(release_time))

    assert mux.set_mode(AUTONOMOUS).success
    mux.wait_cmd(linear_x(0.3), after=time.monotonic())


def test_a_mode_request_during_an_estop_is_refused_and_names_the_release(
        ros: RosHarness) -> None:
    mux = Mux(ros)
    autonomy = Stream(ros, Twist, 'autonomy/cmd_vel', twist(0.3))
    ros.wait_for_subscribers(autonomy.publisher)
    assert mux.set_mode(AUTONOMOUS).success
    mux.wait_cmd(linear_x(0.3), after=time.monotonic())

    called = time.monotonic()
    assert mux.set_mode(AUTONOMOUS, estop=True).success  # emergency_stop: true still engages
    mux.wait_cmd(is_zero, after=called, timeout=1.0)
    mux.wait_mode(AUTONOMOUS, estop=True, after=called)

    request = SetOperationMode.Request()
    request.operation_mode.mode = AUTONOMOUS  # {mode: 1}: emergency_stop keeps its default
    refused = ros.call(SetOperationMode, 'robot_sm/set_operation_mode', request)
    asked = time.monotonic()
    assert not refused.success
    assert 'robot_sm/emergency_stop' in refused.message, refused.message
    time.sleep(0.5)
    assert mux.modes.last.emergency_stop
    assert all(is_zero(m) for m in mux.cmd_since(asked))
    assert mux.estop(False).success  # the deliberate reset
    mux.wait_mode(STOPPED, after=asked)


def test_unknown_mode_is_refused_and_changes_nothing(ros: RosHarness) -> None:
    mux = Mux(ros, {'operation_mode_keepalive_rate': 0.0})
    autonomy = Stream(ros, Twist, 'autonomy/cmd_vel', twist(0.3))
    ros.wait_for_subscribers(autonomy.publisher)
    assert mux.set_mode(AUTONOMOUS).success
    mux.wait_mode(AUTONOMOUS)
    mux.wait_cmd(linear_x(0.3), after=time.monotonic())  # autonomy's commands come through
    mode_messages = len(mux.modes.messages)
    answer = mux.set_mode(7)
    assert not answer.success and 'unknown mode 7' in answer.message
    start = time.monotonic()
    time.sleep(0.3)
    assert len(mux.modes.messages) == mode_messages  # no change was published
    assert all(m.linear.x == pytest.approx(0.3) for m in mux.cmd_since(start))


def test_non_finite_commands_are_dropped_and_diagnostics_are_real(ros: RosHarness) -> None:
    mux = Mux(ros)
    diagnostics = ros.record(DiagnosticArray, '/diagnostics')
    autonomy = Stream(ros, Twist, 'autonomy/cmd_vel', twist(0.3))
    teleop = Stream(ros, Twist, 'teleoperation/cmd_vel', twist(yaw=math.nan))
    ros.wait_for_subscribers(autonomy.publisher)
    ros.wait_for_subscribers(teleop.publisher)
    assert mux.set_mode(AUTONOMOUS).success
    start = time.monotonic()
    teleop.switch(twist(x=math.inf))
    time.sleep(1.0)
    assert mux.modes.last.mode == AUTONOMOUS  # NaN / Inf never take over
    assert all(m.linear.x == pytest.approx(0.3) for m in mux.cmd_since(start + 0.1))

    name = mux.node.get_fully_qualified_name()
    array = diagnostics.wait_for(
        lambda a: any(s.hardware_id == name for s in a.status), after=start + 1.0,
        timeout=WAIT)
    status = next(s for s in array.status if s.hardware_id == name)
    values = {kv.key: kv.value for kv in status.values}
    assert status.level == bytes([1]) and 'non-finite' in status.message
    assert values['mode'] == 'AUTONOMOUS' and values['active source'] == 'autonomy'
    assert values['emergency stop'] == 'false'
    assert 40.0 <= float(values['autonomy rate (Hz)']) <= 60.0
    assert float(values['autonomy age (s)']) < SCHEDULING_SLACK  # 0.02 s at 50 Hz; never: > 1 s
    assert int(values['teleoperation dropped']) >= 40
    assert int(values['teleoperation received']) == 0
    assert values['teleoperation age (s)'] == 'never'


def test_stamped_input_and_output_with_frame_and_clamp(ros: RosHarness) -> None:
    mux = Mux(ros, {'input_stamped': True, 'output_stamped': True, 'frame_id': 'base_footprint',
                    'max_linear_velocity': 0.5, 'max_angular_velocity': 1.0},
              output=TwistStamped)
    diagnostics = ros.record(DiagnosticArray, '/diagnostics')
    command = TwistStamped()
    command.twist = twist(2.0, 1.0)
    autonomy = Stream(ros, TwistStamped, 'autonomy/cmd_vel', command)
    ros.wait_for_subscribers(autonomy.publisher)
    assert mux.set_mode(AUTONOMOUS).success
    start = time.monotonic()
    mux.wait_cmd(lambda m: m.twist.linear.x > 0.0, after=start)
    out = [m for m in mux.cmd_since(start) if m.twist.linear.x > 0.0][-1]
    assert out.header.frame_id == 'base_footprint' and out.header.stamp.sec > 0
    assert out.twist.linear.x == pytest.approx(0.5) and out.twist.angular.z == pytest.approx(0.25)

    # A teleop node publishing plain Twist never connects; diagnostics say so. (It lives in a
    # context of its own: one DDS participant cannot hold both types on one topic.)
    context = Context()
    rclpy.init(context=context)
    try:
        web_teleop = Node('web_teleop', namespace=ros.namespace, context=context)
        web_teleop.create_publisher(Twist, 'teleoperation/cmd_vel', 10)
        name = mux.node.get_fully_qualified_name()
        array = diagnostics.wait_for(
            lambda a: any(s.hardware_id == name and 'publishers of' in s.message
                          for s in a.status), timeout=WAIT)
    finally:
        rclpy.try_shutdown(context=context)
    status = next(s for s in array.status if s.hardware_id == name)
    assert 'teleoperation/cmd_vel has publishers of geometry_msgs/msg/Twist' in status.message
    assert status.level == bytes([1])


def test_silent_heartbeat_engages_the_estop(ros: RosHarness) -> None:
    mux = Mux(ros, {'heartbeat_topic': 'robot_sm/heartbeat', 'heartbeat_timeout': 0.3})
    heartbeat = Stream(ros, Bool, 'robot_sm/heartbeat', Bool(data=False))
    autonomy = Stream(ros, Twist, 'autonomy/cmd_vel', twist(0.3))
    ros.wait_for_subscribers(autonomy.publisher)
    # The watchdog may have engaged before the first heartbeat arrived; release it.
    deadline = time.monotonic() + WAIT
    while not mux.estop(False).success and time.monotonic() < deadline:
        time.sleep(0.1)
    assert mux.set_mode(AUTONOMOUS).success
    mux.wait_cmd(linear_x(0.3), after=time.monotonic())

    last_beat = heartbeat.switch(None)
    engaged = mux.wait_mode(AUTONOMOUS, estop=True, after=last_beat)
    assert engaged - last_beat <= 0.3 + 2 * TICK + SCHEDULING_SLACK
    mux.wait_cmd(is_zero, after=last_beat + 0.3)
    refused = mux.estop(False)
    assert not refused.success and 'heartbeat' in refused.message

    heartbeat.switch(Bool(data=False))
    time.sleep(0.2)
    assert mux.estop(False).success
    mux.wait_mode(STOPPED, after=engaged)


def test_joystick_button_takes_over(ros: RosHarness) -> None:
    mux = Mux(ros, {'joystick_used': True})
    autonomy = Stream(ros, Twist, 'autonomy/cmd_vel', twist(0.3))
    joy = Stream(ros, Joy, 'joy', Joy(axes=[0.0, 0.0], buttons=[0, 0]))
    ros.wait_for_subscribers(autonomy.publisher)
    ros.wait_for_subscribers(joy.publisher)
    assert mux.set_mode(AUTONOMOUS).success
    time.sleep(0.3)
    assert mux.modes.last.mode == AUTONOMOUS  # a joystick at rest does nothing
    start = time.monotonic()
    joy.switch(Joy(axes=[0.0, 0.0], buttons=[1, 0]))
    mux.wait_mode(TELEOPERATION, after=start)
    mux.wait_cmd(is_zero, after=start)  # teleop has sent nothing yet: zero, not autonomy


def test_staleness_follows_sim_time(ros: RosHarness) -> None:
    clock = {'now': 1000.0, 'speed': 0.1}  # simulated seconds per wall second
    clock_pub = ros.publisher(Clock, '/clock')

    def advance() -> None:
        clock['now'] += 0.01 * clock['speed']
        seconds = int(clock['now'])
        clock_pub.publish(Clock(clock=Time(sec=seconds,
                                           nanosec=int((clock['now'] - seconds) * 1e9))))

    ros.probe.create_timer(0.01, advance)
    mux = Mux(ros, {'use_sim_time': True})
    autonomy = ros.publisher(Twist, 'autonomy/cmd_vel')
    ros.wait_for_subscribers(autonomy)
    assert mux.set_mode(AUTONOMOUS).success
    sent = time.monotonic()
    autonomy.publish(twist(0.3))  # one command, then the planner is silent
    mux.wait_cmd(linear_x(0.3), after=sent)
    time.sleep(1.5)  # 1.5 s of wall time, 0.15 s of simulated time: still fresh
    assert time.monotonic() - sent > 1.0
    assert mux.cmd_vel.last.linear.x == pytest.approx(0.3)
    clock['speed'] = 10.0  # the simulation runs fast: the command goes stale
    mux.wait_cmd(is_zero, after=time.monotonic(), timeout=WAIT)


@pytest.mark.parametrize('parameter,value', [
    ('update_frequency', 0.0),
    ('teleoperation_idle_timer', -0.5),
    ('teleop_timeout_mode', 'autonomous'),
])
def test_bad_parameters_refuse_to_start(ros: RosHarness, parameter: str, value: Any) -> None:
    process = ros.start_process(python_module_argv(
        'robot_sm.nodes.robot_control_mux', *ros_args(parameters={parameter: value})))
    assert process.wait(timeout=60.0) == 2, process.output
    lines = process.output.strip().splitlines()
    assert len(lines) == 1, process.output
    assert 'refusing to start' in lines[0] and f"'{parameter}'" in lines[0]


def mux_status(diagnostics: Recorder[DiagnosticArray], mux: Mux, after: float,
               predicate: Any = lambda status: True) -> Any:
    """Wait for a diagnostics status of ``mux`` matching ``predicate``; return it."""
    name = mux.node.get_fully_qualified_name()
    array = diagnostics.wait_for(
        lambda a: any(s.hardware_id == name and predicate(s) for s in a.status),
        after=after, timeout=WAIT)
    return next(s for s in array.status if s.hardware_id == name and predicate(s))


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
