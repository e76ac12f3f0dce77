"""
The mux watches its supervisor: a killed or frozen state interface stops autonomous motion.

The state interface runs in a process of its own and is killed (SIGKILL) or frozen (SIGSTOP)
while an autonomy source that is not part of it (a planner such as Nav2) keeps publishing
``autonomy/cmd_vel``. The mux and the service provider run in the test process.
"""

import os
import signal
import time
from typing import Iterator

from geometry_msgs.msg import Twist
import pytest
from robot_sm import qos
from robot_sm.bringup.suite_nodes import SUITE
from robot_sm.mux import ControlMux, Mode, MuxConfig, SUPERVISOR_HEARTBEAT
from robot_sm.nodes.robot_control_mux import RobotControlMux
from robot_sm.nodes.service_provider import ServiceProvider
from robot_sm.testing import (NodeProcess, python_module_argv, Recorder, ros_args, RosHarness,
                              SCHEDULING_SLACK, wait_until)
from robot_sm_msgs.msg import OperationMode
from robot_sm_msgs.srv import SetOperationMode
from std_msgs.msg import Header, String
from test_robot_control_mux_node import is_zero, Stream, twist

STOPPED, AUTONOMOUS, TELEOPERATION = (OperationMode.STOPPED, OperationMode.AUTONOMOUS,
                                      OperationMode.TELEOPERATION)
SUPERVISOR_TIMEOUT = 1.0  # the mux's default
TICK = 0.05  # the mux's update_frequency, 20 Hz
WAIT = 20.0


class Supervised:
    """The mux driving autonomously, supervised by a state interface process."""

    def __init__(self, ros: RosHarness) -> None:
        self.ros = ros
        self.cmd_vel: Recorder[Twist] = ros.record(Twist, 'cmd_vel')
        self.modes: Recorder[OperationMode] = ros.record(
            OperationMode, 'robot_sm/operation_mode', qos.STATE)
        states: Recorder[String] = ros.record(String, 'robot_sm/state_info', qos.STATE)
        # As the suite starts it: supervised, AUTONOMOUS waits until the mux hears the
        # state interface (before, a mux that had not heard it yet drove unsupervised).
        ros.start_node(RobotControlMux, {'supervised': True})
        ros.start_node(ServiceProvider, {'waypoints_file': '', 'pose_source': 'topic'})
        self.supervisor: NodeProcess = ros.start_process(python_module_argv(
            'robot_sm.nodes.state_interface', *ros_args(ros.namespace)))
        try:
            states.wait_for(lambda m: m.data == 'Idle', timeout=WAIT)
        except TimeoutError:
            raise TimeoutError(f'the state interface was not Idle within {WAIT:g} s; it printed:\n'
                               f'{self.supervisor.output}') from None
        self.autonomy = Stream(ros, Twist, 'autonomy/cmd_vel', twist(0.3))  # e.g. Nav2
        self.teleop = Stream(ros, Twist, 'teleoperation/cmd_vel', None)
        assert wait_until(lambda: self.set_mode(AUTONOMOUS).success, timeout=WAIT)
        self.cmd_vel.wait_for(lambda m: m.linear.x == 0.3, timeout=WAIT)

    def set_mode(self, mode: int) -> SetOperationMode.Response:
        request = SetOperationMode.Request()
        request.operation_mode.mode = mode
        return self.ros.call(SetOperationMode, 'robot_sm/set_operation_mode', request)

    def assert_autonomy_stopped_after(self, lost: float) -> None:
        """Check that the output went to zero in time and that only an operator can drive."""
        self.cmd_vel.wait_for(is_zero, after=lost, timeout=WAIT)
        zero_at = next(t for t, m in self.cmd_vel.stamped if t >= lost and is_zero(m))
        assert zero_at - lost <= SUPERVISOR_TIMEOUT + TICK + SCHEDULING_SLACK, zero_at - lost
        self.modes.wait_for(lambda m: m.mode == STOPPED, after=lost, timeout=WAIT)
        time.sleep(0.3)  # the planner keeps publishing: nothing of it moves the robot
        assert all(is_zero(m) for m in self.cmd_vel.since(zero_at))
        refused = self.set_mode(AUTONOMOUS)
        assert not refused.success and 'supervisor' in refused.message, refused.message
        # An operator can still drive the robot whose supervisor is gone.
        assert self.set_mode(TELEOPERATION).success
        self.teleop.switch(twist(yaw=0.5))
        self.cmd_vel.wait_for(lambda m: m.angular.z == 0.5, after=zero_at, timeout=WAIT)
        self.teleop.switch(None)
        self.modes.wait_for(lambda m: m.mode == STOPPED, after=time.monotonic(), timeout=WAIT)


@pytest.fixture
def supervised(ros: RosHarness) -> Iterator[Supervised]:
    yield Supervised(ros)


def test_a_killed_supervisor_stops_autonomous_motion(supervised: Supervised) -> None:
    killed = time.monotonic()
    supervised.supervisor.kill()
    supervised.assert_autonomy_stopped_after(killed)


def test_a_frozen_supervisor_stops_autonomous_motion_until_it_is_heard_again(
        supervised: Supervised) -> None:
    group = os.getpgid(supervised.supervisor.pid)
    frozen = time.monotonic()
    os.killpg(group, signal.SIGSTOP)
    try:
        supervised.assert_autonomy_stopped_after(frozen)
    finally:
        os.killpg(group, signal.SIGCONT)
    deadline = time.monotonic() + WAIT
    while not supervised.set_mode(AUTONOMOUS).success:  # heard again: autonomy may resume
        assert time.monotonic() < deadline, 'AUTONOMOUS still refused'
        time.sleep(0.1)
    supervised.cmd_vel.wait_for(lambda m: m.linear.x == 0.3, after=time.monotonic(),
                                timeout=WAIT)


# A mux launched with its supervisor (``supervised``, as in the suite) ---------------------------


def test_a_supervised_mux_refuses_autonomy_until_it_first_hears_its_supervisor() -> None:
    mux = ControlMux(MuxConfig(supervised=True, supervisor_timeout=0.5), 100.0)
    refused = mux.set_mode(Mode.AUTONOMOUS, 100.1)
    assert not refused.success and 'has not been heard since the mux started' in refused.message
    assert mux.state.mode is Mode.STOPPED
    assert mux.set_mode(Mode.TELEOPERATION, 100.2).success  # an operator can still drive
    assert mux.set_mode(Mode.STOPPED, 100.3).success
    mux.supervisor_heartbeat(100.4)
    assert mux.set_mode(Mode.AUTONOMOUS, 100.5).success
    mux.tick(101.0)  # silent for longer than supervisor_timeout: the usual watchdog
    assert mux.state.mode is Mode.STOPPED and mux.supervisor_lost
    # A mux used alone takes AUTONOMOUS at once, as before.
    assert ControlMux(MuxConfig(), 100.0).set_mode(Mode.AUTONOMOUS, 100.1).success


def test_the_suite_s_mux_is_supervised_and_waits_for_the_state_interface(
        ros: RosHarness) -> None:
    spec = next(spec for spec in SUITE if spec.executable == 'robot_control_mux')
    assert spec.parameters['supervised'] is True
    ros.start_node(RobotControlMux, {**spec.parameters, 'emergency_stop_file': ''})
    request = SetOperationMode.Request()
    request.operation_mode.mode = AUTONOMOUS
    refused = ros.call(SetOperationMode, 'robot_sm/set_operation_mode', request)
    assert not refused.success and 'is the state interface running?' in refused.message
    heartbeat = Stream(ros, Header, SUPERVISOR_HEARTBEAT, Header(), rate=20.0)
    assert wait_until(lambda: ros.call(SetOperationMode, 'robot_sm/set_operation_mode',
                                       request).success, timeout=WAIT)
    heartbeat.switch(None)
