"""
Latency of the mux's input selection: eight inputs at 100 Hz against two and a bare relay.

Four node processes run side by side, each in a namespace of its own:

- ``relay``: a bare rclpy relay (``autonomy/cmd_vel`` → ``cmd_vel`` from its subscription
  callback, nothing else; ``bench/bench_mux.py``'s baseline);
- ``two``: ``robot_control_mux`` with the shipped configuration (``config/robot_sm.yaml``: the
  inputs autonomy and teleoperation);
- ``eight``: the shipped configuration plus a parameter file that adds six inputs and a lock, as
  a robot with Nav2, a docking controller and several teleoperation front-ends would have:
  three lower autonomy inputs and three teleoperation inputs that do not take over, all
  streaming non-zero commands, the shipped teleoperation input (which takes over) streaming
  zeros, and a lock with a timeout (priority 255) streaming false;
- ``load``: the streams of ``eight``: every input but autonomy and the lock at 100 Hz each.

This process is the planner and the base: it publishes a command on ``autonomy/cmd_vel`` of one
node, waits for it on that node's ``cmd_vel``, and moves to the next node in a random order, so
that all see the same machine load; the autonomy input of ``eight`` thereby gets about 100 Hz
too. Commands are small (the shipped limits would scale larger ones down).

Run: ``tools/with_ros_env.sh python bench/bench_mux_inputs.py [--samples N]``.
"""

import argparse
import pathlib
import random
import sys
import tempfile
import time
from typing import Any, Dict, List

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_mux import BareRelay, call, mode_request, NAMESPACE, start, Target  # noqa: E402
from geometry_msgs.msg import Twist, Vector3  # noqa: E402
from rclpy.node import Node  # noqa: E402
from report import print_table, private_ros_home, save, summary  # noqa: E402
from robot_sm import qos  # noqa: E402
from robot_sm.nodes.runner import run_node  # noqa: E402
from robot_sm.testing import python_module_argv, RosHarness, wait_until  # noqa: E402
from robot_sm_msgs.msg import OperationMode  # noqa: E402
from robot_sm_msgs.srv import SetOperationMode  # noqa: E402
from std_msgs.msg import Bool  # noqa: E402
import yaml  # noqa: E402

SHIPPED = pathlib.Path(__file__).resolve().parents[1] / 'robot_sm' / 'config' / 'robot_sm.yaml'
TARGETS = ('relay', 'two', 'eight')
MUXES = ('two', 'eight')
STREAM_RATE = 100.0

#: The inputs and lock ``eight`` adds to the shipped two (priorities below autonomy's 10 for the
#: autonomy class, so the measured input drives).
ADDED_INPUTS = {
    'docking': {'topic': 'docking/cmd_vel', 'timeout': 0.5, 'priority': 7, 'class': 'autonomy'},
    'recovery': {'topic': 'recovery/cmd_vel', 'timeout': 0.5, 'priority': 6,
                 'class': 'autonomy'},
    'follow': {'topic': 'follow/cmd_vel', 'timeout': 0.5, 'priority': 5, 'class': 'autonomy'},
    'web': {'topic': 'web/cmd_vel', 'timeout': 0.5, 'priority': 90, 'class': 'teleoperation'},
    'tablet': {'topic': 'tablet/cmd_vel', 'timeout': 0.5, 'priority': 80,
               'class': 'teleoperation'},
    'keyboard': {'topic': 'keyboard/cmd_vel', 'timeout': 0.5, 'priority': 70,
                 'class': 'teleoperation'},
}
ADDED_LOCKS = {'safety': {'topic': 'safety_ok', 'timeout': 0.5, 'priority': 255}}
#: What the load process streams on each topic of ``eight``: a non-zero command, a zero
#: (the takeover input: a joystick at rest), or the lock's false.
STREAMS: Dict[str, Any] = {
    **{fields['topic']: 0.1 for fields in ADDED_INPUTS.values()},
    'teleoperation/cmd_vel': 0.0,
    'safety_ok': False,
}


class Load(Node):
    """Stream every topic of :data:`STREAMS` at :data:`STREAM_RATE`, phases spread out."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__('input_load', **kwargs)
        period = 1.0 / STREAM_RATE
        for topic, value in STREAMS.items():
            if isinstance(value, bool):
                publisher = self.create_publisher(Bool, topic, qos.SENSOR)
                message: Any = Bool(data=value)
            else:
                publisher = self.create_publisher(Twist, topic, qos.COMMAND_OUT)
                message = Twist(linear=Vector3(x=value))
            self.create_timer(period, lambda p=publisher, m=message: p.publish(m))
            time.sleep(period / len(STREAMS))


def value(sequence: int) -> float:
    """Return a distinct small speed for ``sequence`` (below the shipped 0.5 m/s limit)."""
    return (sequence % 4000 + 1) * 1e-4


def measure(targets: Dict[str, Target], samples: int) -> Dict[str, List[float]]:
    latencies: Dict[str, List[float]] = {name: [] for name in targets}
    sequence = 0
    for _ in range(samples):
        for name in random.sample(TARGETS, len(TARGETS)):
            target = targets[name]
            sequence += 1
            x = value(sequence)
            target.expect(lambda msg, x=x: bool(msg.linear.x == x))
            sent = time.monotonic()
            target.command.publish(Twist(linear=Vector3(x=x)))
            latencies[name].append(target.wait() - sent)
            time.sleep(random.uniform(0.001, 0.004))  # no phase lock with ticks and streams
    return latencies


def parameter_file(folder: str) -> str:
    path = pathlib.Path(folder) / 'eight_inputs.yaml'
    path.write_text(yaml.safe_dump({'/**/robot_control_mux': {'ros__parameters': {
        'inputs': ADDED_INPUTS, 'locks': ADDED_LOCKS}}}))
    return str(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--samples', type=int, default=1000, help='commands per node')
    options = parser.parse_args()

    private_ros_home()
    ros = RosHarness(namespace=NAMESPACE)
    folder = tempfile.TemporaryDirectory(prefix='robot_sm-bench-inputs-')
    try:
        mux = python_module_argv('robot_sm.nodes.robot_control_mux')
        start(ros, 'relay', [sys.executable, str(pathlib.Path(__file__).parent / 'bench_mux.py'),
                             'relay'])
        start(ros, 'two', [*mux, '--ros-args', '--params-file', str(SHIPPED)])
        start(ros, 'eight', [*mux, '--ros-args', '--params-file', str(SHIPPED),
                             '--params-file', parameter_file(folder.name)])
        targets = {name: Target(ros, name) for name in TARGETS}
        mode_clients = {name: ros.probe.create_client(
            SetOperationMode, f'{name}/robot_sm/set_operation_mode') for name in MUXES}
        for target in targets.values():
            ros.wait_for_subscribers(target.command, timeout=30.0)
        for name, client in mode_clients.items():
            if not client.wait_for_service(timeout_sec=30.0):
                raise TimeoutError(f'{name}: no set_operation_mode service')
        start(ros, 'eight', [sys.executable, __file__, 'load'])
        for topic in STREAMS:  # the load runs: the lock is heard, else it masks autonomy
            if not wait_until(lambda: ros.probe.count_publishers(
                    f'{NAMESPACE}/eight/{topic}') > 0, 30.0):
                raise TimeoutError(f'load: nothing published on {topic}')
        time.sleep(1.0)  # discovery settles
        for name, client in mode_clients.items():
            answer = call(client, mode_request(OperationMode.AUTONOMOUS))
            assert answer.success, f'{name}: {answer.message}'
        measure(targets, 50)  # warm up
        latencies = measure(targets, options.samples)
    finally:
        ros.shutdown()
        folder.cleanup()

    ms = 1000.0
    report: Dict[str, Any] = {'samples': options.samples, 'stream_rate_hz': STREAM_RATE,
                              'inputs_eight': 2 + len(ADDED_INPUTS), 'locks_eight': 1}
    labels = {'relay': 'bare relay', 'two': 'mux, shipped two inputs',
              'eight': 'mux, 8 inputs at 100 Hz + a lock'}
    rows = []
    for name in TARGETS:
        stats = summary(latencies[name], ms)
        report[f'command_{name}_ms'] = stats
        rows.append({'measure': f'autonomy/cmd_vel → cmd_vel, {labels[name]}', **stats})
    for name in MUXES:
        for q in ('p50', 'p99'):
            report[f'ratio_{name}_relay_{q}'] = (report[f'command_{name}_ms'][q]
                                                 / report['command_relay_ms'][q])
    for q in ('p50', 'p99'):
        report[f'ratio_eight_two_{q}'] = (report['command_eight_ms'][q]
                                          / report['command_two_ms'][q])
    print_table('robot_control_mux input selection vs bare rclpy relay (ms)', rows)
    print(f"8 inputs / relay: p50 {report['ratio_eight_relay_p50']:.2f}x, "
          f"p99 {report['ratio_eight_relay_p99']:.2f}x (target p50 <= 1.1x); "
          f"2 inputs / relay: p50 {report['ratio_two_relay_p50']:.2f}x, "
          f"p99 {report['ratio_two_relay_p99']:.2f}x; "
          f"8 / 2 inputs: p50 {report['ratio_eight_two_p50']:.2f}x, "
          f"p99 {report['ratio_eight_two_p99']:.2f}x")
    print(f"saved {save('bench_mux_inputs', report)}")
    return 0


if __name__ == '__main__':
    if len(sys.argv) > 1 and sys.argv[1] == 'relay':
        sys.exit(run_node(BareRelay, sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == 'load':
        sys.exit(run_node(Load, sys.argv[2:]))
    sys.exit(main())
