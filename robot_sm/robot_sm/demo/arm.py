"""
The demo's arm phase: a recorded XR session drives the simulated SO-101-class arm through teleop.

``xr_replay`` plays the shipped session (``config/xr_session.npz``, 40 s) in real time on the
``xr/<hand>/...`` topics; ``teleop_retargeting`` turns it into ``joint_command``; ``robot_sim``'s
arm follows it within its joint limits and speeds; ``topic_recorder`` writes everything to an MCAP
file (``demo-arm.mcap``). An observer node follows the execution state, the clutch target
(``teleop/ee_target``) and the arm's ``joint_states``, computes the end effector the arm actually
reached (forward kinematics of the same URDF) and measures the tracking error while the clutch is
engaged (RUNNING, squeeze above the threshold, the right controller tracked: the teleop node's
rule).
:func:`draw_arm` writes the picture: target and achieved paths in two projections, the joints
against their limits over time with the teleop state as a band and the engagements marked.
"""

from dataclasses import dataclass, field
import pathlib
import signal
import subprocess
import sys
import threading
import time
from typing import Callable, Dict, List, Optional, Tuple

from geometry_msgs.msg import PoseStamped
import numpy as np
from rclpy.node import Node
from robot_sm import qos
from robot_sm.bringup.suite_nodes import SIMULATOR, TELEOP
from robot_sm.bringup.suite_process import SuiteProcess
from robot_sm.resources import share_directory
from robot_sm.sim import ArmModel
from robot_sm.xr.session import XrSession
from robot_sm_control import ControlType
from robot_sm_msgs.msg import ExecutionState
from sensor_msgs.msg import JointState, Joy
from std_msgs.msg import Bool

#: The teleop states the shipped session's buttons go through (then STOPPED when it ends).
EXPECTED_STATES = ('STOPPED', 'PAUSED', 'RUNNING', 'PAUSED', 'RUNNING', 'STOPPED', 'PAUSED',
                   'RUNNING', 'PAUSED')
STATE_NAMES = {ExecutionState.STOPPED: 'STOPPED', ExecutionState.PAUSED: 'PAUSED',
               ExecutionState.RUNNING: 'RUNNING'}
#: The teleop node's defaults: squeeze axis, squeeze threshold, input timeout (s), TCP frame.
SQUEEZE_AXIS, SQUEEZE_THRESHOLD, INPUT_TIMEOUT, TCP = 3, 0.5, 0.1, 'gripper_tcp'
#: Seconds after a reset left out of ``max_settled`` (the arm returns home as a motion).
RESET_SETTLING = 1.0


class ArmPhaseFailure(RuntimeError):
    """The arm phase could not do what it set out to do; the message says what."""


@dataclass
class ArmRun:
    """What the observer saw, times in seconds from the start of the phase."""

    joint_names: List[str] = field(default_factory=list)
    limits: Optional[np.ndarray] = None          # (2, joints) lower, upper
    states: List[Tuple[float, str]] = field(default_factory=list)
    targets: List[Tuple[float, np.ndarray]] = field(default_factory=list)
    #: Per joint_states message: time, arm joint positions, end effector reached, engaged.
    samples: List[Tuple[float, np.ndarray, np.ndarray, bool]] = field(default_factory=list)
    engagements: List[float] = field(default_factory=list)
    errors: List[float] = field(default_factory=list)
    #: (time, error) of :attr:`errors`.
    error_times: List[Tuple[float, float]] = field(default_factory=list)
    #: Times of the reset pulses.
    resets: List[float] = field(default_factory=list)
    duration: float = 0.0
    recording: Optional[pathlib.Path] = None
    recorded: Dict[str, int] = field(default_factory=dict)


class ArmObserver:
    """Follow the teleop state, target, squeeze and arm joints; measure the tracking error."""

    def __init__(self, node: Node, model: ArmModel, joint_names: List[str],
                 echo: Callable[[str], None]) -> None:
        self.model = model
        self.echo = echo
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.run = ArmRun(joint_names=list(joint_names))
        lower, upper = model.limits(joint_names).limits(ControlType.POSITION)
        self.run.limits = np.stack((lower, upper))
        self._state = ''
        self._squeeze = 0.0
        self._pose_time = -np.inf
        self._target: Optional[np.ndarray] = None
        self._engaged = False
        self._last_reset = -np.inf
        node.create_subscription(ExecutionState, 'teleop/execution_state', self._on_state,
                                 qos.STATE)
        node.create_subscription(PoseStamped, 'teleop/ee_target', self._on_target, 10)
        node.create_subscription(Joy, 'xr/right/joy', self._on_joy, qos.SENSOR)
        node.create_subscription(PoseStamped, 'xr/right/pose', self._on_pose, qos.SENSOR)
        node.create_subscription(JointState, 'joint_states', self._on_joints, 10)
        node.create_subscription(Bool, 'teleop/reset', self._on_reset, qos.EVENTS)

    def elapsed(self) -> float:
        """Return the seconds since the observer started."""
        return time.monotonic() - self.started

    def _on_state(self, msg: ExecutionState) -> None:
        name = STATE_NAMES.get(msg.state, str(msg.state))
        with self.lock:
            if name != self._state:
                self._state = name
                self.run.states.append((self.elapsed(), name))
                self.echo(f'[{self.elapsed():6.1f} s] teleop: {name}')

    def _on_target(self, msg: PoseStamped) -> None:
        p = msg.pose.position
        with self.lock:
            self._target = np.array([p.x, p.y, p.z])
            self.run.targets.append((self.elapsed(), self._target))

    def _on_reset(self, msg: Bool) -> None:
        if msg.data:
            with self.lock:
                now = self.elapsed()
                if now - self._last_reset > 0.1:   # a held kill resets every tick: mark it once
                    self.run.resets.append(now)
                self._last_reset = now

    def _on_joy(self, msg: Joy) -> None:
        with self.lock:
            self._squeeze = float(msg.axes[SQUEEZE_AXIS]) if len(msg.axes) > SQUEEZE_AXIS else 0.0

    def _on_pose(self, msg: PoseStamped) -> None:
        with self.lock:
            self._pose_time = time.monotonic()

    def _on_joints(self, msg: JointState) -> None:
        positions = dict(zip(msg.name, msg.position))
        if not all(name in positions for name in self.run.joint_names):
            return
        reached = self.model.frame_position(TCP, positions)
        arm = np.array([positions[name] for name in self.run.joint_names])
        now = self.elapsed()
        with self.lock:
            engaged = (self._state == 'RUNNING' and self._squeeze > SQUEEZE_THRESHOLD
                       and time.monotonic() - self._pose_time <= INPUT_TIMEOUT)
            if engaged and not self._engaged:
                self.run.engagements.append(now)
                self.echo(f'[{now:6.1f} s] clutch engaged')
            self._engaged = engaged
            self.run.samples.append((now, arm, reached, engaged))
            if engaged and self._target is not None:
                error = float(np.linalg.norm(self._target - reached))
                self.run.errors.append(error)
                self.run.error_times.append((now, error))


def _child(module: str, parameters: Dict[str, object]) -> subprocess.Popen:
    """Start ``python -m module`` as a node process of its own (its own interpreter and GIL)."""
    argv = [sys.executable, '-m', module, '--ros-args', '--log-level', 'warn']
    for name, value in parameters.items():
        argv += ['-p', f'{name}:={value}']
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10.0)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10.0)


def recorded_counts(path: pathlib.Path) -> Dict[str, int]:
    """Return the messages per topic of an MCAP file, from its summary."""
    from mcap.reader import make_reader
    with open(path, 'rb') as stream:
        summary = make_reader(stream).get_summary()
    if summary is None or summary.statistics is None:
        raise ArmPhaseFailure(f'{path} has no summary: the recording did not finish')
    return {summary.channels[channel].topic: count
            for channel, count in summary.statistics.channel_message_counts.items()}


def _wait_for_replay(replay: subprocess.Popen, suite: SuiteProcess, timeout: float) -> None:
    """Wait until the replay process ends; raise if it failed, or a node or ``timeout`` did."""
    deadline = time.monotonic() + timeout
    while replay.poll() is None:
        failure = suite.failure()
        if failure is not None:
            raise ArmPhaseFailure(failure)
        if time.monotonic() > deadline:
            raise ArmPhaseFailure(f'the replay did not finish within {timeout:.0f} s')
        time.sleep(0.1)
    if replay.returncode != 0:
        raise ArmPhaseFailure(f'xr_replay ended with exit code {replay.returncode}')


def run_arm(files: List[pathlib.Path], echo: Callable[[str], None], output: pathlib.Path,
            timeout: float) -> ArmRun:
    """
    Replay the shipped session through teleop into the simulated arm; record it to MCAP.

    robot_sim and teleop_retargeting run in this process (as ``robot-sm up --sim --teleop``
    does), the replay and the recorder in processes of their own, as they would on a robot; so
    does their CPU time, which keeps the teleop node's ticks on time on a small machine.

    :raises ArmPhaseFailure: if the teleop node did not go through the session's states.
    """
    import rclpy.logging
    from rclpy.executors import SingleThreadedExecutor
    specs = list(SIMULATOR) + list(TELEOP)
    for spec in specs:
        rclpy.logging.set_logger_level(spec.executable, rclpy.logging.LoggingSeverity.WARN)
    output.mkdir(parents=True, exist_ok=True)
    recording = output / 'demo-arm.mcap'
    session = XrSession.load(share_directory() / 'config' / 'xr_session.npz')
    model = ArmModel((share_directory() / 'config' / 'so101_arm.urdf').read_text())
    recorder = _child('robot_sm.nodes.topic_recorder',
                      {'output': str(recording), 'discovery_period': 0.1})
    suite = SuiteProcess(specs, files)
    observer_node = Node('demo_arm_observer', context=suite.context)
    executor = SingleThreadedExecutor(context=suite.context)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    replay: Optional[subprocess.Popen] = None
    try:
        echo(f'replaying the recorded XR session ({session.duration:.0f} s, {len(session)} '
             'samples at 90 Hz) into teleop_retargeting and the arm')
        observer = ArmObserver(observer_node, model, list(suite.nodes['robot_sim'].arm.names),
                               echo)
        executor.add_node(observer_node)
        spinner.start()
        replay = _child('robot_sm.nodes.xr_replay', {})
        _wait_for_replay(replay, suite, timeout)
        time.sleep(0.3)   # the last joint_states of the arm at rest
        run = observer.run
        run.duration = observer.elapsed()
    finally:
        if replay is not None:
            _stop(replay)
        _stop(recorder)
        executor.shutdown(timeout_sec=2.0)
        if spinner.is_alive():
            spinner.join(timeout=5.0)
        observer_node.destroy_node()
        suite.shutdown()
    run.recording = recording
    run.recorded = recorded_counts(recording)
    states = [name for _, name in run.states]
    if states[:len(EXPECTED_STATES)] != list(EXPECTED_STATES):
        raise ArmPhaseFailure(
            f"teleop went through {', '.join(states)}; the session's buttons give "
            f"{', '.join(EXPECTED_STATES)} (a controller silent for input_timeout + "
            'input_tolerance stops teleop: is the machine overloaded?)')
    return run


def tracking_figures(run: ArmRun) -> Dict[str, float]:
    """
    Return median, 95th percentile and max of the tracking error while engaged (m).

    ``max_settled`` leaves out the :data:`RESET_SETTLING` seconds after each reset, when the
    target is back home at once and the arm follows at the teleop's ``max_joint_speed``.
    """
    if not run.errors:
        raise ArmPhaseFailure('the clutch was never engaged: no tracking error to report')
    errors = np.array(run.errors)
    settled = [e for t, e in run.error_times
               if not any(0.0 <= t - reset <= RESET_SETTLING for reset in run.resets)]
    return {'median': float(np.median(errors)), 'p95': float(np.percentile(errors, 95)),
            'max': float(np.max(errors)), 'samples': float(len(errors)),
            'max_settled': float(max(settled)) if settled else float('nan')}
