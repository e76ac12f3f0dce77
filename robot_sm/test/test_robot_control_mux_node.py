"""The robot_control_mux node over real DDS: what arrives on cmd_vel and operation_mode."""

import math
import time
from typing import Any

from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import Twist, TwistStamped
from mux_node_rig import (
    AUTONOMOUS,
    is_zero,
    linear_x,
    Mux,
    mux_status,
    STOPPED,
    Stream,
    TELEOPERATION,
    TICK,
    twist,
    WAIT,
)
import pytest
import rclpy
from rclpy.context import Context
from rclpy.node import Node
from robot_sm import qos
from robot_sm.testing import (
    python_module_argv,
    ros_args,
    RosHarness,
    SCHEDULING_SLACK,
    wait_until,
)
from robot_sm_msgs.msg import OperationMode
from robot_sm_msgs.srv import SetOperationMode
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Joy


def test_starts_stopped_then_forwards_autonomy_with_low_rate_mode_topic(ros: RosHarness) -> None:
    mux = Mux(ros)
    autonomy = Stream(ros, Twist, 'autonomy/cmd_vel', twist(0.3))
    ros.wait_for_subscribers(autonomy.publisher)
    assert wait_until(lambda: len(mux.cmd_since(0.0)) >= 5, WAIT)
    assert all(is_zero(m) for m in mux.cmd_since(0.0))  # STOPPED: zero on every tick

    answer = mux.set_mode(AUTONOMOUS)
    assert answer.success, answer.message
    start = time.monotonic()
    mux.wait_cmd(linear_x(0.3), after=start)
    mux.wait_mode(AUTONOMOUS, after=start - 0.5)

    window_start = time.monotonic()
    time.sleep(1.5)
    window = mux.cmd_since(window_start)
    assert window and all(m.linear.x == pytest.approx(0.3) for m in window)
    # (How soon each command is forwarded is measured by bench/bench_mux.py, not asserted.)
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
    # A zero on every tick: no silence longer than a tick (and the allowance) while stopped.
    arrivals = [answered + 0.05] + [t for t, _ in mux.cmd_vel.stamped if t > answered + 0.05]
    arrivals.append(time.monotonic())
    assert max(b - a for a, b in zip(arrivals, arrivals[1:])) <= TICK + SCHEDULING_SLACK

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
    start = mux.wait_cmd(linear_x(0.3), after=time.monotonic())  # the stream arrived: it drives
    teleop.switch(twist(x=math.inf))
    time.sleep(1.0)
    assert mux.modes.last.mode == AUTONOMOUS  # NaN / Inf never take over
    sent = [m.linear.x for m in mux.cmd_since(start)]
    # Only the autonomy stream drives; a loaded test process that paused it past its 0.5 s
    # timeout is zeroed meanwhile.
    paused = autonomy.longest_pause(start, time.monotonic()) >= 0.5
    assert all(x == pytest.approx(0.3) or (paused and x == 0.0) for x in sent), sent

    name = mux.node.get_fully_qualified_name()
    array = diagnostics.wait_for(
        lambda a: any(s.hardware_id == name for s in a.status), after=start + 1.0,
        timeout=WAIT)
    status = next(s for s in array.status if s.hardware_id == name)
    values = {kv.key: kv.value for kv in status.values}
    assert status.level == bytes([1]) and 'non-finite' in status.message
    assert values['mode'] == 'AUTONOMOUS' and values['active source'] == 'autonomy'
    assert values['emergency stop'] == 'false'
    # The rate of the 50 Hz stream as it arrived (a loaded machine delivers fewer, never more).
    assert 0.0 < float(values['autonomy rate (Hz)']) <= 60.0
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


def test_joystick_button_takes_over(ros: RosHarness) -> None:
    mux = Mux(ros, {'joystick_used': True})
    diagnostics = ros.record(DiagnosticArray, '/diagnostics')
    autonomy = Stream(ros, Twist, 'autonomy/cmd_vel', twist(0.3))
    joy = Stream(ros, Joy, 'joy', Joy(axes=[0.0, 0.0], buttons=[0, 0]))
    ros.wait_for_subscribers(autonomy.publisher)
    ros.wait_for_subscribers(joy.publisher)
    assert mux.set_mode(AUTONOMOUS).success
    # The mux has heard the joystick at rest (its first message is the rest it compares with:
    # a button already down in it is no press).
    mux_status(diagnostics, mux, after=time.monotonic(),
               predicate=lambda s: any(kv.key == 'joy received' and int(kv.value) > 0
                                       for kv in s.values))
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
    lines = process.lines()
    assert len(lines) == 1, process.output
    assert 'refusing to start' in lines[0] and f"'{parameter}'" in lines[0]
