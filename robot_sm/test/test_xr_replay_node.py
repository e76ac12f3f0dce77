"""xr_replay over DDS: a session's samples on the xr topics, into the teleop node; its exits."""

import pathlib

from geometry_msgs.msg import PoseStamped
import numpy as np
from robot_sm import qos
from robot_sm.nodes.teleop_retargeting import TeleopRetargeting
from robot_sm.nodes.xr_replay import XrReplay
from robot_sm.testing import python_module_argv, ros_args, RosHarness
from robot_sm.xr.session import HandTrack, XrSession
from robot_sm_msgs.msg import ExecutionState
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
    poses = ros.record(PoseStamped, 'xr/right/pose', qos.SENSOR)
    left_joys = ros.record(Joy, 'xr/left/joy', qos.SENSOR)
    right_joys = ros.record(Joy, 'xr/right/joy', qos.SENSOR)
    ros.record(PoseStamped, 'xr/left/pose', qos.SENSOR)
    replay = ros.start_node(XrReplay, {'session_file': str(tmp_path / 'short.npz')})
    right_joys.wait_for(lambda m: abs(m.axes[2] - 0.9) < 1e-6, timeout=10.0)
    assert replay.finished.done()
    assert [round(m.axes[2], 3) for m in right_joys.messages] == [k / 10.0 for k in range(10)]
    assert [list(m.buttons) for m in left_joys.messages] == [[k % 2, 0, 0] for k in range(10)]
    tracked = [0.0, 0.1, 0.2, 0.6, 0.7, 0.8, 0.9]
    assert [round(m.pose.position.x, 3) for m in poses.messages] == tracked
    assert {m.header.frame_id for m in poses.messages} == {'xr_world'}


def test_the_teleop_node_runs_the_arm_from_the_shipped_session(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    # The first 4.5 s: A, A (RUNNING at 1.8 s), then the squeeze at 2.5 s and the first motion.
    full = XrSession.load(SHIPPED)
    count = int(4.5 * 90)
    XrSession(full.time[:count], {hand: HandTrack(*(getattr(track, field)[:count] for field in (
        'position', 'orientation', 'tracked', 'buttons', 'axes')))
        for hand, track in full.hands.items()}, full.frame_id).save(tmp_path / 'start.npz')
    states = ros.record(ExecutionState, 'teleop/execution_state', qos.STATE)
    commands = ros.record(JointState, 'joint_command', qos.COMMAND_IN)
    ros.start_node(TeleopRetargeting)
    ros.start_node(XrReplay, {'session_file': str(tmp_path / 'start.npz')})
    states.wait_for(lambda m: m.state == ExecutionState.RUNNING, timeout=15.0)
    assert [m.state for m in states.messages][:3] == [ExecutionState.STOPPED,
                                                      ExecutionState.PAUSED,
                                                      ExecutionState.RUNNING]
    first = commands.wait_for(timeout=5.0)
    moved = commands.wait_for(
        lambda m: np.max(np.abs(np.array(m.position) - np.array(first.position))) > 0.05,
        timeout=10.0)
    assert moved.name == first.name


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
