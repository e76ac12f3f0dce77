"""
The operator station on another host: the mux over a network link against the same over loopback.

The two-host rig (``robot_sm.testing.two_host_rig``) puts the robot (``robot_control_mux`` and
``base_controller`` in processes of their own, with ``config/robot_sm.yaml`` and
``config/remote.yaml``) and the operator (``robot-sm connect``, the heartbeat) in network
namespaces joined by a veth link. An agent process on each side measures, in alternating rounds
so that both see the same machine load:

- command latency: ``autonomy/cmd_vel`` publish → arrival of that command on ``cmd_vel``, at the
  agent (from the operator host it crosses the link twice);
- e-stop to zero: ``robot_sm/emergency_stop`` call → first zero on ``cmd_vel`` while a 50 Hz
  stream moves the base.

The robot's agent talks to the mux over UDP on loopback (``FASTDDS_BUILTIN_TRANSPORTS=UDPv4``),
so that the two differ only in the link. Then the link is cut ``--cuts`` times while the robot
drives: time from the cut (and from the last heartbeat the mux heard) to zero on
``wheel_command``, measured on the robot.

Run: ``tools/with_ros_env.sh python bench/bench_two_hosts.py [--samples N] [--cuts N]``; it
needs root and ``ip netns``, and says it skipped without them.
"""

import argparse
import json
import pathlib
import random
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from geometry_msgs.msg import Twist, Vector3  # noqa: E402
from report import print_table, private_ros_home, save, summary  # noqa: E402
from robot_sm import qos  # noqa: E402
from robot_sm.bringup.parameter_files import load_parameter_file, parameters_for  # noqa: E402
from robot_sm.resources import share_directory  # noqa: E402
from robot_sm.testing import python_module_argv, RosHarness, wait_until  # noqa: E402
from robot_sm.testing.two_host_rig import (  # noqa: E402
    OPERATOR,
    ROBOT,
    SIDES,
    TwoHostRig,
    unavailable_reason,
)
from robot_sm_msgs.msg import OperationMode  # noqa: E402
from robot_sm_msgs.srv import SetOperationMode  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Bool  # noqa: E402
from std_srvs.srv import SetBool  # noqa: E402

CONFIG = share_directory() / 'config'
PARAMETER_FILES = [CONFIG / 'robot_sm.yaml', CONFIG / 'remote.yaml']
REMOTE = parameters_for('robot_control_mux', [load_parameter_file(f) for f in PARAMETER_FILES])
WAIT = 10.0


# ---- the agent: runs inside a namespace, answers one JSON command per line ---------------------


class Agent:
    """Commands, e-stops and the robot's wheels as seen from one host."""

    def __init__(self) -> None:
        self.ros = RosHarness(namespace='/')
        self.command = self.ros.publisher(Twist, 'autonomy/cmd_vel', qos.COMMAND_OUT)
        self._lock = threading.Lock()
        self._waiting: Optional[Callable[[Twist], bool]] = None
        self._arrived = threading.Event()
        self._arrival = 0.0
        self.ros.probe.create_subscription(Twist, 'cmd_vel', self._on_cmd_vel, qos.EVENTS)
        self.wheels = self.ros.record(JointState, 'wheel_command', qos.EVENTS)
        self.present = self.ros.record(Bool, 'robot_sm/operator_present', qos.STATE)
        self._stream: Optional[float] = None
        self.ros.probe.create_timer(0.02, self._send_stream)
        # Clients made once, as an operator station keeps them: a new one is discovered first.
        self._clients = {
            name: self.ros.probe.create_client(srv_type, name, qos_profile=qos.SERVICES)
            for srv_type, name in ((SetBool, 'robot_sm/emergency_stop'),
                                   (SetOperationMode, 'robot_sm/set_operation_mode'))}
        self.ros.wait_for_subscribers(self.command, timeout=30.0)
        for name, client in self._clients.items():
            if not wait_until(client.service_is_ready, 30.0):
                raise TimeoutError(f'{name} is not available')

    def _on_cmd_vel(self, msg: Twist) -> None:
        now = time.monotonic()
        with self._lock:
            if self._waiting is not None and self._waiting(msg):
                self._waiting = None
                self._arrival = now
                self._arrived.set()

    def _expect(self, predicate: Callable[[Twist], bool]) -> None:
        with self._lock:
            self._arrived.clear()
            self._waiting = predicate

    def _wait(self) -> float:
        if not self._arrived.wait(WAIT):
            raise TimeoutError('the expected cmd_vel did not arrive')
        return self._arrival

    def _send_stream(self) -> None:
        if self._stream is not None:
            self.command.publish(Twist(linear=Vector3(x=self._stream)))

    def _call(self, name: str, request: Any) -> Any:
        done = threading.Event()
        future = self._clients[name].call_async(request)
        future.add_done_callback(lambda _: done.set())
        if not done.wait(WAIT):
            raise TimeoutError(f'{name} did not answer')
        return future.result()

    def drive(self) -> None:
        """Release the e-stop once the operator is heard, select AUTONOMOUS, stream 0.2 m/s."""
        if not wait_until(lambda: bool(self.present.last and self.present.last.data), WAIT):
            raise TimeoutError('the mux does not hear the operator')
        # Released whatever this side last heard (the other side may have engaged it since).
        answer = self._call('robot_sm/emergency_stop', SetBool.Request(data=False))
        assert answer.success, answer.message
        request = SetOperationMode.Request()
        request.operation_mode = OperationMode(mode=OperationMode.AUTONOMOUS)
        answer = self._call('robot_sm/set_operation_mode', request)
        assert answer.success, answer.message
        self._stream = 0.2
        self._expect(lambda m: m.linear.x == 0.2)
        self._wait()

    def latency(self, samples: int, first: int) -> List[float]:
        """Return ``samples`` command latencies (s); command k carries k * 0.1 mm/s."""
        self._stream = None
        latencies = []
        for index in range(samples):
            value = (first + index) * 1e-4  # within max_linear_velocity (0.5 m/s)
            self._expect(lambda m, value=value: m.linear.x == value)
            sent = time.monotonic()
            self.command.publish(Twist(linear=Vector3(x=value)))
            latencies.append(self._wait() - sent)
            time.sleep(random.uniform(0.002, 0.008))  # no phase lock with the mux's tick
        return latencies

    def estop(self) -> float:
        """Engage the e-stop while driving; return the time from the call to zero on cmd_vel."""
        self.drive()
        time.sleep(random.uniform(0.0, 0.02))
        self._expect(lambda m: m.linear.x == 0.0)
        called = time.monotonic()
        answer = self._call('robot_sm/emergency_stop', SetBool.Request(data=True))
        assert answer.success, answer.message
        zero = self._wait() - called
        self._stream = None
        return zero

    def stopped_after(self, cut: float, hold: float = 0.3) -> Dict[str, float]:
        """Return when the wheels went to zero for good after ``cut``, and the last beat heard."""
        deadline = time.monotonic() + WAIT

        def zero_run() -> Optional[float]:
            commands = self.wheels.stamped
            after = [(t, not any(m.velocity)) for t, m in commands if t >= cut]
            moving = [t for t, zero in after if not zero]
            zeros = [t for t, zero in after if zero and (not moving or t > moving[-1])]
            if zeros and time.monotonic() - zeros[0] >= hold:
                return zeros[0]
            return None

        while (stopped := zero_run()) is None:
            if time.monotonic() >= deadline:
                raise TimeoutError('the wheels did not stop after the cut')
            time.sleep(0.01)
        beats = [t for t, m in self.present.stamped if m.data and t <= stopped]
        self._stream = None
        return {'stopped': stopped, 'last_beat': beats[-1] if beats else float('nan')}


def agent() -> int:
    """Run an agent: one JSON command per line on stdin, one JSON answer per line on stdout."""
    worker = Agent()
    print(json.dumps({'ready': True}), flush=True)
    try:
        for line in sys.stdin:
            request = json.loads(line)
            op = request['op']
            if op == 'latency':
                answer: Any = worker.latency(request['samples'], request['first'])
            elif op == 'estop':
                answer = worker.estop()
            elif op == 'drive':
                worker.drive()
                answer = True
            elif op == 'stopped_after':
                answer = worker.stopped_after(request['cut'])
            else:
                break
            print(json.dumps({'answer': answer}), flush=True)
    finally:
        worker.ros.shutdown()
    return 0


# ---- the orchestrator: builds the rig, starts the hosts, drives the agents ----------------------


class AgentProcess:
    """An agent on one side of the rig."""

    def __init__(self, rig: TwoHostRig, side: str) -> None:
        self.side = side
        self.process = subprocess.Popen(
            rig.argv(side, [sys.executable, __file__, 'agent']),
            env={**rig.full_env(side), 'FASTDDS_BUILTIN_TRANSPORTS': 'UDPv4'},
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._read()

    def _read(self) -> Any:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f'the {self.side} agent ended')
        return json.loads(line)

    def ask(self, op: str, **arguments: Any) -> Any:
        """Send a command; return the answer."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({'op': op, **arguments}) + '\n')
        self.process.stdin.flush()
        return self._read()['answer']

    def close(self) -> None:
        """End the agent."""
        try:
            self.ask('quit')
        except (RuntimeError, BrokenPipeError, ValueError):
            pass
        try:
            self.process.wait(timeout=10.0)
        except subprocess.TimeoutExpired:
            self.process.kill()


#: Command and e-stop times by side, and each cut's times.
Measured = Tuple[Dict[str, List[float]], Dict[str, List[float]], List[Dict[str, float]]]


def measure(samples: int, estop_samples: int, cut_count: int) -> Measured:
    """Drive the mux from both sides of the rig, stop it, cut the link; return the times."""
    rig = TwoHostRig()
    agents: Dict[str, AgentProcess] = {}
    latencies: Dict[str, List[float]] = {side: [] for side in SIDES}
    estops: Dict[str, List[float]] = {side: [] for side in SIDES}
    cuts: List[Dict[str, float]] = []
    try:
        files = [arg for path in PARAMETER_FILES for arg in ('--params-file', str(path))]
        rig.start(ROBOT, [*python_module_argv('robot_sm.nodes.robot_control_mux'),
                          '--ros-args', *files, '-p', "emergency_stop_file:=''"])
        rig.start(ROBOT, [*python_module_argv('robot_sm.nodes.base_controller')])
        rig.start(OPERATOR, [*python_module_argv('robot_sm.frontends.cli'), 'connect'])
        agents = {side: AgentProcess(rig, side) for side in SIDES}
        agents[ROBOT].ask('drive')
        first = 1
        for _ in range(3):  # warm up both ways
            for side in SIDES:
                agents[side].ask('latency', samples=20, first=first)
                first += 20
        rounds = max(1, samples // 25)
        for _ in range(rounds):
            for side in random.sample(SIDES, len(SIDES)):
                latencies[side] += agents[side].ask('latency', samples=25, first=first)
                first += 25
        for _ in range(estop_samples):
            for side in random.sample(SIDES, len(SIDES)):
                estops[side].append(agents[side].ask('estop'))
        for index in range(cut_count):
            agents[ROBOT].ask('drive')
            time.sleep(random.uniform(0.0, 0.1))  # any phase of the heartbeat and the tick
            cut = rig.cut()
            cuts.append({'cut': cut, **agents[ROBOT].ask('stopped_after', cut=cut)})
            rig.restore()
            zero = (cuts[-1]['stopped'] - cut) * 1000
            print(f'cut {index + 1}/{cut_count}: zero after {zero:.0f} ms', flush=True)
    finally:
        for process in agents.values():
            process.close()
        rig.close()

    return latencies, estops, cuts


def report_figures(samples: int, estop_samples: int, cut_count: int,
                   latencies: Dict[str, List[float]], estops: Dict[str, List[float]],
                   cuts: List[Dict[str, float]]) -> Dict[str, Any]:
    """Print the table and the ratios; return the report."""
    ms = 1000.0
    timeout = REMOTE['heartbeat_timeout']
    tick = 1.0 / REMOTE['update_frequency']
    from_cut = [c['stopped'] - c['cut'] for c in cuts]
    from_beat = [c['stopped'] - c['last_beat'] for c in cuts]
    within = sum(value <= timeout + 0.05 for value in from_cut)
    report: Dict[str, Any] = {'samples': samples, 'estop_samples': estop_samples,
                              'cuts': cut_count, 'heartbeat_timeout': timeout, 'tick': tick}
    rows = []
    for side, label in ((ROBOT, 'loopback'), (OPERATOR, 'veth')):
        report[f'command_{label}_ms'] = summary(latencies[side], ms)
        rows.append({'measure': f'command → cmd_vel, {label}', **report[f'command_{label}_ms']})
    for side, label in ((ROBOT, 'loopback'), (OPERATOR, 'veth')):
        report[f'estop_{label}_ms'] = summary(estops[side], ms)
        rows.append({'measure': f'e-stop call → zero, {label}', **report[f'estop_{label}_ms']})
    report['cut_to_zero_ms'] = summary(from_cut, ms)
    report['last_beat_to_zero_ms'] = summary(from_beat, ms)
    rows.append({'measure': 'link cut → wheels zero', **report['cut_to_zero_ms']})
    rows.append({'measure': 'last beat heard → wheels zero', **report['last_beat_to_zero_ms']})
    ratio = report['command_veth_ms']['p50'] / report['command_loopback_ms']['p50']
    estop_ratio = report['estop_veth_ms']['p50'] / report['estop_loopback_ms']['p50']
    report.update({'command_ratio_p50': ratio, 'estop_ratio_p50': estop_ratio,
                   'cuts_within_timeout_plus_50ms': within})
    print_table('the mux over a veth link vs over loopback; link cuts (ms)', rows)
    print(f'veth / loopback p50: commands {ratio:.2f}x (target <= 1.2x), e-stop '
          f'{estop_ratio:.2f}x; wheels zero within heartbeat_timeout + 50 ms '
          f'({(timeout + 0.05) * ms:.0f} ms) after {within} of {len(cuts)} cuts')
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--samples', type=int, default=500, help='commands per side')
    parser.add_argument('--estop-samples', type=int, default=30, help='e-stops per side')
    parser.add_argument('--cuts', type=int, default=50, help='link cuts')
    options = parser.parse_args()
    reason = unavailable_reason()
    if reason:
        print(f'bench_two_hosts: skipped: {reason}')
        return 0

    private_ros_home()
    latencies, estops, cuts = measure(options.samples, options.estop_samples, options.cuts)
    report = report_figures(options.samples, options.estop_samples, options.cuts, latencies,
                            estops, cuts)
    print(f"saved {save('bench_two_hosts', report)}")
    return 0


if __name__ == '__main__':
    if len(sys.argv) > 1 and sys.argv[1] == 'agent':
        sys.exit(agent())
    sys.exit(main())
