"""
A crash of the mux: the latched e-stop survives it, and nothing takes over after a restart.

The mux runs in a process of its own and is killed with SIGKILL, as a crash (or a power loss)
ends it; the state interface and the service provider keep running in the test process, and a
teleoperation stream (a stuck joystick) keeps publishing through everything.
"""

import os
import pathlib
import time
from typing import Any

from geometry_msgs.msg import Twist
from robot_sm import qos
from robot_sm.nodes.service_provider import ServiceProvider
from robot_sm.nodes.state_interface import StateInterface
from robot_sm.testing import (
    NodeProcess,
    python_module_argv,
    Recorder,
    ros_args,
    RosHarness,
    wait_until,
)
from robot_sm_msgs.msg import OperationMode
from robot_sm_msgs.srv import SetOperationMode
from std_msgs.msg import String
from std_srvs.srv import SetBool
from test_robot_control_mux_node import is_zero, Stream, twist
import yaml

STOPPED, TELEOPERATION = OperationMode.STOPPED, OperationMode.TELEOPERATION
WAIT = 20.0


#: The mux's timeout of its teleoperation input (its default): a pause that long re-arms it.
TELEOP_TIMEOUT = 0.5


def start_mux(ros: RosHarness) -> NodeProcess:
    return ros.start_process(python_module_argv(
        'robot_sm.nodes.robot_control_mux', *ros_args(ros.namespace)))


def call(ros: RosHarness, srv_type: Any, name: str, request: Any) -> Any:
    """
    Call a service of a (re)started node, asking again each second until it answers.

    A request sent before the server matched the client is lost, and so is an answer sent
    before the server matched the client's reader: one client keeps its matches from one
    attempt to the next (a new client each time starts its matching over).
    """
    client = ros.probe.create_client(srv_type, name)
    try:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if not client.service_is_ready():
                time.sleep(0.05)
                continue
            future = client.call_async(request)
            if wait_until(future.done, 1.0):
                return future.result()
            future.cancel()
        raise TimeoutError(f'service {name} did not answer within {WAIT} s')
    finally:
        ros.probe.destroy_client(client)


def set_mode(ros: RosHarness, mode: int) -> Any:
    request = SetOperationMode.Request()
    request.operation_mode.mode = mode
    return call(ros, SetOperationMode, 'robot_sm/set_operation_mode', request)


def modes_since(modes: Recorder[OperationMode], t: float) -> set:
    return {(m.mode, m.emergency_stop) for m in modes.since(t)}


def first_message(modes: Recorder[OperationMode], mode: int, estop: bool, after: float) -> float:
    """Return when the first ``(mode, estop)`` arrived after ``after`` (the new mux's first)."""
    modes.wait_for(lambda m: (m.mode, m.emergency_stop) == (mode, estop), after=after,
                   timeout=WAIT)
    return next(t for t, m in modes.stamped
                if t >= after and (m.mode, m.emergency_stop) == (mode, estop))


def test_a_latched_estop_survives_a_mux_crash_under_a_running_state_machine(
        ros: RosHarness) -> None:
    states: Recorder[String] = ros.record(String, 'robot_sm/state_info', qos.STATE)
    modes: Recorder[OperationMode] = ros.record(OperationMode, 'robot_sm/operation_mode',
                                                qos.STATE)
    cmd_vel: Recorder[Twist] = ros.record(Twist, 'cmd_vel')
    mux = start_mux(ros)
    ros.start_node(ServiceProvider, {'waypoints_file': '', 'pose_source': 'topic'})
    ros.start_node(StateInterface)
    states.wait_for(lambda m: m.data == 'Idle', timeout=WAIT)
    assert set_mode(ros, STOPPED).success
    teleop = Stream(ros, Twist, 'teleoperation/cmd_vel', twist(0.4))  # a stuck joystick
    cmd_vel.wait_for(lambda m: m.linear.x == 0.4, timeout=WAIT)

    assert call(ros, SetBool, 'robot_sm/emergency_stop', SetBool.Request(data=True)).success
    states.wait_for(lambda m: m.data == 'Emergency Stop', timeout=WAIT)
    # The latch is in the default file of this namespace (written without delaying the stop).
    latch = (pathlib.Path(os.environ['ROS_HOME']) / 'robot_sm' / ros.namespace.strip('/')
             / 'emergency_stop.yaml')
    assert wait_until(lambda: latch.exists() and yaml.safe_load(latch.read_text())['engaged'],
                      timeout=WAIT)

    assert modes.last.mode == TELEOPERATION  # the mux was in (TELEOPERATION, e-stop)
    mux.kill()
    restarted = time.monotonic()
    start_mux(ros)
    up = first_message(modes, STOPPED, True, after=restarted)  # the new mux: still engaged
    time.sleep(1.5)  # the stream runs on, the state machine keeps watching
    assert modes_since(modes, up) == {(STOPPED, True)}
    assert all(is_zero(m) for m in cmd_vel.since(restarted))
    assert [m.data for m in states.since(restarted)] == []
    assert states.last.data == 'Emergency Stop'

    # The deliberate reset: the state machine leaves Emergency Stop, the robot stays still.
    answer = call(ros, SetBool, 'robot_sm/emergency_stop', SetBool.Request(data=False))
    assert answer.success, answer.message
    released = time.monotonic()
    states.wait_for(lambda m: m.data == 'Idle', after=restarted, timeout=WAIT)
    assert set_mode(ros, STOPPED).success  # an operator selects a mode ...
    time.sleep(1.0)  # ... but the stream that ran through the e-stop does not take over
    assert modes_since(modes, released) == {(STOPPED, False)}
    assert all(is_zero(m) for m in cmd_vel.since(released))
    teleop.switch(twist())  # the joystick is released, then pushed again: that drives
    time.sleep(0.1)
    pushed = time.monotonic()
    teleop.switch(twist(0.4))
    cmd_vel.wait_for(lambda m: m.linear.x == 0.4, after=pushed, timeout=WAIT)
    modes.wait_for(lambda m: m.mode == TELEOPERATION, after=pushed, timeout=WAIT)


def test_after_a_mux_restart_no_input_takes_over_until_an_operator_selects_a_mode(
        ros: RosHarness) -> None:
    modes: Recorder[OperationMode] = ros.record(OperationMode, 'robot_sm/operation_mode',
                                                qos.STATE)
    cmd_vel: Recorder[Twist] = ros.record(Twist, 'cmd_vel')
    mux = start_mux(ros)
    assert set_mode(ros, STOPPED).success
    teleop = Stream(ros, Twist, 'teleoperation/cmd_vel', twist(0.4))
    modes.wait_for(lambda m: m.mode == TELEOPERATION, timeout=WAIT)  # the operator drives

    mux.kill()  # a crash while the operator's stream keeps coming
    restarted = time.monotonic()
    start_mux(ros)
    up = first_message(modes, STOPPED, False, after=restarted)
    time.sleep(1.5)
    assert modes_since(modes, up) == {(STOPPED, False)}
    assert all(is_zero(m) for m in cmd_vel.since(up))
    assert set_mode(ros, STOPPED).success
    selected = time.monotonic()
    time.sleep(1.0)  # a stream running since before the selection must go to zero first
    # ... or pause for its input's timeout since the restart: then it takes over, by design (a
    # loaded test process has paused it that long).
    if teleop.longest_pause(up, time.monotonic()) < TELEOP_TIMEOUT:
        assert modes_since(modes, selected) <= {(STOPPED, False)}
        assert all(is_zero(m) for m in cmd_vel.since(selected))
    teleop.switch(None)  # it pauses for longer than the idle time, then drives again
    time.sleep(0.7)
    resumed = time.monotonic()
    teleop.switch(twist(0.4))
    cmd_vel.wait_for(lambda m: m.linear.x == 0.4, after=resumed, timeout=WAIT)
