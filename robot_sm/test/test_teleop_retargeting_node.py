"""teleop_retargeting over real DDS: scripted XR controllers in, execution state and joints out."""

import pathlib
import threading
import time
from typing import Any, Dict, List, Tuple

from geometry_msgs.msg import PoseStamped, Twist
import numpy as np
import pinocchio as pin
import pytest
from rclpy.duration import Duration
from rclpy.node import Node
from robot_sm import qos
from robot_sm.nodes.teleop_retargeting import TeleopRetargeting
from robot_sm.parameters import ConfigurationError
from robot_sm.teleop.input_presence import INPUT_PARAMETERS
from robot_sm.testing import (python_module_argv, Recorder, RosHarness, SCHEDULING_SLACK,
                              wait_until)
from robot_sm_msgs.msg import ExecutionState, OperationMode
from sensor_msgs.msg import JointState, Joy
from std_msgs.msg import Bool

URDF = pathlib.Path(__file__).resolve().parents[1] / 'config' / 'so101_arm.urdf'
PRIMARY, SECONDARY = 0, 1          # default button indices
THUMB_Y, SQUEEZE = 1, 3            # default axis indices
TICK = 1.0 / 60.0
TIMEOUT = 10.0
#: The node's defaults: late after input_timeout, lost after input_timeout + input_tolerance.
INPUT_TIMEOUT, INPUT_TOLERANCE = (spec.default for spec in INPUT_PARAMETERS)
SAMPLE_PERIOD = Duration(seconds=0.01)


class Controllers:
    """
    Both XR controllers, published at 100 Hz from a node of their own as the test sets them.

    A controller samples on its own clock, every 10 ms whatever happens to this process: each
    publishing tick sends every sample due since the last one, stamped with the time it was due
    (a busy test process delays samples; it does not leave out any). :meth:`delay` holds the
    samples back and then sends them all at once, as a loaded link does; :meth:`stop` and
    :meth:`resume` stop and restart the controllers themselves (their stamps show the gap).
    """

    def __init__(self, ros: RosHarness) -> None:
        self.node = ros.add_node(Node('xr_driver', namespace=ros.namespace, context=ros.context))
        self._lock = threading.Lock()
        self.position = {'left': [-0.2, 0.3, 1.0], 'right': [0.2, 0.3, 1.0]}
        self.buttons = {'left': [0, 0, 0, 0], 'right': [0, 0, 0, 0]}
        self.axes = {'left': [0.0] * 4, 'right': [0.0] * 4}
        self.publishing = True
        self.last_publish = 0.0
        self._held_until = 0.0
        self._backlog: List[Tuple[Any, Any]] = []
        self._next_sample = self.node.get_clock().now()
        self.publishers = {hand: (self.node.create_publisher(PoseStamped, f'xr/{hand}/pose', 10),
                                  self.node.create_publisher(Joy, f'xr/{hand}/joy', 10))
                           for hand in ('left', 'right')}
        self.node.create_timer(0.01, self._publish)

    def change(self, hand: str, **changes: Any) -> None:
        with self._lock:
            for key, (index, value) in changes.items():
                getattr(self, key)[hand][index] = value

    def _samples(self, stamp: Any) -> List[Tuple[Any, Any]]:
        samples = []
        for hand, (pose_pub, joy_pub) in self.publishers.items():
            pose = PoseStamped()
            pose.header.frame_id = 'world'
            pose.header.stamp = stamp
            pose.pose.position.x, pose.pose.position.y, pose.pose.position.z = \
                self.position[hand]
            pose.pose.orientation.w = 1.0
            joy = Joy(buttons=list(self.buttons[hand]), axes=list(self.axes[hand]))
            joy.header.stamp = stamp
            samples += [(pose_pub, pose), (joy_pub, joy)]
        return samples

    def _due_samples(self) -> List[Tuple[Any, Any]]:
        """Return every sample due since the last tick, each stamped when it was due."""
        now, samples = self.node.get_clock().now(), []
        while self._next_sample <= now:
            samples += self._samples(self._next_sample.to_msg())
            self._next_sample += SAMPLE_PERIOD
        return samples

    def _publish(self) -> None:
        with self._lock:
            if not self.publishing:
                return
            self._backlog += self._due_samples()
            if time.monotonic() < self._held_until:
                return
            for publisher, msg in self._backlog:
                publisher.publish(msg)
            self._backlog.clear()
            self.last_publish = time.monotonic()

    def delay(self, seconds: float) -> None:
        """Hold every sample back for ``seconds``, then send them all, in order."""
        with self._lock:
            self._held_until = time.monotonic() + seconds

    def stop(self) -> float:
        """Stop publishing; return when the last message went out."""
        with self._lock:
            self.publishing = False
            return self.last_publish

    def resume(self) -> float:
        """Publish again; return when."""
        with self._lock:
            self.publishing = True
            self._next_sample = self.node.get_clock().now()
            return time.monotonic()


class Teleop:
    """A started node with recorders on its outputs and helpers that act like an operator."""

    def __init__(self, ros: RosHarness, parameters: Dict[str, Any]) -> None:
        self.ros = ros
        self.state: Recorder[ExecutionState] = ros.record(
            ExecutionState, 'teleop/execution_state', qos.STATE)
        self.joints: Recorder[JointState] = ros.record(JointState, 'joint_command')
        self.reset: Recorder[Bool] = ros.record(Bool, 'teleop/reset')
        self.cmd_vel: Recorder[Twist] = ros.record(Twist, 'teleoperation/cmd_vel')
        #: The left controller's buttons as the node gets them (the same profile, in-process).
        self.left_joy: Recorder[Joy] = ros.record(Joy, 'xr/left/joy', qos.CONTROLLER_SAMPLES)
        self.node = ros.start_node(TeleopRetargeting, parameters)
        self.xr = Controllers(ros)
        self.model = pin.buildModelFromUrdf(str(URDF))
        self.data = self.model.createData()
        self.wait_state(ExecutionState.STOPPED)
        # Let the node see the controllers idle first: a button already down when a controller
        # appears is "held", not a press. Both sides of each stream must have matched: a best
        # effort sample sent before the node knows its publisher is dropped.
        for hand, publishers in self.xr.publishers.items():
            for publisher in publishers:
                ros.wait_for_subscribers(publisher, timeout=TIMEOUT)
                assert wait_until(
                    lambda: self.node.count_publishers(publisher.topic_name) >= 1, TIMEOUT)
        assert wait_until(lambda: self.xr.last_publish > 0.0, TIMEOUT)
        self.wait_ticks(5)

    def wait_state(self, state: int, after: float = 0.0) -> float:
        """Wait for ``state``; return its arrival time."""
        self.state.wait_for(lambda m: m.state == state, TIMEOUT, after)
        return next(t for t, m in reversed(self.state.stamped) if m.state == state)

    def wait_ticks(self, count: int) -> None:
        start = len(self.reset.messages)
        assert wait_until(lambda: len(self.reset.messages) >= start + count, TIMEOUT)

    def set_button(self, button: int, value: int) -> None:
        """
        Set a button of the left controller; return once a sample with it was delivered.

        A busy test process may send a short release late, or not at all before the next press:
        the node would see the button held throughout.
        """
        changed = time.monotonic()
        self.xr.change('left', buttons=(button, value))
        self.left_joy.wait_for(lambda m: len(m.buttons) > button and m.buttons[button] == value,
                               TIMEOUT, after=changed)

    def press(self, button: int, expect: int) -> float:
        """Press and release a button of the left controller; return when ``expect`` arrived."""
        pressed = time.monotonic()
        self.xr.change('left', buttons=(button, 1))
        arrival = self.wait_state(expect, after=pressed)
        self.set_button(button, 0)
        self.wait_ticks(4)
        return arrival

    def run(self) -> None:
        self.press(PRIMARY, ExecutionState.PAUSED)
        self.press(PRIMARY, ExecutionState.RUNNING)

    def tcp(self, msg: JointState) -> np.ndarray:
        """Forward kinematics of a joint command with pinocchio."""
        q = pin.neutral(self.model)
        for name, value in zip(msg.name, msg.position):
            q[self.model.joints[self.model.getJointId(name)].idx_q] = value
        pin.framesForwardKinematics(self.model, self.data, q)
        return np.array(self.data.oMf[self.model.getFrameId('gripper_tcp')].translation)

    def settled_tcp(self) -> np.ndarray:
        self.wait_ticks(6)
        last = self.joints.last
        assert last is not None
        return self.tcp(last)


def test_operator_session_toggle_engage_move_pause_and_controller_loss(ros: RosHarness) -> None:
    scale = 0.5
    teleop = Teleop(ros, {'position_scale': scale, 'base_teleop': True})
    assert teleop.joints.messages == []

    teleop.run()
    first = teleop.joints.wait_for(timeout=TIMEOUT)
    assert list(first.name) == ['shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex',
                                'wrist_roll', 'gripper']
    home = teleop.tcp(first)

    # Squeeze: the clutch latches where the hand is; the arm does not move.
    teleop.xr.change('right', axes=(SQUEEZE, 1.0))
    engaged = teleop.settled_tcp()
    assert np.linalg.norm(engaged - home) < 1e-3
    # Move the hand 0.1 m along world x: the arm's TCP moves 0.1 * scale.
    teleop.xr.change('right', position=(0, 0.2 + 0.1))
    expected = engaged + np.array([0.1 * scale, 0.0, 0.0])
    teleop.joints.wait_for(lambda m: np.linalg.norm(teleop.tcp(m) - expected) < 0.002, TIMEOUT)
    assert np.linalg.norm(teleop.settled_tcp() - expected) < 0.002

    # Pause: no joint commands while the hand wanders (still squeezing); resume: no jump.
    paused_at = teleop.press(PRIMARY, ExecutionState.PAUSED)
    last_before = [m for t, m in teleop.joints.stamped if t < paused_at][-1]
    teleop.xr.change('right', position=(0, -0.3))
    teleop.wait_ticks(10)
    assert teleop.joints.since(paused_at + 0.05) == []
    resumed_at = teleop.press(PRIMARY, ExecutionState.RUNNING)
    first_after = teleop.joints.wait_for(timeout=TIMEOUT, after=resumed_at - 0.05)
    assert np.allclose(first_after.position, last_before.position, atol=1e-4)

    # The left thumbstick drives the base while RUNNING.
    teleop.xr.change('left', axes=(THUMB_Y, 1.0))
    driving = teleop.cmd_vel.wait_for(lambda m: abs(m.linear.x - 0.5) < 1e-6, TIMEOUT)
    driving_at = next(t for t, m in teleop.cmd_vel.stamped if m is driving)

    # Controllers fall silent: late for input_timeout + input_tolerance, then lost: STOPPED, one
    # reset pulse, the base zeroed once, no more joint commands.
    last_message = teleop.xr.stop()
    stopped_at = teleop.wait_state(ExecutionState.STOPPED, after=last_message)
    assert INPUT_TIMEOUT + INPUT_TOLERANCE <= stopped_at - last_message
    assert stopped_at - last_message < INPUT_TIMEOUT + INPUT_TOLERANCE + TICK + SCHEDULING_SLACK
    time.sleep(0.3)
    resets = [m.data for m in teleop.reset.since(last_message)]
    assert resets.count(True) == 1
    # Counted from the drive seen: zeros the node sent before it read the stick's push can
    # arrive after the controllers' last message.
    twists = teleop.cmd_vel.since(max(last_message, driving_at))
    assert twists[-1].linear.x == 0.0 and twists[-1].angular.z == 0.0
    assert sum(1 for m in twists if m.linear.x == 0.0) == 1
    assert teleop.joints.since(stopped_at + 0.05) == []


def test_kill_held_stops_and_resets_every_tick(ros: RosHarness) -> None:
    teleop = Teleop(ros, {'robot_description': URDF.read_text()})
    teleop.run()
    teleop.joints.wait_for(timeout=TIMEOUT)
    kill_at = time.monotonic()
    teleop.xr.change('left', buttons=(SECONDARY, 1))
    stopped_at = teleop.wait_state(ExecutionState.STOPPED, after=kill_at)
    # Toggling while kill is held does nothing; reset is true every tick.
    teleop.set_button(PRIMARY, 1)
    teleop.wait_ticks(8)
    assert teleop.state.last is not None and teleop.state.last.state == ExecutionState.STOPPED
    held: List[bool] = [m.data for m in teleop.reset.since(stopped_at + 0.02)]
    assert len(held) >= 6 and all(held)
    assert teleop.joints.since(stopped_at + 0.05) == []
    # Released: still STOPPED, no more resets.
    teleop.set_button(SECONDARY, 0)
    teleop.set_button(PRIMARY, 0)
    teleop.wait_ticks(4)
    released = time.monotonic()
    teleop.wait_ticks(4)
    assert not any(m.data for m in teleop.reset.since(released))
    assert teleop.state.last is not None and teleop.state.last.state == ExecutionState.STOPPED

    # A Joy message too short for the configured indices is an absent controller, not a crash.
    teleop.press(PRIMARY, ExecutionState.PAUSED)
    with teleop.xr._lock:
        teleop.xr.buttons['left'] = [0]
    teleop.wait_state(ExecutionState.STOPPED, after=time.monotonic())
    teleop.wait_ticks(3)


def test_the_robots_emergency_stop_stops_teleop_and_its_release_does_not_resume(
        ros: RosHarness) -> None:
    teleop = Teleop(ros, {'base_teleop': True})
    mux = ros.add_node(Node('mux_stand_in', namespace=ros.namespace, context=ros.context))
    mode = mux.create_publisher(OperationMode, 'robot_sm/operation_mode', qos.STATE)
    mode.publish(OperationMode(mode=OperationMode.TELEOPERATION, emergency_stop=False))
    teleop.run()
    teleop.joints.wait_for(timeout=TIMEOUT)
    teleop.xr.change('left', axes=(THUMB_Y, 1.0))
    teleop.cmd_vel.wait_for(lambda m: m.linear.x > 0.0, TIMEOUT)

    engaged_at = time.monotonic()
    mode.publish(OperationMode(mode=OperationMode.STOPPED, emergency_stop=True))
    stopped_at = teleop.wait_state(ExecutionState.STOPPED, after=engaged_at)
    assert stopped_at - engaged_at < 2 * TICK + SCHEDULING_SLACK
    teleop.wait_ticks(10)
    assert [m.data for m in teleop.reset.since(engaged_at)].count(True) == 1
    assert teleop.joints.since(stopped_at + 0.05) == []
    assert teleop.cmd_vel.last is not None and teleop.cmd_vel.last.linear.x == 0.0
    # The run toggle does nothing while the e-stop is engaged.
    teleop.set_button(PRIMARY, 1)
    teleop.wait_ticks(6)
    teleop.set_button(PRIMARY, 0)
    teleop.wait_ticks(6)
    assert teleop.state.last is not None and teleop.state.last.state == ExecutionState.STOPPED

    # Released: still STOPPED with the thumbstick held; the operator's toggles start it again.
    released_at = time.monotonic()
    mode.publish(OperationMode(mode=OperationMode.STOPPED, emergency_stop=False))
    teleop.wait_ticks(12)
    assert teleop.state.last is not None and teleop.state.last.state == ExecutionState.STOPPED
    assert teleop.joints.since(released_at) == []
    assert all(m.linear.x == 0.0 for m in teleop.cmd_vel.since(released_at))
    teleop.run()
    teleop.joints.wait_for(timeout=TIMEOUT, after=time.monotonic())


@pytest.mark.parametrize('parameters, named', [
    ({'position_scale': 0.0}, 'position_scale'),
    ({'squeeze_threshold': 1.0}, 'squeeze_threshold'),
    ({'rate_hz': 0.0}, 'rate_hz'),
    ({'button_threshold': 0.3, 'button_release_threshold': 0.6}, 'button_release_threshold'),
    ({'arm_hand': 'middle'}, 'arm_hand'),
    ({'twist_axis': 'aim_z'}, 'twist_axis'),
    ({'home_position': [0.1, 0.2]}, 'home_position'),
    ({'robot_description': '<robot name="arm"><link name="a"/>'}, 'robot_description'),
    ({'urdf_path': '/nonexistent/arm.urdf'}, 'urdf_path'),
    ({'arm_joints': ['shoulder_pan', 'knee']}, 'arm_joints'),
    ({'ee_frame': 'nose'}, 'ee_frame'),
    ({'initial_arm_positions': [0.0, 3.0, 0.0, 0.0]}, 'initial_arm_positions'),
    ({'roll_sign': 2.0}, 'roll_sign'),
    ({'axis_squeeze': -1}, 'axis_squeeze'),
])
def test_refuses_to_start_with_a_bad_parameter(ros: RosHarness, parameters: Dict[str, Any],
                                               named: str) -> None:
    with pytest.raises(ConfigurationError, match=named) as error:
        ros.start_node(TeleopRetargeting, parameters)
    assert '\n' not in str(error.value)


def test_executable_refuses_to_start_with_one_line(ros: RosHarness) -> None:
    process = ros.start_process(python_module_argv(
        'robot_sm.nodes.teleop_retargeting', '--ros-args', '-p', 'position_scale:=-1.0'))
    assert process.wait(TIMEOUT) == 2
    lines = process.lines()
    assert len(lines) == 1 and 'position_scale' in lines[0], process.output


def test_late_controllers_hold_and_a_dropout_at_the_source_stops(ros: RosHarness) -> None:
    teleop = Teleop(ros, {'robot_description': URDF.read_text()})
    teleop.run()
    teleop.joints.wait_for(timeout=TIMEOUT)
    # Every sample sent on time but delivered 0.2 s late, all at once: late (input_timeout
    # 0.1 s), not lost (0.1 + input_tolerance 0.4 s; the margin is for a loaded machine).
    delayed = time.monotonic()
    teleop.xr.delay(0.2)
    time.sleep(0.2 + 0.2)
    teleop.wait_ticks(6)
    assert [m.state for m in teleop.state.since(delayed)] == []
    assert True not in [m.data for m in teleop.reset.since(delayed)]
    # The controllers themselves stop sending for 0.25 s: their stamps show the gap when they
    # come back, before input_timeout + input_tolerance: teleop is STOPPED at once.
    teleop.xr.stop()
    time.sleep(0.25)
    resumed = teleop.xr.resume()
    stopped_at = teleop.wait_state(ExecutionState.STOPPED, after=resumed)
    assert stopped_at - resumed < 2 * TICK + SCHEDULING_SLACK
