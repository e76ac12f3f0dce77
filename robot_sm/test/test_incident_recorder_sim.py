"""
The incident recorder beside ``robot-sm up --sim``, as a robot runs it: the simulated robot drives.

The suite runs as an operator starts it, ``robot-sm up --sim`` (the recorder in a process of its
own, with its defaults: 30 s before, 5 s after), and the robot patrols the office. The tests
judge the written MCAP file, read back with the project's reader, and what the robot did
(``odom``, ``cmd_vel``): an e-stop while driving, and the recorder killed while driving.
"""

import math
import os
import pathlib
import signal
import time
from typing import Any, Iterator, List, Tuple

from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from operator_suite import cli_command
import pytest
from robot_sm import qos
from robot_sm.client import operator_name, SuiteClient
from robot_sm.contract import Mode
from robot_sm.nodes.robot_control_mux import parameters as mux_parameters
from robot_sm.recording.incident_files import IncidentFolder, IncidentRecord
from robot_sm.recording.mcap_read import read_messages
from robot_sm.testing import DEFAULT_TIMEOUT, Recorder, RosHarness, wait_until
from robot_sm_msgs.msg import OperationMode
from std_msgs.msg import String

pytestmark = pytest.mark.xdist_group('incident_recorder_sim')

#: Start-up of the whole suite on a loaded 2-core machine.
START = 30.0
#: Seconds of the buffer the e-stop's file must hold before its trigger (of the 30 kept).
BEFORE = 25.0
#: The patrol's waypoints in the office: the robot stops and turns in place at each.
WAYPOINTS = ((1.3, 4.8), (6.6, 1.4))
#: The mux's update_frequency (its default): commands per second.
MUX_RATE = next(spec.default for spec in mux_parameters() if spec.name == 'update_frequency')


class Patrol:
    """``robot-sm up --sim`` in a namespace of its own, a client, and the robot's topics."""

    def __init__(self, home: pathlib.Path) -> None:
        self.ros = RosHarness(namespace=f'/incident_sim_{os.getpid()}')
        self.folder = IncidentFolder(home / 'robot_sm' / self.ros.namespace.strip('/') /
                                     'incidents')
        self.odom: Recorder[Odometry] = self.ros.record(Odometry, 'odom', 50)
        self.commands: Recorder[Twist] = self.ros.record(Twist, 'cmd_vel', 50)
        self.states: Recorder[String] = self.ros.record(String, 'robot_sm/state_info', qos.STATE)
        self.modes: Recorder[OperationMode] = self.ros.record(
            OperationMode, 'robot_sm/operation_mode', qos.STATE)
        self.up = self.ros.start_process(
            [*cli_command(), '--namespace', self.ros.namespace, 'up', '--sim'],
            env={'ROS_HOME': str(home)})
        self.client = SuiteClient(namespace=self.ros.namespace, timeout=DEFAULT_TIMEOUT,
                                  context=self.ros.context)
        self.states.wait_for(lambda m: m.data == 'Idle', timeout=START)
        for x, y in WAYPOINTS:
            assert self.client.add_waypoint(x, y).success
        #: When the recorder began keeping odometry.
        self.recording_since = self.recorder_ready()

    def recorder_ready(self, after: int = 0) -> float:
        """Wait until the recorder (started after ``after`` characters of output) keeps odom."""
        keeps = f'{self.ros.namespace}/odom'
        assert wait_until(lambda: keeps in self.up.output[after:].partition('keeping')[2],
                          START), self.up.output
        return time.monotonic()

    def drive(self) -> None:
        """Release the e-stop if engaged, select autonomy, patrol; wait until the robot moves."""
        if self.client.status().emergency_stop:
            assert self.client.set_emergency_stop(False).success
            self.client.wait_for_state('Idle')
        if self.client.status().mode != 'autonomy':
            assert self.client.set_mode('autonomy').success
            self.client.wait_for_mode('autonomy')
        assert self.client.start_waypoint_following('patrol').success
        self.wait_moving()

    def wait_moving(self) -> float:
        """Wait until odometry shows the robot driving; return when."""
        self.odom.wait_for(lambda m: m.twist.twist.linear.x > 0.15, timeout=START,
                           after=time.monotonic())
        return time.monotonic()

    def wait_mid_leg(self) -> None:
        """
        Wait until the robot drives a metre or more from either waypoint.

        At a waypoint it stops and turns in place: its speed there is nothing to stop from.
        """
        def mid_leg(m: Odometry) -> bool:
            where = (m.pose.pose.position.x, m.pose.pose.position.y)
            return (m.twist.twist.linear.x > 0.15
                    and min(math.dist(where, waypoint) for waypoint in WAYPOINTS) > 1.0)
        self.odom.wait_for(mid_leg, timeout=START, after=time.monotonic())

    def close(self) -> None:
        self.client.close()
        self.ros.shutdown()


@pytest.fixture(scope='module')
def patrol(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Patrol]:
    """Run ``robot-sm up --sim`` for the module, with its recorder, in a ROS_HOME of its own."""
    running = Patrol(tmp_path_factory.mktemp('incident_sim'))
    try:
        yield running
    finally:
        running.close()


def stop_while_driving(patrol: Patrol) -> IncidentRecord:
    """
    Engage the e-stop mid-leg; return its incident's record.

    On a loaded machine the suite's process may pause long enough for the mux to zero a stale
    input, an incident of its own: one still open when the stop comes takes the stop in, and is
    written as the stale input's; or the robot stood when the stop came. The robot is then
    driven and stopped again.
    """
    seen: List[str] = []
    for _ in range(3):
        patrol.wait_mid_leg()
        known = max(patrol.folder.ids(), default=0)
        assert patrol.client.set_emergency_stop(True).success
        found: List[IncidentRecord] = []

        def written() -> bool:
            found[:] = [r for r in patrol.folder.records() if r.id > known]
            return any(r.kind == 'emergency_stop' for r in found)
        if wait_until(written, 5.0 + DEFAULT_TIMEOUT):
            record = next(r for r in found if r.kind == 'emergency_stop')
            if record.speed > 0.1:
                return record
            # The odometry had the robot standing at the stop (the mux had zeroed a stale
            # input meanwhile, or the robot turned in place): not a stop while driving.
        seen += [f'{r.kind}: {r.cause} at {r.speed:.2f} m/s' for r in found]
        patrol.drive()
    raise AssertionError(f'no e-stop of its own while driving in 3 stops; written: {seen}')


def at_rest(msg: Any) -> bool:
    twist = msg.twist.twist
    return math.hypot(twist.linear.x, twist.linear.y) < 0.02 and abs(twist.angular.z) < 0.05


def figures_from(odom: List[Tuple[int, Any]], trigger: int) -> Tuple[float, float, float]:
    """Return the speed at the trigger, the time until at rest and the distance, from odom."""
    before = [m for t, m in odom if t <= trigger]
    after = [(t, m) for t, m in odom if t > trigger]
    rest = next(k for k in range(len(after)) if all(at_rest(m) for _, m in after[k:]))
    path = [before[-1]] + [m for _, m in after[:rest + 1]]
    distance = sum(math.dist((a.pose.pose.position.x, a.pose.pose.position.y),
                             (b.pose.pose.position.x, b.pose.pose.position.y))
                   for a, b in zip(path, path[1:]))
    return (math.hypot(before[-1].twist.twist.linear.x, before[-1].twist.twist.linear.y),
            (after[rest][0] - trigger) * 1e-9, distance)


def test_an_e_stop_while_driving_leaves_the_seconds_before_and_after_with_the_stop_s_figures(
        patrol: Patrol) -> None:
    patrol.drive()
    # The robot patrols until the recorder has kept more than 25 s of it.
    assert wait_until(lambda: time.monotonic() > patrol.recording_since + BEFORE + 1.0, START)
    record = stop_while_driving(patrol)
    assert record.cause.startswith('emergency stop engaged: STOP by ')   # the client's operator
    assert record.operator == operator_name()  # from the audit log (robot_sm/audit)
    messages = read_messages(record.mcap)
    trigger = int(record.stamp * 1e9)
    ns = patrol.ros.namespace
    assert record.before >= BEFORE and record.after >= 4.5
    odom = messages[f'{ns}/odom']
    assert (trigger - odom[0][0]) * 1e-9 >= BEFORE and (odom[-1][0] - trigger) * 1e-9 >= 4.5
    # The base was driven until the stop, and told zero from then on.
    commands = [(t, not any((m.linear.x, m.linear.y, m.angular.z)))
                for t, m in messages[f'{ns}/cmd_vel']]
    zero_at = trigger + int(record.time_to_zero * 1e9)
    first_zero = next(k for k, (t, zero) in enumerate(commands) if zero and t >= zero_at - 5e7)
    assert not commands[first_zero - 1][1], 'the robot was not being driven before the stop'
    assert all(zero for _, zero in commands[first_zero:])
    assert record.time_to_zero < 0.1
    # The record's figures are the robot's, as odometry has them.
    speed, to_rest, distance = figures_from(odom, trigger)
    assert record.speed == pytest.approx(speed, abs=1e-6) and speed > 0.1
    assert record.time_to_rest == pytest.approx(to_rest, abs=1e-3)
    assert record.distance == pytest.approx(distance, abs=1e-3)
    states = [m.data for _, m in messages[f'{ns}/robot_sm/state_info']]
    assert states[-1] == 'Emergency Stop'


def test_the_recorder_killed_while_driving_leaves_the_mux_and_the_state_interface_driving(
        patrol: Patrol) -> None:
    patrol.drive()
    state = patrol.states.last.data
    recorders = [pid for pid in map(int, filter(str.isdigit, os.listdir('/proc')))
                 if _parent(pid) == patrol.up.pid and 'recorder_child' in _command(pid)]
    assert len(recorders) == 1, recorders
    shown = len(patrol.up.output)
    killed = time.monotonic()
    os.kill(recorders[0], signal.SIGKILL)
    # The suite goes on: the mux's commands at its rate, the robot driving on, the state
    # interface following the waypoints (the mux would stop AUTONOMOUS if it fell silent).
    # The commands are counted, not timed: a loaded machine delays their arrival here.
    assert wait_until(lambda: time.monotonic() - killed >= 3.0, DEFAULT_TIMEOUT)
    commands = [t for t, _ in patrol.commands.stamped if t >= killed]
    assert len(commands) >= 0.5 * MUX_RATE * 3.0, len(commands)
    path = [(m.pose.pose.position.x, m.pose.pose.position.y)
            for t, m in patrol.odom.stamped if t >= killed]
    assert sum(math.dist(a, b) for a, b in zip(path, path[1:])) > 0.3, 'the robot stopped'
    assert patrol.states.last.data.startswith('W') and state.startswith('W'), (state,)
    assert patrol.modes.last.mode == Mode.AUTONOMOUS and not patrol.modes.last.emergency_stop
    # robot-sm up says so and starts it again.
    assert wait_until(lambda: 'the incident recorder ended (exit code -9): started it again'
                      in patrol.up.output[shown:], DEFAULT_TIMEOUT), patrol.up.output[shown:]
    patrol.recording_since = patrol.recorder_ready(shown)


def _parent(pid: int) -> int:
    try:
        with open(f'/proc/{pid}/stat') as stat:
            return int(stat.read().rpartition(')')[2].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def _command(pid: int) -> str:
    try:
        with open(f'/proc/{pid}/cmdline', 'rb') as cmdline:
            return cmdline.read().replace(b'\0', b' ').decode(errors='replace')
    except OSError:
        return ''
