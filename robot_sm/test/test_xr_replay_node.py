"""xr_replay over DDS: a session's samples on the xr topics, into the teleop node; its exits."""

import pathlib
import time

from builtin_interfaces.msg import Time
from geometry_msgs.msg import PoseStamped
import numpy as np
from rclpy.qos import QoSProfile, ReliabilityPolicy
from robot_sm import qos
from robot_sm.nodes.robot_sim import RobotSim
from robot_sm.nodes.xr_replay import XrReplay
from robot_sm.sim import ArmModel
from robot_sm.testing import python_module_argv, ros_args, RosHarness, wait_until
from robot_sm.xr.session import HandTrack, XrSession
from robot_sm_msgs.msg import ExecutionState
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState, Joy

SHIPPED = pathlib.Path(__file__).resolve().parents[1] / 'config' / 'xr_session.npz'


def short_session(path: pathlib.Path) -> XrSession:
    """Ten samples at 20 Hz; the right pose is untracked in samples 3 to 5."""
    count = 10
    right = HandTrack(
        position=np.array([[0.1 * k, 0.0, 1.0] for k in range(count)]),
        orientation=np.tile([0.0, 0.0, 0.0, 1.0], (count, 1)),
        tracked=np.array([k not in (3, 4, 5) for k in range(count)]),
        buttons=np.zeros((count, 3)),
        axes=np.array([[0.0, 0.0, k / 10.0, 1.0] for k in range(count)]))
    left = HandTrack(
        position=np.zeros((count, 3)), orientation=np.tile([0.0, 0.0, 0.0, 1.0], (count, 1)),
        tracked=np.ones(count, dtype=bool),
        buttons=np.array([[k % 2, 0, 0] for k in range(count)]), axes=np.zeros((count, 4)))
    session = XrSession(np.arange(count) / 20.0, {'left': left, 'right': right}, 'xr_world')
    session.save(path)
    return session


def test_every_sample_is_published_once_and_untracked_poses_are_not(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    short_session(tmp_path / 'short.npz')
    # Best effort as the publisher, with room for every sample: a busy test process that takes
    # them late does not lose them to a keep-last history of 5.
    every = QoSProfile(depth=50, reliability=ReliabilityPolicy.BEST_EFFORT)
    poses = ros.record(PoseStamped, 'xr/right/pose', every)
    left_joys = ros.record(Joy, 'xr/left/joy', every)
    right_joys = ros.record(Joy, 'xr/right/joy', every)
    ros.record(PoseStamped, 'xr/left/pose', every)
    replay = ros.start_node(XrReplay, {'session_file': str(tmp_path / 'short.npz')})
    right_joys.wait_for(lambda m: abs(m.axes[2] - 0.9) < 1e-6, timeout=10.0)
    assert wait_until(replay.finished.done, timeout=5.0)   # done after the last sample went out
    poses.wait_for(lambda m: abs(m.pose.position.x - 0.9) < 1e-6)  # each topic's last sample
    assert wait_until(lambda: len(left_joys.messages) >= 10, timeout=5.0)
    assert [round(m.axes[2], 3) for m in right_joys.messages] == [k / 10.0 for k in range(10)]
    assert [list(m.buttons) for m in left_joys.messages] == [[k % 2, 0, 0] for k in range(10)]
    tracked = [0.0, 0.1, 0.2, 0.6, 0.7, 0.8, 0.9]
    assert [round(m.pose.position.x, 3) for m in poses.messages] == tracked
    assert {m.header.frame_id for m in poses.messages} == {'xr_world'}
    # Each sample is stamped with its time in the session, however late it went out.
    stamps = [m.header.stamp.sec + m.header.stamp.nanosec * 1e-9 for m in right_joys.messages]
    session = XrSession.load(tmp_path / 'short.npz')
    assert np.allclose(np.array(stamps) - stamps[0], session.time - session.time[0], atol=1e-6)


def test_the_shipped_session_moves_the_simulated_arm_through_teleop(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    # The first 5 s: A, A (RUNNING at 1.8 s), the squeeze at 2.5 s and the circle's first part.
    full = XrSession.load(SHIPPED)
    count = int(5.0 * 90)
    XrSession(full.time[:count], {hand: HandTrack(*(getattr(track, field)[:count] for field in (
        'position', 'orientation', 'tracked', 'buttons', 'axes')))
        for hand, track in full.hands.items()}, full.frame_id).save(tmp_path / 'start.npz')
    arm = ['shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex', 'wrist_roll', 'gripper']
    states = ros.record(ExecutionState, 'teleop/execution_state', qos.STATE)
    commands = ros.record(JointState, 'joint_command', qos.COMMAND_IN)
    targets = ros.record(PoseStamped, 'teleop/ee_target', qos.COMMAND_IN)
    joint_states = ros.record(JointState, 'joint_states')
    ros.start_node(RobotSim, {'arm_joint_names': arm})
    # Each in a process of its own, as on a robot: neither waits on this process's threads. Under
    # load, teleop in this process saw two 0.3 s presses in too few ticks to pass the debounce;
    # the replay in it paused long enough for teleop to see the controller drop out and stop.
    teleop = ros.start_process(python_module_argv(
        'robot_sm.nodes.teleop_retargeting', *ros_args(ros.namespace)))
    # Heard before the replay starts: its state topic keeps only the newest change for a
    # subscriber that comes late, and the test follows every change.
    assert states.wait_for(timeout=20.0).state == ExecutionState.STOPPED, teleop.output
    replay = ros.start_process(python_module_argv('robot_sm.nodes.xr_replay', *ros_args(
        ros.namespace, {'session_file': str(tmp_path / 'start.npz')})))
    assert wait_until(lambda: any(m.state == ExecutionState.RUNNING for m in states.messages),
                      timeout=20.0), ([m.state for m in states.messages], teleop.output[-2000:])
    # Each change of (state, reset) is published: the reset flag may repeat a state.
    order = [state for k, state in enumerate(m.state for m in states.messages)
             if k == 0 or states.messages[k - 1].state != state]
    assert order[:3] == [ExecutionState.STOPPED, ExecutionState.PAUSED, ExecutionState.RUNNING]
    first = commands.wait_for(timeout=5.0)
    assert first.name == arm
    assert replay.wait(15.0) == 0, replay.output  # the process ends with its session
    assert np.max(np.abs(np.array(commands.last.position) - first.position)) > 0.05
    # The simulated arm followed: its end effector is where the clutch target is.
    model = ArmModel((SHIPPED.parent / 'so101_arm.urdf').read_text())
    reached = model.frame_position('gripper_tcp', dict(zip(joint_states.last.name,
                                                           joint_states.last.position)))
    p = targets.last.pose.position
    assert np.linalg.norm(reached - [p.x, p.y, p.z]) < 0.02


def test_the_process_ends_with_its_session_and_refuses_a_bad_file(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    short_session(tmp_path / 'short.npz')
    done = ros.start_process(python_module_argv('robot_sm.nodes.xr_replay', *ros_args(
        ros.namespace, {'session_file': str(tmp_path / 'short.npz'),
                        'wait_for_subscribers': False})))
    assert done.wait(20.0) == 0
    assert 'replay finished' in done.output
    (tmp_path / 'bad.npz').write_text('no session here')
    bad = ros.start_process(python_module_argv('robot_sm.nodes.xr_replay', *ros_args(
        ros.namespace, {'session_file': str(tmp_path / 'bad.npz')})))
    assert bad.wait(20.0) == 2
    assert "parameter 'session_file'" in bad.output and 'bad.npz' in bad.output


def test_with_use_sim_time_the_session_follows_the_simulation_clock(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    count = 40   # 2 s at 20 Hz
    track = HandTrack(np.zeros((count, 3)), np.tile([0.0, 0.0, 0.0, 1.0], (count, 1)),
                      np.ones(count, dtype=bool), np.zeros((count, 3)),
                      np.array([[0.0, 0.0, k / 100.0, 0.0] for k in range(count)]))
    XrSession(np.arange(count) / 20.0, {'left': track, 'right': track}).save(
        tmp_path / 'two_seconds.npz')
    joys = ros.record(Joy, 'xr/right/joy', qos.CONTROLLER_SAMPLES)
    # As teleop_retargeting takes them; the replay waits for subscribers on every topic.
    for topic, kind in (('xr/left/joy', Joy), ('xr/left/pose', PoseStamped),
                        ('xr/right/pose', PoseStamped)):
        ros.record(kind, topic, qos.CONTROLLER_SAMPLES)
    clock = ros.publisher(Clock, '/clock', 10)
    sim_time = [100.0]

    def tick() -> None:   # the simulation runs 8 times faster than real time
        sim_time[0] += 0.08
        clock.publish(Clock(clock=Time(sec=int(sim_time[0]),
                                       nanosec=int(sim_time[0] % 1.0 * 1e9))))
    ros.probe.create_timer(0.01, tick)
    replay = ros.start_node(XrReplay, {'session_file': str(tmp_path / 'two_seconds.npz'),
                                       'use_sim_time': True})
    started = time.monotonic()
    assert wait_until(replay.finished.done, timeout=10.0)
    assert time.monotonic() - started < 1.5   # 2 s of session, at 8x
    joys.wait_for(lambda m: round(m.axes[2], 2) == (count - 1) / 100.0)  # the last one sent
    stamps = [m.header.stamp.sec + m.header.stamp.nanosec * 1e-9 for m in joys.messages]
    assert [round(m.axes[2], 2) for m in joys.messages] == [k / 100.0 for k in range(count)]
    assert stamps[0] >= 100.0 and 1.9 <= stamps[-1] - stamps[0] <= 2.3   # simulated seconds
