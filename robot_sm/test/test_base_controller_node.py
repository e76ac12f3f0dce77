"""The base_controller node over DDS: cmd_vel in, wheel_command out."""

import math
import time

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import Twist
import pytest
from robot_sm import qos
from robot_sm.nodes.base_controller import BaseControllerNode
from robot_sm.parameters import ConfigurationError
from robot_sm.testing import python_module_argv, ros_args, RosHarness, wait_until
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState

GEOMETRY = {'wheel_radius': 0.1, 'wheel_base': 0.4}
WHEELS = ['left_wheel_joint', 'right_wheel_joint']


def twist(v: float, w: float) -> Twist:
    msg = Twist()
    msg.linear.x = v
    msg.angular.z = w
    return msg


def wheels(msg: JointState) -> list:
    return list(msg.velocity)


def close(msg: JointState, expected: list, tolerance: float = 1e-9) -> bool:
    return len(msg.velocity) == len(expected) and all(
        abs(a - b) <= tolerance for a, b in zip(msg.velocity, expected))


def start(ros: RosHarness, **parameters: object):  # noqa: ANN201 - (node, publisher, recorder)
    node = ros.start_node(BaseControllerNode, parameters={**GEOMETRY, **parameters})
    recorder = ros.record(JointState, 'wheel_command', 10)
    publisher = ros.publisher(Twist, 'cmd_vel', qos.COMMAND_OUT)
    ros.wait_for_subscribers(publisher)
    recorder.wait_for(timeout=10.0)  # the timer runs and the recorder is matched
    return node, publisher, recorder


def test_cmd_vel_becomes_wheel_velocities_then_zero_after_the_timeout(ros: RosHarness) -> None:
    node, publisher, recorder = start(ros, command_timeout=0.4, update_frequency=20.0)
    assert all(wheels(msg) == [0.0, 0.0] for msg in recorder.messages)  # still until told
    sent = time.monotonic()
    publisher.publish(twist(0.5, 1.0))
    moving = recorder.wait_for(lambda m: close(m, [3.0, 7.0]), after=sent)
    assert list(moving.name) == WHEELS
    assert moving.header.stamp.sec > 0 and not moving.position and not moving.effort
    stopped = recorder.wait_for(lambda m: close(m, [0.0, 0.0]), after=sent, timeout=10.0)
    arrivals = {id(msg): stamp for stamp, msg in recorder.stamped}
    held = [msg for msg in recorder.since(sent) if close(msg, [3.0, 7.0])]
    # The command was held (republished at the update rate) until the timeout, not longer.
    assert len(held) >= 3
    assert arrivals[id(stopped)] - sent >= 0.4
    assert arrivals[id(stopped)] - sent < 0.4 + 2.0
    assert all(close(msg, [0.0, 0.0]) for stamp, msg in recorder.stamped
               if stamp > arrivals[id(stopped)])
    assert node.dropped_commands == 0


def test_non_finite_commands_are_dropped(ros: RosHarness) -> None:
    node, publisher, recorder = start(ros, command_timeout=5.0)
    sent = time.monotonic()
    publisher.publish(twist(0.5, 1.0))
    recorder.wait_for(lambda m: close(m, [3.0, 7.0]), after=sent)
    for bad in (twist(float('nan'), 0.0), twist(0.0, float('inf'))):
        publisher.publish(bad)
        time.sleep(0.05)
    bad_sideways = twist(0.0, 0.0)
    bad_sideways.linear.y = float('nan')
    publisher.publish(bad_sideways)
    assert wait_until(lambda: node.dropped_commands == 3, timeout=10.0)
    later = time.monotonic()
    recorder.wait_for(lambda m: close(m, [3.0, 7.0]), after=later)
    assert all(close(msg, [3.0, 7.0]) for msg in recorder.since(sent))


def test_filter_and_speed_limit_keep_the_arc(ros: RosHarness) -> None:
    node, publisher, recorder = start(ros, filter_alpha=0.3, max_wheel_speed=3.5,
                                      command_timeout=1.0)
    sent = time.monotonic()
    deadline = sent + 1.5
    while time.monotonic() < deadline:
        publisher.publish(twist(0.5, 1.0))
        time.sleep(0.05)
    received = [wheels(msg) for msg in recorder.since(sent) if msg.velocity[1] > 0]
    assert len(received) >= 5, received
    rights = [right for _, right in received]
    # Rising smoothly towards the limited target, never jumping past it.
    assert rights == sorted(rights), received
    assert max(rights) <= 3.5 + 1e-9, received
    assert all(right / left == pytest.approx(7.0 / 3.0) for left, right in received), received
    assert received[-1] == pytest.approx([1.5, 3.5], abs=0.05), received


def test_use_sim_time_drives_the_timeout(ros: RosHarness) -> None:
    clock = ros.publisher(Clock, '/clock', 10)

    def set_clock(seconds: float) -> None:
        msg = Clock()
        msg.clock.sec, msg.clock.nanosec = int(seconds), int(round(seconds % 1 * 1e9))
        clock.publish(msg)

    node = ros.start_node(BaseControllerNode, parameters={
        **GEOMETRY, 'use_sim_time': True, 'command_timeout': 0.5})
    recorder = ros.record(JointState, 'wheel_command', 10)
    publisher = ros.publisher(Twist, 'cmd_vel', qos.COMMAND_OUT)
    ros.wait_for_subscribers(publisher)
    ros.wait_for_subscribers(clock)
    assert wait_until(lambda: (set_clock(100.0), node.get_clock().now().nanoseconds)[1]
                      == 100_000_000_000, timeout=10.0, interval=0.05)
    sent = time.monotonic()
    publisher.publish(twist(0.5, 1.0))
    recorder.wait_for(lambda m: close(m, [3.0, 7.0]), after=sent)
    time.sleep(1.0)  # one real second: no sim time has passed, so no timeout
    later = time.monotonic()
    set_clock(100.3)
    msg = recorder.wait_for(after=later)
    assert close(msg, [3.0, 7.0]) and msg.header.stamp.sec == 100
    later = time.monotonic()
    set_clock(100.6)
    recorder.wait_for(lambda m: close(m, [0.0, 0.0]), after=later)


@pytest.mark.parametrize('parameters, name', [
    ({'wheel_radius': 0.0}, 'wheel_radius'),
    ({'wheel_base': -0.1}, 'wheel_base'),
    ({'max_wheel_speed': -1.0}, 'max_wheel_speed'),
    ({'filter_alpha': 0.0}, 'filter_alpha'),
    ({'filter_alpha': 1.5}, 'filter_alpha'),
    ({'command_timeout': 0.0}, 'command_timeout'),
    ({'update_frequency': 0.0}, 'update_frequency'),
    ({'wheel_joint_names': ['left']}, 'wheel_joint_names'),
    ({'wheel_joint_names': ['w', 'w']}, 'wheel_joint_names'),
    ({'wheel_radius': 'big'}, 'wheel_radius'),
])
def test_bad_parameters_are_refused(ros: RosHarness, parameters: dict, name: str) -> None:
    with pytest.raises(ConfigurationError, match=name):
        ros.start_node(BaseControllerNode, parameters=parameters)


def test_executable_refuses_to_start_with_exit_code_2(ros: RosHarness) -> None:
    process = ros.start_process(python_module_argv(
        'robot_sm.nodes.base_controller',
        *ros_args(ros.namespace, parameters={'wheel_radius': -0.03})))
    assert process.wait(timeout=30.0) == 2
    lines = [line for line in process.output.splitlines() if 'refusing to start' in line]
    assert len(lines) == 1 and 'wheel_radius' in lines[0]


FLT_MAX = 3.4028234663852886e38
DBL_MAX = 1.7976931348623157e308


@pytest.mark.parametrize('v, w', [(1e307, 0.0), (DBL_MAX, DBL_MAX), (-DBL_MAX, 1.0),
                                  (0.0, DBL_MAX), (FLT_MAX, FLT_MAX)])
def test_huge_finite_commands_give_finite_wheel_speeds_within_the_limit(
        ros: RosHarness, v: float, w: float) -> None:
    _, publisher, recorder = start(ros, max_wheel_speed=20.0, command_timeout=5.0)
    sent = time.monotonic()
    publisher.publish(twist(v, w))
    moving = recorder.wait_for(lambda m: any(m.velocity), after=sent, timeout=10.0)
    assert all(math.isfinite(x) and abs(x) <= 20.0 + 1e-9 for x in moving.velocity)
    assert max(abs(x) for x in moving.velocity) == pytest.approx(20.0)
    # The arc is kept: the wheels' ratio is what the kinematics give for the twist's ratio.
    left, right = moving.velocity
    if v == 0.0:
        assert left == pytest.approx(-right)
    elif w == 0.0:
        assert left == pytest.approx(right)


def test_without_a_limit_a_command_too_large_is_refused_and_diagnosed(
        ros: RosHarness) -> None:
    diagnostics = ros.record(DiagnosticArray, '/diagnostics')
    node, publisher, recorder = start(ros, command_timeout=5.0)
    publisher.publish(twist(0.5, 1.0))
    recorder.wait_for(lambda m: close(m, [3.0, 7.0]))
    sent = time.monotonic()
    publisher.publish(twist(DBL_MAX, 0.0))  # wheel speeds beyond the float range
    assert wait_until(lambda: node.commander.refused_commands == 1, timeout=10.0)
    time.sleep(0.2)
    assert all(close(msg, [3.0, 7.0]) for msg in recorder.since(sent))  # the old one holds
    name = node.get_fully_qualified_name()
    array = diagnostics.wait_for(lambda a: any(
        s.hardware_id == name and s.level == bytes([1]) for s in a.status), after=sent,
        timeout=10.0)
    status = next(s for s in array.status if s.hardware_id == name)
    assert {kv.key: kv.value for kv in status.values}['refused too large'] == '1'
