"""
The operator station and the robot on two hosts: heartbeat, link loss and teleoperation.

The ``two_host_rig`` fixture (:mod:`robot_sm.testing.two_host_rig`) puts the robot and the operator
in network namespaces of their own, joined by a veth link; DDS on each side reaches the other only
over that link. The robot runs ``robot-sm up --sim --remote``. The operator keeps ``robot-sm
connect`` open (the heartbeat), runs the CLI, and streams teleoperation commands. A probe on each
side writes what arrives there with the machine's monotonic time
(:mod:`robot_sm.testing.topic_probe`), so that the robot's wheel commands are timed against the
moment the link was cut.

The scenarios share one robot and one operator, in order, and each brings the robot to what it
needs the way an operator would. The only speeds asserted are the safety bounds
``config/remote.yaml`` states: the wheels are at zero within ``heartbeat_timeout`` (or
``teleoperation_idle_timer``) plus one tick of the mux after the link is cut. Other figures are
printed (``pytest -s`` shows them).
"""

import math
import pathlib
import subprocess
import sys
import time
from typing import Any, Dict, Iterator, Optional, Tuple

from operator_suite import cli_command
import pytest
from robot_sm.bringup.parameter_files import load_parameter_file, parameters_for
from robot_sm.testing import SCHEDULING_SLACK, wait_until
from robot_sm.testing.private_daemons import PrivateDaemons
from robot_sm.testing.topic_probe import EchoLog
from robot_sm.testing.two_host_rig import OPERATOR, ROBOT, slow_link_unavailable_reason, TwoHostRig

#: One rig for the whole file: a parallel run keeps these tests on one worker, and runs them
#: after or before the browser's (the heaviest files, each with whole suites as processes).
pytestmark = pytest.mark.xdist_group('suites_as_processes')
REMOTE = parameters_for('robot_control_mux', [load_parameter_file(
    pathlib.Path(__file__).resolve().parents[1] / 'config' / 'remote.yaml')])
HEARTBEAT_TIMEOUT: float = REMOTE['heartbeat_timeout']
TELEOP_TIMEOUT: float = REMOTE['teleoperation_idle_timer']
TICK = 1.0 / REMOTE['update_frequency']
#: Start-up of the suite on a loaded 2-core machine.
START = 60.0
#: What the robot-sm commands may wait for the suite: over the slow link, discovery alone takes
#: seconds (about 100 kB of endpoint announcements at 256 kbit/s).
CLI_TIMEOUT = 20.0
SLOW_CLI_TIMEOUT = 60.0
#: Time for a change to show on either side, on a loaded machine.
WAIT = 10.0
WAYPOINTS = [(2.0, 1.0), (1.0, 1.0)]

PROBE = [sys.executable, '-m', 'robot_sm.testing.topic_probe', 'echo', '--output']
ROBOT_TOPICS = [
    'wheel_command:sensor_msgs/msg/JointState:events',
    'base_pose_ground_truth:nav_msgs/msg/Odometry:sensor',
    'robot_sm/operation_mode:robot_sm_msgs/msg/OperationMode:state',
    'robot_sm/state_info:std_msgs/msg/String:state',
    'robot_sm/operator_present:std_msgs/msg/Bool:state',
]
OPERATOR_TOPICS = [
    'robot_sm/operation_mode:robot_sm_msgs/msg/OperationMode:state',
    'robot_sm/state_info:std_msgs/msg/String:state',
]


def wheels_zero(msg: Dict[str, Any]) -> bool:
    """Return whether a wheel command stops both wheels."""
    return not any(msg['velocity'])


def position(msg: Dict[str, Any]) -> Tuple[float, float]:
    """Return the x, y of an odometry message."""
    point = msg['pose']['pose']['position']
    return point['x'], point['y']


def speed(msg: Dict[str, Any]) -> float:
    """Return the forward speed of an odometry message."""
    return abs(msg['twist']['twist']['linear']['x'])


class TwoHosts:
    """The robot and the operator on the rig, and what each side has received."""

    def __init__(self, rig: TwoHostRig, folder: pathlib.Path) -> None:
        self.rig = rig
        self.robot_sm = cli_command()
        #: The operator's commands go through a daemon on the operator host, as an operator's do.
        self.daemons = PrivateDaemons()
        self.robot = EchoLog(folder / 'robot.jsonl')
        self.operator = EchoLog(folder / 'operator.jsonl')
        rig.start(ROBOT, [*PROBE, str(self.robot.path), *ROBOT_TOPICS])
        rig.start(OPERATOR, [*PROBE, str(self.operator.path), *OPERATOR_TOPICS])
        self.suite = rig.start(ROBOT, [*self.robot_sm, 'up', '--sim', '--remote'])
        try:
            self.robot.wait_for('robot_sm/state_info', timeout=START)
        except TimeoutError as error:
            raise AssertionError(f'{error}; robot-sm up printed:\n{self.suite.output}') from error
        self.connect = rig.start(OPERATOR, [*self.robot_sm, 'connect'])
        self.heard(after=0.0)
        self.waypoints_added = False

    # ---- the operator's commands --------------------------------------------------------------

    def cli(self, *args: str, timeout: float = CLI_TIMEOUT) -> subprocess.CompletedProcess:
        """Run ``robot-sm ARGS`` on the operator host."""
        return self.rig.run(OPERATOR, [*self.robot_sm, '--timeout', f'{timeout:g}', *args],
                            timeout=timeout + 30.0, env=self.daemons.env)

    def ok(self, *args: str, timeout: float = CLI_TIMEOUT) -> float:
        """Run ``robot-sm ARGS``, assert it succeeded; return when it was started."""
        started = time.monotonic()
        result = self.cli(*args, timeout=timeout)
        assert result.returncode == 0, (f'robot-sm {" ".join(args)} exited with '
                                        f'{result.returncode}:\n{result.stdout}{result.stderr}')
        return started

    def release(self) -> float:
        """Release the e-stop once the robot hears the operator; return when it was asked."""
        self.heard(after=0.0)
        return self.ok('estop', 'off')

    def drive_waypoints(self) -> float:
        """Release, select AUTONOMOUS, patrol the waypoints; return when the robot drives."""
        if not self.waypoints_added:
            for x, y in WAYPOINTS:
                self.ok('waypoint', 'add', str(x), str(y))
            self.waypoints_added = True
        self.release()
        self.ok('mode', 'autonomy')
        started = self.ok('follow', 'start', '--mode', 'patrol')
        return self.moving(after=started)

    def driving(self) -> float:
        """Return when the robot drives, starting to patrol the waypoints if it is not."""
        state = self.robot.last('robot_sm/state_info')
        mode = self.robot.last('robot_sm/operation_mode')
        if (state is not None and state[1]['data'].startswith('W:') and mode is not None
                and mode[1]['mode'] == 1 and not mode[1]['emergency_stop']):
            return self.moving(after=time.monotonic())
        return self.drive_waypoints()

    # ---- what the robot did -------------------------------------------------------------------

    def heard(self, after: float) -> float:
        """Return when the robot's mux heard the operator heartbeat (at or after ``after``)."""
        return self.robot.wait_for('robot_sm/operator_present', lambda m: m['data'],
                                   timeout=WAIT, after=after)[0]

    def moving(self, after: float, timeout: float = 30.0) -> float:
        """Return when the simulated robot drove faster than 0.1 m/s (at or after ``after``)."""
        return self.robot.wait_for('base_pose_ground_truth', lambda m: speed(m) > 0.1,
                                   timeout=timeout, after=after)[0]

    def stopped(self, after: float, hold: float = 1.0, timeout: float = WAIT) -> float:
        """
        Return when the wheel commands went to zero for good after ``after``.

        That is the first of the zero commands that have followed the last non-zero one for
        ``hold`` seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            commands = self.robot.messages('wheel_command', after)
            moving = [t for t, m in commands if not wheels_zero(m)]
            zeros = [t for t, m in commands if wheels_zero(m) and (not moving or t > moving[-1])]
            if zeros and time.monotonic() - zeros[0] >= hold:
                return zeros[0]
            if time.monotonic() >= deadline:
                raise AssertionError(f'the wheels did not stay at zero for {hold:g} s within '
                                     f'{timeout:g} s; robot-sm up printed:\n{self.suite.output}')
            time.sleep(0.02)

    def position_at(self, t: float) -> Tuple[float, float]:
        """Return the simulated robot's position last reported at or before ``t``."""
        before = [m for stamp, m in self.robot.messages('base_pose_ground_truth') if stamp <= t]
        assert before, f'no ground truth before {t}'
        return position(before[-1])

    def still_between(self, stopped: float, end: float) -> Optional[str]:
        """Return what moved after the wheels ``stopped`` until ``end`` (None if nothing did)."""
        moving = [t for t, m in self.robot.messages('wheel_command', stopped)
                  if t <= end and not wheels_zero(m)]
        if moving:
            return f'non-zero wheel commands {moving[0] - stopped:.2f} s after the stop'
        # The simulation takes the zero on its next step (50 Hz; later on a busy machine): from
        # its first report at rest after the stop on, nothing may move.
        rest = next((t for t, m in self.robot.messages('base_pose_ground_truth', stopped)
                     if t <= end and speed(m) < 1e-3), None)
        if rest is None:
            return 'the robot did not come to rest'
        travelled = math.dist(self.position_at(rest), self.position_at(end))
        if travelled > 1e-3:
            return f'the robot travelled {travelled * 1000:.1f} mm'
        return None

    def state(self, name: str, after: float, log: Optional[EchoLog] = None) -> float:
        """Return when ``robot_sm/state_info`` said ``name`` (on the robot, or ``log``'s side)."""
        return (log or self.robot).wait_for('robot_sm/state_info', lambda m: m['data'] == name,
                                            timeout=WAIT, after=after)[0]

    def estop_engaged(self, after: float) -> float:
        """Return when the robot's mux reported the e-stop engaged."""
        return self.robot.wait_for('robot_sm/operation_mode', lambda m: m['emergency_stop'],
                                   timeout=WAIT, after=after)[0]

    def connect_says(self, text: str, after_line: int) -> bool:
        """Wait for ``robot-sm connect`` to print ``text`` after its first ``after_line`` lines."""
        return wait_until(lambda: any(text in line for line in
                                      self.connect.output.splitlines()[after_line:]), WAIT)

    def connect_lines(self) -> int:
        """Return how many lines ``robot-sm connect`` printed so far."""
        return len(self.connect.output.splitlines())


@pytest.fixture(scope='module')
def hosts(two_host_rig: TwoHostRig,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[TwoHosts]:
    hosts = TwoHosts(two_host_rig, tmp_path_factory.mktemp('two_hosts'))
    try:
        yield hosts
    finally:
        hosts.daemons.close(hosts.robot_sm)


def report(**figures: float) -> None:
    """Print measured figures (ms) on one line."""
    print(' '.join(f'{name}={value * 1000:.0f}ms' for name, value in figures.items()))


def test_the_operator_host_adds_waypoints_and_the_robot_follows_them(hosts: TwoHosts) -> None:
    # `robot-sm connect` runs on the operator host: the robot hears its heartbeat, and it says so.
    assert hosts.connect_says('connected: the robot hears your heartbeat', 0), \
        hosts.connect.output
    start = time.monotonic()
    moving = hosts.drive_waypoints()
    hosts.state('W: Navigation', after=start)
    # The operator sees it too, over the link.
    hosts.state('W: Navigation', after=start, log=hosts.operator)
    time.sleep(2.0)  # let it drive
    assert math.dist(hosts.position_at(moving), hosts.position_at(time.monotonic())) > 0.2


def test_a_cut_link_stops_the_wheels_within_the_heartbeat_timeout(hosts: TwoHosts) -> None:
    hosts.driving()
    lines = hosts.connect_lines()
    cut = hosts.rig.cut()
    try:
        stopped = hosts.stopped(after=cut)
        engaged = hosts.estop_engaged(after=cut)
        shown = hosts.state('Emergency Stop', after=cut)
        travelled = math.dist(hosts.position_at(cut), hosts.position_at(stopped + 0.5))
        report(wheels_zero=stopped - cut, estop_engaged=engaged - cut,
               state_shown=shown - cut)
        print(f'travelled after the cut: {travelled * 1000:.0f} mm')
        assert stopped - cut <= HEARTBEAT_TIMEOUT + TICK + SCHEDULING_SLACK
        assert engaged - cut <= HEARTBEAT_TIMEOUT + TICK + SCHEDULING_SLACK
        # The operator's side says the robot no longer hears it.
        assert hosts.connect_says('NOT CONNECTED', lines), hosts.connect.output
    finally:
        hosts.rig.restore()


def test_when_the_link_returns_nothing_moves_until_release_and_a_start(hosts: TwoHosts) -> None:
    hosts.driving()
    cut = hosts.rig.cut()
    try:
        stopped = hosts.stopped(after=cut)
        hosts.state('Emergency Stop', after=cut)
    finally:
        restored = hosts.rig.restore()
    lines = hosts.connect_lines()
    heard = hosts.heard(after=restored)
    assert hosts.connect_says('connected: the robot hears your heartbeat', lines), \
        hosts.connect.output
    report(heard_again_after_restore=heard - restored)
    time.sleep(1.0)  # a window in which nothing may move
    # The e-stop is latched: nothing moved, and the operator sees why.
    mode = hosts.robot.last('robot_sm/operation_mode')
    assert mode is not None and mode[1]['emergency_stop']
    hosts.state('Emergency Stop', after=0.0, log=hosts.operator)

    released = hosts.release()
    hosts.state('Idle', after=released)
    time.sleep(1.5)  # released: the mux is STOPPED and nothing was started, nothing moves
    problem = hosts.still_between(stopped, time.monotonic())
    assert problem is None, f'after the cut, before the operator started anything: {problem}'
    # The operator's start is what moves the robot again (it selects AUTONOMOUS).
    following = hosts.ok('follow', 'start')
    hosts.state('W: Navigation', after=following)
    hosts.moving(after=following)


def test_teleoperation_cut_mid_command_stops_and_engages_the_heartbeat_stop(
        hosts: TwoHosts) -> None:
    hosts.release()
    # The operator takes the robot (after a start nothing drives until a mode is selected), and
    # nothing drives it until the operator's stream does.
    selected = hosts.ok('mode', 'teleop')
    hosts.robot.wait_for('robot_sm/operation_mode', lambda m: m['mode'] == 2,
                         timeout=WAIT, after=selected)
    hosts.stopped(after=selected)
    started = time.monotonic()
    stream = hosts.rig.start(OPERATOR, [
        sys.executable, '-m', 'robot_sm.testing.topic_probe', 'stream', 'teleoperation/cmd_vel',
        'geometry_msgs/msg/Twist', '20', '{"linear": {"x": 0.2}}'])
    try:
        hosts.moving(after=started)
        cut = hosts.rig.cut()
        try:
            stopped = hosts.stopped(after=cut)
            engaged = hosts.estop_engaged(after=cut)
            hosts.state('Emergency Stop', after=cut)
            report(wheels_zero=stopped - cut, estop_engaged=engaged - cut)
            assert stopped - cut <= TELEOP_TIMEOUT + TICK + SCHEDULING_SLACK
            assert engaged - cut <= HEARTBEAT_TIMEOUT + TICK + SCHEDULING_SLACK
            assert 'heartbeat silent' in hosts.suite.output
        finally:
            restored = hosts.rig.restore()
        # The stream comes back with the link, still commanding 0.2 m/s: the e-stop holds,
        # and after the release the stream that ran through it does not take over.
        hosts.heard(after=restored)
        time.sleep(1.0)
        released = hosts.release()
        time.sleep(1.0)
        problem = hosts.still_between(stopped, time.monotonic())
        assert problem is None, f'after the cut, with the stream running again: {problem}'
        assert released > restored
    finally:
        stream.stop()


def test_a_slow_link_keeps_the_suite_working_and_the_cli_answering(hosts: TwoHosts) -> None:
    reason = slow_link_unavailable_reason()
    if reason:
        pytest.skip(reason)
    hosts.driving()
    # The operator's console has been showing the robot: its daemon follows the suite already.
    for command in (['status'], ['waypoint', 'list']):
        hosts.ok(*command)
    hosts.rig.slow_down()
    try:
        slowed = time.monotonic()
        durations = {}
        for command in (['status'], ['waypoint', 'list']):
            started = time.monotonic()
            result = hosts.cli(*command, timeout=SLOW_CLI_TIMEOUT)
            durations[' '.join(command)] = time.monotonic() - started
            assert result.returncode == 0, result.stdout + result.stderr
        # The robot kept driving and kept hearing the operator the whole time.
        mode = hosts.robot.messages('robot_sm/operation_mode', slowed)
        assert not any(m['emergency_stop'] for _, m in mode)
        assert all(m['data'] for _, m in hosts.robot.messages('robot_sm/operator_present',
                                                              slowed))
        hosts.moving(after=time.monotonic() - 1.0)
        # The operator's stop reaches the robot, and the state reaches the operator.
        started = time.monotonic()
        hosts.ok('estop', 'on', timeout=SLOW_CLI_TIMEOUT)
        durations['estop on'] = time.monotonic() - started
        on_robot = hosts.state('Emergency Stop', after=started)
        on_operator = hosts.state('Emergency Stop', after=started, log=hosts.operator)
        report(**{name.replace(' ', '_'): value for name, value in durations.items()},
               state_to_operator=on_operator - on_robot)
        hosts.stopped(after=started)
    finally:
        hosts.rig.speed_up()
