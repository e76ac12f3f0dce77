"""
Latency of the mux's input selection: eight inputs at 100 Hz against two and a bare relay.

Six node processes run side by side, in four namespaces:

- ``relay``: a bare rclpy relay (``autonomy/cmd_vel`` → ``cmd_vel`` from its subscription
  callback, nothing else; ``bench/bench_mux.py``'s baseline);
- ``two``: ``robot_control_mux`` with the shipped configuration (``config/robot_sm.yaml``: the
  inputs autonomy and teleoperation);
- ``eight``: the shipped configuration plus a parameter file that adds six inputs and a lock, as
  a robot with Nav2, a docking controller and several teleoperation front-ends would have:
  three lower autonomy inputs and three teleoperation inputs that do not take over, all
  streaming non-zero commands, the shipped teleoperation input (which takes over) streaming
  zeros, and a lock with a timeout (priority 255) streaming false;
- ``load``: the streams of ``eight``: every input but autonomy and the lock at 100 Hz each;
- ``idle``: the same eight inputs and lock, only the lock streaming (at 100 Hz, from a sixth
  process): the cost of the selection apart from the load (a busy process also wakes faster,
  which flatters ``eight``).

The cost of the selection alone is measured in this process too: the core's
``ControlMux.command`` for the measured input, with the shipped two inputs and with the eight and
the lock (the median time per call over batches of calls).

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
from typing import Any, Dict, List, Tuple

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_mux import BareRelay, call, mode_request, NAMESPACE, start, Target  # noqa: E402
from geometry_msgs.msg import Twist, Vector3  # noqa: E402
from rclpy.node import Node  # noqa: E402
from report import print_table, private_ros_home, save, summary  # noqa: E402
from robot_sm import qos  # noqa: E402
from robot_sm.mux import ControlMux, Lock, Mode, MuxConfig, Velocity, VelocityInput  # noqa: E402
from robot_sm.nodes.runner import run_node  # noqa: E402
from robot_sm.testing import python_module_argv, RosHarness, wait_until  # noqa: E402
from robot_sm_msgs.msg import OperationMode  # noqa: E402
from robot_sm_msgs.srv import SetOperationMode  # noqa: E402
from std_msgs.msg import Bool  # noqa: E402
import yaml  # noqa: E402

SHIPPED = pathlib.Path(__file__).resolve().parents[1] / 'robot_sm' / 'config' / 'robot_sm.yaml'
TARGETS = ('relay', 'two', 'idle', 'eight')
MUXES = ('two', 'idle', 'eight')
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

    streams: Dict[str, Any] = STREAMS

    def __init__(self, **kwargs: Any) -> None:
        super().__init__('input_load', **kwargs)
        period = 1.0 / STREAM_RATE
        for topic, value in self.streams.items():
            if isinstance(value, bool):
                publisher = self.create_publisher(Bool, topic, qos.SENSOR)
                message: Any = Bool(data=value)
            else:
                publisher = self.create_publisher(Twist, topic, qos.COMMAND_OUT)
                message = Twist(linear=Vector3(x=value))
            self.create_timer(period, lambda p=publisher, m=message: p.publish(m))
            time.sleep(period / len(self.streams))


class LockHeartbeat(Load):
    """Stream only the lock: it must be heard, else it masks autonomy."""

    streams = {'safety_ok': False}


def value(sequence: int) -> float:
    """Return a distinct small speed for ``sequence`` (below the shipped 0.5 m/s limit)."""
    return (sequence % 4000 + 1) * 1e-4


def measure(targets: Dict[str, Target], samples: int,
            lost: Dict[str, int]) -> Dict[str, List[float]]:
    """Return the latencies by target; count in ``lost`` the commands that never arrived."""
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
            try:
                latencies[name].append(target.wait() - sent)
            except TimeoutError:
                lost[name] += 1
            time.sleep(random.uniform(0.001, 0.004))  # no phase lock with ticks and streams
    return latencies


def core_configurations() -> Dict[str, MuxConfig]:
    """Return the cores of ``two`` and ``eight``: the shipped inputs and limits, then all."""
    shipped = yaml.safe_load(SHIPPED.read_text())['/**/robot_control_mux']['ros__parameters']
    limits = {'max_linear_velocity': shipped['max_linear_velocity'],
              'max_angular_velocity': shipped['max_angular_velocity']}
    entries = {**shipped['inputs'], **ADDED_INPUTS}
    inputs = tuple(VelocityInput.from_parameters(name, {'takeover': False, **fields})
                   for name, fields in entries.items())
    locks = tuple(Lock.from_parameters(name, fields) for name, fields in ADDED_LOCKS.items())
    return {'two': MuxConfig(inputs=inputs[:2], **limits),
            'eight': MuxConfig(inputs=inputs, locks=locks, **limits)}


def measure_core(batches: int = 30, calls: int = 10000) -> Dict[str, List[float]]:
    """Return the time per ``ControlMux.command`` of the driving input, per batch (s)."""
    times: Dict[str, List[float]] = {}
    for name, config in core_configurations().items():
        now = 100.0
        mux = ControlMux(config, now)
        mux.set_mode(Mode.AUTONOMOUS, now)
        for lock in config.locks:
            mux.lock(lock.name, False, now)
        command = Velocity(0.1)
        times[name] = []
        for _ in range(batches):
            started = time.perf_counter()
            for _ in range(calls):
                now += 1e-5
                mux.command('autonomy', command, now)
            times[name].append((time.perf_counter() - started) / calls)
    return times


def parameter_file(folder: str) -> str:
    path = pathlib.Path(folder) / 'eight_inputs.yaml'
    path.write_text(yaml.safe_dump({'/**/robot_control_mux': {'ros__parameters': {
        'inputs': ADDED_INPUTS, 'locks': ADDED_LOCKS}}}))
    return str(path)


def measure_nodes(samples: int) -> Tuple[Dict[str, List[float]], Dict[str, int]]:
    """Start the relay and the three muxes, drive them; return latencies and losses by target."""
    private_ros_home()
    ros = RosHarness(namespace=NAMESPACE)
    folder = tempfile.TemporaryDirectory(prefix='robot_sm-bench-inputs-')
    try:
        mux = python_module_argv('robot_sm.nodes.robot_control_mux')
        start(ros, 'relay', [sys.executable, str(pathlib.Path(__file__).parent / 'bench_mux.py'),
                             'relay'])
        start(ros, 'two', [*mux, '--ros-args', '--params-file', str(SHIPPED)])
        for name in ('idle', 'eight'):
            start(ros, name, [*mux, '--ros-args', '--params-file', str(SHIPPED),
                              '--params-file', parameter_file(folder.name)])
        start(ros, 'idle', [sys.executable, __file__, 'lock'])
        targets = {name: Target(ros, name) for name in TARGETS}
        mode_clients = {name: ros.probe.create_client(
            SetOperationMode, f'{name}/robot_sm/set_operation_mode') for name in MUXES}
        for target in targets.values():
            ros.wait_for_subscribers(target.command, timeout=30.0)
        for name, client in mode_clients.items():
            if not client.wait_for_service(timeout_sec=30.0):
                raise TimeoutError(f'{name}: no set_operation_mode service')
        start(ros, 'eight', [sys.executable, __file__, 'load'])
        for name, streams in (('eight', STREAMS), ('idle', LockHeartbeat.streams)):
            for topic in streams:  # the load runs: the lock is heard, else it masks autonomy
                full_name = f'{NAMESPACE}/{name}/{topic}'
                if not wait_until(lambda t=full_name: ros.probe.count_publishers(t) > 0, 30.0):
                    raise TimeoutError(f'{name}: nothing published on {topic}')
        time.sleep(1.0)  # discovery settles
        for name, client in mode_clients.items():
            answer = call(client, mode_request(OperationMode.AUTONOMOUS))
            assert answer.success, f'{name}: {answer.message}'
        lost = dict.fromkeys(TARGETS, 0)
        measure(targets, 50, lost)  # warm up
        lost = dict.fromkeys(TARGETS, 0)
        latencies = measure(targets, samples, lost)
    finally:
        ros.shutdown()
        folder.cleanup()
    return latencies, lost


def report_figures(samples: int, latencies: Dict[str, List[float]], lost: Dict[str, int],
                   core: Dict[str, List[float]]) -> Dict[str, Any]:
    """Print the tables and ratios; return the report."""
    ms = 1000.0
    report: Dict[str, Any] = {'samples': samples, 'stream_rate_hz': STREAM_RATE,
                              'inputs_eight': 2 + len(ADDED_INPUTS), 'locks_eight': 1,
                              'lost': lost}
    labels = {'relay': 'bare relay', 'two': 'mux, shipped two inputs',
              'idle': 'mux, 8 inputs, only the lock streaming',
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
    for name in ('idle', 'eight'):
        for q in ('p50', 'p99'):
            report[f'ratio_{name}_two_{q}'] = (report[f'command_{name}_ms'][q]
                                               / report['command_two_ms'][q])
    print_table('robot_control_mux input selection vs bare rclpy relay (ms)', rows)
    core_rows = []
    core_labels = {'two': 'the shipped two inputs', 'eight': 'eight inputs and a lock'}
    for name in ('two', 'eight'):
        stats = summary(core[name], 1e6)
        report[f'core_command_{name}_us'] = stats
        core_rows.append({'measure': f'ControlMux.command, {core_labels[name]}', **stats})
    report['ratio_core_eight_two_p50'] = (report['core_command_eight_us']['p50']
                                          / report['core_command_two_us']['p50'])
    print_table('the selection alone, in the core (µs per command, median of batches)',
                core_rows)
    print(f"core: 8 inputs and a lock / two inputs: p50 {report['ratio_core_eight_two_p50']:.2f}x")
    for name in MUXES:
        print(f'{labels[name]} / bare relay: '
              f"p50 {report[f'ratio_{name}_relay_p50']:.2f}x, "
              f"p99 {report[f'ratio_{name}_relay_p99']:.2f}x (target p50 <= 1.1x)")
    for name in ('idle', 'eight'):
        print(f'{labels[name]} / two inputs: '
              f"p50 {report[f'ratio_{name}_two_p50']:.2f}x, "
              f"p99 {report[f'ratio_{name}_two_p99']:.2f}x")
    print(f'lost (no output within 2 s): {lost}')
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--samples', type=int, default=1000, help='commands per node')
    options = parser.parse_args()
    latencies, lost = measure_nodes(options.samples)
    report = report_figures(options.samples, latencies, lost, measure_core())
    print(f"saved {save('bench_mux_inputs', report)}")
    return 0


if __name__ == '__main__':
    if len(sys.argv) > 1 and sys.argv[1] == 'relay':
        sys.exit(run_node(BareRelay, sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == 'load':
        sys.exit(run_node(Load, sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == 'lock':
        sys.exit(run_node(LockHeartbeat, sys.argv[2:]))
    sys.exit(main())
