"""
Latency of the robot control mux against a bare rclpy relay, measured in the same run.

Two node processes run side by side, as on a robot: ``robot_control_mux`` (in AUTONOMOUS) and a
bare relay that republishes ``autonomy/cmd_vel`` on ``cmd_vel`` from its subscription callback
and answers ``robot_sm/emergency_stop`` by publishing one zero. This process is the planner and
the base: it publishes a command, waits for it on ``cmd_vel``, and alternates between the two
nodes so that both see the same machine load.

- command latency: ``autonomy/cmd_vel`` publish → arrival on ``cmd_vel`` (p50, p99, ratio);
- e-stop latency: ``robot_sm/emergency_stop`` call → first zero on ``cmd_vel`` while a 50 Hz
  autonomy stream is moving the base, and the call's round trip, for both nodes.

Run: ``tools/with_ros_env.sh python bench/bench_mux.py [--samples N]``.
"""

import argparse
import os
import pathlib
import random
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from geometry_msgs.msg import Twist, Vector3  # noqa: E402
from rclpy.node import Node  # noqa: E402
from report import print_table, private_ros_home, save, summary  # noqa: E402
from robot_sm import qos  # noqa: E402
from robot_sm.nodes.runner import run_node  # noqa: E402
from robot_sm.testing import NodeProcess, python_module_argv, RosHarness  # noqa: E402
from robot_sm_msgs.msg import OperationMode  # noqa: E402
from robot_sm_msgs.srv import SetOperationMode  # noqa: E402
from std_srvs.srv import SetBool  # noqa: E402

NAMESPACE = f'/bench_mux_{os.getpid()}'
TARGETS = ('mux', 'relay')


class BareRelay(Node):
    """The baseline: republish every command from the subscription callback, nothing else."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__('bare_relay', **kwargs)
        publisher = self.create_publisher(Twist, 'cmd_vel', qos.COMMAND_OUT)
        self.create_subscription(Twist, 'autonomy/cmd_vel', publisher.publish, qos.COMMAND_IN)

        def stop(request: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
            publisher.publish(Twist())
            response.success = True
            return response

        self.create_service(SetBool, 'robot_sm/emergency_stop', stop)


class Target:
    """One node under test as seen from the measuring node."""

    def __init__(self, ros: RosHarness, name: str) -> None:
        self.name = name
        self.command = ros.publisher(Twist, f'{name}/autonomy/cmd_vel', qos.COMMAND_OUT)
        self._lock = threading.Lock()
        self._waiting: Optional[Callable[[Twist], bool]] = None
        self._arrived = threading.Event()
        self.arrival = 0.0
        # Like a base controller: reliable with a queue, so no message is overwritten unseen.
        ros.probe.create_subscription(Twist, f'{name}/cmd_vel', self._on_cmd_vel, qos.EVENTS)
        self.estop = ros.probe.create_client(SetBool, f'{name}/robot_sm/emergency_stop')

    def _on_cmd_vel(self, msg: Twist) -> None:
        now = time.monotonic()
        with self._lock:
            if self._waiting is not None and self._waiting(msg):
                self._waiting = None
                self.arrival = now
                self._arrived.set()

    def expect(self, predicate: Callable[[Twist], bool]) -> None:
        """Watch ``cmd_vel`` for the first message matching ``predicate`` from now on."""
        with self._lock:
            self._arrived.clear()
            self._waiting = predicate

    def wait(self, timeout: float = 2.0) -> float:
        """Return the arrival time of the expected message."""
        if not self._arrived.wait(timeout):
            raise TimeoutError(f'{self.name}: expected message did not arrive')
        return self.arrival


def command(x: float) -> Twist:
    return Twist(linear=Vector3(x=x))


def call(client: Any, request: Any, timeout: float = 5.0) -> Any:
    done = threading.Event()
    future = client.call_async(request)
    future.add_done_callback(lambda _: done.set())
    if not done.wait(timeout):
        raise TimeoutError('service did not answer')
    return future.result()


def carrying(x: float) -> Callable[[Twist], bool]:
    """Return a predicate matching a command whose linear.x is ``x``."""
    return lambda msg: bool(msg.linear.x == x)


def measure_commands(targets: Dict[str, Target], samples: int) -> Dict[str, List[float]]:
    latencies: Dict[str, List[float]] = {name: [] for name in targets}
    sequence = 1.0
    for _ in range(samples):
        for name in random.sample(TARGETS, len(TARGETS)):
            target = targets[name]
            sequence += 1.0
            target.expect(carrying(sequence))
            sent = time.monotonic()
            target.command.publish(command(sequence))
            latencies[name].append(target.wait() - sent)
            time.sleep(random.uniform(0.002, 0.008))  # no phase lock with the mux's 20 Hz tick
    return latencies


def measure_estop(ros: RosHarness, targets: Dict[str, Target], mode_client: Any,
                  samples: int) -> Dict[str, Dict[str, List[float]]]:
    results: Dict[str, Dict[str, List[float]]] = {
        name: {'zero': [], 'answer': []} for name in targets}
    streaming = {'on': True}

    def stream() -> None:  # the planner keeps commanding 0.5 m/s at 50 Hz
        if streaming['on']:
            for target in targets.values():
                target.command.publish(command(0.5))

    timer = ros.probe.create_timer(0.02, stream)
    for _ in range(samples):
        for name in random.sample(TARGETS, len(TARGETS)):
            target = targets[name]
            if name == 'mux':
                call(mode_client, mode_request(OperationMode.AUTONOMOUS))
            target.expect(carrying(0.5))
            target.wait()
            time.sleep(random.uniform(0.0, 0.02))
            target.expect(carrying(0.0))
            called = time.monotonic()
            call(target.estop, SetBool.Request(data=True))
            answered = time.monotonic()
            results[name]['zero'].append(target.wait() - called)
            results[name]['answer'].append(answered - called)
            if name == 'mux':
                assert call(target.estop, SetBool.Request(data=False)).success
    timer.cancel()
    return results


def mode_request(mode: int) -> SetOperationMode.Request:
    request = SetOperationMode.Request()
    request.operation_mode = OperationMode(mode=mode)
    return request


def start(ros: RosHarness, name: str, argv: List[str]) -> NodeProcess:
    return ros.start_process([*argv, '--ros-args', '-r', f'__ns:={NAMESPACE}/{name}'])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--samples', type=int, default=1000, help='commands per node')
    parser.add_argument('--estop-samples', type=int, default=100, help='e-stops per node')
    options = parser.parse_args()

    private_ros_home()
    ros = RosHarness(namespace=NAMESPACE)
    try:
        start(ros, 'mux', python_module_argv('robot_sm.nodes.robot_control_mux'))
        start(ros, 'relay', [sys.executable, __file__, 'relay'])
        targets = {name: Target(ros, name) for name in TARGETS}
        mode_client = ros.probe.create_client(SetOperationMode, 'mux/robot_sm/set_operation_mode')
        for target in targets.values():
            ros.wait_for_subscribers(target.command, timeout=30.0)
            if not target.estop.wait_for_service(timeout_sec=30.0):
                raise TimeoutError(f'{target.name}: no emergency_stop service')
        if not mode_client.wait_for_service(timeout_sec=30.0):
            raise TimeoutError('mux: no set_operation_mode service')
        assert call(mode_client, mode_request(OperationMode.AUTONOMOUS)).success
        time.sleep(1.0)  # let discovery settle
        measure_commands(targets, 50)  # warm up
        latencies = measure_commands(targets, options.samples)
        estop = measure_estop(ros, targets, mode_client, options.estop_samples)
    finally:
        ros.shutdown()

    ms = 1000.0
    rows = []
    report: Dict[str, Any] = {'samples': options.samples, 'estop_samples': options.estop_samples}
    for name in TARGETS:
        stats = summary(latencies[name], ms)
        report[f'command_{name}_ms'] = stats
        rows.append({'measure': f'command → cmd_vel, {name}', **stats})
    for name in TARGETS:
        for kind, label in (('zero', 'e-stop call → first zero'), ('answer', 'e-stop answer')):
            stats = summary(estop[name][kind], ms)
            report[f'estop_{kind}_{name}_ms'] = stats
            rows.append({'measure': f'{label}, {name}', **stats})
    ratio_p50 = report['command_mux_ms']['p50'] / report['command_relay_ms']['p50']
    ratio_p99 = report['command_mux_ms']['p99'] / report['command_relay_ms']['p99']
    report['ratio_p50'] = ratio_p50
    report['ratio_p99'] = ratio_p99
    print_table('robot_control_mux vs bare rclpy relay (ms)', rows)
    print(f'mux / relay: p50 {ratio_p50:.2f}x, p99 {ratio_p99:.2f}x (target p50 <= 1.2x); '
          f"mux e-stop to zero p50 {report['estop_zero_mux_ms']['p50']:.2f} ms, "
          f"p99 {report['estop_zero_mux_ms']['p99']:.2f} ms (target < 10 ms)")
    print(f"saved {save('bench_mux', report)}")
    return 0


if __name__ == '__main__':
    if len(sys.argv) > 1 and sys.argv[1] == 'relay':
        sys.exit(run_node(BareRelay, sys.argv[2:]))
    sys.exit(main())
