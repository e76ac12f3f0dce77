"""
How fast the suite stops the robot: e-stop call → zero, and supervisor lost → zero.

Every node runs in a process of its own, as on a robot; this process is the planner (a 50 Hz
autonomy stream, like Nav2) and the base (it records ``cmd_vel``).

- e-stop: ``robot_sm/emergency_stop`` call → first zero on ``cmd_vel`` of the shipped mux, which
  writes its latch to disk on every engage, against a mux with ``emergency_stop_file: ''``
  (nothing written), alternating between the two in the same run.
- supervisor: SIGKILL (and SIGSTOP) of the ``state_interface`` process → first zero on
  ``cmd_vel``, against the baseline of the planner itself going silent (the mux zeroes a stale
  autonomy command after ``autonomy_timeout``), measured in the same run.

Run: ``tools/with_ros_env.sh python bench/bench_safety.py [--estops N] [--kills N]``.
"""

import argparse
import os
import pathlib
import random
import signal
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from geometry_msgs.msg import Twist, Vector3  # noqa: E402
from report import print_table, private_ros_home, save, summary  # noqa: E402
from robot_sm import qos  # noqa: E402
from robot_sm.testing import NodeProcess, python_module_argv, ros_args, RosHarness  # noqa: E402
from robot_sm_msgs.msg import OperationMode  # noqa: E402
from robot_sm_msgs.srv import SetOperationMode  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from std_srvs.srv import SetBool  # noqa: E402

NAMESPACE = f'/bench_safety_{os.getpid()}'


class Base:
    """The robot's base as seen from here: ``cmd_vel`` of one mux, with the arrival times."""

    def __init__(self, ros: RosHarness, namespace: str) -> None:
        self._lock = threading.Lock()
        self._waiting: Optional[Callable[[Twist], bool]] = None
        self._arrived = threading.Event()
        self.arrival = 0.0
        ros.probe.create_subscription(Twist, f'{namespace}/cmd_vel', self._on_cmd_vel,
                                      qos.EVENTS)

    def _on_cmd_vel(self, msg: Twist) -> None:
        now = time.monotonic()
        with self._lock:
            if self._waiting is not None and self._waiting(msg):
                self._waiting = None
                self.arrival = now
                self._arrived.set()

    def expect(self, predicate: Callable[[Twist], bool]) -> None:
        with self._lock:
            self._arrived.clear()
            self._waiting = predicate

    def wait(self, timeout: float = 5.0) -> float:
        if not self._arrived.wait(timeout):
            raise TimeoutError('the expected cmd_vel did not arrive')
        return self.arrival


def moving(msg: Twist) -> bool:
    return msg.linear.x == 0.5


def still(msg: Twist) -> bool:
    return msg.linear.x == 0.0


def call(client: Any, request: Any, timeout: float = 5.0) -> Any:
    if not client.wait_for_service(timeout_sec=30.0):
        raise TimeoutError(f'{client.srv_name} is not available')
    done = threading.Event()
    future = client.call_async(request)
    future.add_done_callback(lambda _: done.set())
    if not done.wait(timeout):
        raise TimeoutError(f'{client.srv_name} did not answer')
    return future.result()


def mode_request(mode: int) -> SetOperationMode.Request:
    request = SetOperationMode.Request()
    request.operation_mode = OperationMode(mode=mode)
    return request


class Planner:
    """A 50 Hz autonomy stream of 0.5 m/s into one or more muxes; it can fall silent."""

    def __init__(self, ros: RosHarness, namespaces: List[str]) -> None:
        self.publishers = [ros.publisher(Twist, f'{ns}/autonomy/cmd_vel', qos.COMMAND_OUT)
                           for ns in namespaces]
        self.on = True
        self.silenced = 0.0
        ros.probe.create_timer(0.02, self._send)

    def _send(self) -> None:
        if self.on:
            for publisher in self.publishers:
                publisher.publish(Twist(linear=Vector3(x=0.5)))
        elif not self.silenced:
            self.silenced = time.monotonic()  # the last command went out before this tick


def measure_estops(ros: RosHarness, samples: int) -> Dict[str, List[float]]:
    """Return e-stop call → first zero, seconds, for the mux with and without its latch file."""
    targets = {'latch on disk': f'{NAMESPACE}/latched',
               "emergency_stop_file ''": f'{NAMESPACE}/bare'}
    parameters = {'latch on disk': {}, "emergency_stop_file ''": {'emergency_stop_file': ''}}
    for name, namespace in targets.items():
        ros.start_process(python_module_argv(
            'robot_sm.nodes.robot_control_mux', *ros_args(namespace, parameters[name])))
    bases = {name: Base(ros, ns) for name, ns in targets.items()}
    estops = {name: ros.probe.create_client(SetBool, f'{ns}/robot_sm/emergency_stop')
              for name, ns in targets.items()}
    modes = {name: ros.probe.create_client(SetOperationMode,
                                           f'{ns}/robot_sm/set_operation_mode')
             for name, ns in targets.items()}
    Planner(ros, list(targets.values()))
    delays: Dict[str, List[float]] = {name: [] for name in targets}
    for _ in range(samples):
        for name in random.sample(list(targets), len(targets)):
            base = bases[name]
            assert call(modes[name], mode_request(OperationMode.AUTONOMOUS)).success
            base.expect(moving)
            base.wait()
            time.sleep(random.uniform(0.0, 0.05))  # no phase lock with the 20 Hz tick
            base.expect(still)
            called = time.monotonic()
            assert call(estops[name], SetBool.Request(data=True)).success
            delays[name].append(base.wait() - called)
            assert call(estops[name], SetBool.Request(data=False)).success
    return delays


class SupervisedMux:
    """A mux and service provider with a planner driving, and the state interface supervising."""

    def __init__(self, ros: RosHarness, namespace: str) -> None:
        self.ros = ros
        self.namespace = namespace
        ros.start_process(python_module_argv('robot_sm.nodes.robot_control_mux',
                                             *ros_args(namespace)))
        ros.start_process(python_module_argv('robot_sm.nodes.service_provider', *ros_args(
            namespace, {'waypoints_file': '', 'pose_source': 'topic'})))
        self.base = Base(ros, namespace)
        self.mode = ros.probe.create_client(SetOperationMode,
                                            f'{namespace}/robot_sm/set_operation_mode')
        self.states: List[str] = []
        ros.probe.create_subscription(String, f'{namespace}/robot_sm/state_info',
                                      lambda m: self.states.append(m.data), qos.STATE)
        self.heard: List[bool] = []
        ros.probe.create_subscription(DiagnosticArray, '/diagnostics', self._on_diagnostics, 10)
        self.planner = Planner(ros, [namespace])

    def _on_diagnostics(self, array: DiagnosticArray) -> None:
        for status in array.status:
            if status.hardware_id == f'{self.namespace}/robot_control_mux':
                age = {kv.key: kv.value for kv in status.values}.get('supervisor age (s)')
                self.heard.append(age not in (None, 'never') and float(age) < 0.5)

    def drive(self, deadline: float = 30.0) -> None:
        """Select AUTONOMOUS (refused until the mux has heard the supervisor) and wait."""
        limit = time.monotonic() + deadline
        while not call(self.mode, mode_request(OperationMode.AUTONOMOUS)).success:
            if time.monotonic() > limit:
                raise TimeoutError('AUTONOMOUS still refused')
            time.sleep(0.05)
        self.base.expect(moving)
        self.base.wait()
        time.sleep(random.uniform(0.0, 0.05))

    def supervisor(self) -> NodeProcess:
        """Start the state interface; return it once the mux has heard it."""
        self.states.clear()
        process = self.ros.start_process(python_module_argv(
            'robot_sm.nodes.state_interface', *ros_args(self.namespace)))
        limit = time.monotonic() + 60.0
        self.heard.clear()
        # Until the mux has heard the supervisor its watchdog is not armed (diagnostics, 1 Hz).
        while 'Idle' not in self.states or not (self.heard and self.heard[-1]):
            if time.monotonic() > limit:
                raise TimeoutError('the mux did not hear the state interface')
            time.sleep(0.05)
        return process


def measure_supervisor(ros: RosHarness, kills: int, freezes: int) -> Dict[str, List[float]]:
    """Return supervisor SIGKILL / SIGSTOP → first zero, and planner silent → zero (seconds)."""
    mux = SupervisedMux(ros, f'{NAMESPACE}/supervised')
    base, planner = mux.base, mux.planner
    delays: Dict[str, List[float]] = {'SIGKILL': [], 'SIGSTOP': [], 'planner silent': []}
    process = mux.supervisor()
    for _ in range(freezes):
        mux.drive()
        base.expect(still)
        frozen = time.monotonic()
        os.killpg(process.pid, signal.SIGSTOP)
        try:
            delays['SIGSTOP'].append(base.wait() - frozen)
        finally:
            os.killpg(process.pid, signal.SIGCONT)
        mux.drive()  # the baseline: the planner falls silent with the supervisor alive
        base.expect(still)
        planner.silenced, planner.on = 0.0, False
        stopped = base.wait()
        delays['planner silent'].append(stopped - planner.silenced)
        planner.on = True
    for _ in range(kills):
        mux.drive()
        base.expect(still)
        killed = time.monotonic()
        process.kill()
        delays['SIGKILL'].append(base.wait() - killed)
        process = mux.supervisor()
    return delays


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--estops', type=int, default=100, help='e-stops per mux')
    parser.add_argument('--kills', type=int, default=20, help='supervisor SIGKILLs')
    parser.add_argument('--freezes', type=int, default=40, help='supervisor SIGSTOPs')
    options = parser.parse_args()

    private_ros_home()  # the muxes' latch files, not the user's ~/.ros
    ros = RosHarness(namespace=NAMESPACE)
    try:
        estops = measure_estops(ros, options.estops)
        supervisor = measure_supervisor(ros, options.kills, options.freezes)
    finally:
        ros.shutdown()

    ms = 1000.0
    rows = []
    report: Dict[str, Any] = vars(options).copy()
    for name, samples in estops.items():
        stats = summary(samples, ms)
        report[f'estop_zero_ms {name}'] = stats
        rows.append({'measure': f'e-stop call → first zero, {name}', **stats})
    for name, samples in supervisor.items():
        stats = summary(samples, ms)
        report[f'lost_zero_ms {name}'] = stats
        rows.append({'measure': f'{name} → first zero', **stats})
    latched = report['estop_zero_ms latch on disk']['p50']
    bare = report["estop_zero_ms emergency_stop_file ''"]['p50']
    report['estop_ratio_p50'] = latched / bare
    print_table('stopping the robot (ms)', rows)
    print(f'e-stop with the latch on disk / without: p50 {latched / bare:.2f}x; supervisor '
          f"SIGKILL → zero p50 {report['lost_zero_ms SIGKILL']['p50']:.0f} ms (timeout 1000 ms)")
    print(f"saved {save('bench_safety', report)}")
    return 0


if __name__ == '__main__':
    sys.exit(main())
